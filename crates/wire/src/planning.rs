//! Land and planning: plots (v2), tags, species, cycles, planting times, master campaigns, campaigns, cultivations, products (formulateds, formulation types, units), statuses and states, external systems.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::{PlainTimestamp, Timestamp};

/// A plot in the v2 list (`GET /api/v2/third_party/plots`, `GET /api/v2/plots`), field for field and type for type
/// as the specification gives it, quirks included: `area` and `tags` are strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlotV2 {
    /// Plot id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Decimal hectares with two decimals, as a string (e.g. `"125.40"`).
    pub area: String,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Owning farmer.
    pub farmer_id: i64,
    /// Owning farmer's display name (name and last name).
    pub farmer_name: String,
    /// Owning establishment.
    pub establishment_id: i64,
    /// Owning establishment's name.
    pub establishment_name: String,
    /// Creating user; null when the plot was not created by a known user.
    pub created_by_id: Option<i64>,
    /// Creating user's first name.
    pub created_by_name: Option<String>,
    /// Creating user's last name.
    pub created_by_lastname: Option<String>,
    /// Creating user's first and last name.
    pub created_by_fullname: Option<String>,
    /// Creation, `YYYY-MM-DD HH:MM:SS` in the society's local time, without offset.
    pub created_at: PlainTimestamp,
    /// A JSON-encoded array of [`PlotTag`], e.g. `"[{\"tag_id\":3,\"tag_name\":\"Norte\",\"tag_parent_id\":1,\"tag_parent_name\":\"Zona\"}]"`.
    #[schema(example = "[{\"tag_id\":3,\"tag_name\":\"Norte\",\"tag_parent_id\":1,\"tag_parent_name\":\"Zona\"}]")]
    pub tags: String,
}

/// One element of a v2 plot's `tags` string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct PlotTag {
    /// Tag id.
    pub tag_id: i64,
    /// Tag name.
    pub tag_name: String,
    /// Parent tag (the tag's group, e.g. `Zona`); null for a top-level tag.
    pub tag_parent_id: Option<i64>,
    /// Parent tag's name.
    pub tag_parent_name: Option<String>,
}

impl PlotTag {
    /// The v2 `tags` string of a plot carrying `tags`.
    pub fn encode(tags: &[PlotTag]) -> String {
        serde_json::to_string(tags).unwrap_or_else(|_| "[]".to_owned())
    }
}

/// A master campaign cycle, the shared season window (`GET /api/v3/third_party/master_campaign_cycles`); a
/// per-country catalogue, since campaign cycles vary by country.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MasterCampaignCycle {
    /// Cycle id.
    pub id: i64,
    /// Name, e.g. `2025/2026`.
    pub name: String,
    /// First day of the window, `YYYY-MM-DD`.
    pub start_date: String,
    /// Last day of the window, `YYYY-MM-DD`.
    pub end_date: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A planting time, e.g. first or second crop (`GET /api/v3/third_party/planting_times`); a per-country catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlantingTime {
    /// Planting time id.
    pub id: i64,
    /// Name, e.g. `Primera`.
    pub name: String,
    /// Description; may be empty.
    pub description: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A formulated product (`GET /api/v3/third_party/formulateds`): exactly the specification's fields; a per-country
/// catalogue, since registered products differ by country.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Formulated {
    /// Internal id.
    pub id: i64,
    /// Commercial name.
    pub name: String,
    /// Catalogue code.
    pub external_code: String,
    /// Active ingredient.
    pub active_ingredient: String,
    /// Formulation type (`/api/v3/third_party/formulation_types`).
    pub formulation_type_id: i64,
    /// Unit of measure (`/api/v3/third_party/units`).
    pub unit_id: i64,
    /// Active flag.
    pub active: bool,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
}

