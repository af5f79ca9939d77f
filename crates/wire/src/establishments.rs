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
    /// Name; required, not blank, at most 200 characters.
    #[schema(
        pattern = r"^[^\u0000]*[^\u0000\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$",
        max_length = 200,
        example = "La Esperanza"
    )]
    pub name: String,
    /// The farmer it belongs to; must be a live farmer of the caller's society.
    pub farmer_id: i64,
    /// Code in the integrator's ERP; recommended, so the mapping survives renames. At most 100 characters, none of
    /// them invisible (control and format characters such as zero-width spaces are refused); stored trimmed and in
    /// Unicode normalisation form NFKC, so that composed and decomposed accents and fullwidth forms are one code.
    #[serde(default)]
    #[schema(
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]*$"
    )]
    pub external_code: Option<String>,
    /// Active flag; true when omitted.
    #[serde(default)]
    pub active: Option<bool>,
}
