//! Accounts and credentials: login, refresh with rotation and reuse detection, access-token checks, API keys and
//! login throttling.
//!
//! Tokens are `<society id>.<32 random bytes, base64url>`. Only their SHA-256 is stored: they carry 256 bits of
//! entropy, so a slow hash would add cost on every request and no safety. The society prefix makes the lookup one
//! indexed read that a sharded database can route. State lives in the database, so every server process that shares
//! it accepts the same tokens and sees the same revocations.

use std::sync::LazyLock;
use std::time::Duration;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::rngs::OsRng;
use rand::RngCore;
use rusqlite::OptionalExtension;
use secrecy::{ExposeSecret, SecretString};
use sha2::{Digest, Sha256};

use crate::db::{with_reader, with_writer, Arg, BeginWrite, Db, Dialect, RowLock, Sql};
use crate::list::{society_version, FromSqliteRow, REFERENCE_VERSION};
use crate::{now_millis, Scope, Snapshot, Store, StoreError};

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

/// Hashes a password with Argon2id at `cost`.
pub fn hash_password(password: &str, cost: PasswordCost) -> Result<String, StoreError> {
    let params =
        Params::new(cost.memory_kib, cost.iterations, 1, None).map_err(|e| StoreError::Hashing(e.to_string()))?;
    let salt = SaltString::generate(&mut OsRng);
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
        .hash_password(password.as_bytes(), &salt)
        .map(|hash| hash.to_string())
        .map_err(|e| StoreError::Hashing(e.to_string()))
}

/// A hash of no one's password at `cost`, computed once per cost, to verify unknown emails against. Kept per cost
/// because stores of one process may hash at different costs (tests do), and a decoy must cost what an account's
/// hash costs.
fn decoy_hash(cost: PasswordCost) -> Result<String, StoreError> {
    type Decoys = std::sync::Mutex<std::collections::HashMap<(u32, u32), String>>;
    static DECOYS: std::sync::OnceLock<Decoys> = std::sync::OnceLock::new();
    let decoys = DECOYS.get_or_init(Decoys::default);
    let key = (cost.memory_kib, cost.iterations);
    if let Some(hash) = decoys.lock().ok().and_then(|known| known.get(&key).cloned()) {
        return Ok(hash);
    }
    let hash = hash_password("no account has this password", cost)?;
    if let Ok(mut known) = decoys.lock() {
        known.entry(key).or_insert_with(|| hash.clone());
    }
    Ok(hash)
}

fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash).is_ok_and(|parsed| Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok())
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

crate::row_by_position! {
    /// A login's account and its society.
    struct Account {
        id: i64,
        society_id: i64,
        password_hash: String,
        roles: String,
        active: bool,
        legal_name: String,
        country: String,
        time_zone: String,
        data_version: i64,
    }
}

crate::row_by_position! {
    /// A subject's failed logins within the window: how many, and when the first of them was.
    #[derive(Default)]
    struct FailureWindow {
        count: i64,
        oldest: Option<i64>,
    }
}

#[derive(sqlx::FromRow)]
struct RefreshRow {
    id: i64,
    user_id: i64,
    family: String,
    expires_at: i64,
    used_at: Option<i64>,
    revoked_at: Option<i64>,
}

crate::row_by_position! {
    /// A token with its user and society, in the order the token check selects them.
    #[derive(Clone)]
    pub(crate) struct AccessRow {
        user_id: i64,
        expires_at: i64,
        revoked_at: Option<i64>,
        roles: String,
        active: bool,
        country: String,
        time_zone: String,
        society_version: i64,
        reference_version: i64,
    }
}

#[derive(sqlx::FromRow)]
struct SocietyRow {
    legal_name: String,
    country: String,
    time_zone: String,
    data_version: i64,
    roles: String,
    active: bool,
}

