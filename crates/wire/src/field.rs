//! The field: scouting, scouting measures, waypoints, adversities, progress, field controls, silobags, weather, IoT
//! devices and events.
//!
//! Every shape of this group names its last modification `modified_at`, as the two items of the group the
//! specification shows (waypoint, weather anomaly) and the v2 adversity category do.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// A scouting (field monitoring visit) of a plot (`GET /api/v3/third_party/scouting`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Scouting {
    /// Scouting id.
    pub id: i64,
    /// The plot walked.
    pub plot_id: i64,
    /// The campaign (crop) of the plot that was scouted; null for a scouting of a fallow plot.
    pub campaign_id: Option<i64>,
    /// What was monitored: `pests`, `diseases`, `weeds` or `general`.
    pub kind: String,
    /// When the plot was walked.
    pub date: Timestamp,
    /// Who walked it.
    pub scout_name: String,
    /// The crop's phenological state observed (`phenological_states`), if recorded.
    pub phenological_state_id: Option<i64>,
    /// The soil's hydric state observed (`hydric_states`), if recorded.
    pub hydric_state_id: Option<i64>,
    /// Free text.
    pub observations: Option<String>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// One measure of an adversity in a scouting sample (`GET /api/v3/third_party/scouting_measures`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ScoutingMeasure {
    /// Measure id.
    pub id: i64,
    /// The scouting it was taken in.
    pub scouting_id: i64,
    /// The adversity measured (`adversity`).
    pub adversity_id: i64,
    /// The sample (stop) of the scouting, from 1.
    pub sample_number: i64,
    /// Share of plants affected, 0–100.
    pub incidence_percent: f64,
    /// Share of tissue damaged, 0–100; null where severity does not apply (e.g. weeds, counted pests).
    pub severity_percent: Option<f64>,
    /// Individuals counted (e.g. insects per metre), where counted.
    pub individuals: Option<i64>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A geolocated attachment of a scouting record (`GET /api/v3/third_party/waypoints[/{id}]`), exactly the
/// specification's item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Waypoint {
    /// Waypoint id.
    pub id: i64,
    /// Id of the owning record.
    pub parent_id: i64,
    /// Type of the owning record: `trap_scoutings` or `scoutings`.
    pub parent_type: String,
    /// Sample number.
    pub sample_number: i64,
    /// Kind of waypoint: `picture`.
    pub waypoint_kind: String,
    /// Latitude, a decimal string.
    pub lat: Option<String>,
    /// Longitude, a decimal string.
    pub lon: Option<String>,
    /// Accuracy of the position in metres, a decimal string.
    pub accuracy: String,
    /// Free text.
    pub observations: Option<String>,
    /// File name of the attachment.
    pub file_name: String,
    /// URL of the stored file.
    pub file_storage_url: String,
    /// Capture time.
    pub date: Timestamp,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// An adversity: a pest, disease or weed (`GET /api/v2/third_party/adversity`); a global catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Adversity {
    /// Adversity id.
    pub id: i64,
    /// Its kind (`adversity_kinds`).
    pub adv_kind_id: i64,
    /// Its category (`adversity_categories`).
    pub adv_category_id: i64,
    /// Common name, e.g. `Chinche verde`.
    pub name: String,
    /// Scientific name, e.g. `Nezara viridula`; may be empty.
    pub scientific_name: String,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
}

/// A category of adversities (`GET /api/v2/third_party/adversity_categories`), exactly the specification's item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AdversityCategory {
    /// Category id.
    pub id: i64,
    /// The kind it belongs to (`adversity_kinds`).
    pub adv_kind_id: i64,
    /// Name, e.g. `Lepidópteros`.
    pub name: String,
    /// Description; may be empty.
    pub description: String,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
}

/// A kind of adversity: pest, disease or weed (`GET /api/v2/third_party/adversity_kinds`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct AdversityKind {
    /// Kind id.
    pub id: i64,
    /// Name, e.g. `Plaga`.
    pub name: String,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
}

