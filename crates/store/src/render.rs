//! Turning stored instants (UTC epoch milliseconds) into the wire's timestamps, in the society's time zone.

use chrono::{DateTime, Offset, Utc};
use chrono_tz::Tz;
use wire::{PlainTimestamp, Timestamp};

/// Renders a society's timestamps in its own time zone.
#[derive(Debug, Clone, Copy)]
pub struct Render {
    time_zone: Tz,
}

impl Render {
    /// A renderer for `time_zone`.
    pub fn new(time_zone: Tz) -> Self {
        Self { time_zone }
    }

    /// An instant as `Y-m-dTH:i:sP` in the society's offset at that instant.
    pub fn at(&self, millis: i64) -> Timestamp {
        let utc = DateTime::<Utc>::from_timestamp_millis(millis).unwrap_or_default();
        let local = utc.with_timezone(&self.time_zone);
        Timestamp(local.with_timezone(&local.offset().fix()))
    }

    /// An optional instant.
    pub fn at_opt(&self, millis: Option<i64>) -> Option<Timestamp> {
        millis.map(|m| self.at(m))
    }

    /// An instant as the society's local wall-clock time without offset (v2 plot list).
    pub fn plain(&self, millis: i64) -> PlainTimestamp {
        PlainTimestamp(self.at(millis).0.naive_local())
    }

    /// The society's time zone.
    pub fn time_zone(&self) -> Tz {
        self.time_zone
    }

    /// An instant expressed in this zone, e.g. for expirations.
    pub fn from_utc(&self, instant: DateTime<Utc>) -> Timestamp {
        self.at(instant.timestamp_millis())
    }
}

impl Default for Render {
    fn default() -> Self {
        Self::new(Tz::UTC)
    }
}

/// Whether `name` is a time zone we can render.
pub fn is_known_time_zone(name: &str) -> bool {
    name.parse::<Tz>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn argentine_times_carry_minus_three() {
        let render = Render::new(chrono_tz::America::Argentina::Buenos_Aires);
        let millis = Utc
            .with_ymd_and_hms(2024, 3, 1, 12, 0, 0)
            .single()
            .map(|t| t.timestamp_millis());
        let rendered = millis.map(|m| serde_json_free(render.at(m)));
        assert_eq!(rendered.as_deref(), Some("2024-03-01T09:00:00-03:00"));
    }

    fn serde_json_free(ts: Timestamp) -> String {
        ts.0.format(wire::time::OFFSET_FORMAT).to_string()
    }

    #[test]
    fn plain_times_are_local_wall_clock() {
        let render = Render::new(chrono_tz::America::Mexico_City);
        let millis = Utc
            .with_ymd_and_hms(2024, 3, 1, 12, 0, 0)
            .single()
            .map(|t| t.timestamp_millis());
        let plain = millis.map(|m| render.plain(m).0.format(wire::time::PLAIN_FORMAT).to_string());
        assert_eq!(plain.as_deref(), Some("2024-03-01 06:00:00"));
    }
}
