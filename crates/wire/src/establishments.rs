//! Establishments (farms).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// An establishment as every v3 read and write returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Establishment {
    /// Internal id.
    pub id: i64,
    /// Owning farmer.
    pub farmer_id: i64,
    /// Name.
    pub name: String,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification.
    pub updated_at: Timestamp,
    /// Logical deletion; null means live.
    pub deleted_at: Option<Timestamp>,
}

/// `POST /api/v3/third_party/establishments` body.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewEstablishment {
    /// Name; required, not blank.
    #[schema(
        pattern = r"^[^\u0000]*[^\u0000\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$",
        example = "La Esperanza"
    )]
    pub name: String,
    /// The farmer it belongs to; must be a live farmer of the caller's society.
    pub farmer_id: i64,
    /// Code in the integrator's ERP; recommended, so the mapping survives renames.
    #[serde(default)]
    pub external_code: Option<String>,
    /// Active flag; true when omitted.
    #[serde(default)]
    pub active: Option<bool>,
}
