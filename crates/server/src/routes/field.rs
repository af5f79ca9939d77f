//! Routes of the field group: scouting, scouting measures, waypoints, adversities, progress, field controls,
//! silobags, weather, IoT devices and events. All reads: the v2-only adversity catalogues, and v3 lists that each
//! have a `/{id}` detail, so an integrator can re-read one record it was told about.

use axum::routing::get;
use axum::Router;
use store::resources::field::{
    Adversities, AdversityCategories, AdversityKinds, ClimaticFactors, DeviceEventTypes, DeviceEvents, Devices,
    FertilizationControls, HarvestProgress, PlantStandControls, PlantingControls, PlantingProgress, ProgressReports,
    ScoutingMeasures, Scoutings, SilobagCampaigns, Silobags, Waypoints, WeatherAnomalies, WeatherAnomalyTypes,
};

use super::{detail, list};
use crate::extract::{V2, V3};
use crate::AppState;

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
            get(list::<SilobagCampaigns, V3>),
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
        .route("/api/v3/third_party/devices", get(list::<Devices, V3>))
        .route("/api/v3/third_party/devices/{id}", get(detail::<Devices>))
        .route("/api/v3/third_party/device_events", get(list::<DeviceEvents, V3>))
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