/// A crop species (`GET /api/v3/third_party/cultivation_species`): the global catalogue the specification's
/// vocabulary calls cultivations, whose ids are the `cultivation_id` of master campaigns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CultivationSpecies {
    /// Species id.
    pub id: i64,
    /// Name in Spanish, e.g. `Soja`.
    pub name: String,
    /// Name in Portuguese, e.g. `Soja`.
    pub name_pt: String,
    /// Scientific name, e.g. `Glycine max`.
    pub scientific_name: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A formulation type, e.g. emulsifiable concentrate (`GET /api/v3/third_party/formulation_types`); global.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FormulationType {
    /// Formulation type id.
    pub id: i64,
    /// Standard code, e.g. `EC`, `SC`, `WG`.
    pub code: String,
    /// Name.
    pub name: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A unit of measure (`GET /api/v3/third_party/units`); a global catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Unit {
    /// Unit id.
    pub id: i64,
    /// Name, e.g. `Litro`.
    pub name: String,
    /// Abbreviation, e.g. `l`.
    pub abbreviation: String,
    /// What it measures: `volume`, `mass`, `area`, `count`, `rate`, `temperature`, `percent`, `length`.
    pub kind: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A named global state, the shape shared by activity statuses (`/api/v3/third_party/activity_statuses`) and hydric
/// states (`/api/v3/third_party/hydric_states`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NamedState {
    /// Id.
    pub id: i64,
    /// Name, e.g. `En curso` or `Sequía`.
    pub name: String,
    /// Description; may be empty.
    pub description: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A phenological state of a species, e.g. `V3` or `R1` (`GET /api/v3/third_party/phenological_states`); global.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PhenologicalState {
    /// Id.
    pub id: i64,
    /// The species it belongs to (`/api/v3/third_party/cultivation_species`), named as master campaigns name it.
    pub cultivation_id: i64,
    /// Scale code, e.g. `V3`.
    pub code: String,
    /// Name.
    pub name: String,
    /// Order within the species' scale, from sowing on.
    pub position: i64,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A society's plot tag (`GET /api/v3/third_party/tags`); tags form a two-level hierarchy of groups and values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Tag {
    /// Tag id.
    pub id: i64,
    /// Parent tag (its group); null for a group.
    pub parent_id: Option<i64>,
    /// Name.
    pub name: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A master campaign, the planning (`GET /api/v3/third_party/master_campaigns`): name + species + planting time +
/// cycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct MasterCampaign {
    /// Master campaign id.
    pub id: i64,
    /// Name, e.g. `Soja 1ra 2025/2026`.
    pub name: String,
    /// Crop species (`/api/v3/third_party/cultivation_species`).
    pub cultivation_id: i64,
    /// Planting time (`/api/v3/third_party/planting_times`).
    pub planting_time_id: i64,
    /// Cycle (`/api/v3/third_party/master_campaign_cycles`).
    pub cycle_id: i64,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A campaign, the productive instance of a planning in a plot (`GET /api/v3/third_party/campaigns`); its id is what
/// work-order lines carry as `cultivation.local_id`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Campaign {
    /// Campaign id.
    pub id: i64,
    /// Its planning (`/api/v3/third_party/master_campaigns`).
    pub master_campaign_id: i64,
    /// The plot it is in.
    pub plot_id: i64,
    /// Name.
    pub name: String,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Hectares.
    pub area: f64,
    /// Planting date, `YYYY-MM-DD`; null while not planted.
    pub planting_date: Option<String>,
    /// Objective yield, tonnes per hectare; null when not set.
    pub objective_yield: Option<f64>,
    /// Activity status (`/api/v3/third_party/activity_statuses`); null when not set.
    pub activity_status_id: Option<i64>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A cultivation, what is sown in a campaign (`GET /api/v3/third_party/cultivations`): exactly the specification's
/// fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Cultivation {
    /// Internal id.
    pub id: i64,
    /// Associated plot.
    pub plot_id: i64,
    /// Associated campaign.
    pub campaign_id: i64,
    /// Variety/species (`/api/v3/third_party/formulateds`).
    pub formulated_id: i64,
    /// Hectares.
    pub area: f64,
    /// Active flag.
    pub active: bool,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
}

/// An external system a society's plots are mapped to, e.g. an ERP (`GET /api/v3/third_party/external_systems`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExternalSystem {
    /// Id.
    pub id: i64,
    /// Name, e.g. `SAP Business One`.
    pub name: String,
    /// Description; may be empty.
    pub description: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A plot's identity in an external system (`GET /api/v3/third_party/external_plot_associations`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ExternalPlotAssociation {
    /// Id.
    pub id: i64,
    /// The plot.
    pub plot_id: i64,
    /// The external system (`/api/v3/third_party/external_systems`).
    pub external_system_id: i64,
    /// The plot's id in that system.
    pub external_id: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plot_tags_encode_to_the_v2_string() {
        let tags = [PlotTag {
            tag_id: 3,
            tag_name: "Norte".into(),
            tag_parent_id: Some(1),
            tag_parent_name: Some("Zona".into()),
        }];
        assert_eq!(
            PlotTag::encode(&tags),
            r#"[{"tag_id":3,"tag_name":"Norte","tag_parent_id":1,"tag_parent_name":"Zona"}]"#
        );
        assert_eq!(PlotTag::encode(&[]), "[]");
    }
}
