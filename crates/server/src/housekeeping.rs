//! The periodic purges every server process runs (see `store::housekeeping`): expired tokens, old login failures,
//! expired idempotency keys, finished jobs, settled webhook deliveries and their attempts, and the change feed past
//! their retentions. Each purge deletes a bounded batch per transaction, and a bounded number of batches per round;
//! across processes, one at a time does each.

use std::time::Duration;

use store::housekeeping::{Purge, Purged};
use store::Store;
use tokio::task::JoinHandle;

/// How long what outlives its use is kept, and how the purges pace themselves.
#[derive(Debug, Clone)]
pub struct HousekeepingConfig {
    /// Time between rounds of purges.
    pub every: Duration,
    /// Rows one transaction deletes at most.
    pub batch: u32,
    /// Batches one purge runs at most per round; what is left waits for the next round.
    pub batches_per_round: u32,
    /// How long an access or refresh token is kept after it expires.
    pub expired_tokens: Duration,
    /// How long a failed login is kept (the throttle counts the last 15 minutes' only).
    pub login_failures: Duration,
    /// How long an idempotency key is kept after it expires (24 hours after its first use).
    pub idempotency_keys: Duration,
    /// How long a finished or failed job stays readable.
    pub finished_jobs: Duration,
    /// How long a settled webhook delivery (succeeded, failed or abandoned) and its attempts stay readable.
    pub webhook_deliveries: Duration,
}

impl Default for HousekeepingConfig {
    fn default() -> Self {
        const HOUR: u64 = 3600;
        Self {
            every: Duration::from_secs(600),
            batch: 1_000,
            batches_per_round: 100,
            expired_tokens: Duration::from_secs(24 * HOUR),
            login_failures: Duration::from_secs(24 * HOUR),
            idempotency_keys: Duration::ZERO,
            finished_jobs: Duration::from_secs(30 * 24 * HOUR),
            webhook_deliveries: Duration::from_secs(30 * 24 * HOUR),
        }
    }
}

impl HousekeepingConfig {
    fn retention(&self, purge: Purge) -> Duration {
        match purge {
            Purge::ExpiredTokens => self.expired_tokens,
            Purge::LoginFailures => self.login_failures,
            Purge::IdempotencyKeys => self.idempotency_keys,
            Purge::FinishedJobs => self.finished_jobs,
            Purge::SettledDeliveries | Purge::DeliveryAttempts => self.webhook_deliveries,
            // A full bucket is the same as none: nothing to keep.
            Purge::SpentRateLimits => Duration::ZERO,
        }
    }
}

/// Starts the rounds, the first one period after the start (a process restarted in a loop does not purge in a
/// loop); they run until the returned task is aborted.
pub fn spawn(store: Store, config: HousekeepingConfig) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut rounds = tokio::time::interval_at(tokio::time::Instant::now() + config.every, config.every);
        rounds.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            rounds.tick().await;
            round(&store, &config).await;
        }
    })
}

/// The cut-off of a retention: epoch milliseconds `retention` before `now`.
fn cut_off(now: i64, retention: Duration) -> i64 {
    now.saturating_sub(i64::try_from(retention.as_millis()).unwrap_or(i64::MAX))
}

/// One round: every purge in turn, then the change feed's.
pub async fn round(store: &Store, config: &HousekeepingConfig) {
    let now = store::now_millis();
    for purge in Purge::ALL {
        let before = cut_off(now, config.retention(purge));
        let mut deleted = 0;
        for _ in 0..config.batches_per_round {
            match store.purge(purge, before, config.batch).await {
                Ok(Purged::Deleted(rows)) => {
                    deleted += rows;
                    if rows < u64::from(config.batch) {
                        break;
                    }
                }
                Ok(Purged::Busy) => {
                    tracing::debug!(purge = purge.name(), "another process is purging");
                    break;
                }
                Err(error) => {
                    tracing::warn!(purge = purge.name(), %error, "could not purge");
                    break;
                }
            }
        }
        if deleted > 0 {
            tracing::info!(purge = purge.name(), deleted, "purged");
        }
    }
    prune_events(store, now).await;
}

/// Deletes the events past the feed's retention period.
async fn prune_events(store: &Store, now: i64) {
    let retention = Duration::from_secs(domain::events::RETENTION_DAYS.saturating_mul(24 * 3600));
    match store.prune_events(cut_off(now, retention)).await {
        Ok(0) => {}
        Ok(deleted) => tracing::info!(deleted, "pruned events past the feed's retention"),
        Err(error) => tracing::warn!(%error, "could not prune the change feed"),
    }
}
