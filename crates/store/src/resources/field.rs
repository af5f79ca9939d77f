//! The field: scouting, scouting measures, waypoints, adversities, progress, field controls, silobags, weather, IoT
//! devices and events. All read-only through the API, each declared once over its table; progress and field controls
//! are one table each, sliced by `kind` into the endpoints the platform names.
//!
//! The slices are `ListSpec::condition`s on `kind`, which lists and `find` both apply, so
//! `planting_progress/{id}` of a harvest record is a 404 and lists use the `(society_id, kind, id)` indexes.

use crate::{resource, slice_of};

resource! {
    /// `GET /api/v3/third_party/scouting[/{id}]`.
    Scoutings, ScoutingRow => wire::field::Scouting {
        name: "scouting",
        from: "scoutings t",
        scoping: Society,
        audit: standard,
        fields {
            plot_id: i64 = "t.plot_id" => plain,
            campaign_id: Option<i64> = "t.campaign_id" => plain,
            kind: String = "t.kind" => plain,
            date: i64 = "t.date" => at,
            scout_name: String = "t.scout_name" => plain,
            phenological_state_id: Option<i64> = "t.phenological_state_id" => plain,
            hydric_state_id: Option<i64> = "t.hydric_state_id" => plain,
            observations: Option<String> = "t.observations" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/scouting_measures[/{id}]`.
    ScoutingMeasures, ScoutingMeasureRow => wire::field::ScoutingMeasure {
        name: "scouting_measures",
        from: "scouting_measures t",
        scoping: Society,
        audit: standard,
        fields {
            scouting_id: i64 = "t.scouting_id" => plain,
            adversity_id: i64 = "t.adversity_id" => plain,
            sample_number: i64 = "t.sample_number" => plain,
            incidence_percent: f64 = "t.incidence_percent" => plain,
            severity_percent: Option<f64> = "t.severity_percent" => plain,
            individuals: Option<i64> = "t.individuals" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/waypoints[/{id}]`.
    Waypoints, WaypointRow => wire::field::Waypoint {
        name: "waypoints",
        from: "waypoints t",
        scoping: Society,
        audit: standard,
        fields {
            parent_id: i64 = "t.parent_id" => plain,
            parent_type: String = "t.parent_type" => plain,
            sample_number: i64 = "t.sample_number" => plain,
            waypoint_kind: String = "t.waypoint_kind" => plain,
            lat: Option<String> = "t.lat" => plain,
            lon: Option<String> = "t.lon" => plain,
            accuracy: String = "t.accuracy" => plain,
            observations: Option<String> = "t.observations" => plain,
            file_name: String = "t.file_name" => plain,
            file_storage_url: String = "t.file_storage_url" => plain,
            date: i64 = "t.date" => at,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v2/third_party/adversity`.
    Adversities, AdversityRow => wire::field::Adversity {
        name: "adversity",
        from: "adversities t",
        scoping: Global,
        audit: standard,
        fields {
            adv_kind_id: i64 = "t.adv_kind_id" => plain,
            adv_category_id: i64 = "t.adv_category_id" => plain,
            name: String = "t.name" => plain,
            scientific_name: String = "t.scientific_name" => plain,
            modified_at: i64 = "t.updated_at" => at,
        }
    }
}

resource! {
    /// `GET /api/v2/third_party/adversity_categories`.
    AdversityCategories, AdversityCategoryRow => wire::field::AdversityCategory {
        name: "adversity_categories",
        from: "adversity_categories t",
        scoping: Global,
        audit: standard,
        fields {
            adv_kind_id: i64 = "t.adv_kind_id" => plain,
            name: String = "t.name" => plain,
            description: String = "t.description" => plain,
            modified_at: i64 = "t.updated_at" => at,
        }
    }
}

resource! {
    /// `GET /api/v2/third_party/adversity_kinds`.
    AdversityKinds, AdversityKindRow => wire::field::AdversityKind {
        name: "adversity_kinds",
        from: "adversity_kinds t",
        scoping: Global,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            modified_at: i64 = "t.updated_at" => at,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/progress_report[/{id}]`: planting and harvest together.
    ProgressReports, ProgressReportRow => wire::field::Progress {
        name: "progress_report",
        from: "progress t",
        scoping: Society,
        audit: standard,
        fields {
            kind: String = "t.kind" => plain,
            campaign_id: i64 = "t.campaign_id" => plain,
            plot_id: i64 = "t.plot_id" => plain,
            date: i64 = "t.date" => at,
            area_done: f64 = "t.area_done" => hectares,
            percent: f64 = "t.percent" => plain,
            yield_kg_ha: Option<f64> = "t.yield_kg_ha" => plain,
            humidity_percent: Option<f64> = "t.humidity_percent" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

slice_of! {
    /// `GET /api/v3/third_party/planting_progress[/{id}]`.
    PlantingProgress = ProgressReports, "planting_progress" where "t.kind = 'planting'"
}

slice_of! {
    /// `GET /api/v3/third_party/harvest_progress[/{id}]`.
    HarvestProgress = ProgressReports, "harvest_progress" where "t.kind = 'harvest'"
}

resource! {
    /// `GET /api/v3/third_party/fertilization_control[/{id}]`.
    FertilizationControls, FertilizationControlRow => wire::field::FieldControl {
        name: "fertilization_control",
        from: "field_controls t",
        scoping: Society,
        condition: "t.kind = 'fertilization'",
        audit: standard,
        fields {
            kind: String = "t.kind" => plain,
            campaign_id: i64 = "t.campaign_id" => plain,
            plot_id: i64 = "t.plot_id" => plain,
            date: i64 = "t.date" => at,
            formulated_id: Option<i64> = "t.formulated_id" => plain,
            unit_id: i64 = "t.unit_id" => plain,
            target_value: f64 = "t.target_value" => plain,
            measured_value: f64 = "t.measured_value" => plain,
            observations: Option<String> = "t.observations" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

slice_of! {
    /// `GET /api/v3/third_party/planting_control[/{id}]`.
    PlantingControls = FertilizationControls, "planting_control" where "t.kind = 'planting'"
}

slice_of! {
    /// `GET /api/v3/third_party/plant_stand_control[/{id}]`.
    PlantStandControls = FertilizationControls, "plant_stand_control" where "t.kind = 'plant_stand'"
}

resource! {
    /// `GET /api/v3/third_party/silobags[/{id}]`.
    Silobags, SilobagRow => wire::field::Silobag {
        name: "silobags",
        from: "silobags t",
        scoping: Society,
        audit: standard,
        fields {
            establishment_id: i64 = "t.establishment_id" => plain,
            cultivation_id: i64 = "t.species_id" => plain,
            name: String = "t.name" => plain,
            external_code: Option<String> = "t.external_code" => plain,
            capacity_tn: f64 = "t.capacity_tn" => plain,
            length_m: f64 = "t.length_m" => plain,
            latitude: Option<f64> = "t.latitude" => plain,
            longitude: Option<f64> = "t.longitude" => plain,
            closed_at: Option<i64> = "t.closed_at" => at_opt,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/silobag_campaigns[/{id}]`.
    SilobagCampaigns, SilobagCampaignRow => wire::field::SilobagCampaign {
        name: "silobag_campaigns",
        from: "silobag_campaigns t",
        scoping: Society,
        audit: standard,
        fields {
            silobag_id: i64 = "t.silobag_id" => plain,
            campaign_id: i64 = "t.campaign_id" => plain,
            quantity_tn: f64 = "t.quantity_tn" => plain,
            grain_humidity_percent: f64 = "t.grain_humidity_percent" => plain,
            grain_quality_semaphore: i64 = "t.grain_quality_semaphore" => plain,
            observations: String = "t.observations" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/weather_anomaly[/{id}]`.
    WeatherAnomalies, WeatherAnomalyRow => wire::field::WeatherAnomaly {
        name: "weather_anomaly",
        from: "weather_anomalies t",
        scoping: Society,
        audit: standard,
        fields {
            weather_anomaly_type_id: i64 = "t.weather_anomaly_type_id" => plain,
            weather_scouting_sample_id: i64 = "t.weather_scouting_sample_id" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
            active: bool = "t.active" => plain,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/weather_anomaly_types[/{id}]`.
    WeatherAnomalyTypes, WeatherAnomalyTypeRow => wire::field::WeatherAnomalyType {
        name: "weather_anomaly_types",
        from: "weather_anomaly_types t",
        scoping: Global,
        audit: standard,
        fields {
            climatic_factor_id: i64 = "t.climatic_factor_id" => plain,
            name: String = "t.name" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/climatic_factors[/{id}]`.
    ClimaticFactors, ClimaticFactorRow => wire::field::ClimaticFactor {
        name: "climatic_factors",
        from: "climatic_factors t",
        scoping: Global,
        audit: standard,
        fields {
            name: String = "t.name" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/devices[/{id}]`.
    Devices, DeviceRow => wire::field::Device {
        name: "devices",
        from: "devices t",
        scoping: Society,
        audit: standard,
        fields {
            establishment_id: Option<i64> = "t.establishment_id" => plain,
            silobag_id: Option<i64> = "t.silobag_id" => plain,
            name: String = "t.name" => plain,
            kind: String = "t.kind" => plain,
            serial_number: String = "t.serial_number" => plain,
            latitude: Option<f64> = "t.latitude" => plain,
            longitude: Option<f64> = "t.longitude" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/device_events[/{id}]`.
    DeviceEvents, DeviceEventRow => wire::field::DeviceEvent {
        name: "device_events",
        from: "device_events t",
        scoping: Society,
        audit: standard,
        fields {
            device_id: i64 = "t.device_id" => plain,
            device_event_type_id: i64 = "t.device_event_type_id" => plain,
            recorded_at: i64 = "t.recorded_at" => at,
            value: f64 = "t.value" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

resource! {
    /// `GET /api/v3/third_party/device_event_types[/{id}]`.
    DeviceEventTypes, DeviceEventTypeRow => wire::field::DeviceEventType {
        name: "device_event_types",
        from: "device_event_types t",
        scoping: Global,
        audit: standard,
        fields {
            code: String = "t.code" => plain,
            name: String = "t.name" => plain,
            unit_id: i64 = "t.unit_id" => plain,
            active: bool = "t.active" => plain,
            created_at: i64 = "t.created_at" => at,
            modified_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}
