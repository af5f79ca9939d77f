//! The claim step of webhook delivery ([`Store::claim_webhook_deliveries`]): which deliveries a worker takes, under a
//! lease, and the endpoints' URLs and secrets that sending them takes.
//!
//! A claim runs per society. One statement over every society, without locks, finds the societies with deliveries
//! due or left by a lapsed lease, oldest due first, and how many each has; [`domain::claims::fair_shares`] splits the
//! worker's free slots between them, so a society with a long backlog does not starve the others. Then each society's
//! share is claimed in a transaction of its own, with statements that name the society, so on Citus each runs on the
//! one worker that holds it. PostgreSQL claims with `FOR UPDATE SKIP LOCKED`, so several processes never take the same
//! delivery; SQLite has one writer. A process killed mid-delivery leaves its lease to run out, and the delivery is
//! claimed and sent again: delivery is at least once, and receivers deduplicate by `webhook-id`.

use std::time::Duration;

use domain::claims::fair_shares;
use secrecy::SecretString;

use super::deliveries::{millis, ClaimedDelivery};
use crate::db::with_writer;
use crate::sql::{Arg, Dialect, Sql};
use crate::write::BeginWrite;
use crate::{Store, StoreError};

/// Societies one claim looks at: its free slots are shared between at most these many, the oldest due first.
const SOCIETIES_PER_CLAIM: i64 = 32;

crate::row_by_position! {
    /// A society with deliveries to claim, and how many.
    struct DueSociety {
        society_id: i64,
        due: i64,
    }
}

/// A delivery as its claim left it: still held (`true`), or abandoned because its endpoint is gone.
type Taken = (i64, i64, i64, String, i64, bool);

#[derive(Clone, sqlx::FromRow)]
struct EndpointRow {
    url: String,
    secret: String,
    previous_secret: Option<String>,
    previous_secret_expires_at: Option<i64>,
}

impl Store {
    /// Claims up to `limit` deliveries that are due, or whose worker's lease ran out, for `worker` until `now + lease`,
    /// shared fairly between the societies that have some. Deliveries of endpoints deleted or disabled meanwhile are
    /// abandoned instead.
    #[tracing::instrument(skip(self))]
    pub async fn claim_webhook_deliveries(
        &self,
        worker: &str,
        lease: Duration,
        limit: u32,
        now: i64,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        // Each leg reads an index alone: due deliveries by time, with their society, so the read grows with what is
        // due now, not with the retries waiting for later; lapsed leases are at most the deliveries in flight.
        let sweep = Sql {
            text: "/* all societies: which societies have webhook deliveries due or left by a lapsed lease, how many, \
                   oldest due first; the delivery worker's background sweep, without locks */ \
                   SELECT society_id, COUNT(*) FROM (\
                   SELECT society_id, next_attempt_at AS due FROM webhook_deliveries \
                   WHERE status = 'pending' AND next_attempt_at <= $1 \
                   UNION ALL SELECT society_id, locked_until AS due FROM webhook_deliveries \
                   WHERE status = 'delivering' AND locked_until < $1) d \
                   GROUP BY society_id ORDER BY MIN(due), society_id LIMIT $2"
                .to_owned(),
            args: vec![Arg::Int(now), Arg::Int(SOCIETIES_PER_CLAIM)],
        };
        let societies: Vec<DueSociety> = self.lookup_rows(&sweep).await?;
        let due: Vec<u64> = societies
            .iter()
            .map(|society| u64::try_from(society.due).unwrap_or(0))
            .collect();
        let mut claimed = Vec::new();
        for (society, share) in societies.iter().zip(fair_shares(&due, u64::from(limit))) {
            if share > 0 {
                let share = i64::try_from(share).unwrap_or(i64::MAX);
                claimed.extend(
                    self.claim_deliveries_of(society.society_id, worker, lease, share, now)
                        .await?,
                );
            }
        }
        Ok(claimed)
    }

