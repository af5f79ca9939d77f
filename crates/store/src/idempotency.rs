//! Idempotency keys: a POST that carries `Idempotency-Key` is answered once; a retry with the same key and the same
//! request gets the first answer again, a reuse of the key for a different request is refused. Keys are scoped to
//! the society and kept for [`KEY_LIFETIME_MS`]. The state is in the database, so a retry that reaches another
//! server process is recognised too.
//!
//! A request that claims a key holds it under a lease of [`LEASE_MS`], which it renews while it runs
//! ([`Store::renew_claim`]). A request that ends without an answer releases its key at once; one whose process dies
//! holds it only until the lease runs out. Either way the key is free again only if the request's write did not
//! commit: every commit of a keyed request ([`crate::write::WriteTx`]) marks the key committed in the same transaction
//! ([`mark_committed`]), under the request's claim, so a write and the trace of it commit together or not at all. A
//! key whose write committed is never run again: its retries replay the recorded answer, or, when the answer is not
//! to be kept (it held a secret) or the process died between the commit and the recording, are told the write
//! happened ([`Claim::AnswerLost`]).

use std::time::Duration;

use crate::db::{with_reader, with_writer};
use crate::{now_millis, Scope, Store, StoreError};

/// How long a key is remembered: 24 hours.
pub const KEY_LIFETIME_MS: i64 = 24 * 3_600_000;

/// How long a claim holds its key without being renewed: the longest a retry waits after the process answering the
/// first request died.
pub const LEASE_MS: i64 = 10_000;

/// How often a running request renews its claim: three times a lease, so that one late renewal loses nothing.
pub const RENEW_EVERY: Duration = Duration::from_millis(LEASE_MS as u64 / 3);

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

/// A request's hold on a key, from [`Claim::Fresh`] until its answer is recorded or the key released.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    pub(crate) society_id: i64,
    pub(crate) key: String,
    /// Random, so that a request whose lease ran out and was claimed again cannot touch the new claim.
    pub(crate) claim_id: i64,
}

/// What to do with a request that carries a key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// First use (or the key was freed): run it inside [`keyed`], then [`Store::finish_claim`].
    Fresh(Claimed),
    /// A retry of a request already answered: send this again.
    Replay(StoredAnswer),
    /// The key was first used for a different request.
    Mismatch,
    /// The first request with this key is still being answered.
    InProgress,
    /// The first request's write committed, but its answer is not kept: it held a secret, shown once, or its process
    /// stopped before recording it. The write must not run again, and its answer cannot be replayed.
    AnswerLost,
}

/// What a claimed request's answer was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A success: kept for the retries.
    Answered(StoredAnswer),
    /// A refusal or failure: the key is freed if the request wrote nothing, and the answer kept otherwise.
    Failed(StoredAnswer),
    /// An answer never stored that a retry may ask for anew (fresh credentials): the key is freed.
    RunAgain,
    /// An answer never stored whose write must not run twice (it holds a secret shown once): the key is freed if
    /// the request wrote nothing; otherwise it stays taken without an answer, and its retries are told at once that
    /// the write happened ([`Claim::AnswerLost`]).
    NotKept,
}

#[derive(sqlx::FromRow)]
struct KeyRow {
    request_hash: String,
    status: Option<i64>,
    content_type: Option<String>,
    location: Option<String>,
    body: Option<String>,
    lease_until: Option<i64>,
    committed_at: Option<i64>,
}

tokio::task_local! {
    /// The claim of the keyed request this task is answering.
    static KEYED: Claimed;
}

/// Runs `request` as the keyed request of `claim`: every write it commits marks the key committed.
pub async fn keyed<F: std::future::Future>(claim: Claimed, request: F) -> F::Output {
    KEYED.scope(claim, request).await
}

/// The claim of the keyed request this task is answering, if any.
pub(crate) fn current_claim() -> Option<Claimed> {
    KEYED.try_with(Claimed::clone).ok()
}

/// Marks the key of the current keyed request committed, in the transaction `$tx` that is about to commit; fails
/// (and so rolls the transaction back) when the request no longer holds its claim.
macro_rules! mark_committed {
    ($tx:expr) => {
        match $crate::idempotency::current_claim() {
            None => Ok(()),
            Some(claim) => {
                let marked = sqlx::query(
                    "UPDATE idempotency_keys SET committed_at = $4 \
                     WHERE society_id = $1 AND idempotency_key = $2 AND claim_id = $3",
                )
                .bind(claim.society_id)
                .bind(&claim.key)
                .bind(claim.claim_id)
                .bind($crate::now_millis())
                .execute(&mut *$tx)
                .await?
                .rows_affected();
                if marked == 1 {
                    Ok(())
                } else {
                    Err(sqlx::Error::Protocol(
                        "the request lost its claim on its idempotency key before committing".into(),
                    ))
                }
            }
        }
    };
}
pub(crate) use mark_committed;

