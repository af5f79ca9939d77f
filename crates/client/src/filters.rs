//! List filters as typed values, rendered with the names each API generation uses.
//!
//! The API's v3 lists call the audit filters `updated_at_from`, `created_at_from` and `deleted_at_from`; its v2 lists
//! call them `updated_from`, `created_from` and `deleted_from`, and refuse the other generation's names. Callers of
//! the SDK never spell them: the list method knows its generation.

use chrono::{DateTime, FixedOffset, TimeZone};
use wire::time::OFFSET_FORMAT;

/// The API generation a list belongs to, which decides how its filters are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// `/api/v2/…`: `updated_from`, `created_from`, `deleted_from`; always 100 items a page.
    V2,
    /// `/api/v3/…`: `updated_at_from`, `created_at_from`, `deleted_at_from`, and a page `size`.
    V3,
}

/// The audit filters every list accepts, plus `active` and (v3 only) the page size.
///
/// Every `*_from` filter is inclusive and they combine with AND. Without `deleted_from` the API leaves logically
/// deleted records out; with it, it lists only records deleted at or after that instant. An incremental sync so
/// makes two passes per resource: one with `updated_from`, one with `deleted_from`.
///
/// ```
/// use client::Filters;
///
/// # fn main() -> Result<(), chrono::ParseError> {
/// let since = chrono::DateTime::parse_from_rfc3339("2025-06-01T00:00:00-03:00")?;
/// let changed = Filters::new().updated_from(since).size(500);
/// let deleted = Filters::new().deleted_from(since);
/// # let _ = (changed, deleted);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filters {
    /// Only records modified at or after this instant.
    pub updated_from: Option<DateTime<FixedOffset>>,
    /// Only records created at or after this instant.
    pub created_from: Option<DateTime<FixedOffset>>,
    /// Only records logically deleted at or after this instant (and no live ones).
    pub deleted_from: Option<DateTime<FixedOffset>>,
    /// Only active (`true`) or inactive (`false`) records.
    pub active: Option<bool>,
    /// Items per page, 1 to 500, on v3 lists (v2 lists always page by 100, so it is not sent to them).
    pub size: Option<u32>,
}

impl Filters {
    /// No filter: every live record.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets [`Filters::updated_from`].
    pub fn updated_from<Tz: TimeZone>(mut self, at: DateTime<Tz>) -> Self {
        self.updated_from = Some(at.fixed_offset());
        self
    }

    /// Sets [`Filters::created_from`].
    pub fn created_from<Tz: TimeZone>(mut self, at: DateTime<Tz>) -> Self {
        self.created_from = Some(at.fixed_offset());
        self
    }

    /// Sets [`Filters::deleted_from`].
    pub fn deleted_from<Tz: TimeZone>(mut self, at: DateTime<Tz>) -> Self {
        self.deleted_from = Some(at.fixed_offset());
        self
    }

    /// Sets [`Filters::active`].
    pub fn active(mut self, active: bool) -> Self {
        self.active = Some(active);
        self
    }

    /// Sets [`Filters::size`].
    pub fn size(mut self, size: u32) -> Self {
        self.size = Some(size);
        self
    }

    /// The query parameters of these filters, named as `generation` names them. Values are raw: the URL builder
    /// percent-encodes them, so the `+` of a positive offset arrives as `+` and not as a space.
    pub fn query(&self, generation: Generation) -> Vec<(&'static str, String)> {
        let (updated, created, deleted) = match generation {
            Generation::V2 => ("updated_from", "created_from", "deleted_from"),
            Generation::V3 => ("updated_at_from", "created_at_from", "deleted_at_from"),
        };
        let mut pairs = Vec::new();
        for (name, value) in [
            (updated, self.updated_from),
            (created, self.created_from),
            (deleted, self.deleted_from),
        ] {
            if let Some(at) = value {
                pairs.push((name, at.format(OFFSET_FORMAT).to_string()));
            }
        }
        if let Some(active) = self.active {
            pairs.push(("active", active.to_string()));
        }
        if let (Generation::V3, Some(size)) = (generation, self.size) {
            pairs.push(("size", size.to_string()));
        }
        pairs
    }
}

/// The work-order list's state filters, each on the header's flag of that name; they combine with the audit
/// filters by AND.
///
/// ```
/// use client::WorkOrderStates;
///
/// let to_execute = WorkOrderStates { pending: Some(true), executed: Some(false), ..Default::default() };
/// # let _ = to_execute;
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkOrderStates {
    /// Only orders whose header is (or is not) pending.
    pub pending: Option<bool>,
    /// Only orders whose header is (or is not) executed.
    pub executed: Option<bool>,
    /// Only orders whose header is (or is not) confirmed.
    pub confirmed: Option<bool>,
}

impl WorkOrderStates {
    /// The query parameters of these filters.
    pub fn query(&self) -> Vec<(&'static str, String)> {
        [
            ("pending", self.pending),
            ("executed", self.executed),
            ("confirmed", self.confirmed),
        ]
        .into_iter()
        .filter_map(|(name, flag)| flag.map(|flag| (name, flag.to_string())))
        .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(text).expect("a valid instant")
    }

    #[test]
    fn each_generation_names_its_filters() {
        let filters = Filters {
            updated_from: Some(at("2024-03-01T00:00:00-03:00")),
            deleted_from: Some(at("2024-03-02T10:00:00+05:30")),
            active: Some(false),
            size: Some(50),
            ..Filters::default()
        };
        assert_eq!(
            filters.query(Generation::V3),
            [
                ("updated_at_from", "2024-03-01T00:00:00-03:00".to_owned()),
                ("deleted_at_from", "2024-03-02T10:00:00+05:30".to_owned()),
                ("active", "false".to_owned()),
                ("size", "50".to_owned()),
            ]
        );
        assert_eq!(
            filters.query(Generation::V2),
            [
                ("updated_from", "2024-03-01T00:00:00-03:00".to_owned()),
                ("deleted_from", "2024-03-02T10:00:00+05:30".to_owned()),
                ("active", "false".to_owned()),
            ]
        );
    }

    #[test]
    fn utc_instants_render_with_a_numeric_offset() {
        let filters = Filters::new().created_from(at("2024-03-01T03:00:00Z").to_utc());
        assert_eq!(
            filters.query(Generation::V3),
            [("created_at_from", "2024-03-01T03:00:00+00:00".to_owned())]
        );
    }
}
