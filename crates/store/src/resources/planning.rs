//! Land and planning: plots (v2), tags, species, cycles, planting times, master campaigns, campaigns, cultivations, products (formulateds, formulation types, units), statuses and states, external systems.

use std::sync::Arc;

use crate::list::{ListSpec, Related, Resource, Scoping};
use crate::sql::{Arg, IdSet, Sql};
use crate::{resource, row_by_position, Render, Store, StoreError};

/// `GET /api/v2/third_party/plots` and `GET /api/v2/plots`: the v2 plot list. A plot's creator is joined in and its
/// tags are read from the denormalised `tags_json`; its establishment and farmer are read for the whole page at once
/// ([`Related`]). Written by hand rather than with [`resource!`](crate::resource) for that second read only.
pub struct PlotsV2;

row_by_position! {
    /// One row of the v2 plot list as its page statement selects it.
    #[derive(Debug)]
    pub struct PlotV2Row {
        pub(crate) id: i64,
        pub(crate) name: String,
        pub(crate) area: f64,
        pub(crate) external_code: Option<String>,
        pub(crate) establishment_id: i64,
        pub(crate) created_by_id: Option<i64>,
        pub(crate) created_by_name: Option<String>,
        pub(crate) created_by_lastname: Option<String>,
        pub(crate) created_by_fullname: Option<String>,
        pub(crate) created_at: i64,
        pub(crate) tags: String,
    }
}

impl Resource for PlotsV2 {
    type Row = PlotV2Row;
    type Item = wire::planning::PlotV2;
    type Related = Arc<PlotOwner>;
    const SPEC: ListSpec = ListSpec {
        name: "plots",
        from: "plots t LEFT JOIN users u ON u.society_id = t.society_id AND u.id = t.created_by",
        columns: "t.id AS id, t.name AS name, t.area AS area, t.external_code AS external_code, \
                  t.establishment_id AS establishment_id, u.id AS created_by_id, u.name AS created_by_name, \
                  u.lastname AS created_by_lastname, \
                  TRIM(u.name || ' ' || COALESCE(u.lastname, '')) AS created_by_fullname, \
                  t.created_at AS created_at, t.tags_json AS tags",
        scoping: Scoping::Society,
        condition: None,
        created: Some("t.created_at"),
        updated: Some("t.updated_at"),
        deleted: Some("t.deleted_at"),
        active: Some("t.active"),
    };

    fn render(row: PlotV2Row, owner: Arc<PlotOwner>, render: &Render) -> wire::planning::PlotV2 {
        wire::planning::PlotV2 {
            id: row.id,
            name: row.name,
            area: format!("{:.2}", row.area),
            external_code: row.external_code,
            farmer_id: owner.farmer_id,
            farmer_name: owner.farmer_name.clone(),
            establishment_id: row.establishment_id,
            establishment_name: owner.name.clone(),
            created_by_id: row.created_by_id,
            created_by_name: row.created_by_name,
            created_by_lastname: row.created_by_lastname,
            created_by_fullname: row.created_by_fullname,
            created_at: render.plain(row.created_at),
            tags: row.tags,
        }
    }

    fn id(row: &PlotV2Row) -> i64 {
        row.id
    }
}

/// An establishment a v2 plot belongs to, with its farmer.
#[derive(Debug)]
pub struct PlotOwner {
    establishment_id: i64,
    name: String,
    farmer_id: i64,
    farmer_name: String,
}

row_by_position! {
    /// An establishment as [`owners_statement`] reads it: its farmer's name is `None` when the farmer is not found.
    #[derive(Debug)]
    struct OwnerRow {
        establishment_id: i64,
        name: String,
        farmer_id: i64,
        farmer_name: Option<String>,
    }
}

impl OwnerRow {
    fn found(self) -> Option<PlotOwner> {
        Some(PlotOwner {
            establishment_id: self.establishment_id,
            name: self.name,
            farmer_id: self.farmer_id,
            farmer_name: self.farmer_name?,
        })
    }
}

