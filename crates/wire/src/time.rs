//! Timestamp renderings. The API speaks ISO 8601 with a numeric offset (`Y-m-dTH:i:sP`, second precision) almost
//! everywhere; the v2 plot list speaks `YYYY-MM-DD HH:MM:SS` without an offset.

use chrono::{DateTime, FixedOffset, NaiveDateTime};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use utoipa::ToSchema;

/// The format of every offset timestamp the API renders, and the one its date filters accept.
pub const OFFSET_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%:z";
/// The format of the v2 plot list's `created_at`.
pub const PLAIN_FORMAT: &str = "%Y-%m-%d %H:%M:%S";

/// An instant rendered in the society's local offset, e.g. `2024-03-01T09:30:00-03:00`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, ToSchema)]
#[schema(value_type = String, format = DateTime, example = "2024-03-01T09:30:00-03:00")]
pub struct Timestamp(pub DateTime<FixedOffset>);

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0.format(OFFSET_FORMAT))
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        DateTime::parse_from_rfc3339(&text)
            .map(Timestamp)
            .map_err(|_| serde::de::Error::custom(format!("expected {OFFSET_FORMAT}, got {text:?}")))
    }
}

/// A local wall-clock time without offset, e.g. `2024-03-01 09:30:00` (v2 plot list only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ToSchema)]
#[schema(value_type = String, example = "2024-03-01 09:30:00")]
pub struct PlainTimestamp(pub NaiveDateTime);

impl Serialize for PlainTimestamp {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self.0.format(PLAIN_FORMAT))
    }
}

impl<'de> Deserialize<'de> for PlainTimestamp {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        NaiveDateTime::parse_from_str(&text, PLAIN_FORMAT)
            .map(PlainTimestamp)
            .map_err(|_| serde::de::Error::custom(format!("expected {PLAIN_FORMAT}, got {text:?}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_timestamps_round_trip_at_second_precision() -> Result<(), serde_json::Error> {
        let parsed: Timestamp = serde_json::from_str("\"2024-03-01T09:30:00-03:00\"")?;
        assert_eq!(serde_json::to_string(&parsed)?, "\"2024-03-01T09:30:00-03:00\"");
        Ok(())
    }

    #[test]
    fn plain_timestamps_have_no_offset() -> Result<(), serde_json::Error> {
        let parsed: PlainTimestamp = serde_json::from_str("\"2024-03-01 09:30:00\"")?;
        assert_eq!(serde_json::to_string(&parsed)?, "\"2024-03-01 09:30:00\"");
        Ok(())
    }
}
