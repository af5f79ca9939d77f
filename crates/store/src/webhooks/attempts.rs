//! The record step of webhook delivery ([`Store::record_webhook_attempts`]): a batch of attempts written in one
//! transaction, each delivery's next state (closed, retried later, given up), each endpoint's progress, and the
//! disabling of an endpoint that has failed for the whole window.

use std::collections::{BTreeMap, BTreeSet};

use domain::webhooks::{gives_up, retry_delay};

use super::deliveries::{millis, Attempt, ClaimedDelivery, Recorded};
use crate::db::with_writer;
use crate::write::{BeginWrite, WriteTx};
use crate::{Store, StoreError};

/// An attempt of a delivery this worker still held when it was recorded.
struct Held {
    at: usize,
    society_id: i64,
    id: i64,
    endpoint_id: i64,
    created_at: i64,
    succeeded: bool,
    retry_at: i64,
}

impl Store {
    /// Records attempts of deliveries `worker` holds in one transaction (one commit for many deliveries), each with
    /// its jitter, and what follows from each at `now`, in order.
    #[tracing::instrument(skip(self, attempts), fields(attempts = attempts.len()))]
    pub async fn record_webhook_attempts(
        &self,
        worker: &str,
        attempts: &[(&ClaimedDelivery, &Attempt, f64)],
        now: i64,
    ) -> Result<Vec<Recorded>, StoreError> {
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut outcomes = vec![Recorded::LostLease; attempts.len()];
            let mut held = Vec::with_capacity(attempts.len());
            for (at, entry) in attempts.iter().enumerate() {
                if let Some(attempt) = tx.record_attempt(worker, at, entry, now).await? {
                    held.push(attempt);
                }
            }
            // Each endpoint's progress once for the batch, not once per attempt: an endpoint that took any of the
            // batch's deliveries is reachable, and is failing since no earlier than the batch otherwise.
            let mut reached: BTreeMap<(i64, i64), bool> = BTreeMap::new();
            for attempt in &held {
                *reached.entry((attempt.society_id, attempt.endpoint_id)).or_default() |= attempt.succeeded;
            }
            let mut failing_since: BTreeMap<(i64, i64), Option<i64>> = BTreeMap::new();
            for ((society_id, endpoint_id), reached) in reached {
                let since = tx.endpoint_reached(society_id, endpoint_id, reached, now).await?;
                failing_since.insert((society_id, endpoint_id), since);
            }
            let mut disabled = BTreeSet::new();
            for attempt in held {
                let endpoint = (attempt.society_id, attempt.endpoint_id);
                let failing = failing_since.get(&endpoint).copied().flatten();
                outcomes[attempt.at] = if attempt.succeeded {
                    Recorded::Delivered
                } else if failing.is_some_and(|since| gives_up(since, now)) {
                    if disabled.insert(endpoint) {
                        tx.disable_endpoint(attempt.society_id, attempt.endpoint_id, now).await?;
                    }
                    Recorded::EndpointDisabled
                } else if gives_up(attempt.created_at, now) {
                    tx.give_up(attempt.society_id, attempt.id).await?;
                    Recorded::GaveUp
                } else {
                    Recorded::Retrying(attempt.retry_at)
                };
            }
            tx.commit().await?;
            Ok(outcomes)
        })
    }
}

/// The statements of the record step, on a write transaction of either backend.
trait AttemptWrites {
    /// Records the `at`th attempt of the batch (a delivery, the attempt, its jitter): the delivery's next state and
    /// the attempt's row. `None` when `worker` no longer holds the delivery.
    fn record_attempt(
        &mut self,
        worker: &str,
        at: usize,
        entry: &(&ClaimedDelivery, &Attempt, f64),
        now: i64,
    ) -> impl std::future::Future<Output = Result<Option<Held>, sqlx::Error>> + Send;

    /// Moves an endpoint's progress: `reached` when it took any delivery of the batch. Answers since when it is
    /// failing, if it is.
    fn endpoint_reached(
        &mut self,
        society_id: i64,
        endpoint_id: i64,
        reached: bool,
        now: i64,
    ) -> impl std::future::Future<Output = Result<Option<i64>, sqlx::Error>> + Send;

    /// Disables an endpoint and abandons its waiting deliveries.
    fn disable_endpoint(
        &mut self,
        society_id: i64,
        endpoint_id: i64,
        now: i64,
    ) -> impl std::future::Future<Output = Result<(), sqlx::Error>> + Send;

    /// Gives a delivery up as failed.
    fn give_up(
        &mut self,
        society_id: i64,
        id: i64,
    ) -> impl std::future::Future<Output = Result<(), sqlx::Error>> + Send;
}

