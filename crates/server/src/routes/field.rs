//! Routes of the field group ("field" as in the farm's field, not a record's field): scouting, scouting measures, waypoints, adversities, progress, field controls,
//! silobags, weather, IoT devices and events. Reads are the v2-only adversity catalogues and v3 lists that each have a
//! `/{id}` detail, so an integrator can re-read one record it was told about; writes are silobag campaign rows,
//! devices and device events, the creates the specification lists.

use axum::extract::State;
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use domain::field::{NewDevice, NewReadings, NewSilobagCampaign, Reading};
use serde_json::json;
use store::resources::field::{
    Adversities, AdversityCategories, AdversityKinds, ClimaticFactors, DeviceEventTypes, DeviceEvents, Devices,
    FertilizationControls, HarvestProgress, PlantStandControls, PlantingControls, PlantingProgress, ProgressReports,
    ScoutingMeasures, Scoutings, SilobagCampaigns, Silobags, Waypoints, WeatherAnomalies, WeatherAnomalyTypes,
};
use store::Resource;
use wire::field::{Device, DeviceEvent, NewDeviceEvents, SilobagCampaign};

use super::resources::{created, with_references};
use super::table::{ApiTable, Custom};
use crate::error::ApiError;
use crate::extract::{ApiJson, Caller, V2, V3};
use crate::i18n::Msg;
use crate::openapi::{self, Security};
use crate::AppState;

const TAG: &str = "Field";

/// Registers the field group's routes.
pub fn register(mut table: ApiTable) -> ApiTable {
    let silobag_campaign = table.schema::<SilobagCampaign>();
    let new_silobag_campaign = table.schema::<wire::field::NewSilobagCampaign>();
    let device = table.schema::<Device>();
    let new_device = table.schema::<wire::field::NewDevice>();
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
    ApiJson(body): ApiJson<wire::field::NewSilobagCampaign>,
) -> Result<impl IntoResponse, ApiError> {
    check_api_key(&state, &caller, &headers).await?;
    let command = NewSilobagCampaign {
        silobag_id: body.silobag_id,
        campaign_id: body.campaign_id,
        quantity_tn: body.quantity_tn,
        grain_humidity_percent: body.grain_humidity_percent,
        grain_quality_semaphore: body.grain_quality_semaphore,
        observations: body.observations.unwrap_or_default(),
    };
    let refused = |r| ApiError::refusal(r, SilobagCampaigns::SPEC.name, "");
    if let Err(broken) = command.check() {
        let references = state.store.silobag_campaign_references(&caller.scope, &command);
        return Err(refused(
            with_references(broken, references, NewSilobagCampaign::FIELDS).await,
        ));
    }
    let created = state
        .store
        .create_silobag_campaign(&caller.scope, &command)
        .await?
        .map_err(refused)?;
    Ok(Json(created))
}

/// `POST /api/v3/third_party/devices`: 201 with the stored device and its `Location`.
async fn create_device(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<wire::field::NewDevice>,
) -> Result<impl IntoResponse, ApiError> {
    let command = NewDevice {
        name: body.name,
        kind: body.kind,
        serial_number: body.serial_number,
        establishment_id: body.establishment_id,
        silobag_id: body.silobag_id,
        latitude: body.latitude,
        longitude: body.longitude,
        active: body.active.unwrap_or(true),
    };
    let refused = |r| ApiError::refusal(r, Devices::SPEC.name, "");
    let kind = match command.check() {
        Ok(kind) => kind,
        Err(broken) => {
            let references = state.store.device_references(&caller.scope, &command);
            return Err(refused(with_references(broken, references, NewDevice::FIELDS).await));
        }
    };
    let device = state
        .store
        .create_device(&caller.scope, &command, kind)
        .await?
        .map_err(refused)?;
    Ok(created("/api/v3/third_party/devices", device.id, device))
}

/// The readings a device-events body carries, in the order sent.
fn readings(body: NewDeviceEvents) -> NewReadings {
    let (events, batch) = match body {
        NewDeviceEvents::One(event) => (vec![event], false),
        NewDeviceEvents::Many(events) => (events, true),
    };
    let readings = events
        .into_iter()
        .map(|event| Reading {
            device_id: event.device_id,
            device_event_type_id: event.device_event_type_id,
            recorded_at: event.recorded_at.0.to_utc(),
            value: event.value,
        })
        .collect();
    NewReadings { readings, batch }
}

/// `POST /api/v3/third_party/device_events`: one reading or a batch, stored all or none; 201 with a single object
/// (and its `Location`) for a single object, an array in the sent order for an array.
async fn create_device_events(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<NewDeviceEvents>,
) -> Result<Response, ApiError> {
    let command = readings(body);
    let refused = |r| ApiError::refusal(r, DeviceEvents::SPEC.name, "");
    command.check().map_err(refused)?;
    let mut stored = state
        .store
        .create_device_events(&caller.scope, &command)
        .await?
        .map_err(refused)?;
    Ok(match (command.batch, stored.pop()) {
        (false, Some(event)) => created("/api/v3/third_party/device_events", event.id, event).into_response(),
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
