//! Business rules of the integration API, free of HTTP and SQL, so each can be unit-tested on its own.
//!
//! # Layout
//! - [`page`]: page numbers, page sizes and the envelope's arithmetic.
//! - [`filters`]: the audit filters (`*_from` dates), the `active` flag and the generation that names them.
//! - [`country`]: the countries the platform operates in.
//! - [`jobs`]: background jobs' kinds, states and row rules.
//! - [`claims`]: how a claim of background work is shared out between societies.
//! - [`events`]: the change feed's types, cursor, page size and retention.
//! - [`refusal`]: every reason a write can be refused, named once.
//! - [`master_data`]: establishment, plot and applicator write commands and their rules.
//! - [`field`]: silobag campaign rows, devices and device events (the farm field's writes) and their rules.
//! - [`work_orders`]: the work-order write command and the rules it must meet.
//! - [`lang`]: which language an error message is written in.
//! - [`webhooks`]: webhook endpoints' URL rules (no server-side request forgery), the retry schedule, secrets.
//! - [`import`]: operator imports of master data: files' headers and cells read into values, and their rules.
//! - [`text`]: how long each kind of text may be, and the one form external codes are stored and compared in.

pub mod claims;
pub mod country;
pub mod events;
pub mod field;
pub mod filters;
pub mod import;
pub mod jobs;
pub mod lang;
pub mod master_data;
pub mod page;
pub mod refusal;
pub mod text;
pub mod webhooks;
pub mod work_orders;

pub use filters::{AuditFilters, FilterError, Generation};
pub use lang::Lang;
pub use page::{NextPagePolicy, PageError, PageRequest, PageWindow};
pub use refusal::{Refusal, Rule, Violation};

/// The largest area, in hectares, a record may state: larger than any real plot or campaign, and small enough that
/// sums over a society's plots stay finite and rounding to hundredths stays exact.
pub const MAX_HECTARES: f64 = 1_000_000.0;

/// The smallest area, in hectares, a record may state: areas are kept to hundredths ([`round_hectares`]), so a
/// smaller one would be stored as another area, or as none.
pub const MIN_HECTARES: f64 = 0.01;

/// Rounds an area to hundredths of a hectare, the precision the platform shows; sums of stored areas otherwise
/// carry binary floating-point noise (377.90999999999997).
pub fn round_hectares(area: f64) -> f64 {
    (area * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests {
    #[test]
    fn hectares_round_to_hundredths() {
        assert_eq!(super::round_hectares(377.909_999_999_999_97), 377.91);
        assert_eq!(super::round_hectares(0.0), 0.0);
    }
}
