//! Routes of the field group: scouting, scouting measures, waypoints, adversities, progress, field controls,
//! silobags, weather, IoT devices and events. Reads are the v2-only adversity catalogues and v3 lists that each have a
//! `/{id}` detail, so an integrator can re-read one record it was told about; writes are silobag campaign rows,
//! devices and device events, the creates the specification lists.

use axum::extract::State;
use axum::http::{header, HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use store::resources::field::{
    Adversities, AdversityCategories, AdversityKinds, ClimaticFactors, DeviceEventTypes, DeviceEvents, Devices,
    FertilizationControls, HarvestProgress, PlantStandControls, PlantingControls, PlantingProgress, ProgressReports,
    ScoutingMeasures, Scoutings, SilobagCampaigns, Silobags, Waypoints, WeatherAnomalies, WeatherAnomalyTypes,
};
use store::resources::field_writes::{FieldRefusal, MAX_DEVICE_EVENTS};
use store::resources::Refusal;
use store::Resource;
use wire::field::{Device, DeviceEvent, NewDevice, NewDeviceEvents, NewSilobagCampaign, SilobagCampaign};

use super::table::{ApiTable, Custom};
use crate::error::ApiError;
use crate::extract::{ApiJson, Caller, V2, V3};
use crate::i18n::Msg;
use crate::openapi::{self, Security};
use crate::AppState;

/// How many failing items a batch refusal names; the rest are counted, so a batch of 10,000 bad readings does not
/// answer a megabyte of messages.
const NAMED_FAILURES: usize = 20;

const TAG: &str = "Field";

/// Registers the field group's routes.
pub fn register(mut table: ApiTable) -> ApiTable {
    let silobag_campaign = table.schema::<SilobagCampaign>();
    let new_silobag_campaign = table.schema::<NewSilobagCampaign>();
    let device = table.schema::<Device>();
    let new_device = table.schema::<NewDevice>();
    let event = table.schema::<DeviceEvent>();
    let new_events = table.schema::<NewDeviceEvents>();
    table
        .custom(
            Method::POST,
            "/api/v3/third_party/silobag_campaigns",
            create_silobag_campaign,
            Custom {
                summary: "Create a silobag campaign row (optional X-SVC-APIKEY)",
                tag: TAG,
                parameters: vec![],
                body: Some((new_silobag_campaign, Some(json!({"silobag_id": 12, "campaign_id": 340, "quantity_tn": 180.5,
                    "grain_humidity_percent": 13.5, "grain_quality_semaphore": 1, "observations": "Cierre en buen estado"})))),
                success: (200, silobag_campaign),
                security: Security::Caller,
            },
        )
        .custom(
            Method::POST,
            "/api/v3/third_party/devices",
            create_device,
            Custom {
                summary: "Create an IoT device",
                tag: TAG,
                parameters: vec![],
                body: Some((new_device, Some(json!({"name": "Estación La Esperanza", "kind": "weather_station",
                    "serial_number": "WS-2231-0042", "establishment_id": 3, "latitude": -36.61, "longitude": -64.29})))),
                success: (201, device),
                security: Security::Caller,
            },
        )
        .custom(
            Method::POST,
            "/api/v3/third_party/device_events",
            create_device_events,
            Custom {
                summary: "Store one device event or a batch of up to 10,000, all or nothing",
                tag: TAG,
                parameters: vec![],
                body: Some((new_events, Some(json!([{"device_id": 4, "device_event_type_id": 1,
                    "recorded_at": "2025-11-02T14:00:00-03:00", "value": 24.6}])))),
                success: (201, openapi::one_or_array_of(event)),
                security: Security::Caller,
            },
        )
        .list::<Adversities, V2>("/api/v2/third_party/adversity", TAG)
        .list::<AdversityCategories, V2>("/api/v2/third_party/adversity_categories", TAG)
        .list::<AdversityKinds, V2>("/api/v2/third_party/adversity_kinds", TAG)
        .resource::<Scoutings, V3>("/api/v3/third_party/scouting", TAG)
        .resource::<ScoutingMeasures, V3>("/api/v3/third_party/scouting_measures", TAG)
        .resource::<Waypoints, V3>("/api/v3/third_party/waypoints", TAG)
        .resource::<ProgressReports, V3>("/api/v3/third_party/progress_report", TAG)
        .resource::<PlantingProgress, V3>("/api/v3/third_party/planting_progress", TAG)
        .resource::<HarvestProgress, V3>("/api/v3/third_party/harvest_progress", TAG)
        .resource::<FertilizationControls, V3>("/api/v3/third_party/fertilization_control", TAG)
        .resource::<PlantingControls, V3>("/api/v3/third_party/planting_control", TAG)
        .resource::<PlantStandControls, V3>("/api/v3/third_party/plant_stand_control", TAG)
        .resource::<Silobags, V3>("/api/v3/third_party/silobags", TAG)
        .resource::<SilobagCampaigns, V3>("/api/v3/third_party/silobag_campaigns", TAG)
        .resource::<WeatherAnomalies, V3>("/api/v3/third_party/weather_anomaly", TAG)
        .resource::<WeatherAnomalyTypes, V3>("/api/v3/third_party/weather_anomaly_types", TAG)
        .resource::<ClimaticFactors, V3>("/api/v3/third_party/climatic_factors", TAG)
        .resource::<Devices, V3>("/api/v3/third_party/devices", TAG)
        .resource::<DeviceEvents, V3>("/api/v3/third_party/device_events", TAG)
        .resource::<DeviceEventTypes, V3>("/api/v3/third_party/device_event_types", TAG)
}

/// `POST /api/v3/third_party/silobag_campaigns`: 200 with the stored row, as the specification says. The optional
/// API-key header, when sent, must be a live key of the caller's society.
async fn create_silobag_campaign(
    State(state): State<AppState>,
    caller: Caller,
    headers: HeaderMap,
    ApiJson(body): ApiJson<NewSilobagCampaign>,
) -> Result<impl IntoResponse, ApiError> {
    check_api_key(&state, &caller, &headers).await?;
    let created = state
        .store
        .create_silobag_campaign(&caller.scope, &body)
        .await?
        .map_err(|r| refused(r, SilobagCampaigns::SPEC.name))?;
    Ok(Json(created))
}

/// `POST /api/v3/third_party/devices`: 201 with the stored device and its `Location`.
async fn create_device(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<NewDevice>,
) -> Result<impl IntoResponse, ApiError> {
    let created = state
        .store
        .create_device(&caller.scope, &body)
        .await?
        .map_err(|r| refused(r, Devices::SPEC.name))?;
    let location = format!("/api/v3/third_party/devices/{}", created.id);
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(created)))
}

