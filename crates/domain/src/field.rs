//! Writes of the farm field ("field" here means the farm's field, not a record's field): silobag campaign rows, IoT
//! devices and their readings (device events), as commands with the rules each must meet before anything is stored.
//! Each command's own rules (`check`) need no database; the rules about the records it names are decided here too,
//! over what the store found for them in the write's transaction.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::refusal::{check_positive, check_required, verdict, Refusal, Rule, Violation};
use crate::text::{self, Text};

/// Most readings one device-events request may carry.
pub const MAX_DEVICE_EVENTS: usize = 10_000;

/// The device kinds the platform knows, as the messages list them.
pub const DEVICE_KINDS: &str = "weather_station, silobag_sensor";

/// The grain-quality semaphore's values, as the messages list them.
const SEMAPHORE: &str = "1 (verde/green), 2 (amarillo/yellow), 3 (rojo/red)";

/// Grain of a campaign stored in a silobag.
#[derive(Debug, Clone, PartialEq)]
pub struct NewSilobagCampaign {
    /// The silobag.
    pub silobag_id: i64,
    /// The campaign the grain was harvested from.
    pub campaign_id: i64,
    /// Tons.
    pub quantity_tn: f64,
    /// Percent, 0–100.
    pub grain_humidity_percent: f64,
    /// 1, 2 or 3.
    pub grain_quality_semaphore: i64,
    /// Free text; empty when none.
    pub observations: String,
}

impl NewSilobagCampaign {
    /// The body's keys in the order its schema lists them: the order its broken rules are named in.
    pub const FIELDS: &'static [&'static str] = &[
        "silobag_id",
        "campaign_id",
        "quantity_tn",
        "grain_humidity_percent",
        "grain_quality_semaphore",
        "observations",
    ];

    /// The rules that need no database.
    pub fn check(&self) -> Result<(), Refusal> {
        let mut violations = Vec::new();
        check_positive("quantity_tn", self.quantity_tn, &mut violations);
        if !(0.0..=100.0).contains(&self.grain_humidity_percent) {
            let rule = Rule::OutOfRange { min: 0.0, max: 100.0 };
            violations.push(Violation::new("grain_humidity_percent", rule));
        }
        if !(1..=3).contains(&self.grain_quality_semaphore) {
            violations.push(Violation::new("grain_quality_semaphore", Rule::NotOneOf(SEMAPHORE)));
        }
        text::check("observations", &self.observations, Text::Observations, &mut violations);
        verdict(violations)
    }

    /// The rules about the records the row names, given whether the store found its silobag and its campaign live in
    /// the caller's society: an unknown silobag is named first, and alone.
    pub fn references_hold(&self, silobag_found: bool, campaign_found: bool) -> Result<(), Refusal> {
        let unknown = |path, id| Err(Refusal::Invalid(vec![Violation::new(path, Rule::Unknown(id))]));
        match (silobag_found, campaign_found) {
            (false, _) => unknown("silobag_id", self.silobag_id),
            (true, false) => unknown("campaign_id", self.campaign_id),
            (true, true) => Ok(()),
        }
    }
}

/// What an IoT device is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    /// A weather station, optionally in an establishment.
    WeatherStation,
    /// A sensor monitoring a silobag, installed in the silobag's establishment.
    SilobagSensor,
}

impl DeviceKind {
    /// The kind a body names, if it is one the platform knows, exactly as the document's `enum` lists it.
    pub fn parse(kind: &str) -> Option<Self> {
        match kind {
            "weather_station" => Some(Self::WeatherStation),
            "silobag_sensor" => Some(Self::SilobagSensor),
            _ => None,
        }
    }

    /// The stored and rendered name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::WeatherStation => "weather_station",
            Self::SilobagSensor => "silobag_sensor",
        }
    }
}

/// A new IoT device, as its body states it.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDevice {
    /// Name; required.
    pub name: String,
    /// The kind as sent: one of [`DEVICE_KINDS`].
    pub kind: String,
    /// The maker's serial number; required.
    pub serial_number: String,
    /// The establishment it is installed in.
    pub establishment_id: Option<i64>,
    /// The silobag it monitors.
    pub silobag_id: Option<i64>,
    /// Decimal degrees, −90 to 90.
    pub latitude: Option<f64>,
    /// Decimal degrees, −180 to 180.
    pub longitude: Option<f64>,
    /// Active flag.
    pub active: bool,
}