impl Store {
    /// Claims `key` for a request whose method, path and body hash to `request_hash`: a new key, an expired one, or
    /// one whose request ended without committing and whose lease ran out.
    pub async fn claim_key(&self, scope: &Scope, key: &str, request_hash: &str) -> Result<Claim, StoreError> {
        let now = now_millis();
        let claim = Claimed {
            society_id: scope.society_id(),
            key: key.to_owned(),
            claim_id: rand::random(),
        };
        let claimed = with_writer!(&self.db, pool => {
            sqlx::query(
                "INSERT INTO idempotency_keys (society_id, idempotency_key, request_hash, claim_id, lease_until, \
                 created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (society_id, idempotency_key) DO UPDATE SET request_hash = excluded.request_hash, \
                 claim_id = excluded.claim_id, lease_until = excluded.lease_until, committed_at = NULL, \
                 status = NULL, content_type = NULL, location = NULL, body = NULL, \
                 created_at = excluded.created_at, expires_at = excluded.expires_at \
                 WHERE idempotency_keys.expires_at <= $6 OR (idempotency_keys.status IS NULL \
                 AND idempotency_keys.committed_at IS NULL AND idempotency_keys.lease_until <= $6)",
            )
            .bind(claim.society_id)
            .bind(key)
            .bind(request_hash)
            .bind(claim.claim_id)
            .bind(now + LEASE_MS)
            .bind(now)
            .bind(now + KEY_LIFETIME_MS)
            .execute(pool)
            .await?
            .rows_affected()
        });
        if claimed == 1 {
            return Ok(Claim::Fresh(claim));
        }
        let row: Option<KeyRow> = with_reader!(&self.db, pool => {
            sqlx::query_as(
                "SELECT request_hash, status, content_type, location, body, lease_until, committed_at \
                 FROM idempotency_keys WHERE society_id = $1 AND idempotency_key = $2",
            )
            .bind(claim.society_id)
            .bind(key)
            .fetch_optional(pool)
            .await?
        });
        let Some(row) = row else {
            // Freed by its request between our two statements: the retry may claim it.
            return Ok(Claim::InProgress);
        };
        Ok(if row.request_hash != request_hash {
            Claim::Mismatch
        } else if let Some(status) = row.status {
            Claim::Replay(StoredAnswer {
                status,
                content_type: row.content_type,
                location: row.location,
                body: row.body,
            })
        } else {
            match (row.lease_until.unwrap_or(0) > now, row.committed_at) {
                (true, _) => Claim::InProgress,
                (false, Some(_)) => Claim::AnswerLost,
                // The lease ran out between our two statements: the next retry may claim the key.
                (false, None) => Claim::InProgress,
            }
        })
    }

    /// Extends the lease of a request still running.
    pub async fn renew_claim(&self, claim: &Claimed) -> Result<(), StoreError> {
        with_writer!(&self.db, pool => {
            sqlx::query(
                "UPDATE idempotency_keys SET lease_until = $4 \
                 WHERE society_id = $1 AND idempotency_key = $2 AND claim_id = $3 AND status IS NULL",
            )
            .bind(claim.society_id)
            .bind(&claim.key)
            .bind(claim.claim_id)
            .bind(now_millis() + LEASE_MS)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Records how a claimed request ended: its answer kept for its retries, or its key freed.
    pub async fn finish_claim(&self, claim: &Claimed, outcome: &Outcome) -> Result<(), StoreError> {
        let (answer, free_if) = match outcome {
            Outcome::Answered(answer) => (Some(answer), None),
            Outcome::Failed(answer) => (Some(answer), Some(" AND committed_at IS NULL")),
            Outcome::RunAgain => (None, Some("")),
            Outcome::NotKept => (None, Some(" AND committed_at IS NULL")),
        };
        if let Some(condition) = free_if {
            if self.release_claim_where(claim, condition).await? == 1 {
                return Ok(());
            }
        }
        let Some(answer) = answer else {
            // Written, and its answer not to be kept: the key's retries need not wait for the lease to learn so.
            with_writer!(&self.db, pool => {
                sqlx::query(
                    "UPDATE idempotency_keys SET lease_until = NULL \
                     WHERE society_id = $1 AND idempotency_key = $2 AND claim_id = $3",
                )
                .bind(claim.society_id)
                .bind(&claim.key)
                .bind(claim.claim_id)
                .execute(pool)
                .await?;
            });
            return Ok(());
        };
        with_writer!(&self.db, pool => {
            sqlx::query(
                "UPDATE idempotency_keys SET status = $4, content_type = $5, location = $6, body = $7, \
                 lease_until = NULL WHERE society_id = $1 AND idempotency_key = $2 AND claim_id = $3",
            )
            .bind(claim.society_id)
            .bind(&claim.key)
            .bind(claim.claim_id)
            .bind(answer.status)
            .bind(&answer.content_type)
            .bind(&answer.location)
            .bind(&answer.body)
            .execute(pool)
            .await?;
        });
        Ok(())
    }

    /// Frees the key of a request that ended without an answer (its client left, or it timed out), unless its write
    /// committed.
    pub async fn release_claim(&self, claim: &Claimed) -> Result<(), StoreError> {
        self.release_claim_where(claim, " AND committed_at IS NULL AND status IS NULL")
            .await
            .map(drop)
    }

    async fn release_claim_where(&self, claim: &Claimed, condition: &str) -> Result<u64, StoreError> {
        let sql = format!(
            "DELETE FROM idempotency_keys WHERE society_id = $1 AND idempotency_key = $2 AND claim_id = $3{condition}"
        );
        Ok(with_writer!(&self.db, pool => {
            sqlx::query(&sql)
                .bind(claim.society_id)
                .bind(&claim.key)
                .bind(claim.claim_id)
                .execute(pool)
                .await?
                .rows_affected()
        }))
    }
}