/// A planting or harvest progress record of a campaign (`GET /api/v3/third_party/progress_report`,
/// `planting_progress`, `harvest_progress`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Progress {
    /// Record id.
    pub id: i64,
    /// `planting` or `harvest`.
    pub kind: String,
    /// The campaign progressed.
    pub campaign_id: i64,
    /// The campaign's plot.
    pub plot_id: i64,
    /// When the progress was recorded.
    pub date: Timestamp,
    /// Hectares planted (or harvested) so far.
    pub area_done: f64,
    /// Share of the campaign's area done so far, 0–100.
    pub percent: f64,
    /// Harvest yield so far in kg/ha; null for planting.
    pub yield_kg_ha: Option<f64>,
    /// Grain humidity at harvest in percent; null for planting.
    pub humidity_percent: Option<f64>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A field control: a measured value against its target (`GET /api/v3/third_party/fertilization_control`,
/// `planting_control`, `plant_stand_control`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FieldControl {
    /// Control id.
    pub id: i64,
    /// `fertilization`, `planting` or `plant_stand`.
    pub kind: String,
    /// The campaign controlled.
    pub campaign_id: i64,
    /// The campaign's plot.
    pub plot_id: i64,
    /// When the control was made.
    pub date: Timestamp,
    /// The product controlled (fertiliser, seed), if any (`formulateds`).
    pub formulated_id: Option<i64>,
    /// Unit of both values (`units`), e.g. kg/ha, seeds per metre, plants per hectare.
    pub unit_id: i64,
    /// The planned value.
    pub target_value: f64,
    /// The value measured in the field.
    pub measured_value: f64,
    /// Free text.
    pub observations: Option<String>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A silobag: grain stored in the field (`GET /api/v3/third_party/silobags[/{id}]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Silobag {
    /// Silobag id.
    pub id: i64,
    /// The establishment it lies in.
    pub establishment_id: i64,
    /// The crop species stored (`/api/v3/third_party/cultivation_species`), named as master campaigns name it.
    pub cultivation_id: i64,
    /// Name, e.g. `Silo 3 - Soja`.
    pub name: String,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Capacity in tons.
    pub capacity_tn: f64,
    /// Length in metres.
    pub length_m: f64,
    /// Latitude in decimal degrees.
    pub latitude: Option<f64>,
    /// Longitude in decimal degrees.
    pub longitude: Option<f64>,
    /// When it was closed (filled and sealed); null while being filled.
    pub closed_at: Option<Timestamp>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// Grain of one campaign stored in a silobag (`GET /api/v3/third_party/silobag_campaigns[/{id}]`): the create
/// body's fields plus id and audit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct SilobagCampaign {
    /// Row id.
    pub id: i64,
    /// The silobag.
    pub silobag_id: i64,
    /// The campaign the grain was harvested from.
    pub campaign_id: i64,
    /// Quantity in tons.
    pub quantity_tn: f64,
    /// Grain humidity in percent.
    pub grain_humidity_percent: f64,
    /// Grain quality indicator: 1 good (green), 2 watch (yellow), 3 at risk (red).
    pub grain_quality_semaphore: i64,
    /// Free text; may be empty.
    pub observations: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A weather anomaly observed in a weather scouting sample (`GET /api/v3/third_party/weather_anomaly[/{id}]`),
/// exactly the specification's item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WeatherAnomaly {
    /// Anomaly id.
    pub id: i64,
    /// Its type (`weather_anomaly_types`).
    pub weather_anomaly_type_id: i64,
    /// The weather scouting sample it was observed in.
    pub weather_scouting_sample_id: i64,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
    /// Active flag.
    pub active: bool,
}

/// A type of weather anomaly, e.g. `Granizo severo` (`GET /api/v3/third_party/weather_anomaly_types`); global.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WeatherAnomalyType {
    /// Type id.
    pub id: i64,
    /// The climatic factor it is an anomaly of (`climatic_factors`).
    pub climatic_factor_id: i64,
    /// Name.
    pub name: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A climatic factor, e.g. `Granizo`, `Helada` (`GET /api/v3/third_party/climatic_factors`); global.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ClimaticFactor {
    /// Factor id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// An IoT device: a weather station or a silobag sensor (`GET /api/v3/third_party/devices[/{id}]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Device {
    /// Device id.
    pub id: i64,
    /// The establishment it is installed in, if any.
    pub establishment_id: Option<i64>,
    /// The silobag it monitors, for silobag sensors.
    pub silobag_id: Option<i64>,
    /// Name.
    pub name: String,
    /// `weather_station` or `silobag_sensor`.
    pub kind: String,
    /// The maker's serial number.
    pub serial_number: String,
    /// Latitude in decimal degrees.
    pub latitude: Option<f64>,
    /// Longitude in decimal degrees.
    pub longitude: Option<f64>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// One reading of a device (`GET /api/v3/third_party/device_events[/{id}]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeviceEvent {
    /// Event id.
    pub id: i64,
    /// The device that read it.
    pub device_id: i64,
    /// What was read (`device_event_types`), which also gives the unit.
    pub device_event_type_id: i64,
    /// When it was read.
    pub recorded_at: Timestamp,
    /// The value read, in the event type's unit.
    pub value: f64,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A kind of reading, e.g. air temperature in °C (`GET /api/v3/third_party/device_event_types`); global.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct DeviceEventType {
    /// Type id.
    pub id: i64,
    /// Stable code, e.g. `temperature`.
    pub code: String,
    /// Name.
    pub name: String,
    /// Unit of the readings (`units`).
    pub unit_id: i64,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// `POST /api/v3/third_party/silobag_campaigns` body, exactly the specification's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NewSilobagCampaign {
    /// The silobag; a live silobag of the caller's society.
    pub silobag_id: i64,
    /// The campaign the grain was harvested from; a live campaign of the caller's society.
    pub campaign_id: i64,
    /// Quantity in tons; positive, and at least 2.2250738585072014e-308 (a smaller, subnormal number is not stored
    /// as sent).
    #[schema(minimum = 2.2250738585072014e-308, example = 180.5)]
    pub quantity_tn: f64,
    /// Grain humidity in percent, 0–100.
    #[schema(minimum = 0.0, maximum = 100.0, example = 13.5)]
    pub grain_humidity_percent: f64,
    /// Grain quality indicator: 1 good (green), 2 watch (yellow), 3 at risk (red).
    #[schema(minimum = 1, maximum = 3, example = 1)]
    pub grain_quality_semaphore: i64,
    /// Free text, at most 4,000 characters; empty when omitted.
    #[serde(default)]
    #[schema(max_length = 4000)]
    pub observations: Option<String>,
}

/// `POST /api/v3/third_party/devices` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NewDevice {
    /// Name; required, not blank, at most 200 characters.
    #[schema(
        pattern = r"^[^\u0000]*[^\u0000\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$",
        max_length = 200,
        example = "Estación La Esperanza"
    )]
    pub name: String,
    /// `weather_station` or `silobag_sensor`.
    #[schema(schema_with = device_kind)]
    pub kind: String,
    /// The maker's serial number; required, not blank, at most 100 characters.
    #[schema(
        pattern = r"^[^\u0000]*[^\u0000\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$",
        max_length = 100,
        example = "WS-2024-0117"
    )]
    pub serial_number: String,
    /// The establishment it is installed in; for a silobag sensor, the silobag's when omitted.
    #[serde(default)]
    pub establishment_id: Option<i64>,
    /// The silobag it monitors: required for a silobag sensor, refused for a weather station.
    #[serde(default)]
    pub silobag_id: Option<i64>,
    /// Latitude in decimal degrees, −90 to 90.
    #[serde(default)]
    #[schema(minimum = -90.0, maximum = 90.0, example = -36.61)]
    pub latitude: Option<f64>,
    /// Longitude in decimal degrees, −180 to 180.
    #[serde(default)]
    #[schema(minimum = -180.0, maximum = 180.0, example = -64.29)]
    pub longitude: Option<f64>,
    /// Active flag; true when omitted.
    #[serde(default)]
    pub active: Option<bool>,
}

