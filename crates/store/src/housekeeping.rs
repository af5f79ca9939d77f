//! Purges of what outlives its use: expired tokens, old login failures, expired idempotency keys, finished jobs and
//! settled webhook deliveries and their attempts past their retention, and shared rate-limit buckets that are full
//! again. Each batch deletes at most a given number of rows, oldest first, in a transaction of its own, so a purge
//! never holds its locks long. On PostgreSQL each batch first takes its purge's transaction-level advisory lock
//! without waiting: when another process holds it, this one skips the purge, so exactly one process does each purge
//! at a time. SQLite's single writer serialises them anyway.

use crate::db::with_writer;
use crate::events::EventResource;
use crate::resources::events::JOB;
use crate::sql::Dialect;
use crate::write::BeginWrite;
use crate::{Store, StoreError};

/// What one purge deletes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purge {
    /// Access and refresh tokens expired before the cut-off.
    ExpiredTokens,
    /// Failed logins older than the cut-off (the throttle only counts recent ones).
    LoginFailures,
    /// Idempotency keys expired before the cut-off.
    IdempotencyKeys,
    /// Jobs that finished or failed before the cut-off.
    FinishedJobs,
    /// Shared rate-limit buckets full again before the cut-off: the same as none.
    SpentRateLimits,
    /// Webhook deliveries that succeeded, failed or were abandoned before the cut-off.
    SettledDeliveries,
    /// Webhook delivery attempts made before the cut-off (a delivery is retried for 3 days at most, so these are
    /// settled deliveries' when the cut-off is older).
    DeliveryAttempts,
}

impl Purge {
    /// Every purge.
    pub const ALL: [Purge; 7] = [
        Purge::ExpiredTokens,
        Purge::LoginFailures,
        Purge::IdempotencyKeys,
        Purge::FinishedJobs,
        Purge::SpentRateLimits,
        Purge::SettledDeliveries,
        Purge::DeliveryAttempts,
    ];

