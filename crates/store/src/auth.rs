//! Accounts and credentials: what logins, refreshes and token checks answer, the settings they follow, and the
//! secrets they issue. Login and its throttle are in [`login`], password hashes and the bound on checks running at
//! once in [`passwords`], refresh, token checks and API keys in [`tokens`].
//!
//! Tokens are `<society id>.<32 random bytes, base64url>`. Only their SHA-256 is stored: they carry 256 bits of
//! entropy, so a slow hash would add cost on every request and no safety. The society prefix makes the lookup one
//! indexed read that a sharded database can route. State lives in the database, so every server process that shares
//! it accepts the same tokens and sees the same revocations.

use std::time::Duration;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::rngs::OsRng;
use rand::RngCore;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use crate::{Scope, Snapshot};

/// The role an account needs to use the API.
pub const API_ROLE: &str = "api_integrated";

/// Argon2id cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordCost {
    /// Memory in KiB.
    pub memory_kib: u32,
    /// Passes.
    pub iterations: u32,
}

impl Default for PasswordCost {
    /// OWASP's recommended minimum for Argon2id (19 MiB, 2 passes).
    fn default() -> Self {
        Self {
            memory_kib: 19_456,
            iterations: 2,
        }
    }
}

/// Token lifetimes and throttling limits.
#[derive(Debug, Clone)]
pub struct AuthConfig {
    /// How long an access token works.
    pub access_ttl: Duration,
    /// How long a refresh token works.
    pub refresh_ttl: Duration,
    /// Failed logins for one account within `failure_window` before further attempts get 429.
    pub max_failures_per_account: i64,
    /// Failed logins from one address within `failure_window` before further attempts get 429.
    pub max_failures_per_address: i64,
    /// The window failed logins are counted in.
    pub failure_window: Duration,
    /// Cost of new password hashes.
    pub password_cost: PasswordCost,
    /// Password checks that run at once; each holds its hash's memory and a core while it runs.
    pub password_checks: usize,
    /// How long a login waits for a password check to come free before it is refused as busy.
    pub password_check_wait: Duration,
}

impl Default for AuthConfig {
    fn default() -> Self {
        Self {
            access_ttl: Duration::from_secs(3600),
            refresh_ttl: Duration::from_secs(30 * 24 * 3600),
            max_failures_per_account: 10,
            max_failures_per_address: 50,
            failure_window: Duration::from_secs(15 * 60),
            password_cost: PasswordCost::default(),
            password_checks: passwords::default_password_checks(),
            password_check_wait: Duration::from_secs(2),
        }
    }
}

impl AuthConfig {
    /// For throwaway databases (test suites): hashes at Argon2id's cheapest cost, since no real password is stored
    /// there and the production cost would only slow every login down.
    pub fn throwaway() -> Self {
        Self {
            password_cost: PasswordCost {
                memory_kib: 256,
                iterations: 1,
            },
            ..Self::default()
        }
    }
}

/// The society as login and refresh describe it.
#[derive(Debug, Clone)]
pub struct SocietyInfo {
    /// Society id.
    pub id: i64,
    /// Legal name.
    pub legal_name: String,
    /// Changes whenever any of the society's data changes.
    pub sync_check: String,
    /// The society, for rendering the expiration in its zone.
    pub scope: Scope,
}

/// A new token pair; `Debug` redacts the tokens.
#[derive(Debug, Clone)]
pub struct Grant {
    /// Bearer token.
    pub access_token: SecretString,
    /// Single-use refresh token.
    pub refresh_token: SecretString,
    /// When the access token expires (epoch milliseconds).
    pub expires_at: i64,
    /// The account's society.
    pub society: SocietyInfo,
}

impl Grant {
    /// The login response.
    pub fn to_wire(&self) -> wire::auth::LoginResponse {
        wire::auth::LoginResponse {
            access_token: self.access_token.expose_secret().to_owned(),
            refresh_token: self.refresh_token.expose_secret().to_owned(),
            expiration_datetime: self.society.scope.render().at(self.expires_at),
            society: wire::auth::SocietySummary {
                id: self.society.id,
                legal_name: self.society.legal_name.clone(),
                sync_check: self.society.sync_check.clone(),
            },
        }
    }
}