/// Implements [`AttemptWrites`] for the write transaction of backend `$db`.
macro_rules! attempt_writes {
    ($db:ty) => {
        impl AttemptWrites for WriteTx<'static, $db> {
            async fn record_attempt(
                &mut self,
                worker: &str,
                at: usize,
                &(delivery, attempt, jitter): &(&ClaimedDelivery, &Attempt, f64),
                now: i64,
            ) -> Result<Option<Held>, sqlx::Error> {
                let succeeded = attempt.status_code.is_some_and(domain::webhooks::delivered);
                let failed_attempts = u32::try_from(delivery.attempts.saturating_add(1)).unwrap_or(u32::MAX);
                let retry_at = now.saturating_add(millis(retry_delay(failed_attempts, jitter)));
                let head = attempt.response_head.as_deref();
                let status_code = attempt.status_code.map(i64::from);
                let latency = millis(attempt.latency);
                let updated: Option<(i64, i64)> = sqlx::query_as(
                    "UPDATE webhook_deliveries SET attempts = attempts + 1, locked_by = NULL, locked_until = NULL, \
                     status = CASE WHEN $4 THEN 'succeeded' ELSE 'pending' END, \
                     delivered_at = CASE WHEN $4 THEN $5 ELSE delivered_at END, next_attempt_at = $6, \
                     last_status_code = $7, last_latency_ms = $8, last_response_head = $9, last_error = $10, updated_at = $5 \
                     WHERE society_id = $1 AND id = $2 AND status = 'delivering' AND locked_by = $3 \
                     RETURNING endpoint_id, created_at",
                )
                .bind(delivery.society_id)
                .bind(delivery.id)
                .bind(worker)
                .bind(succeeded)
                .bind(now)
                .bind(retry_at)
                .bind(status_code)
                .bind(latency)
                .bind(head)
                .bind(&attempt.error)
                .fetch_optional(&mut **self)
                .await?;
                let Some((endpoint_id, created_at)) = updated else {
                    return Ok(None);
                };
                sqlx::query(
                    "INSERT INTO webhook_attempts (society_id, delivery_id, attempted_at, status_code, latency_ms, \
                     response_head, error) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                )
                .bind(delivery.society_id)
                .bind(delivery.id)
                .bind(attempt.attempted_at)
                .bind(status_code)
                .bind(latency)
                .bind(head)
                .bind(&attempt.error)
                .execute(&mut **self)
                .await?;
                Ok(Some(Held { at, society_id: delivery.society_id, id: delivery.id, endpoint_id, created_at, succeeded, retry_at }))
            }

            async fn endpoint_reached(
                &mut self,
                society_id: i64,
                endpoint_id: i64,
                reached: bool,
                now: i64,
            ) -> Result<Option<i64>, sqlx::Error> {
                Ok(sqlx::query_scalar(
                    "UPDATE webhook_progress SET failing_since = CASE WHEN $3 THEN NULL ELSE COALESCE(failing_since, $4) END \
                     WHERE society_id = $1 AND endpoint_id = $2 RETURNING failing_since",
                )
                .bind(society_id)
                .bind(endpoint_id)
                .bind(reached)
                .bind(now)
                .fetch_optional(&mut **self)
                .await?
                .flatten())
            }

            async fn disable_endpoint(&mut self, society_id: i64, endpoint_id: i64, now: i64) -> Result<(), sqlx::Error> {
                // Disabling is a change of the endpoint, so its owner sees it in the endpoint's GET and in the feed.
                let disabling = sqlx::query(
                    "UPDATE webhook_endpoints SET state = 'disabled', disabled_at = $3, updated_at = $3 \
                     WHERE society_id = $1 AND id = $2 AND state = 'enabled'",
                )
                .bind(society_id)
                .bind(endpoint_id)
                .bind(now)
                .execute(&mut **self)
                .await?;
                if disabling.rows_affected() > 0 {
                    self.changed(society_id, &super::WEBHOOK_ENDPOINT, [endpoint_id], "disabled");
                }
                sqlx::query(
                    "UPDATE webhook_deliveries SET status = 'abandoned', updated_at = $3 \
                     WHERE society_id = $1 AND endpoint_id = $2 AND status = 'pending'",
                )
                .bind(society_id)
                .bind(endpoint_id)
                .bind(now)
                .execute(&mut **self)
                .await?;
                Ok(())
            }

            async fn give_up(&mut self, society_id: i64, id: i64) -> Result<(), sqlx::Error> {
                sqlx::query("UPDATE webhook_deliveries SET status = 'failed' WHERE society_id = $1 AND id = $2")
                    .bind(society_id)
                    .bind(id)
                    .execute(&mut **self)
                    .await?;
                Ok(())
            }
        }
    };
}

attempt_writes!(sqlx::Sqlite);
attempt_writes!(sqlx::Postgres);
