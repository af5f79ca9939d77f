//! What an operator's metrics read of the store: its pools' connections, the job queue and the webhook backlog
//! (whole-database figures, no tenant's), the operations waiting for a connection and how long they waited, and the
//! count of those that found none in time.

use std::time::Duration;

use crate::db::{with_reader, Db};
use crate::metered::MeteredPool;
pub use crate::metered::{PoolVitals, ACQUIRE_WAIT};
use crate::{now_millis, Store, StoreError};

/// Database operations that found no free pooled connection within the acquire time-out.
pub const ACQUIRE_TIMEOUTS: &str = "tranquera_db_acquire_timeouts_total";

/// The work waiting in the whole database.
#[derive(Debug, Clone, Copy)]
pub struct QueueVitals {
    /// Jobs no worker has claimed yet.
    pub jobs_queued: i64,
    /// How long the oldest of them has waited.
    pub oldest_job_age: Duration,
    /// Webhook deliveries not yet made: first attempts and retries.
    pub deliveries_pending: i64,
    /// How long the oldest of them has waited.
    pub oldest_delivery_age: Duration,
}

/// `metered`'s figures now.
fn vitals<DB: sqlx::Database>(metered: &MeteredPool<DB>) -> PoolVitals {
    let pool = metered.pool();
    PoolVitals {
        name: metered.name(),
        open: pool.size(),
        idle: u32::try_from(pool.num_idle()).unwrap_or(u32::MAX),
        max: pool.options().get_max_connections(),
        waiting: metered.waiting(),
    }
}

/// Age of something created at `created_at` (epoch milliseconds), at `now`.
fn age(created_at: Option<i64>, now: i64) -> Duration {
    Duration::from_millis(created_at.map_or(0, |created_at| u64::try_from(now - created_at).unwrap_or(0)))
}

impl Store {
    /// This process's connection pools, as they are now.
    pub fn pool_vitals(&self) -> Vec<PoolVitals> {
        match &self.db {
            Db::Sqlite { read, write, .. } => vec![vitals(read), vitals(write)],
            Db::Postgres { pool, token, read } => vec![vitals(pool), read.vitals(), token.vitals()],
        }
    }

    /// The job queue and the webhook backlog, read now.
    pub async fn queue_vitals(&self) -> Result<QueueVitals, StoreError> {
        let now = now_millis();
        let ((jobs_queued, oldest_job), (deliveries_pending, oldest_delivery)): (
            (i64, Option<i64>),
            (i64, Option<i64>),
        ) = with_reader!(&self.db, pool => {
            let jobs = sqlx::query_as(
                "/* all societies: the queue's depth for the metrics' scrape */ \
                 SELECT count(*), min(created_at) FROM jobs WHERE status = 'pending'",
            )
                .fetch_one(pool)
                .await?;
            let deliveries =
                sqlx::query_as(
                    "/* all societies: the deliveries' backlog for the metrics' scrape */ \
                     SELECT count(*), min(created_at) FROM webhook_deliveries WHERE status = 'pending'",
                )
                    .fetch_one(pool)
                    .await?;
            (jobs, deliveries)
        });
        Ok(QueueVitals {
            jobs_queued,
            oldest_job_age: age(oldest_job, now),
            deliveries_pending,
            oldest_delivery_age: age(oldest_delivery, now),
        })
    }
}
