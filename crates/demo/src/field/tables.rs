//! The tables of a society's season in the field, gathered before they are written, and the ids of the rows
//! other rows point at.

use store::admin::AdminError;
use store::Store;

use crate::rows::{Ids, Table};

/// The columns of `scoutings`, in the order its rows give them.
const SCOUTINGS_COLUMNS: &[&str] = &[
    "id",
    "society_id",
    "plot_id",
    "campaign_id",
    "kind",
    "date",
    "scout_name",
    "phenological_state_id",
    "hydric_state_id",
    "observations",
    "active",
    "created_at",
    "updated_at",
    "deleted_at",
];

/// The columns of `scouting_measures`, in the order its rows give them.
const MEASURES_COLUMNS: &[&str] = &[
    "society_id",
    "scouting_id",
    "adversity_id",
    "sample_number",
    "incidence_percent",
    "severity_percent",
    "individuals",
    "active",
    "created_at",
    "updated_at",
    "deleted_at",
];

/// The columns of `waypoints`, in the order its rows give them.
const WAYPOINTS_COLUMNS: &[&str] = &[
    "society_id",
    "parent_id",
    "parent_type",
    "sample_number",
    "waypoint_kind",
    "lat",
    "lon",
    "accuracy",
    "observations",
    "file_name",
    "file_storage_url",
    "date",
    "active",
    "created_at",
    "updated_at",
    "deleted_at",
];

/// The columns of `progress`, in the order its rows give them.
const PROGRESS_COLUMNS: &[&str] = &[
    "society_id",
    "kind",
    "campaign_id",
    "plot_id",
    "date",
    "area_done",
    "percent",
    "yield_kg_ha",
    "humidity_percent",
    "created_at",
    "updated_at",
];

/// The columns of `field_controls`, in the order its rows give them.
const CONTROLS_COLUMNS: &[&str] = &[
    "society_id",
    "kind",
    "campaign_id",
    "plot_id",
    "date",
    "formulated_id",
    "unit_id",
    "target_value",
    "measured_value",
    "created_at",
    "updated_at",
];

/// The columns of `silobags`, in the order its rows give them.
const SILOBAGS_COLUMNS: &[&str] = &[
    "id",
    "society_id",
    "establishment_id",
    "species_id",
    "name",
    "external_code",
    "capacity_tn",
    "length_m",
    "latitude",
    "longitude",
    "closed_at",
    "created_at",
    "updated_at",
];

/// The columns of `silobag_campaigns`, in the order its rows give them.
const SILOBAG_CAMPAIGNS_COLUMNS: &[&str] = &[
    "society_id",
    "silobag_id",
    "campaign_id",
    "quantity_tn",
    "grain_humidity_percent",
    "grain_quality_semaphore",
    "observations",
    "created_at",
    "updated_at",
];

/// The columns of `weather_samples`, in the order its rows give them.
const SAMPLES_COLUMNS: &[&str] = &[
    "id",
    "society_id",
    "plot_id",
    "date",
    "observations",
    "active",
    "created_at",
    "updated_at",
    "deleted_at",
];

/// The columns of `weather_anomalies`, in the order its rows give them.
const ANOMALIES_COLUMNS: &[&str] = &[
    "society_id",
    "weather_anomaly_type_id",
    "weather_scouting_sample_id",
    "active",
    "created_at",
    "updated_at",
    "deleted_at",
];

/// The columns of `devices`, in the order its rows give them.
const DEVICES_COLUMNS: &[&str] = &[
    "id",
    "society_id",
    "establishment_id",
    "silobag_id",
    "name",
    "kind",
    "serial_number",
    "latitude",
    "longitude",
    "created_at",
    "updated_at",
];

/// The columns of `device_events`, in the order its rows give them.
const READINGS_COLUMNS: &[&str] = &[
    "society_id",
    "device_id",
    "device_event_type_id",
    "recorded_at",
    "value",
    "created_at",
    "updated_at",
];

/// The season's tables, and the ids of the rows others point at.
pub(super) struct Season {
    pub scouting_ids: Ids,
    pub silobag_ids: Ids,
    pub sample_ids: Ids,
    pub device_ids: Ids,
    pub scoutings: Table,
    pub measures: Table,
    pub waypoints: Table,
    pub progress: Table,
    pub controls: Table,
    pub silobags: Table,
    pub silobag_campaigns: Table,
    pub samples: Table,
    pub anomalies: Table,
    pub devices: Table,
    pub readings: Table,
}

impl Season {
    pub async fn new(store: &Store) -> Result<Self, AdminError> {
        Ok(Self {
            scouting_ids: Ids::of(store, "scoutings").await?,
            silobag_ids: Ids::of(store, "silobags").await?,
            sample_ids: Ids::of(store, "weather_samples").await?,
            device_ids: Ids::of(store, "devices").await?,
            scoutings: Table::new("scoutings", SCOUTINGS_COLUMNS),
            measures: Table::new("scouting_measures", MEASURES_COLUMNS),
            waypoints: Table::new("waypoints", WAYPOINTS_COLUMNS),
            progress: Table::new("progress", PROGRESS_COLUMNS),
            controls: Table::new("field_controls", CONTROLS_COLUMNS),
            silobags: Table::new("silobags", SILOBAGS_COLUMNS),
            silobag_campaigns: Table::new("silobag_campaigns", SILOBAG_CAMPAIGNS_COLUMNS),
            samples: Table::new("weather_samples", SAMPLES_COLUMNS),
            anomalies: Table::new("weather_anomalies", ANOMALIES_COLUMNS),
            devices: Table::new("devices", DEVICES_COLUMNS),
            readings: Table::new("device_events", READINGS_COLUMNS),
        })
    }

    /// Writes every table, parents first.
    pub async fn write(self, store: &Store) -> Result<(), AdminError> {
        for table in [
            self.scoutings,
            self.measures,
            self.waypoints,
            self.progress,
            self.controls,
            self.silobags,
            self.silobag_campaigns,
            self.samples,
            self.anomalies,
            self.devices,
            self.readings,
        ] {
            table.write(store).await?;
        }
        Ok(())
    }
}