/// A page of v2 plots reads its establishments, each with its farmer, in one statement: by their ids' range when they
/// are a dense run (plots are made establishment by establishment, so a page's usually are), else by their ids, in
/// padded lists ([`IdSet::padded`]) so that pages naming from 9 to 16 establishments share one statement. A plot whose
/// establishment or farmer is not found is left out, as the joins this replaces left it out.
impl Related<PlotV2Row> for Arc<PlotOwner> {
    async fn pair(store: &Store, society_id: i64, rows: Vec<PlotV2Row>) -> Result<Vec<(PlotV2Row, Self)>, StoreError> {
        let mut ids: Vec<i64> = rows.iter().map(|row| row.establishment_id).collect();
        ids.sort_unstable();
        ids.dedup();
        let mut owners = Vec::with_capacity(ids.len());
        let statements = IdSet::chunked(&ids)
            .into_iter()
            .map(|set| owners_statement(society_id, &set.padded()));
        for sql in statements {
            let rows = store.select_rows::<OwnerRow>(&sql).await?;
            owners.extend(rows.into_iter().filter_map(OwnerRow::found).map(Arc::new));
        }
        owners.sort_unstable_by_key(|owner| owner.establishment_id);
        Ok(rows
            .into_iter()
            .filter_map(|row| {
                let at = owners
                    .binary_search_by_key(&row.establishment_id, |owner| owner.establishment_id)
                    .ok()?;
                let owner = Arc::clone(owners.get(at)?);
                Some((row, owner))
            })
            .collect())
    }
}

/// The establishments in `ids`, each with its farmer's id and name. The farmer's name is a subquery rather than a
/// join: PostgreSQL's generic plan for the join, which a prepared statement settles on after five runs, hashed every
/// farmer of the society for each page, where the subquery looks each one up by the farmers' key.
fn owners_statement(society_id: i64, ids: &IdSet) -> Sql {
    let mut sql = Sql::default();
    sql.push(
        "SELECT e.id, e.name, e.farmer_id, (SELECT TRIM(f.name || ' ' || COALESCE(f.lastname, '')) FROM farmers f \
         WHERE f.society_id = $1 AND f.id = e.farmer_id) FROM establishments e WHERE e.society_id = ",
    )
    .arg(Arg::Int(society_id))
    .push(" AND e.id");
    ids.complete(&mut sql);
    sql
}

