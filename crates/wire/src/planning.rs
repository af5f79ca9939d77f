//! Land and planning: plots (v2), tags, species, cycles, planting times, master campaigns, campaigns, cultivations, products (formulateds, formulation types, units), statuses and states, external systems.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// A unit of measure (`GET /api/v3/third_party/units`); a global catalogue.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Unit {
    /// Unit id.
    pub id: i64,
    /// Name, e.g. `Litro`.
    pub name: String,
    /// Abbreviation, e.g. `l`.
    pub abbreviation: String,
    /// What it measures: `volume`, `mass`, `area`, `count`, `rate`, `temperature`, `percent`, `length`.
    pub kind: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}
