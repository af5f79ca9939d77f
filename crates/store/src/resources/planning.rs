//! Land and planning: plots (v2), tags, species, cycles, planting times, master campaigns, campaigns, cultivations, products (formulateds, formulation types, units), statuses and states, external systems.

use crate::resource;

resource! {
    /// `GET /api/v2/third_party/plots` and `GET /api/v2/plots`: the v2 plot list, with its owners and creator
    /// joined in and its tags read from the denormalised `tags_json`, so the list costs one row per plot.
    PlotsV2, PlotV2Row => wire::planning::PlotV2 {
        name: "plots",
        from: "plots t \
               JOIN establishments e ON e.society_id = t.society_id AND e.id = t.establishment_id \
               JOIN farmers f ON f.society_id = e.society_id AND f.id = e.farmer_id \
               LEFT JOIN users u ON u.society_id = t.society_id AND u.id = t.created_by",
        scoping: Society,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            area: f64 = "t.area" => hectares_text,
            external_code: Option<String> = "t.external_code" => plain,
            farmer_id: i64 = "f.id" => plain,
            farmer_name: String = "TRIM(f.name || ' ' || COALESCE(f.lastname, ''))" => plain,
            establishment_id: i64 = "e.id" => plain,
            establishment_name: String = "e.name" => plain,
            created_by_id: Option<i64> = "u.id" => plain,
            created_by_name: Option<String> = "u.name" => plain,
            created_by_lastname: Option<String> = "u.lastname" => plain,
            created_by_fullname: Option<String> = "TRIM(u.name || ' ' || COALESCE(u.lastname, ''))" => plain,
            created_at: i64 = "t.created_at" => plain_at,
            tags: String = "t.tags_json" => plain,
        }
    }
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
