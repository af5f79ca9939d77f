//! The background worker every server process runs: it claims jobs from the database's job table and works them
//! chunk by chunk, and prunes the change feed past its retention when idle. Processes need no coordination beyond
//! the table: a job is held under a lease, so exactly one of them works it, and a job whose worker died is resumed
//! by another once the lease runs out.

use std::time::Duration;

use store::jobs::Progress;
use store::Store;
use tokio::task::JoinHandle;

/// How the worker paces itself.
#[derive(Debug, Clone)]
pub struct JobsConfig {
    /// Whether this process works jobs at all (an operator may dedicate processes to HTTP).
    pub enabled: bool,
    /// How often an idle worker looks for work.
    pub poll_interval: Duration,
    /// How long a claim holds a job without progress before another worker may take it over.
    pub lease: Duration,
    /// Rows per committed chunk.
    pub chunk_size: usize,
}

impl Default for JobsConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            poll_interval: Duration::from_millis(500),
            lease: Duration::from_secs(30),
            chunk_size: 200,
        }
    }
}

/// Starts the worker; it runs until the returned task is aborted.
pub fn spawn(store: Store, config: JobsConfig) -> JoinHandle<()> {
    let worker = format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple());
    tokio::spawn(async move {
        let mut last_pruned = tokio::time::Instant::now();
        prune_events(&store).await;
        loop {
            match store.claim_job(&worker, config.lease).await {
                Ok(Some(job)) => {
                    tracing::info!(job = job.id, kind = %job.kind, society = job.society_id, "working job");
                    loop {
                        match store.work_job(&job, &worker, config.chunk_size, config.lease).await {
                            Ok(Progress::More) => continue,
                            Ok(Progress::Finished) => {
                                tracing::info!(job = job.id, "job finished");
                                break;
                            }
                            Ok(Progress::LostLease) => {
                                tracing::warn!(job = job.id, "lost the job's lease to another worker");
                                break;
                            }
                            Err(error) => {
                                // The lease runs out and the job is retried, up to its attempt limit.
                                tracing::warn!(job = job.id, %error, "job chunk failed");
                                tokio::time::sleep(config.poll_interval).await;
                                break;
                            }
                        }
                    }
                }
                Ok(None) => {
                    if last_pruned.elapsed() >= PRUNE_EVERY {
                        last_pruned = tokio::time::Instant::now();
                        prune_events(&store).await;
                    }
                    tokio::time::sleep(config.poll_interval).await;
                }
                Err(error) => {
                    tracing::warn!(%error, "could not look for jobs");
                    tokio::time::sleep(config.poll_interval).await;
                }
            }
        }
    })
}

/// How often an idle worker prunes the change feed: pruning is idempotent, so every process may do it.
const PRUNE_EVERY: Duration = Duration::from_secs(3600);

/// Deletes the events past the feed's retention period.
async fn prune_events(store: &Store) {
    let retention = i64::try_from(domain::events::RETENTION_DAYS * 24 * 3600 * 1000).unwrap_or(i64::MAX);
    let before = chrono::Utc::now().timestamp_millis().saturating_sub(retention);
    match store.prune_events(before).await {
        Ok(0) => {}
        Ok(deleted) => tracing::info!(deleted, "pruned events past the feed's retention"),
        Err(error) => tracing::warn!(%error, "could not prune the change feed"),
    }
}
