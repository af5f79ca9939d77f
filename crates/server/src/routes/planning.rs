//! Routes of the planning group: plots (v2), tags, species, cycles, planting times, master campaigns, campaigns,
//! cultivations, products (formulateds, formulation types, units), statuses and states, external systems.

use axum::routing::get;
use axum::Router;
use store::resources::planning::{
    ActivityStatuses, Campaigns, CultivationSpecies, Cultivations, ExternalPlotAssociations, ExternalSystems,
    Formulateds, FormulationTypes, HydricStates, MasterCampaignCycles, MasterCampaigns, PhenologicalStates,
    PlantingTimes, PlotsV2, Tags, Units,
};

use super::{detail, list};
use crate::extract::{V2, V3};
use crate::AppState;

/// The planning group's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        // The spec names two paths for the one v2 plot list; it has no detail in any generation.
        .route("/api/v2/third_party/plots", get(list::<PlotsV2, V2>))
        .route("/api/v2/plots", get(list::<PlotsV2, V2>))
        .route(
            "/api/v3/third_party/master_campaign_cycles",
            get(list::<MasterCampaignCycles, V3>),
        )
        .route(
            "/api/v3/third_party/master_campaign_cycles/{id}",
            get(detail::<MasterCampaignCycles>),
        )
        .route("/api/v3/third_party/planting_times", get(list::<PlantingTimes, V3>))
        .route("/api/v3/third_party/planting_times/{id}", get(detail::<PlantingTimes>))
        .route("/api/v3/third_party/formulateds", get(list::<Formulateds, V3>))
        .route("/api/v3/third_party/formulateds/{id}", get(detail::<Formulateds>))
        .route(
            "/api/v3/third_party/cultivation_species",
            get(list::<CultivationSpecies, V3>),
        )
        .route(
            "/api/v3/third_party/cultivation_species/{id}",
            get(detail::<CultivationSpecies>),
        )
        .route(
            "/api/v3/third_party/formulation_types",
            get(list::<FormulationTypes, V3>),
        )
        .route(
            "/api/v3/third_party/formulation_types/{id}",
            get(detail::<FormulationTypes>),
        )
        .route("/api/v3/third_party/units", get(list::<Units, V3>))
        .route("/api/v3/third_party/units/{id}", get(detail::<Units>))
        .route(
            "/api/v3/third_party/activity_statuses",
            get(list::<ActivityStatuses, V3>),
        )
        .route(
            "/api/v3/third_party/activity_statuses/{id}",
            get(detail::<ActivityStatuses>),
        )
        .route("/api/v3/third_party/hydric_states", get(list::<HydricStates, V3>))
        .route("/api/v3/third_party/hydric_states/{id}", get(detail::<HydricStates>))
        .route(
            "/api/v3/third_party/phenological_states",
            get(list::<PhenologicalStates, V3>),
        )
        .route(
            "/api/v3/third_party/phenological_states/{id}",
            get(detail::<PhenologicalStates>),
        )
        .route("/api/v3/third_party/tags", get(list::<Tags, V3>))
        .route("/api/v3/third_party/tags/{id}", get(detail::<Tags>))
        .route("/api/v3/third_party/master_campaigns", get(list::<MasterCampaigns, V3>))
        .route(
            "/api/v3/third_party/master_campaigns/{id}",
            get(detail::<MasterCampaigns>),
        )
        .route("/api/v3/third_party/campaigns", get(list::<Campaigns, V3>))
        .route("/api/v3/third_party/campaigns/{id}", get(detail::<Campaigns>))
        .route("/api/v3/third_party/cultivations", get(list::<Cultivations, V3>))
        .route("/api/v3/third_party/cultivations/{id}", get(detail::<Cultivations>))
        .route("/api/v3/third_party/external_systems", get(list::<ExternalSystems, V3>))
        .route(
            "/api/v3/third_party/external_systems/{id}",
            get(detail::<ExternalSystems>),
        )
        .route(
            "/api/v3/third_party/external_plot_associations",
            get(list::<ExternalPlotAssociations, V3>),
        )
        .route(
            "/api/v3/third_party/external_plot_associations/{id}",
            get(detail::<ExternalPlotAssociations>),
        )
}
