//! Routes of the planning group: plots (v2), tags, species, cycles, planting times, master campaigns, campaigns,
//! cultivations, products (formulateds, formulation types, units), statuses and states, external systems.

use store::resources::planning::{
    ActivityStatuses, Campaigns, CultivationSpecies, Cultivations, ExternalPlotAssociations, ExternalSystems,
    Formulateds, FormulationTypes, HydricStates, MasterCampaignCycles, MasterCampaigns, PhenologicalStates,
    PlantingTimes, PlotsV2, Tags, Units,
};

use super::table::ApiTable;
use crate::extract::{V2, V3};

const TAG: &str = "Planning and catalogues";

/// Registers the planning group's routes.
pub fn register(table: ApiTable) -> ApiTable {
    table
        .list::<PlotsV2, V2>("/api/v2/third_party/plots", TAG)
        .list::<PlotsV2, V2>("/api/v2/plots", TAG)
        .resource::<MasterCampaignCycles, V3>("/api/v3/third_party/master_campaign_cycles", TAG)
        .resource::<PlantingTimes, V3>("/api/v3/third_party/planting_times", TAG)
        .resource::<Formulateds, V3>("/api/v3/third_party/formulateds", TAG)
        .resource::<CultivationSpecies, V3>("/api/v3/third_party/cultivation_species", TAG)
        .resource::<FormulationTypes, V3>("/api/v3/third_party/formulation_types", TAG)
        .resource::<Units, V3>("/api/v3/third_party/units", TAG)
        .resource::<ActivityStatuses, V3>("/api/v3/third_party/activity_statuses", TAG)
        .resource::<HydricStates, V3>("/api/v3/third_party/hydric_states", TAG)
        .resource::<PhenologicalStates, V3>("/api/v3/third_party/phenological_states", TAG)
        .resource::<Tags, V3>("/api/v3/third_party/tags", TAG)
        .resource::<MasterCampaigns, V3>("/api/v3/third_party/master_campaigns", TAG)
        .resource::<Campaigns, V3>("/api/v3/third_party/campaigns", TAG)
        .resource::<Cultivations, V3>("/api/v3/third_party/cultivations", TAG)
        .resource::<ExternalSystems, V3>("/api/v3/third_party/external_systems", TAG)
        .resource::<ExternalPlotAssociations, V3>("/api/v3/third_party/external_plot_associations", TAG)
}
