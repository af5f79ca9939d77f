//! Demo data of the field group: per society, what the field teams record over a season against the adversity,
//! weather and IoT catalogues the reference data ships — scoutings with their measures and pictures, planting and
//! harvest progress, controls, silobags with the grain stored in them, weather samples with anomalies, and devices
//! with a week of hourly readings.
//!
//! Everything is drawn from one seeded generator per society, so the same options give the same rows and ids.

/// This group's share of a society's seed, so its draws do not depend on other groups' ("FIEL").
const GROUP: u64 = 0x4649_454c;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

mod context;
mod draw;
mod harvest;
mod places;
mod season;
mod tables;

pub(crate) use season::society;