/// Why no tokens were issued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginRefusal {
    /// Unknown email, wrong password, or an unusable token; deliberately indistinguishable.
    BadCredentials,
    /// The credentials are right but the account lacks [`API_ROLE`] or is disabled.
    NotPermitted,
    /// Too many failures recently; try again after this long.
    Throttled(Duration),
    /// No password check came free in time; try again after this long.
    Busy(Duration),
}

/// The result of checking an access token.
#[derive(Debug, Clone)]
pub enum TokenCheck {
    /// The token is good: act for this account and society.
    Valid(Session),
    /// Unknown, malformed, expired or revoked.
    Invalid,
    /// Good, but the account has lost [`API_ROLE`] or been disabled since.
    Forbidden,
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Session {
    /// The account.
    pub user_id: i64,
    /// The society it acts for.
    pub scope: Scope,
    /// Its society's data as the request found it.
    pub snapshot: Snapshot,
}

/// A fresh random secret prefixed with its society.
pub(crate) fn new_secret(society_id: i64) -> String {
    let mut bytes = [0u8; 32];
    OsRng.fill_bytes(&mut bytes);
    format!("{society_id}.{}", URL_SAFE_NO_PAD.encode(bytes))
}

/// The stored form of a secret.
pub(crate) fn digest(secret: &str) -> String {
    crate::hex(&Sha256::digest(secret.as_bytes()))
}

/// The society a secret claims to belong to, if it is well formed.
fn society_of(secret: &str) -> Option<i64> {
    let (society, rest) = secret.split_once('.')?;
    (rest.len() == 43).then_some(())?;
    society.parse().ok()
}

fn has_api_role(roles: &str) -> bool {
    roles.split(',').any(|role| role.trim() == API_ROLE)
}

fn sync_check(society_id: i64, data_version: i64) -> String {
    format!("{society_id}-{data_version}")
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// Inserts an access and refresh token of `family` for `user_id` inside transaction `$tx`; yields the pair and the
/// access token's expiry.
macro_rules! issue_pair {
    ($tx:expr, $config:expr, $society_id:expr, $user_id:expr, $family:expr) => {{
        let now = $crate::now_millis();
        let access = $crate::auth::new_secret($society_id);
        let refresh = $crate::auth::new_secret($society_id);
        let access_expires = now + $crate::auth::millis($config.access_ttl);
        for (kind, secret, expires) in [
            ("access", &access, access_expires),
            ("refresh", &refresh, now + $crate::auth::millis($config.refresh_ttl)),
        ] {
            sqlx::query(
                "INSERT INTO auth_tokens (society_id, user_id, family, kind, token_hash, expires_at, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind($society_id)
            .bind($user_id)
            .bind($family)
            .bind(kind)
            .bind($crate::auth::digest(secret))
            .bind(expires)
            .bind(now)
            .execute(&mut *$tx)
            .await?;
        }
        (access, refresh, access_expires)
    }};
}

mod login;
mod passwords;
mod tokens;

pub use passwords::{hash_password, PasswordChecks};
pub(crate) use tokens::AccessRow;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_name_their_society_and_are_unique() {
        let a = new_secret(42);
        let b = new_secret(42);
        assert_ne!(a, b);
        assert_eq!(society_of(&a), Some(42));
    }

    #[test]
    fn malformed_secrets_name_no_society() {
        assert_eq!(society_of("nonsense"), None);
        assert_eq!(society_of("42.short"), None);
        assert_eq!(society_of("x.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), None);
    }

    #[test]
    fn the_role_must_be_named_exactly() {
        assert!(has_api_role("agronomist,api_integrated"));
        assert!(!has_api_role("api_integrated_readonly"));
        assert!(!has_api_role(""));
    }
}