    /// A name for logs.
    pub fn name(self) -> &'static str {
        match self {
            Purge::ExpiredTokens => "expired tokens",
            Purge::LoginFailures => "login failures",
            Purge::IdempotencyKeys => "idempotency keys",
            Purge::FinishedJobs => "finished jobs",
            Purge::SpentRateLimits => "spent rate-limit buckets",
            Purge::SettledDeliveries => "settled webhook deliveries",
            Purge::DeliveryAttempts => "webhook delivery attempts",
        }
    }

    /// Its PostgreSQL advisory lock (as `pg_locks` shows it): a key no other lock of ours uses.
    pub fn lock_key(self) -> i64 {
        0x7472_616e_0000_0100
            + match self {
                Purge::ExpiredTokens => 1,
                Purge::LoginFailures => 2,
                Purge::IdempotencyKeys => 3,
                Purge::FinishedJobs => 4,
                Purge::SpentRateLimits => 5,
                Purge::SettledDeliveries => 6,
                Purge::DeliveryAttempts => 7,
            }
    }

    /// The table, the key its rows are deleted by, and which of them are past the cut-off `$1`, in the order of the
    /// index that finds them.
    fn rows(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Purge::ExpiredTokens => ("auth_tokens", "society_id, id", "expires_at < $1 ORDER BY expires_at"),
            Purge::LoginFailures => ("login_failures", "id", "failed_at < $1 ORDER BY failed_at"),
            Purge::IdempotencyKeys => (
                "idempotency_keys",
                "society_id, idempotency_key",
                "expires_at < $1 ORDER BY expires_at",
            ),
            Purge::FinishedJobs => (
                "jobs",
                "society_id, id",
                "finished_at IS NOT NULL AND finished_at < $1 AND status IN ('finished', 'failed') \
                 ORDER BY finished_at",
            ),
            // Buckets keep microseconds; cut-offs are milliseconds.
            Purge::SpentRateLimits => (
                "rate_limit_buckets",
                "limit_name, limit_key",
                "tat_us < $1 * 1000 ORDER BY tat_us",
            ),
            Purge::SettledDeliveries => (
                "webhook_deliveries",
                "society_id, id",
                "status IN ('succeeded', 'failed', 'abandoned') AND updated_at < $1 ORDER BY updated_at",
            ),
            Purge::DeliveryAttempts => (
                "webhook_attempts",
                "society_id, id",
                "attempted_at < $1 ORDER BY attempted_at",
            ),
        }
    }

    /// The resource whose records the purge deletes, when they are records with events: a purged job is gone from
    /// its `GET`, so its owner sees its deletion in the feed.
    fn records(self) -> Option<&'static EventResource> {
        match self {
            Purge::FinishedJobs => Some(&JOB),
            _ => None,
        }
    }

    /// The comment that opens the purge's statement when it is a background sweep over every society's rows, which
    /// names no society: on Citus it runs on every worker.
    fn sweep(self) -> &'static str {
        match self {
            Purge::ExpiredTokens => "/* all societies: tokens past their retention, oldest first; housekeeping */ ",
            Purge::IdempotencyKeys => {
                "/* all societies: idempotency keys past their retention, oldest first; housekeeping */ "
            }
            Purge::FinishedJobs => {
                "/* all societies: finished jobs past their retention, oldest first; housekeeping */ "
            }
            Purge::SettledDeliveries => {
                "/* all societies: settled webhook deliveries past their retention, oldest first; housekeeping */ "
            }
            Purge::DeliveryAttempts => {
                "/* all societies: webhook delivery attempts past their retention, oldest first; housekeeping */ "
            }
            Purge::LoginFailures | Purge::SpentRateLimits => "",
        }
    }

    /// One batch: at most `$2` rows past the cut-off `$1`, oldest first. SQLite deletes by `rowid`: with a key of
    /// two columns (`(a, b) IN (SELECT a, b … LIMIT n)`), SQLite (3.40, and the 3.46 sqlx bundles) deleted one row of
    /// the `n`.
    fn statement(self, dialect: Dialect) -> String {
        let (table, key, past) = self.rows();
        let key = match dialect {
            Dialect::Sqlite => "rowid",
            Dialect::Postgres => key,
        };
        let sweep = self.sweep();
        format!("{sweep}DELETE FROM {table} WHERE ({key}) IN (SELECT {key} FROM {table} WHERE {past} LIMIT $2)")
    }
}

/// What one batch of a purge did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purged {
    /// It deleted this many rows (fewer than the batch: nothing older is left).
    Deleted(u64),
    /// Another process is doing this purge now.
    Busy,
}

impl Store {
    /// One batch of `purge`: at most `batch` of its rows older than `before` (epoch milliseconds), oldest first.
    pub async fn purge(&self, purge: Purge, before: i64, batch: u32) -> Result<Purged, StoreError> {
        let dialect = self.db.dialect();
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            if dialect == Dialect::Postgres {
                let locked: bool = sqlx::query_scalar("SELECT pg_try_advisory_xact_lock($1)")
                    .bind(purge.lock_key())
                    .fetch_one(&mut *tx)
                    .await?;
                if !locked {
                    return Ok(Purged::Busy);
                }
            }
            let deleted = match purge.records() {
                Some(resource) => {
                    let gone: Vec<(i64, i64)> =
                        sqlx::query_as(&format!("{} RETURNING society_id, id", purge.statement(dialect)))
                            .bind(before)
                            .bind(i64::from(batch))
                            .fetch_all(&mut *tx)
                            .await?;
                    for (society_id, id) in &gone {
                        tx.changed(*society_id, resource, [*id], "deleted");
                    }
                    u64::try_from(gone.len()).unwrap_or(u64::MAX)
                }
                None => sqlx::query(&purge.statement(dialect))
                    .bind(before)
                    .bind(i64::from(batch))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected(),
            };
            tx.commit().await?;
            Ok(Purged::Deleted(deleted))
        })
    }
}