/// Inserts an access and refresh token of `family` for `user_id` inside transaction `$tx`; yields the pair and the
/// access token's expiry.
macro_rules! issue_pair {
    ($tx:expr, $config:expr, $society_id:expr, $user_id:expr, $family:expr) => {{
        let now = now_millis();
        let access = new_secret($society_id);
        let refresh = new_secret($society_id);
        let access_expires = now + millis($config.access_ttl);
        for (kind, secret, expires) in [
            ("access", &access, access_expires),
            ("refresh", &refresh, now + millis($config.refresh_ttl)),
        ] {
            sqlx::query(
                "INSERT INTO auth_tokens (society_id, user_id, family, kind, token_hash, expires_at, created_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
            )
            .bind($society_id)
            .bind($user_id)
            .bind($family)
            .bind(kind)
            .bind(digest(secret))
            .bind(expires)
            .bind(now)
            .execute(&mut *$tx)
            .await?;
        }
        (access, refresh, access_expires)
    }};
}

impl Store {
    /// Logs in with email and password from `address`; issues a new token family.
    #[tracing::instrument(skip(self, password))]
    pub async fn login(
        &self,
        email: &str,
        password: &str,
        address: &str,
    ) -> Result<Result<Grant, LoginRefusal>, StoreError> {
        let config = &self.config.auth;
        let email = email.trim().to_lowercase();
        let subjects = [format!("account:{email}"), format!("address:{address}")];
        let limits = [config.max_failures_per_account, config.max_failures_per_address];
        let now = now_millis();
        let window_start = now - millis(config.failure_window);
        for (subject, limit) in subjects.iter().zip(limits) {
            let sql = Sql {
                text: "SELECT COUNT(*), MIN(failed_at) FROM login_failures WHERE subject = $1 AND failed_at >= $2"
                    .to_owned(),
                args: vec![Arg::Text(subject.clone()), Arg::Int(window_start)],
            };
            let FailureWindow { count, oldest } = self.lookup_rows(&sql).await?.pop().unwrap_or_default();
            if count >= limit {
                let retry_ms = oldest.unwrap_or(now) + millis(config.failure_window) - now;
                let retry = Duration::from_millis(u64::try_from(retry_ms).unwrap_or(0)).max(Duration::from_secs(1));
                return Ok(Err(LoginRefusal::Throttled(retry)));
            }
        }
        let sql = Sql {
            text: format!(
                "SELECT u.id, u.society_id, u.password_hash, u.roles, u.active, s.legal_name, s.country, s.time_zone, \
                 {} AS data_version FROM users u JOIN societies s ON s.id = u.society_id WHERE u.email = $1",
                society_version(self.db.dialect(), "s.id")
            ),
            args: vec![Arg::Text(email.clone())],
        };
        let account: Option<Account> = self.lookup_rows(&sql).await?.pop();
        // An unknown email costs the same hash check as a wrong password, so timing does not reveal accounts.
        let stored_hash = match &account {
            Some(account) => account.password_hash.clone(),
            None => decoy_hash(config.password_cost)?,
        };
        let password = password.to_owned();
        let verified = tokio::task::spawn_blocking(move || verify_password(&password, &stored_hash))
            .await
            .unwrap_or(false);
        let account = match account {
            Some(account) if verified => account,
            _ => {
                with_writer!(&self.db, pool => {
                    let mut tx = pool.begin_write().await?;
                    sqlx::query("DELETE FROM login_failures WHERE failed_at < $1").bind(window_start).execute(&mut *tx).await?;
                    for subject in &subjects {
                        sqlx::query("INSERT INTO login_failures (subject, failed_at) VALUES ($1, $2)")
                            .bind(subject)
                            .bind(now)
                            .execute(&mut *tx)
                            .await?;
                    }
                    tx.commit().await?;
                });
                return Ok(Err(LoginRefusal::BadCredentials));
            }
        };
        if !account.active || !has_api_role(&account.roles) {
            return Ok(Err(LoginRefusal::NotPermitted));
        }
        let family = new_secret(account.society_id);
        let (access, refresh, expires_at) = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query("DELETE FROM login_failures WHERE subject = $1").bind(&subjects[0]).execute(&mut *tx).await?;
            let pair = issue_pair!(tx, config, account.society_id, account.id, &family);
            tx.commit().await?;
            pair
        });
        Ok(Ok(Grant {
            access_token: access.into(),
            refresh_token: refresh.into(),
            expires_at,
            society: SocietyInfo {
                id: account.society_id,
                legal_name: account.legal_name,
                sync_check: sync_check(account.society_id, account.data_version),
                scope: Scope::new(account.society_id, &account.country, &account.time_zone),
            },
        }))
    }

    /// Trades a refresh token for a new pair. The old refresh token and its family's access tokens stop working;
    /// presenting an already-used refresh token revokes the whole family, since one of its holders is not its owner.
    /// The token's row is locked until the trade commits (PostgreSQL `FOR UPDATE`; SQLite has one writer), so the
    /// same token presented twice at once is traded once and then seen as reused.
    #[tracing::instrument(skip_all)]
    pub async fn refresh(&self, refresh_token: &str) -> Result<Result<Grant, LoginRefusal>, StoreError> {
        let Some(society_id) = society_of(refresh_token) else {
            return Ok(Err(LoginRefusal::BadCredentials));
        };
        let config = &self.config.auth;
        let now = now_millis();
        let hash = digest(refresh_token);
        let lock = self.db.dialect().lock_rows(RowLock::Update);
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let row: Option<RefreshRow> = sqlx::query_as(&format!(
                "SELECT id, user_id, family, expires_at, used_at, revoked_at FROM auth_tokens \
                 WHERE society_id = $1 AND token_hash = $2 AND kind = 'refresh'{lock}"
            ))
            .bind(society_id)
            .bind(&hash)
            .fetch_optional(&mut *tx)
            .await?;
            let Some(row) = row else { return Ok(Err(LoginRefusal::BadCredentials)) };
            if row.used_at.is_some() && row.revoked_at.is_none() {
                tracing::warn!(society_id, user_id = row.user_id, "refresh token reused: revoking its family");
                sqlx::query("UPDATE auth_tokens SET revoked_at = $3 WHERE society_id = $1 AND family = $2 AND revoked_at IS NULL")
                    .bind(society_id)
                    .bind(&row.family)
                    .bind(now)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await?;
                return Ok(Err(LoginRefusal::BadCredentials));
            }
            if row.revoked_at.is_some() || row.used_at.is_some() || row.expires_at <= now {
                return Ok(Err(LoginRefusal::BadCredentials));
            }
            let society: SocietyRow = sqlx::query_as(&format!(
                "SELECT s.legal_name, s.country, s.time_zone, {} AS data_version, u.roles, u.active FROM societies s \
                 JOIN users u ON u.society_id = s.id WHERE s.id = $1 AND u.id = $2",
                society_version(self.db.dialect(), "s.id")
            ))
            .bind(society_id)
            .bind(row.user_id)
            .fetch_one(&mut *tx)
            .await?;
            if !society.active || !has_api_role(&society.roles) {
                return Ok(Err(LoginRefusal::NotPermitted));
            }
            sqlx::query("UPDATE auth_tokens SET used_at = $3 WHERE society_id = $1 AND id = $2")
                .bind(society_id)
                .bind(row.id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            sqlx::query(
                "UPDATE auth_tokens SET revoked_at = $3 WHERE society_id = $1 AND family = $2 AND kind = 'access' \
                 AND revoked_at IS NULL",
            )
            .bind(society_id)
            .bind(&row.family)
            .bind(now)
            .execute(&mut *tx)
            .await?;
            let (access, refresh, expires_at) = issue_pair!(tx, config, society_id, row.user_id, &row.family);
            tx.commit().await?;
            Ok(Ok(Grant {
                access_token: access.into(),
                refresh_token: refresh.into(),
                expires_at,
                society: SocietyInfo {
                    id: society_id,
                    legal_name: society.legal_name,
                    sync_check: sync_check(society_id, society.data_version),
                    scope: Scope::new(society_id, &society.country, &society.time_zone),
                },
            }))
        })
    }

    /// Checks a bearer token: one indexed lookup, no hashing beyond one SHA-256. The same statement reads the versions
    /// of the society's tables, which lists page and name their `ETag` after.
    pub async fn authenticate(&self, access_token: &str) -> Result<TokenCheck, StoreError> {
        let Some(society_id) = society_of(access_token) else {
            return Ok(TokenCheck::Invalid);
        };
        fn access(dialect: Dialect) -> String {
            format!(
                "SELECT t.user_id, t.expires_at, t.revoked_at, u.roles, u.active, s.country, s.time_zone, \
                 {} AS society_version, {} AS reference_version \
                 FROM auth_tokens t JOIN users u ON u.id = t.user_id JOIN societies s ON s.id = t.society_id \
                 WHERE t.society_id = $1 AND t.token_hash = $2 AND t.kind = 'access'",
                society_version(dialect, "t.society_id"),
                REFERENCE_VERSION
            )
        }
        static ACCESS_SQLITE: LazyLock<String> = LazyLock::new(|| access(Dialect::Sqlite));
        static ACCESS_POSTGRES: LazyLock<String> = LazyLock::new(|| access(Dialect::Postgres));
        let instance = self.instance().await?;
        let hash = digest(access_token);
        let row: Option<AccessRow> = match &self.db {
            Db::Sqlite { inline, .. } => inline.read(|connection| {
                connection
                    .prepare_cached(&ACCESS_SQLITE)?
                    .query_row((society_id, &hash), AccessRow::from_sqlite_row)
                    .optional()
            })?,
            // Each check is a round trip: the requests of one token that arrive during one share the next one.
            Db::Postgres { token, .. } => {
                self.token_checks
                    .check(&hash, || async {
                        token
                            .fetch_optional(&ACCESS_POSTGRES, &[Arg::Int(society_id), Arg::Text(hash.clone())])
                            .await
                    })
                    .await?
            }
        };
        Ok(match row {
            Some(row) if row.revoked_at.is_none() && row.expires_at > now_millis() => {
                if row.active && has_api_role(&row.roles) {
                    TokenCheck::Valid(Session {
                        user_id: row.user_id,
                        scope: Scope::new(society_id, &row.country, &row.time_zone)
                            .at_data_version(row.society_version),
                        snapshot: Snapshot::new(instance, society_id, row.society_version, row.reference_version),
                    })
                } else {
                    TokenCheck::Forbidden
                }
            }
            _ => TokenCheck::Invalid,
        })
    }

    /// Whether `key` is a live API key of the caller's society.
    pub async fn api_key_is_valid(&self, scope: &Scope, key: &str) -> Result<bool, StoreError> {
        if society_of(key) != Some(scope.society_id()) {
            return Ok(false);
        }
        let found: Option<i64> = with_reader!(&self.db, pool => {
            sqlx::query_scalar("SELECT id FROM api_keys WHERE society_id = $1 AND key_hash = $2 AND revoked_at IS NULL")
                .bind(scope.society_id())
                .bind(digest(key))
                .fetch_optional(pool)
                .await?
        });
        Ok(found.is_some())
    }
}

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
    fn passwords_verify_only_against_their_own_hash() -> Result<(), StoreError> {
        let cost = PasswordCost {
            memory_kib: 64,
            iterations: 1,
        };
        let hash = hash_password("correct horse", cost)?;
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("correct horse", &hash));
        assert!(!verify_password("wrong horse", &hash));
        Ok(())
    }

    #[test]
    fn the_role_must_be_named_exactly() {
        assert!(has_api_role("agronomist,api_integrated"));
        assert!(!has_api_role("api_integrated_readonly"));
        assert!(!has_api_role(""));
    }
}
