//! Plots as the v3 writes speak them (reads of plot lists stay v2, in [`crate::planning`]).

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// A plot as `POST /api/v3/third_party/plots` and `GET`/`DELETE /api/v3/third_party/plots/{id}` answer it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct PlotV3 {
    /// Plot id.
    pub id: i64,
    /// Owning establishment.
    pub establishment_id: i64,
    /// Name.
    pub name: String,
    /// Hectares.
    pub area: f64,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Active flag.
    pub active: bool,
    /// The user that created it.
    pub created_by_id: Option<i64>,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification.
    pub updated_at: Timestamp,
    /// Logical deletion; null means live.
    pub deleted_at: Option<Timestamp>,
}

/// `POST /api/v3/third_party/plots` body.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct NewPlot {
    /// Name; required, not blank, at most 200 characters.
    #[schema(
        pattern = r"^[^\u0000]*[^\u0000\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$",
        max_length = 200,
        example = "Lote 12"
    )]
    pub name: String,
    /// The establishment it divides; a live establishment of the caller's society.
    pub establishment_id: i64,
    /// Hectares; from 0.01 to 1,000,000, kept to two decimals (a smaller area would be kept as none).
    #[schema(minimum = 0.01, maximum = 1_000_000.0, example = 48.5)]
    pub area: f64,
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