/// One reading in a `POST /api/v3/third_party/device_events` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct NewDeviceEvent {
    /// The device that read it; a live device of the caller's society.
    pub device_id: i64,
    /// What was read; a live `device_event_types` record.
    pub device_event_type_id: i64,
    /// When it was read, ISO 8601 with offset.
    pub recorded_at: Timestamp,
    /// The value read, in the event type's unit.
    pub value: f64,
}

/// A `POST /api/v3/third_party/device_events` body: one reading, or a batch of them as IoT gateways send.
///
/// Deserialized by hand so that a malformed item of a batch is named by its index (`[3]: missing field …`), which
/// an untagged enum would reduce to "did not match any variant".
#[derive(Debug, Clone, PartialEq)]
pub enum NewDeviceEvents {
    /// A single object; answered with a single object.
    One(NewDeviceEvent),
    /// An array; answered with an array in the same order.
    Many(Vec<NewDeviceEvent>),
}

impl utoipa::PartialSchema for NewDeviceEvents {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        let event = || utoipa::openapi::Ref::from_schema_name(<NewDeviceEvent as utoipa::ToSchema>::name());
        utoipa::openapi::schema::OneOfBuilder::new()
            .item(event())
            .item(
                utoipa::openapi::schema::ArrayBuilder::new()
                    .items(event())
                    .max_items(Some(10_000)),
            )
            .description(Some(
                "One device event, or an array of up to 10,000 stored all or nothing.",
            ))
            .into()
    }
}

impl ToSchema for NewDeviceEvents {
    fn schemas(schemas: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>) {
        schemas.push((
            NewDeviceEvent::name().into_owned(),
            <NewDeviceEvent as utoipa::PartialSchema>::schema(),
        ));
    }
}

impl NewDeviceEvents {
    /// The readings, in the order sent.
    pub fn items(&self) -> &[NewDeviceEvent] {
        match self {
            NewDeviceEvents::One(event) => std::slice::from_ref(event),
            NewDeviceEvents::Many(events) => events,
        }
    }
}

impl<'de> Deserialize<'de> for NewDeviceEvents {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Events;

        impl<'de> serde::de::Visitor<'de> for Events {
            type Value = NewDeviceEvents;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a device event object or an array of them")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                NewDeviceEvent::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(NewDeviceEvents::One)
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut events = Vec::with_capacity(seq.size_hint().unwrap_or_default().min(10_000));
                loop {
                    let index = events.len();
                    match seq.next_element::<NewDeviceEvent>() {
                        Ok(Some(event)) => events.push(event),
                        Ok(None) => return Ok(NewDeviceEvents::Many(events)),
                        Err(error) => return Err(serde::de::Error::custom(format!("[{index}]: {error}"))),
                    }
                }
            }
        }

        deserializer.deserialize_any(Events)
    }
}

/// The device kinds a create takes, as the schema of `kind` lists them.
pub const DEVICE_KINDS: [&str; 2] = ["weather_station", "silobag_sensor"];

/// The schema of a new device's `kind`: one of [`DEVICE_KINDS`].
fn device_kind() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(DEVICE_KINDS))
        .description(Some("What the device is: `weather_station` or `silobag_sensor`."))
        .examples(["weather_station"])
        .build()
}
