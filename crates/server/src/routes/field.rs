//! Routes of the field group: scouting, scouting measures, waypoints, adversities, progress, field controls,
//! silobags, weather, IoT devices and events. Reads are the v2-only adversity catalogues and v3 lists that each have a
//! `/{id}` detail, so an integrator can re-read one record it was told about; writes are silobag campaign rows,
//! devices and device events, the creates the specification lists.

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use store::resources::field::{
    Adversities, AdversityCategories, AdversityKinds, ClimaticFactors, DeviceEventTypes, DeviceEvents, Devices,
    FertilizationControls, HarvestProgress, PlantStandControls, PlantingControls, PlantingProgress, ProgressReports,
    ScoutingMeasures, Scoutings, SilobagCampaigns, Silobags, Waypoints, WeatherAnomalies, WeatherAnomalyTypes,
};
use store::resources::field_writes::{FieldRefusal, MAX_DEVICE_EVENTS};
use store::resources::Refusal;
use store::Resource;
use wire::field::{NewDevice, NewDeviceEvents, NewSilobagCampaign};

use super::{detail, list};
use crate::error::ApiError;
use crate::extract::{ApiJson, Caller, V2, V3};
use crate::i18n::Msg;
use crate::AppState;

/// How many failing items a batch refusal names; the rest are counted, so a batch of 10,000 bad readings does not
/// answer a megabyte of messages.
const NAMED_FAILURES: usize = 20;

/// The field group's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v2/third_party/adversity", get(list::<Adversities, V2>))
        .route(
            "/api/v2/third_party/adversity_categories",
            get(list::<AdversityCategories, V2>),
        )
        .route("/api/v2/third_party/adversity_kinds", get(list::<AdversityKinds, V2>))
        .route("/api/v3/third_party/scouting", get(list::<Scoutings, V3>))
        .route("/api/v3/third_party/scouting/{id}", get(detail::<Scoutings>))
        .route(
            "/api/v3/third_party/scouting_measures",
            get(list::<ScoutingMeasures, V3>),
        )
        .route(
            "/api/v3/third_party/scouting_measures/{id}",
            get(detail::<ScoutingMeasures>),
        )
        .route("/api/v3/third_party/waypoints", get(list::<Waypoints, V3>))
        .route("/api/v3/third_party/waypoints/{id}", get(detail::<Waypoints>))
        .route("/api/v3/third_party/progress_report", get(list::<ProgressReports, V3>))
        .route(
            "/api/v3/third_party/progress_report/{id}",
            get(detail::<ProgressReports>),
        )
        .route(
            "/api/v3/third_party/planting_progress",
            get(list::<PlantingProgress, V3>),
        )
        .route(
            "/api/v3/third_party/planting_progress/{id}",
            get(detail::<PlantingProgress>),
        )
        .route("/api/v3/third_party/harvest_progress", get(list::<HarvestProgress, V3>))
        .route(
            "/api/v3/third_party/harvest_progress/{id}",
            get(detail::<HarvestProgress>),
        )
        .route(
            "/api/v3/third_party/fertilization_control",
            get(list::<FertilizationControls, V3>),
        )
        .route(
            "/api/v3/third_party/fertilization_control/{id}",
            get(detail::<FertilizationControls>),
        )
        .route(
            "/api/v3/third_party/planting_control",
            get(list::<PlantingControls, V3>),
        )
        .route(
            "/api/v3/third_party/planting_control/{id}",
            get(detail::<PlantingControls>),
        )
        .route(
            "/api/v3/third_party/plant_stand_control",
            get(list::<PlantStandControls, V3>),
        )
        .route(
            "/api/v3/third_party/plant_stand_control/{id}",
            get(detail::<PlantStandControls>),
        )
        .route("/api/v3/third_party/silobags", get(list::<Silobags, V3>))
        .route("/api/v3/third_party/silobags/{id}", get(detail::<Silobags>))
        .route(
            "/api/v3/third_party/silobag_campaigns",
            get(list::<SilobagCampaigns, V3>).post(create_silobag_campaign),
        )
        .route(
            "/api/v3/third_party/silobag_campaigns/{id}",
            get(detail::<SilobagCampaigns>),
        )
        .route("/api/v3/third_party/weather_anomaly", get(list::<WeatherAnomalies, V3>))
        .route(
            "/api/v3/third_party/weather_anomaly/{id}",
            get(detail::<WeatherAnomalies>),
        )
        .route(
            "/api/v3/third_party/weather_anomaly_types",
            get(list::<WeatherAnomalyTypes, V3>),
        )
        .route(
            "/api/v3/third_party/weather_anomaly_types/{id}",
            get(detail::<WeatherAnomalyTypes>),
        )
        .route("/api/v3/third_party/climatic_factors", get(list::<ClimaticFactors, V3>))
        .route(
            "/api/v3/third_party/climatic_factors/{id}",
            get(detail::<ClimaticFactors>),
        )
        .route(
            "/api/v3/third_party/devices",
            get(list::<Devices, V3>).post(create_device),
        )
        .route("/api/v3/third_party/devices/{id}", get(detail::<Devices>))
        .route(
            "/api/v3/third_party/device_events",
            get(list::<DeviceEvents, V3>).post(create_device_events),
        )
        .route("/api/v3/third_party/device_events/{id}", get(detail::<DeviceEvents>))
        .route(
            "/api/v3/third_party/device_event_types",
            get(list::<DeviceEventTypes, V3>),
        )
        .route(
            "/api/v3/third_party/device_event_types/{id}",
            get(detail::<DeviceEventTypes>),
        )
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
        FieldRefusal::Common(Refusal::UnknownReference { field, id }) => Msg::UnknownReference { field, id },
        FieldRefusal::Common(Refusal::NotFound) => Msg::NotFound {
            resource,
            id: String::new(),
        },
        FieldRefusal::Common(Refusal::HasDependants { resource, count }) => Msg::HasDependants { resource, count },
        FieldRefusal::OutOfRange { field, min, max } => Msg::OutOfRange { field, min, max },
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
