//! Applicator writes (v2): `POST` and `PUT /api/v2/third_party/applicators`.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// The body of an applicator create (`POST`) or update (`PUT`, where `id` names the applicator unless the path does).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ApplicatorWrite {
    /// The applicator to update; ignored on create, and on `PUT …/{id}` when the path names it.
    #[serde(default)]
    pub id: Option<i64>,
    /// Name; required, not blank.
    #[schema(
        pattern = r"^[^\u0000]*[^\u0000\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$",
        example = "Jorge Almada"
    )]
    pub name: String,
    /// Code in the integrator's ERP.
    #[serde(default)]
    pub external_code: Option<String>,
    /// Active flag; true when omitted.
    #[serde(default)]
    pub active: Option<bool>,
    /// Postal address.
    #[serde(default)]
    pub address: Option<String>,
    /// Contact phone.
    #[serde(default)]
    pub phone_number: Option<String>,
    /// Contact email.
    #[serde(default)]
    pub email: Option<String>,
    /// Machines the applicator operates: live machines of the caller's society. An update replaces the list.
    #[serde(default)]
    pub machines: Vec<i64>,
}
