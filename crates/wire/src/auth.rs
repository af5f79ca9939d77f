//! Login and token refresh.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// `POST /api/v2/login` body.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LoginRequest {
    /// The account's email.
    pub email: String,
    /// The account's password.
    pub password: String,
}

/// `POST /api/v2/login/refresh` body: trades a refresh token for a new pair.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct RefreshRequest {
    /// The refresh token of the last login or refresh; it works once.
    pub refresh_token: String,
}

/// Response of login and refresh.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct LoginResponse {
    /// Bearer token for every later call.
    pub access_token: String,
    /// Single-use token that obtains a new pair without credentials.
    pub refresh_token: String,
    /// When the access token stops working.
    pub expiration_datetime: Timestamp,
    /// The society the account belongs to.
    pub society: SocietySummary,
}

/// The caller's society, as login returns it.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct SocietySummary {
    /// Society id.
    pub id: i64,
    /// Legal name.
    #[serde(rename = "legalName")]
    pub legal_name: String,
    /// Changes whenever any of the society's data changes: an integrator whose stored value still matches can skip
    /// its sync.
    #[serde(rename = "syncCheck")]
    pub sync_check: String,
}
