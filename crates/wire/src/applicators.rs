//! Applicator writes (v2): `POST` and `PUT /api/v2/third_party/applicators`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The body of an applicator create (`POST`) or update (`PUT`, where `id` names the applicator unless the path does).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApplicatorWrite {
    /// The applicator to update; ignored on create, and on `PUT …/{id}` when the path names it.
    #[serde(default)]
    pub id: Option<i64>,
    /// Name; required, not blank, at most 200 characters.
    #[schema(
        pattern = r"^[^\u0000]*[^\u0000\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$",
        max_length = 200,
        example = "Jorge Almada"
    )]
    pub name: String,
    /// Code in the integrator's ERP. At most 100 characters, none of
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
    /// Postal address; at most 200 characters.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub address: Option<String>,
    /// Contact phone; at most 200 characters.
    #[serde(default)]
    #[schema(max_length = 200)]
    pub phone_number: Option<String>,
    /// Contact email; at most 254 characters.
    #[serde(default)]
    #[schema(max_length = 254)]
    pub email: Option<String>,
    /// Machines the applicator operates: live machines of the caller's society. An update replaces the list.
    #[serde(default)]
    pub machines: Vec<i64>,
}