resource! {
    /// `GET /api/v3/third_party/master_campaign_cycles[/{id}]`: the caller's country's cycles.
    MasterCampaignCycles, MasterCampaignCycleRow => wire::planning::MasterCampaignCycle {
        name: "master_campaign_cycles",
        from: "master_campaign_cycles t",
        scoping: Country,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            start_date: String = "t.start_date" => plain,
            end_date: String = "t.end_date" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/planting_times[/{id}]`: the caller's country's planting times.
    PlantingTimes, PlantingTimeRow => wire::planning::PlantingTime {
        name: "planting_times",
        from: "planting_times t",
        scoping: Country,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            description: String = "t.description" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/formulateds[/{id}]`: the caller's country's products. The shape has no creation or
    /// deletion instant, but both filters still apply to the stored columns, so incremental sync sees deletions.
    Formulateds, FormulatedRow => wire::planning::Formulated {
        name: "formulateds",
        from: "formulateds t",
        scoping: Country,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            external_code: String = "t.external_code" => plain,
            active_ingredient: String = "t.active_ingredient" => plain,
            formulation_type_id: i64 = "t.formulation_type_id" => plain,
            unit_id: i64 = "t.unit_id" => plain,
            active: bool = "t.active" => plain,
            updated_at: i64 = "t.updated_at" => at,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/cultivation_species[/{id}]`: the crop species catalogue (table `species`).
    CultivationSpecies, CultivationSpeciesRow => wire::planning::CultivationSpecies {
        name: "cultivation_species",
        from: "species t",
        scoping: Global,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            name_pt: String = "t.name_pt" => plain,
            scientific_name: String = "t.scientific_name" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/formulation_types[/{id}]`.
    FormulationTypes, FormulationTypeRow => wire::planning::FormulationType {
        name: "formulation_types",
        from: "formulation_types t",
        scoping: Global,
        audit: standard,
        fields {
            code: String = "t.code" => plain,
            name: String = "t.name" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/units[/{id}]`.
    Units, UnitRow => wire::planning::Unit {
        name: "units",
        from: "units t",
        scoping: Global,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            abbreviation: String = "t.abbreviation" => plain,
            kind: String = "t.kind" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/activity_statuses[/{id}]`: where a campaign stands.
    ActivityStatuses, ActivityStatusRow => wire::planning::NamedState {
        name: "activity_statuses",
        from: "activity_statuses t",
        scoping: Global,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            description: String = "t.description" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/hydric_states[/{id}]`: the soil water states scouting records.
    HydricStates, HydricStateRow => wire::planning::NamedState {
        name: "hydric_states",
        from: "hydric_states t",
        scoping: Global,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            description: String = "t.description" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/phenological_states[/{id}]`: each species' growth scale.
    PhenologicalStates, PhenologicalStateRow => wire::planning::PhenologicalState {
        name: "phenological_states",
        from: "phenological_states t",
        scoping: Global,
        audit: standard,
        fields {
            cultivation_id: i64 = "t.species_id" => plain,
            code: String = "t.code" => plain,
            name: String = "t.name" => plain,
            position: i64 = "t.position" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/tags[/{id}]`: the society's plot tags, groups and values alike.
    Tags, TagRow => wire::planning::Tag {
        name: "tags",
        from: "tags t",
        scoping: Society,
        audit: standard,
        fields {
            parent_id: Option<i64> = "t.parent_id" => plain,
            name: String = "t.name" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/master_campaigns[/{id}]`.
    MasterCampaigns, MasterCampaignRow => wire::planning::MasterCampaign {
        name: "master_campaigns",
        from: "master_campaigns t",
        scoping: Society,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            cultivation_id: i64 = "t.species_id" => plain,
            planting_time_id: i64 = "t.planting_time_id" => plain,
            cycle_id: i64 = "t.cycle_id" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/campaigns[/{id}]`.
    Campaigns, CampaignRow => wire::planning::Campaign {
        name: "campaigns",
        from: "campaigns t",
        scoping: Society,
        audit: standard,
        fields {
            master_campaign_id: i64 = "t.master_campaign_id" => plain,
            plot_id: i64 = "t.plot_id" => plain,
            name: String = "t.name" => plain,
            external_code: Option<String> = "t.external_code" => plain,
            area: f64 = "t.area" => hectares,
            planting_date: Option<String> = "t.planting_date" => plain,
            objective_yield: Option<f64> = "t.objective_yield" => plain,
            activity_status_id: Option<i64> = "t.activity_status_id" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/cultivations[/{id}]`: per-plot sown rows, exactly the specification's shape.
    Cultivations, CultivationRow => wire::planning::Cultivation {
        name: "cultivations",
        from: "cultivations t",
        scoping: Society,
        audit: standard,
        fields {
            plot_id: i64 = "t.plot_id" => plain,
            campaign_id: i64 = "t.campaign_id" => plain,
            formulated_id: i64 = "t.formulated_id" => plain,
            area: f64 = "t.area" => hectares,
            active: bool = "t.active" => plain,
            updated_at: i64 = "t.updated_at" => at,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/external_systems[/{id}]`.
    ExternalSystems, ExternalSystemRow => wire::planning::ExternalSystem {
        name: "external_systems",
        from: "external_systems t",
        scoping: Society,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            description: String = "t.description" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/external_plot_associations[/{id}]`.
    ExternalPlotAssociations, ExternalPlotAssociationRow => wire::planning::ExternalPlotAssociation {
        name: "external_plot_associations",
        from: "external_plot_associations t",
        scoping: Society,
        audit: standard,
        fields {
            plot_id: i64 = "t.plot_id" => plain,
            external_system_id: i64 = "t.external_system_id" => plain,
            external_id: String = "t.external_id" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}