impl NewDevice {
    /// The body's keys in the order its schema lists them: the order its broken rules are named in.
    pub const FIELDS: &'static [&'static str] = &[
        "name",
        "kind",
        "serial_number",
        "establishment_id",
        "silobag_id",
        "latitude",
        "longitude",
        "active",
    ];

    /// The rules that need no database; the device's kind when it meets them.
    pub fn check(&self) -> Result<DeviceKind, Refusal> {
        let mut violations = Vec::new();
        check_required("name", &self.name, &mut violations);
        text::check("name", &self.name, Text::Name, &mut violations);
        let kind = DeviceKind::parse(&self.kind);
        if kind.is_none() {
            violations.push(Violation::new("kind", Rule::NotOneOf(DEVICE_KINDS)));
        }
        check_required("serial_number", &self.serial_number, &mut violations);
        text::check("serial_number", &self.serial_number, Text::Key, &mut violations);
        match (kind, self.silobag_id) {
            (Some(DeviceKind::SilobagSensor), None) => {
                let rule = Rule::RequiredForKind(DeviceKind::SilobagSensor.as_str());
                violations.push(Violation::new("silobag_id", rule));
            }
            (Some(DeviceKind::WeatherStation), Some(_)) => {
                let rule = Rule::NotForKind(DeviceKind::WeatherStation.as_str());
                violations.push(Violation::new("silobag_id", rule));
            }
            _ => {}
        }
        for (path, value, bound) in [("latitude", self.latitude, 90.0), ("longitude", self.longitude, 180.0)] {
            if value.is_some_and(|v| !(-bound..=bound).contains(&v)) {
                let rule = Rule::OutOfRange {
                    min: -bound,
                    max: bound,
                };
                violations.push(Violation::new(path, rule));
            }
        }
        // An unknown kind is itself a violation, so a kind is known whenever nothing is wrong.
        match kind {
            Some(kind) if violations.is_empty() => Ok(kind),
            _ => Err(Refusal::Invalid(violations)),
        }
    }
}

/// What the store found about the records a new device names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DevicePlace {
    /// Whether the establishment named is a live establishment of the caller's society (false when none is named).
    pub establishment_found: bool,
    /// The establishment the silobag named lies in, when it is a live silobag of the caller's society.
    pub silobag_lies_in: Option<i64>,
}

impl NewDevice {
    /// The establishment the device is stored in, given what the store found: the one named, which must be live; a
    /// sensor's silobag must be live and, when an establishment is named, lie in it, and names the establishment
    /// when none is. The establishment is judged before the silobag, and the first broken rule is the answer.
    pub fn placement(&self, found: DevicePlace) -> Result<Option<i64>, Refusal> {
        let invalid = |path, rule| Err(Refusal::Invalid(vec![Violation::new(path, rule)]));
        let named = self.establishment_id;
        if let Some(id) = named.filter(|_| !found.establishment_found) {
            return invalid("establishment_id", Rule::Unknown(id));
        }
        let Some(silobag_id) = self.silobag_id else {
            return Ok(named);
        };
        match (found.silobag_lies_in, named) {
            (None, _) => invalid("silobag_id", Rule::Unknown(silobag_id)),
            (Some(actual), Some(named)) if actual != named => invalid(
                "silobag_id",
                Rule::SilobagElsewhere {
                    silobag_id,
                    establishment_id: named,
                },
            ),
            (Some(actual), _) => Ok(Some(actual)),
        }
    }
}

/// One reading of a device.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// The device that read it.
    pub device_id: i64,
    /// What was read (a `device_event_types` record).
    pub device_event_type_id: i64,
    /// When it was read.
    pub recorded_at: DateTime<Utc>,
    /// The value read, in the event type's unit.
    pub value: f64,
}

/// Readings sent together: one object, or a batch stored all or none.
#[derive(Debug, Clone, PartialEq)]
pub struct NewReadings {
    /// The readings, in the order sent.
    pub readings: Vec<Reading>,
    /// Whether they came as an array: then a violation is named by its item's index.
    pub batch: bool,
}

