//! The audit filters and the `active` flag that list endpoints accept, and the generation that names them.
//!
//! v3 names the audit filters `updated_at_from`, `created_at_from`, `deleted_at_from`; v2 names them
//! `updated_from`, `created_from`, `deleted_from`. The names are not interchangeable.

use chrono::{DateTime, FixedOffset, Utc};
use thiserror::Error;

/// The pattern dates must follow, as the specification writes it.
pub const DATE_PATTERN: &str = "Y-m-dTH:i:sP";
/// An example of [`DATE_PATTERN`], for error messages.
pub const DATE_EXAMPLE: &str = "2024-03-01T00:00:00-03:00";

/// An API generation, which decides the audit filters' names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Generation {
    /// `/api/v2/`.
    V2,
    /// `/api/v3/`.
    V3,
}

/// The three audit filter names of one generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AuditNames {
    /// Records created at or after.
    pub created: &'static str,
    /// Records modified at or after.
    pub updated: &'static str,
    /// Records logically deleted at or after.
    pub deleted: &'static str,
}

impl Generation {
    /// The audit filter names this generation accepts.
    pub fn audit_names(self) -> AuditNames {
        match self {
            Generation::V2 => AuditNames {
                created: "created_from",
                updated: "updated_from",
                deleted: "deleted_from",
            },
            Generation::V3 => AuditNames {
                created: "created_at_from",
                updated: "updated_at_from",
                deleted: "deleted_at_from",
            },
        }
    }

    /// The other generation, whose names a caller may send here by mistake.
    pub fn other(self) -> Generation {
        match self {
            Generation::V2 => Generation::V3,
            Generation::V3 => Generation::V2,
        }
    }
}

/// Why a filter value was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FilterError {
    /// A date filter does not follow [`DATE_PATTERN`].
    #[error("{param} must follow {DATE_PATTERN}, e.g. {DATE_EXAMPLE}; got {value:?}")]
    InvalidDate {
        /// The parameter's name.
        param: &'static str,
        /// What was sent.
        value: String,
    },
    /// `active` is not one of 1, 0, true, false.
    #[error("active must be 1, 0, true or false; got {0:?}")]
    InvalidActive(String),
    /// A filter of the other generation was sent.
    #[error("{sent} is not a filter of this generation; use {expected}")]
    WrongGeneration {
        /// The name sent.
        sent: &'static str,
        /// The name this generation uses.
        expected: &'static str,
    },
}

/// The audit filters and `active` flag of one list request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AuditFilters {
    /// Only records created at or after this instant.
    pub created_from: Option<DateTime<Utc>>,
    /// Only records modified at or after this instant.
    pub updated_from: Option<DateTime<Utc>>,
    /// Only records logically deleted at or after this instant; without it, deleted records are left out.
    pub deleted_from: Option<DateTime<Utc>>,
    /// Only active (true) or inactive (false) records.
    pub active: Option<bool>,
}

impl AuditFilters {
    /// Parses the filters of `generation` from a lookup of raw query values.
    pub fn parse<'a>(generation: Generation, query: impl Fn(&str) -> Option<&'a str>) -> Result<Self, FilterError> {
        let names = generation.audit_names();
        let other = generation.other().audit_names();
        for (sent, expected) in [
            (other.created, names.created),
            (other.updated, names.updated),
            (other.deleted, names.deleted),
        ] {
            if query(sent).is_some() {
                return Err(FilterError::WrongGeneration { sent, expected });
            }
        }
        let date = |param: &'static str| query(param).map(|value| parse_filter_date(param, value)).transpose();
        Ok(Self {
            created_from: date(names.created)?,
            updated_from: date(names.updated)?,
            deleted_from: date(names.deleted)?,
            active: query("active").map(parse_active).transpose()?,
        })
    }
}

/// Parses a boolean flag the way the API accepts it: `1`, `0`, `true`, `false`.
pub fn parse_active(value: &str) -> Result<bool, FilterError> {
    match value {
        "1" | "true" => Ok(true),
        "0" | "false" => Ok(false),
        other => Err(FilterError::InvalidActive(other.to_owned())),
    }
}

/// Parses a date filter in `Y-m-dTH:i:sP`.
///
/// A `+` that reached us as a space (a client that did not percent-encode the offset) is read as `+`, and a `Z`
/// offset is read as UTC: both are unambiguous, and refusing them would only make integrators' first sync fail.
pub fn parse_filter_date(param: &'static str, value: &str) -> Result<DateTime<Utc>, FilterError> {
    let repaired = repair_offset(value.trim());
    DateTime::<FixedOffset>::parse_from_str(&repaired, "%Y-%m-%dT%H:%M:%S%:z")
        .map(|instant| instant.with_timezone(&Utc))
        .map_err(|_| FilterError::InvalidDate {
            param,
            value: value.to_owned(),
        })
}

fn repair_offset(value: &str) -> String {
    if let Some(stripped) = value.strip_suffix('Z') {
        return format!("{stripped}+00:00");
    }
    match value
        .len()
        .checked_sub(6)
        .and_then(|at| value.get(at..).map(|tail| (at, tail)))
    {
        Some((at, tail)) if tail.starts_with(' ') => format!("{}+{}", &value[..at], &tail[1..]),
        _ => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn query<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> + 'a {
        move |name| pairs.iter().find(|(key, _)| *key == name).map(|(_, value)| *value)
    }

    #[test]
    fn v3_dates_with_offsets_are_read_as_instants() {
        let filters = AuditFilters::parse(
            Generation::V3,
            query(&[("updated_at_from", "2024-03-01T00:00:00-03:00")]),
        );
        let expected = Utc.with_ymd_and_hms(2024, 3, 1, 3, 0, 0).single();
        assert_eq!(filters.map(|f| f.updated_from), Ok(expected));
    }

    #[test]
    fn v2_uses_its_own_names() {
        let filters = AuditFilters::parse(Generation::V2, query(&[("deleted_from", "2024-03-01T00:00:00+00:00")]));
        assert_eq!(filters.map(|f| f.deleted_from.is_some()), Ok(true));
    }

    #[test]
    fn the_other_generations_names_are_refused() {
        let filters = AuditFilters::parse(
            Generation::V2,
            query(&[("updated_at_from", "2024-03-01T00:00:00+00:00")]),
        );
        assert_eq!(
            filters,
            Err(FilterError::WrongGeneration {
                sent: "updated_at_from",
                expected: "updated_from"
            })
        );
    }

    #[test]
    fn dates_without_offset_are_refused() {
        for bad in [
            "2024-03-01",
            "2024-03-01T00:00:00",
            "01/03/2024",
            "2024-13-01T00:00:00+00:00",
            "",
        ] {
            assert!(
                parse_filter_date("updated_at_from", bad).is_err(),
                "{bad} should be refused"
            );
        }
    }

    #[test]
    fn an_unencoded_plus_and_zulu_are_understood() {
        let expected = Utc.with_ymd_and_hms(2024, 3, 1, 0, 0, 0).single();
        assert_eq!(parse_filter_date("x", "2024-03-01T00:00:00 00:00").ok(), expected);
        assert_eq!(parse_filter_date("x", "2024-03-01T00:00:00Z").ok(), expected);
    }

    #[test]
    fn active_takes_exactly_four_spellings() {
        assert_eq!(parse_active("1"), Ok(true));
        assert_eq!(parse_active("true"), Ok(true));
        assert_eq!(parse_active("0"), Ok(false));
        assert_eq!(parse_active("false"), Ok(false));
        assert!(parse_active("yes").is_err());
        assert!(parse_active("TRUE").is_err());
    }
}