/// `POST /api/v3/third_party/device_events`: one reading or a batch, stored all or none; 201 with a single object
/// (and its `Location`) for a single object, an array in the sent order for an array.
async fn create_device_events(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<NewDeviceEvents>,
) -> Result<Response, ApiError> {
    let items = body.items();
    if items.len() > MAX_DEVICE_EVENTS {
        let msg = Msg::TooManyItems {
            sent: items.len(),
            max: MAX_DEVICE_EVENTS,
        };
        return Err(ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, msg));
    }
    let mut stored = match state.store.create_device_events(&caller.scope, items).await? {
        Ok(stored) => stored,
        // A single object's refusal is its own message, without a batch index.
        Err(FieldRefusal::Items(mut failures)) if matches!(body, NewDeviceEvents::One(_)) && failures.len() == 1 => {
            let (_, refusal) = failures.remove(0);
            return Err(refused(refusal, DeviceEvents::SPEC.name));
        }
        Err(refusal) => return Err(refused(refusal, DeviceEvents::SPEC.name)),
    };
    Ok(match (body, stored.pop()) {
        (NewDeviceEvents::One(_), Some(event)) => {
            let location = format!("/api/v3/third_party/device_events/{}", event.id);
            (StatusCode::CREATED, [(header::LOCATION, location)], Json(event)).into_response()
        }
        (_, last) => {
            stored.extend(last);
            (StatusCode::CREATED, Json(stored)).into_response()
        }
    })
}

/// When the request carries the API-key header, it must be a live key of the caller's society (401 otherwise);
/// without it, the bearer token suffices.
async fn check_api_key(state: &AppState, caller: &Caller, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(&state.headers.api_key) else {
        return Ok(());
    };
    let valid = match value.to_str() {
        Ok(key) => state.store.api_key_is_valid(&caller.scope, key.trim()).await?,
        Err(_) => false,
    };
    if valid {
        Ok(())
    } else {
        let name = state.headers.api_key.as_str().to_ascii_uppercase();
        Err(ApiError::unauthorized(Msg::InvalidApiKey(name)))
    }
}

/// A refused field write: the shared rules keep their statuses; the field group's own are 422.
fn refused(refusal: FieldRefusal, resource: &'static str) -> ApiError {
    match refusal {
        FieldRefusal::Common(refusal) => ApiError::refusal(refusal, resource, ""),
        other => ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, message(other, resource)),
    }
}

/// What a refusal says, also when it is one item of a batch.
fn message(refusal: FieldRefusal, resource: &'static str) -> Msg {
    match refusal {
        FieldRefusal::Common(Refusal::Blank(field)) => Msg::Blank(field),
        FieldRefusal::Common(Refusal::NotPositive(field)) => Msg::NotPositive(field),
        FieldRefusal::Common(Refusal::OutOfRange { field, min, max })
        | FieldRefusal::OutOfRange { field, min, max } => Msg::OutOfRange { field, min, max },
        FieldRefusal::Common(Refusal::UnknownReference { field, id }) => Msg::UnknownReference { field, id },
        FieldRefusal::Common(Refusal::NotFound) => Msg::NotFound {
            resource,
            id: String::new(),
        },
        FieldRefusal::Common(Refusal::HasDependants { resource, count }) => Msg::HasDependants { resource, count },
        FieldRefusal::NotOneOf { field, allowed } => Msg::NotOneOf { field, allowed },
        FieldRefusal::RequiredForKind { field, kind } => Msg::RequiredForKind { field, kind },
        FieldRefusal::NotForKind { field, kind } => Msg::NotForKind { field, kind },
        FieldRefusal::SilobagElsewhere {
            silobag_id,
            establishment_id,
        } => Msg::SilobagElsewhere {
            silobag_id,
            establishment_id,
        },
        FieldRefusal::Items(failures) => Msg::InvalidItems {
            total: failures.len(),
            failures: failures
                .into_iter()
                .take(NAMED_FAILURES)
                .map(|(index, refusal)| (index, message(refusal, resource)))
                .collect(),
        },
    }
}
