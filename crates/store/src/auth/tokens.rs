//! Tokens: refresh with rotation and reuse detection, access-token checks, and API keys.

use std::sync::LazyLock;

use rusqlite::OptionalExtension;

use crate::db::{with_reader, with_writer, Db};
use crate::rows::FromSqliteRow;
use crate::snapshot::{society_version, REFERENCE_VERSION};
use crate::sql::{Arg, Dialect, RowLock};
use crate::write::BeginWrite;
use crate::{now_millis, Scope, Snapshot, Store, StoreError};

use super::{digest, has_api_role, society_of, sync_check};
use super::{Grant, LoginRefusal, Session, SocietyInfo, TokenCheck};

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

impl Store {
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
                society_version(self.db.dialect(), "$1")
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
                society_version(dialect, "$1"),
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