impl NewReadings {
    /// The rules that need no database: the batch's size.
    pub fn check(&self) -> Result<(), Refusal> {
        if self.readings.len() > MAX_DEVICE_EVENTS {
            return Err(Refusal::TooManyItems {
                sent: self.readings.len(),
                max: MAX_DEVICE_EVENTS,
            });
        }
        Ok(())
    }

    /// The rules about the records the readings name, given the devices of the caller's society and the event types
    /// the store found live among those sent: each reading whose device (else whose event type) is not found is
    /// named, in the order sent.
    pub fn references_hold(&self, devices: &BTreeSet<i64>, event_types: &BTreeSet<i64>) -> Result<(), Refusal> {
        let violations = self
            .readings
            .iter()
            .enumerate()
            .filter_map(|(index, reading)| {
                let violation = if !devices.contains(&reading.device_id) {
                    Violation::new("device_id", Rule::Unknown(reading.device_id))
                } else if !event_types.contains(&reading.device_event_type_id) {
                    Violation::new("device_event_type_id", Rule::Unknown(reading.device_event_type_id))
                } else {
                    return None;
                };
                Some(self.at(index, violation))
            })
            .collect();
        verdict(violations)
    }

    /// `violation` of reading `index`, named as the body names that reading.
    pub fn at(&self, index: usize, violation: Violation) -> Violation {
        if self.batch {
            violation.in_item(index)
        } else {
            violation
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sensor() -> NewDevice {
        NewDevice {
            name: "Sensor 1".into(),
            kind: "silobag_sensor".into(),
            serial_number: "SB-1".into(),
            establishment_id: None,
            silobag_id: Some(3),
            latitude: Some(-36.6),
            longitude: None,
            active: true,
        }
    }

    fn paths(refusal: Refusal) -> Vec<String> {
        match refusal {
            Refusal::Invalid(violations) => violations.into_iter().map(|v| v.path).collect(),
            other => vec![format!("{other:?}")],
        }
    }

    #[test]
    fn a_silobag_sensor_needs_its_silobag_and_a_station_has_none() {
        assert_eq!(sensor().check(), Ok(DeviceKind::SilobagSensor));
        let without = NewDevice {
            silobag_id: None,
            ..sensor()
        };
        assert_eq!(paths(without.check().expect_err("refused")), ["silobag_id"]);
        let station = NewDevice {
            kind: "weather_station".into(),
            ..sensor()
        };
        assert_eq!(paths(station.check().expect_err("refused")), ["silobag_id"]);
        // Exactly as the document's `enum` lists the kinds: spaces make another value.
        assert_eq!(DeviceKind::parse(" weather_station "), None);
    }

    #[test]
    fn every_broken_rule_of_a_device_is_reported() {
        let device = NewDevice {
            name: "".into(),
            kind: "drone".into(),
            latitude: Some(91.0),
            longitude: Some(-181.0),
            ..sensor()
        };
        assert_eq!(
            paths(device.check().expect_err("refused")),
            ["name", "kind", "latitude", "longitude"]
        );
    }

    #[test]
    fn silobag_rows_bound_their_quantities() {
        let row = NewSilobagCampaign {
            silobag_id: 1,
            campaign_id: 2,
            quantity_tn: 0.0,
            grain_humidity_percent: 101.0,
            grain_quality_semaphore: 4,
            observations: String::new(),
        };
        assert_eq!(
            paths(row.check().expect_err("refused")),
            ["quantity_tn", "grain_humidity_percent", "grain_quality_semaphore"]
        );
        let subnormal = NewSilobagCampaign {
            quantity_tn: 1e-320,
            grain_humidity_percent: 13.5,
            grain_quality_semaphore: 1,
            ..row
        };
        let rule = Rule::TooSmall {
            sent: 1e-320,
            min: crate::refusal::MIN_QUANTITY,
        };
        assert_eq!(
            subnormal.check(),
            Err(Refusal::Invalid(vec![Violation::new("quantity_tn", rule)]))
        );
    }

    #[test]
    fn a_batch_names_its_items_and_is_bounded() {
        let reading = Reading {
            device_id: 1,
            device_event_type_id: 1,
            recorded_at: DateTime::<Utc>::MIN_UTC,
            value: 1.0,
        };
        let batch = NewReadings {
            readings: vec![reading.clone(); MAX_DEVICE_EVENTS + 1],
            batch: true,
        };
        assert_eq!(
            batch.check(),
            Err(Refusal::TooManyItems {
                sent: MAX_DEVICE_EVENTS + 1,
                max: MAX_DEVICE_EVENTS
            })
        );
        let violation = Violation::new("device_id", Rule::Unknown(1));
        assert_eq!(batch.at(2, violation.clone()).path, "[2].device_id");
        let one = NewReadings {
            readings: vec![reading],
            batch: false,
        };
        assert_eq!(one.at(0, violation).path, "device_id");
    }

    #[test]
    fn a_silobag_row_names_its_unknown_silobag_first_and_alone() {
        let row = NewSilobagCampaign {
            silobag_id: 1,
            campaign_id: 2,
            quantity_tn: 10.0,
            grain_humidity_percent: 13.5,
            grain_quality_semaphore: 1,
            observations: String::new(),
        };
        let unknown = |path, id| Err(Refusal::Invalid(vec![Violation::new(path, Rule::Unknown(id))]));
        assert_eq!(row.references_hold(false, false), unknown("silobag_id", 1));
        assert_eq!(row.references_hold(true, false), unknown("campaign_id", 2));
        assert_eq!(row.references_hold(true, true), Ok(()));
    }

    #[test]
    fn a_sensor_is_stored_in_its_silobags_establishment() {
        let lies_in = |id| DevicePlace {
            establishment_found: false,
            silobag_lies_in: id,
        };
        assert_eq!(sensor().placement(lies_in(Some(8))), Ok(Some(8)));
        assert_eq!(
            paths(sensor().placement(lies_in(None)).expect_err("refused")),
            ["silobag_id"]
        );
        let named = NewDevice {
            establishment_id: Some(9),
            ..sensor()
        };
        let found = DevicePlace {
            establishment_found: true,
            silobag_lies_in: Some(8),
        };
        let elsewhere = Rule::SilobagElsewhere {
            silobag_id: 3,
            establishment_id: 9,
        };
        assert_eq!(
            named.placement(found),
            Err(Refusal::Invalid(vec![Violation::new("silobag_id", elsewhere)]))
        );
        let unknown = DevicePlace {
            establishment_found: false,
            ..found
        };
        let refused = named.placement(unknown);
        assert_eq!(
            refused,
            Err(Refusal::Invalid(vec![Violation::new(
                "establishment_id",
                Rule::Unknown(9)
            )])),
            "the establishment is judged first"
        );
    }

    #[test]
    fn a_station_is_stored_in_the_establishment_named_if_any() {
        let station = NewDevice {
            kind: "weather_station".into(),
            silobag_id: None,
            ..sensor()
        };
        assert_eq!(station.placement(DevicePlace::default()), Ok(None));
        let named = NewDevice {
            establishment_id: Some(4),
            ..station
        };
        let found = DevicePlace {
            establishment_found: true,
            silobag_lies_in: None,
        };
        assert_eq!(named.placement(found), Ok(Some(4)));
        assert_eq!(
            paths(named.placement(DevicePlace::default()).expect_err("refused")),
            ["establishment_id"]
        );
    }

    #[test]
    fn each_reading_with_an_unknown_device_or_type_is_named() {
        let reading = |device_id, device_event_type_id| Reading {
            device_id,
            device_event_type_id,
            recorded_at: DateTime::<Utc>::MIN_UTC,
            value: 1.0,
        };
        let batch = NewReadings {
            readings: vec![reading(1, 1), reading(2, 1), reading(1, 9), reading(2, 9)],
            batch: true,
        };
        let (devices, types) = (BTreeSet::from([1]), BTreeSet::from([1]));
        assert_eq!(
            paths(batch.references_hold(&devices, &types).expect_err("refused")),
            ["[1].device_id", "[2].device_event_type_id", "[3].device_id"]
        );
        let fine = NewReadings {
            readings: vec![reading(1, 1)],
            batch: false,
        };
        assert_eq!(fine.references_hold(&devices, &types), Ok(()));
    }
}
