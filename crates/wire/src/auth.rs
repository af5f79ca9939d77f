//! Login and token refresh.
//!
//! The bodies that carry a password or a token print it as `[redacted]` in `Debug`. They keep plain `String`s (not
//! `secrecy`'s wrappers) so that they serialize both ways and document themselves in the OpenAPI document as
//! before, so their `Debug` is written by hand.

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// `POST /api/v2/login` body.
#[derive(Clone, Serialize, Deserialize, ToSchema)]
pub struct LoginRequest {
    /// The account's email; at most 254 characters.
    #[schema(max_length = 254)]
    pub email: String,
    /// The account's password; at most 256 characters.
    #[schema(max_length = 256)]
    pub password: String,
}

/// `POST /api/v2/login/refresh` body: trades a refresh token for a new pair.
#[derive(Clone, Serialize, Deserialize, ToSchema)]
pub struct RefreshRequest {
    /// The refresh token of the last login or refresh; it works once. At most 256 characters.
    #[schema(max_length = 256)]
    pub refresh_token: String,
}

/// Response of login and refresh.
#[derive(Clone, Serialize, Deserialize, ToSchema)]
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

/// What `Debug` prints in place of a secret.
struct Redacted;

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Debug for LoginRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoginRequest")
            .field("email", &self.email)
            .field("password", &Redacted)
            .finish()
    }
}

impl fmt::Debug for RefreshRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RefreshRequest")
            .field("refresh_token", &Redacted)
            .finish()
    }
}

impl fmt::Debug for LoginResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LoginResponse")
            .field("access_token", &Redacted)
            .field("refresh_token", &Redacted)
            .field("expiration_datetime", &self.expiration_datetime)
            .field("society", &self.society)
            .finish()
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_output_redacts_every_password_and_token() {
        let at = || Timestamp(chrono::DateTime::parse_from_rfc3339("2026-01-02T03:04:05-03:00").expect("a time"));
        let society = SocietySummary {
            id: 1,
            legal_name: "La Pampa".into(),
            sync_check: "1-2".into(),
        };
        let printed = [
            format!(
                "{:?}",
                LoginRequest {
                    email: "a@b.ar".into(),
                    password: "password-secret".into()
                }
            ),
            format!(
                "{:?}",
                RefreshRequest {
                    refresh_token: "refresh-secret".into()
                }
            ),
            format!(
                "{:?}",
                LoginResponse {
                    access_token: "access-secret".into(),
                    refresh_token: "refresh-secret".into(),
                    expiration_datetime: at(),
                    society,
                }
            ),
        ];
        for text in printed {
            assert!(!text.contains("secret"), "{text}");
            assert!(text.contains("[redacted]"), "{text}");
        }
    }
}