    /// Claims up to `limit` deliveries of society `society_id` that are due, or whose worker's lease ran out, in one
    /// transaction whose every statement names the society.
    async fn claim_deliveries_of(
        &self,
        society_id: i64,
        worker: &str,
        lease: Duration,
        limit: i64,
        now: i64,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let claims = claim_statements(self.db.dialect());
        let rows: Vec<(Taken, EndpointRow)> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut taken: Vec<Taken> = Vec::new();
            for claim in &claims {
                let left = limit - i64::try_from(taken.len()).unwrap_or(i64::MAX);
                if left <= 0 {
                    break;
                }
                taken.extend(
                    sqlx::query_as::<_, Taken>(claim)
                        .bind(worker)
                        .bind(now.saturating_add(millis(lease)))
                        .bind(now)
                        .bind(left)
                        .bind(society_id)
                        .fetch_all(&mut *tx)
                        .await?,
                );
            }
            let mut rows = Vec::new();
            let mut endpoints: Vec<(i64, EndpointRow)> = Vec::new();
            for delivery in taken.into_iter().filter(|delivery| delivery.5) {
                let endpoint_id = delivery.1;
                let endpoint = match endpoints.iter().find(|(id, _)| *id == endpoint_id) {
                    Some((_, endpoint)) => endpoint.clone(),
                    None => {
                        let endpoint: EndpointRow = sqlx::query_as(
                            "SELECT url, secret, previous_secret, previous_secret_expires_at FROM webhook_endpoints \
                             WHERE society_id = $1 AND id = $2",
                        )
                        .bind(society_id)
                        .bind(endpoint_id)
                        .fetch_one(&mut *tx)
                        .await?;
                        endpoints.push((endpoint_id, endpoint.clone()));
                        endpoint
                    }
                };
                rows.push((delivery, endpoint));
            }
            tx.commit().await?;
            rows
        });
        Ok(rows
            .into_iter()
            .map(|((id, endpoint_id, event_id, body, attempts, _), endpoint)| {
                let previous = endpoint
                    .previous_secret
                    .filter(|_| endpoint.previous_secret_expires_at.is_some_and(|until| until > now));
                ClaimedDelivery {
                    society_id,
                    id,
                    endpoint_id,
                    event_id,
                    url: endpoint.url,
                    body,
                    secrets: std::iter::once(endpoint.secret)
                        .chain(previous)
                        .map(SecretString::from)
                        .collect(),
                    attempts,
                }
            })
            .collect())
    }
}

/// The two statements of a society's claim (see [`Store::claim_deliveries_of`]): leases that ran out first, then
/// deliveries due.
fn claim_statements(dialect: Dialect) -> [String; 2] {
    // PostgreSQL takes the ids from an array built once: a sub-select under `IN` may be scanned again for each row
    // updated, and then skips the rows this very statement has just updated and takes more than its limit.
    let (open, lock_and_close) = match dialect {
        Dialect::Postgres => ("= ANY (ARRAY(", " FOR UPDATE SKIP LOCKED))"),
        Dialect::Sqlite => ("IN (", ")"),
    };
    // Checked only for the deliveries claimed: a check of every due delivery in each claim cost as much as the
    // backlog was long. A delivery retried by hand goes once to a disabled endpoint too (migration 30); the claim
    // clears the mark.
    let alive = "EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.society_id = $5 \
             AND e.id = webhook_deliveries.endpoint_id AND e.deleted_at IS NULL \
             AND (e.state = 'enabled' OR webhook_deliveries.redelivery))";
    // Leases that ran out first, then deliveries due, each in the order of the society's index, so that a claim
    // reads what it takes rather than sorting every due delivery. SQLite's `id` is the rowid (its
    // `(society_id, id) IN (…)` over the table being updated matched nothing); PostgreSQL finds `id` by its key,
    // which leads with the society.
    [
        "status = 'delivering' AND locked_until < $3 ORDER BY locked_until",
        "status = 'pending' AND next_attempt_at <= $3 ORDER BY next_attempt_at, id",
    ]
    .map(|due| {
        format!(
            "UPDATE webhook_deliveries SET status = CASE WHEN {alive} THEN 'delivering' ELSE 'abandoned' END, \
                 locked_by = CASE WHEN {alive} THEN $1 END, locked_until = CASE WHEN {alive} THEN $2 END, \
                 redelivery = FALSE, updated_at = $3 \
                 WHERE society_id = $5 AND id {open}SELECT id FROM webhook_deliveries \
                 WHERE society_id = $5 AND {due} LIMIT $4{lock_and_close} \
                 RETURNING id, endpoint_id, event_id, body, attempts, status = 'delivering'"
        )
    })
}
