//! Rows of either database, read column by column, and the instants in them as the API writes them.

use chrono::{DateTime, Datelike, NaiveDateTime, Offset, Timelike, Utc};
use chrono_tz::Tz;

use crate::Result;

/// An instant as the API writes it: `Y-m-dTH:i:sP` in the society's zone, or the local wall clock (v2 plots).
#[derive(Clone, Copy)]
pub(crate) struct Clock(Tz);

impl Clock {
    pub(crate) fn at(self, millis: i64) -> String {
        let local = DateTime::<Utc>::from_timestamp_millis(millis)
            .unwrap_or_default()
            .with_timezone(&self.0);
        let offset = local.offset().fix().local_minus_utc();
        let minutes = offset.unsigned_abs() / 60;
        format!(
            "{}{}{:02}:{:02}",
            wall(&local.naive_local(), 'T'),
            if offset < 0 { '-' } else { '+' },
            minutes / 60,
            minutes % 60
        )
    }

    pub(crate) fn plain(self, millis: i64) -> String {
        let local = DateTime::<Utc>::from_timestamp_millis(millis)
            .unwrap_or_default()
            .with_timezone(&self.0);
        wall(&local.naive_local(), ' ')
    }
}

pub(crate) fn wall(at: &NaiveDateTime, separator: char) -> String {
    format!(
        "{:04}-{:02}-{:02}{separator}{:02}:{:02}:{:02}",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

/// A column type both databases decode.
pub(crate) trait Column: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a> {}

impl<T: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a>> Column for T {}

/// A row of either database, read column by column in the order selected.
pub(crate) trait Columns {
    fn column<T: Column>(&self, index: usize) -> Result<T>;
}

impl Columns for rusqlite::Row<'_> {
    fn column<T: Column>(&self, index: usize) -> Result<T> {
        Ok(self.get(index)?)
    }
}

impl Columns for postgres::Row {
    fn column<T: Column>(&self, index: usize) -> Result<T> {
        Ok(self.try_get(index)?)
    }
}

pub(crate) fn clock(zone: &str) -> Result<Clock> {
    Ok(Clock(
        zone.parse::<Tz>()
            .map_err(|error| format!("time zone {zone}: {error}"))?,
    ))
}
