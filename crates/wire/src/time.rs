//! Timestamp renderings. The API speaks ISO 8601 with a numeric offset (`Y-m-dTH:i:sP`, second precision) almost
//! everywhere; the v2 plot list speaks `YYYY-MM-DD HH:MM:SS` without an offset.

use chrono::{DateTime, Datelike, FixedOffset, NaiveDateTime, Offset, Timelike};
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
        match offset_digits(&self.0) {
            Some(text) => serializer.serialize_str(ascii(&text)),
            None => serializer.collect_str(&self.0.format(OFFSET_FORMAT)),
        }
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
        match plain_digits(&self.0, b' ') {
            Some(text) => serializer.serialize_str(ascii(&text)),
            None => serializer.collect_str(&self.0.format(PLAIN_FORMAT)),
        }
    }
}

// A list page renders a few hundred timestamps, and chrono's `format` interprets its format string for each one: the
// usual instants (four-digit years, whole-minute offsets) are written digit by digit instead, to the same text.

/// `at` as [`PLAIN_FORMAT`] renders it (`separator` between date and time), when its year has four digits.
fn plain_digits(at: &NaiveDateTime, separator: u8) -> Option<[u8; 19]> {
    let year = u32::try_from(at.year()).ok().filter(|year| *year <= 9999)?;
    let mut text = *b"0000-00-00 00:00:00";
    text[10] = separator;
    put_digits(&mut text[0..4], year);
    put_digits(&mut text[5..7], at.month());
    put_digits(&mut text[8..10], at.day());
    put_digits(&mut text[11..13], at.hour());
    put_digits(&mut text[14..16], at.minute());
    put_digits(&mut text[17..19], at.second());
    Some(text)
}

/// `at` as [`OFFSET_FORMAT`] renders it, when its year has four digits and its offset whole minutes.
fn offset_digits(at: &DateTime<FixedOffset>) -> Option<[u8; 25]> {
    let offset = at.offset().fix().local_minus_utc();
    if offset % 60 != 0 {
        return None;
    }
    let mut text = *b"0000-00-00T00:00:00+00:00";
    text[..19].copy_from_slice(&plain_digits(&at.naive_local(), b'T')?);
    if offset < 0 {
        text[19] = b'-';
    }
    let minutes = offset.unsigned_abs() / 60;
    put_digits(&mut text[20..22], minutes / 60);
    put_digits(&mut text[23..25], minutes % 60);
    Some(text)
}

/// Writes `value`'s last `slot.len()` decimal digits into `slot`, zero-padded.
fn put_digits(slot: &mut [u8], mut value: u32) {
    for digit in slot.iter_mut().rev() {
        *digit = b'0' + (value % 10) as u8;
        value /= 10;
    }
}

/// Text made of ASCII digits and punctuation only.
fn ascii(text: &[u8]) -> &str {
    std::str::from_utf8(text).unwrap_or_default()
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
    fn digit_by_digit_writes_what_chrono_writes() {
        let zones = [
            0,
            -3 * 3600,
            5 * 3600 + 45 * 60,
            -(4 * 3600 + 16 * 60 + 48),
            14 * 3600,
            -(9 * 3600 + 30 * 60),
        ];
        let instants = [
            -62_135_596_800_000_i64 - 1,
            -2_208_988_800_000,
            0,
            1_709_294_400_123,
            253_402_300_799_000,
            253_402_300_800_000,
        ];
        for seconds in zones {
            let Some(zone) = FixedOffset::east_opt(seconds) else {
                panic!("offset {seconds}");
            };
            for millis in instants {
                let Some(at) = DateTime::from_timestamp_millis(millis).map(|at| at.with_timezone(&zone)) else {
                    panic!("instant {millis}");
                };
                let expected = format!("\"{}\"", at.format(OFFSET_FORMAT));
                assert_eq!(
                    serde_json::to_string(&Timestamp(at)).ok(),
                    Some(expected),
                    "{millis} at {seconds}"
                );
                let plain = at.naive_local();
                let expected = format!("\"{}\"", plain.format(PLAIN_FORMAT));
                assert_eq!(
                    serde_json::to_string(&PlainTimestamp(plain)).ok(),
                    Some(expected),
                    "{millis} at {seconds}"
                );
            }
        }
    }

    #[test]
    fn plain_timestamps_have_no_offset() -> Result<(), serde_json::Error> {
        let parsed: PlainTimestamp = serde_json::from_str("\"2024-03-01 09:30:00\"")?;
        assert_eq!(serde_json::to_string(&parsed)?, "\"2024-03-01 09:30:00\"");
        Ok(())
    }
}
