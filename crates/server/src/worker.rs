//! The background worker every server process runs: it claims jobs from the database's job table and works them
//! chunk by chunk. Processes need no coordination beyond the table: a job is held under a lease, so exactly one of
//! them works it, and a job whose worker died is resumed by another once the lease runs out. Refused rows are reported
//! in the words of [`crate::i18n::jobs`].

use std::time::Duration;

use store::jobs::Progress;
use store::Store;
use tokio::task::JoinHandle;

use crate::i18n::jobs::row_reason;

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
        loop {
            match store.claim_job(&worker, config.lease).await {
                Ok(Some(job)) => {
                    tracing::info!(job = job.id, kind = %job.kind, society = job.society_id, "working job");
                    loop {
                        match store
                            .work_job(&job, &worker, config.chunk_size, config.lease, row_reason)
                            .await
                        {
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
                Ok(None) => tokio::time::sleep(config.poll_interval).await,
                Err(error) => {
                    tracing::warn!(%error, "could not look for jobs");
                    tokio::time::sleep(config.poll_interval).await;
                }
            }
        }
    })
}
