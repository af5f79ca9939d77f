//! Idempotency keys: a POST that carries `Idempotency-Key` is answered once; a retry with the same key and the same
//! request gets the first answer again, a reuse of the key for a different request is refused. Keys are scoped to
//! the society and kept for [`KEY_LIFETIME_MS`]. The state is in the database, so a retry that reaches another
//! server process is recognised too.

use crate::db::{with_reader, with_writer, BeginWrite};
use crate::{now_millis, Scope, Store, StoreError};

/// How long a key is remembered: 24 hours.
pub const KEY_LIFETIME_MS: i64 = 24 * 3_600_000;

/// A stored answer.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct StoredAnswer {
    /// HTTP status.
    pub status: i64,
    /// `Content-Type` of the body.
    pub content_type: Option<String>,
    /// `Location` header, if the answer had one.
    pub location: Option<String>,
    /// The body.
    pub body: Option<String>,
}

/// What to do with a request that carries a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// First use: answer it, then [`Store::remember_answer`] (or [`Store::forget_key`] if it failed).
    Fresh,
    /// A retry of a request already answered: send this again.
    Replay(StoredAnswer),
    /// The key was first used for a different request.
    Mismatch,
    /// The first request with this key is still being answered.
    InProgress,
}

#[derive(sqlx::FromRow)]
struct KeyRow {
    request_hash: String,
    status: Option<i64>,
    content_type: Option<String>,
    location: Option<String>,
    body: Option<String>,
}

impl Store {
    /// Claims `key` for a request whose method, path and body hash to `request_hash`.
    pub async fn claim_key(&self, scope: &Scope, key: &str, request_hash: &str) -> Result<Claim, StoreError> {
        let now = now_millis();
        let society_id = scope.society_id();
        let inserted = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query("DELETE FROM idempotency_keys WHERE society_id = $1 AND idempotency_key = $2 AND expires_at <= $3")
                .bind(society_id)
                .bind(key)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            let inserted = sqlx::query(
                "INSERT INTO idempotency_keys (society_id, idempotency_key, request_hash, created_at, expires_at) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (society_id, idempotency_key) DO NOTHING",
            )
            .bind(society_id)
            .bind(key)
            .bind(request_hash)
            .bind(now)
            .bind(now + KEY_LIFETIME_MS)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            tx.commit().await?;
            inserted
        });
        if inserted == 1 {
            return Ok(Claim::Fresh);
        }
        let row: Option<KeyRow> = with_reader!(&self.db, pool => {
            sqlx::query_as(
                "SELECT request_hash, status, content_type, location, body FROM idempotency_keys \
                 WHERE society_id = $1 AND idempotency_key = $2",
            )
            .bind(society_id)
            .bind(key)
            .fetch_optional(pool)
            .await?
        });
        Ok(match row {
            // Expired and purged by another request between our two statements: as good as in progress.
            None => Claim::InProgress,
            Some(row) if row.request_hash != request_hash => Claim::Mismatch,
            Some(KeyRow { status: None, .. }) => Claim::InProgress,
            Some(KeyRow {
                status: Some(status),
                content_type,
                location,
                body,
                ..
            }) => Claim::Replay(StoredAnswer {
                status,
                content_type,
                location,
                body,
            }),
        })
    }

    /// Records the answer to a fresh key, for its retries.
    pub async fn remember_answer(&self, scope: &Scope, key: &str, answer: &StoredAnswer) -> Result<(), StoreError> {
        with_writer!(&self.db, pool => {
            sqlx::query(
                "UPDATE idempotency_keys SET status = $3, content_type = $4, location = $5, body = $6 \
                 WHERE society_id = $1 AND idempotency_key = $2",
            )
            .bind(scope.society_id())
            .bind(key)
            .bind(answer.status)
            .bind(&answer.content_type)
            .bind(&answer.location)
            .bind(&answer.body)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Releases a fresh key whose request failed in a way worth retrying (5xx), so the retry runs anew.
    pub async fn forget_key(&self, scope: &Scope, key: &str) -> Result<(), StoreError> {
        with_writer!(&self.db, pool => {
            sqlx::query("DELETE FROM idempotency_keys WHERE society_id = $1 AND idempotency_key = $2 AND status IS NULL")
                .bind(scope.society_id())
                .bind(key)
                .execute(pool)
                .await?;
        });
        Ok(())
    }
}
