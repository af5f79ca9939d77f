//! From events to deliveries, and deliveries from one attempt to the next, for the delivery worker of every server
//! process. Nothing here reads a clock: every step takes `now` (epoch ms) from its caller, so a test drives days of
//! retries without waiting.
//!
//! - **Fan-out**: each enabled endpoint has a cursor into its society's change feed (`webhook_progress`). A fan-out
//!   reads the feed after it and, in one transaction, queues a delivery per event the endpoint wants and moves the
//!   cursor, compare-and-set: of two processes that read the same page, one moves the cursor and the other's
//!   transaction changes nothing, so no event is queued twice (the unique index on endpoint and event is the second
//!   guard).
//! - **Claim**: like jobs (see [`crate::jobs`]), a delivery is held under a lease; PostgreSQL claims with
//!   `FOR UPDATE SKIP LOCKED`. A process killed mid-delivery leaves its lease to run out, and the delivery is claimed
//!   and sent again: delivery is at least once, and receivers deduplicate by `webhook-id`.
//! - **Record**: a 2xx closes the delivery; anything else schedules the next attempt with back-off and jitter. An
//!   endpoint failing for [`domain::webhooks::GIVE_UP_AFTER`] is disabled (its `state`, and the `webhook_endpoint.disabled` event the
//!   events core emits for that change) and its waiting deliveries abandoned.

use std::time::Duration;

use domain::events::{EventCursor, EventTypes, FeedStart};
use secrecy::SecretString;
use serde_json::value::RawValue;

use crate::db::with_writer;
use crate::events::StoredEvent;
use crate::sql::{bind_args, Arg, Dialect, Sql};
use crate::write::BeginWrite;
use crate::{Render, Scope, Store, StoreError};

/// A delivery a worker holds, with what sending it takes.
#[derive(Debug, Clone)]
pub struct ClaimedDelivery {
    /// The society.
    pub society_id: i64,
    /// The delivery.
    pub id: i64,
    /// Its endpoint.
    pub endpoint_id: i64,
    /// The event delivered.
    pub event_id: i64,
    /// Where it goes.
    pub url: String,
    /// The event, exactly as the feed serves it.
    pub body: String,
    /// Every secret that signs it: the current one, and the previous one during a rotation's overlap.
    pub secrets: Vec<SecretString>,
    /// Attempts made before this one.
    pub attempts: i64,
}

/// What one attempt found.
#[derive(Debug, Clone)]
pub struct Attempt {
    /// When it was sent (epoch ms).
    pub attempted_at: i64,
    /// The receiver's status, when it answered.
    pub status_code: Option<u16>,
    /// How long it took.
    pub latency: Duration,
    /// The first bytes of the answer.
    pub response_head: Option<String>,
    /// Why there was no answer, or the address was refused.
    pub error: Option<String>,
}

/// What became of a delivery once an attempt was recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recorded {
    /// Received.
    Delivered,
    /// Another attempt is due at this time (epoch ms).
    Retrying(i64),
    /// Retried for the whole window without success.
    GaveUp,
    /// The endpoint had failed for the whole window: it is disabled now.
    EndpointDisabled,
    /// Another worker holds the delivery now: this attempt is not recorded.
    LostLease,
}

crate::row_by_position! {
    /// An enabled endpoint, where its fan-out stands in the feed, and its society's country and zone.
    struct FanOutRow {
        society_id: i64,
        id: i64,
        types: String,
        feed_cursor: Option<String>,
        country: String,
        time_zone: String,
    }
}

struct ClaimRow {
    society_id: i64,
    id: i64,
    endpoint_id: i64,
    event_id: i64,
    body: String,
    attempts: i64,
    endpoint: EndpointRow,
}

#[derive(Clone, sqlx::FromRow)]
struct EndpointRow {
    url: String,
    secret: String,
    previous_secret: Option<String>,
    previous_secret_expires_at: Option<i64>,
}

pub(super) fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX)
}

/// The event as the feed serves it, in the society's offset: the bytes every attempt of its deliveries sends.
fn event_body(event: StoredEvent, render: &Render) -> Result<String, serde_json::Error> {
    let body = wire::events::Event {
        id: event.id,
        kind: format!("{}.{}", event.resource, event.action),
        resource: event.resource,
        resource_id: event.resource_id,
        occurred_at: render.at(event.occurred_at),
        data: RawValue::from_string(event.payload.unwrap_or_else(|| "{}".to_owned()))?,
    };
    serde_json::to_string(&body)
}

/// Deliveries queued by one statement: 8 parameters each, few enough that SQLite's search of a statement's
/// parameter names (linear in their number) stays cheap.
const DELIVERIES_PER_INSERT: usize = 100;

impl Store {
    /// Queues the deliveries of events committed since each enabled endpoint's last fan-out, up to `page` events per
    /// endpoint; answers how many deliveries it queued.
    #[tracing::instrument(skip(self))]
    pub async fn fan_out_webhooks(&self, page: u32, now: i64) -> Result<usize, StoreError> {
        let enabled = Sql {
            text: "SELECT e.society_id, e.id, e.types, p.feed_cursor, s.country, s.time_zone FROM webhook_endpoints e \
                   JOIN webhook_progress p ON p.society_id = e.society_id AND p.endpoint_id = e.id \
                   JOIN societies s ON s.id = e.society_id \
                   WHERE e.state = 'enabled' AND e.deleted_at IS NULL ORDER BY e.society_id, e.id"
                .to_owned(),
            args: Vec::new(),
        };
        let endpoints: Vec<FanOutRow> = self.lookup_rows(&enabled).await?;
        let mut queued = 0;
        for endpoint in endpoints {
            queued += self.fan_out_one(&endpoint, page, now).await?;
        }
        Ok(queued)
    }

    async fn fan_out_one(&self, endpoint: &FanOutRow, page: u32, now: i64) -> Result<usize, StoreError> {
        let start = match endpoint.feed_cursor.as_deref().map(str::parse::<EventCursor>) {
            Some(Ok(cursor)) => FeedStart::After(cursor),
            // An endpoint made before the feed had a head starts at the head.
            None | Some(Err(_)) => FeedStart::Now,
        };
        let scope = Scope::new(endpoint.society_id, &endpoint.country, &endpoint.time_zone);
        // Types were checked when the endpoint was registered; a type the feed no longer has widens to every type
        // rather than silencing the endpoint. The feed is read whole and filtered here: a filtered read moves its
        // cursor past other types' events with a second query, which can also pass events of the wanted types that
        // became readable between the two (found by the SIGKILL test on PostgreSQL).
        let types = EventTypes::parse(&endpoint.types).unwrap_or_default();
        let Ok(feed) = self.event_feed(&scope, start, &EventTypes::default(), page).await? else {
            // The feed pruned events this endpoint never read: it resumes at the head, and the gap is logged.
            tracing::error!(
                endpoint = endpoint.id,
                "webhook endpoint fell behind the feed's retention"
            );
            return self.move_cursor(endpoint, None, &[], now).await;
        };
        let render = scope.render();
        let mut wanted = Vec::with_capacity(feed.events.len());
        for event in feed
            .events
            .into_iter()
            .filter(|event| types.matches(&event.resource, &event.action))
        {
            let (id, kind) = (event.id, format!("{}.{}", event.resource, event.action));
            match event_body(event, &render) {
                Ok(body) => wanted.push((id, kind, body)),
                Err(error) => tracing::error!(event = id, %error, "an event's payload is not JSON"),
            }
        }
        let next = feed.next.to_string();
        if endpoint.feed_cursor.as_deref() == Some(next.as_str()) && wanted.is_empty() {
            return Ok(0);
        }
        self.move_cursor(endpoint, Some(next), &wanted, now).await
    }

    /// Moves an endpoint's cursor from where the fan-out read it to `next`, queueing `deliveries` with it; a cursor
    /// another process moved first is left alone, and nothing is queued.
    async fn move_cursor(
        &self,
        endpoint: &FanOutRow,
        next: Option<String>,
        deliveries: &[(i64, String, String)],
        now: i64,
    ) -> Result<usize, StoreError> {
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut queued = 0;
            for chunk in deliveries.chunks(DELIVERIES_PER_INSERT) {
                let mut sql = Sql::default();
                sql.push(
                    "INSERT INTO webhook_deliveries (society_id, endpoint_id, event_id, event_type, body, next_attempt_at, \
                     created_at, updated_at) VALUES ",
                );
                for (index, (event_id, kind, body)) in chunk.iter().enumerate() {
                    if index > 0 {
                        sql.push(", ");
                    }
                    sql.row([
                        Arg::Int(endpoint.society_id),
                        Arg::Int(endpoint.id),
                        Arg::Int(*event_id),
                        Arg::Text(kind.clone()),
                        Arg::Text(body.clone()),
                        Arg::Int(now),
                        Arg::Int(now),
                        Arg::Int(now),
                    ]);
                }
                sql.push(" ON CONFLICT (society_id, endpoint_id, event_id) DO NOTHING");
                queued += bind_args!(sqlx::query(&sql.text), &sql.args).execute(&mut *tx).await?.rows_affected();
            }
            // The cursor moves last, so that the row it shares with the endpoint's delivery state (`failing_since`,
            // which recording attempts updates) stays locked only for that one statement.
            let moved = sqlx::query(
                "UPDATE webhook_progress SET feed_cursor = $3 WHERE society_id = $1 AND endpoint_id = $2 \
                 AND (feed_cursor = $4 OR (feed_cursor IS NULL AND $4 IS NULL))",
            )
            .bind(endpoint.society_id)
            .bind(endpoint.id)
            .bind(&next)
            .bind(&endpoint.feed_cursor)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if moved == 0 {
                tx.rollback().await?;
                return Ok(0);
            }
            tx.commit().await?;
            Ok(usize::try_from(queued).unwrap_or(usize::MAX))
        })
    }

    /// Claims up to `limit` deliveries that are due, or whose worker's lease ran out, for `worker` until `now + lease`.
    /// Deliveries of endpoints deleted or disabled meanwhile are abandoned instead.
    #[tracing::instrument(skip(self))]
    pub async fn claim_webhook_deliveries(
        &self,
        worker: &str,
        lease: Duration,
        limit: u32,
        now: i64,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        // A delivery's key in the statement that claims it: PostgreSQL's `id` alone has no index (its key leads with
        // the society), and SQLite's `(society_id, id) IN (…)` over the table being updated matches nothing (3.40,
        // 3.46), while its `id` is the rowid.
        let (key, key_columns, skip_locked) = match self.db.dialect() {
            Dialect::Postgres => ("(society_id, id)", "society_id, id", " FOR UPDATE SKIP LOCKED"),
            Dialect::Sqlite => ("id", "id", ""),
        };
        // Checked only for the deliveries claimed: a check of every due delivery in each claim cost as much as the
        // backlog was long.
        let alive = "EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.society_id = webhook_deliveries.society_id \
             AND e.id = webhook_deliveries.endpoint_id AND e.state = 'enabled' AND e.deleted_at IS NULL)";
        // Leases that ran out first, then deliveries due, each in the order of its own index, so that a claim reads
        // what it takes rather than sorting every due delivery.
        let claims = [
            "status = 'delivering' AND locked_until < $3 ORDER BY locked_until",
            "status = 'pending' AND next_attempt_at <= $3 ORDER BY next_attempt_at, id",
        ]
        .map(|due| {
            format!(
                "UPDATE webhook_deliveries SET status = CASE WHEN {alive} THEN 'delivering' ELSE 'abandoned' END, \
                 locked_by = CASE WHEN {alive} THEN $1 END, locked_until = CASE WHEN {alive} THEN $2 END, \
                 updated_at = $3 \
                 WHERE {key} IN (SELECT {key_columns} FROM webhook_deliveries WHERE {due} LIMIT $4{skip_locked}) \
                 RETURNING society_id, id, endpoint_id, event_id, body, attempts, status = 'delivering'"
            )
        });
        let rows: Vec<ClaimRow> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut claimed: Vec<(i64, i64, i64, i64, String, i64, bool)> = Vec::new();
            for claim in &claims {
                let left = i64::from(limit) - i64::try_from(claimed.len()).unwrap_or(i64::MAX);
                if left <= 0 {
                    break;
                }
                claimed.extend(
                    sqlx::query_as(claim)
                        .bind(worker)
                        .bind(now.saturating_add(millis(lease)))
                        .bind(now)
                        .bind(left)
                        .fetch_all(&mut *tx)
                        .await?,
                );
            }
            let claimed = claimed.into_iter().filter_map(|(society_id, id, endpoint_id, event_id, body, attempts, held)| {
                held.then_some((society_id, id, endpoint_id, event_id, body, attempts))
            });
            let mut rows = Vec::new();
            let mut endpoints: Vec<((i64, i64), EndpointRow)> = Vec::new();
            for (society_id, id, endpoint_id, event_id, body, attempts) in claimed {
                let endpoint = match endpoints.iter().find(|(key, _)| *key == (society_id, endpoint_id)) {
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
                        endpoints.push(((society_id, endpoint_id), endpoint.clone()));
                        endpoint
                    }
                };
                rows.push(ClaimRow { society_id, id, endpoint_id, event_id, body, attempts, endpoint });
            }
            tx.commit().await?;
            rows
        });
        Ok(rows
            .into_iter()
            .map(|row| {
                let endpoint = row.endpoint;
                let previous = endpoint
                    .previous_secret
                    .filter(|_| endpoint.previous_secret_expires_at.is_some_and(|until| until > now));
                ClaimedDelivery {
                    society_id: row.society_id,
                    id: row.id,
                    endpoint_id: row.endpoint_id,
                    event_id: row.event_id,
                    url: endpoint.url,
                    body: row.body,
                    secrets: std::iter::once(endpoint.secret)
                        .chain(previous)
                        .map(SecretString::from)
                        .collect(),
                    attempts: row.attempts,
                }
            })
            .collect())
    }

    /// Hands deliveries `worker` holds back unsent, each due again at its own time (epoch ms), without counting an
    /// attempt: the worker claimed more for one endpoint than that endpoint may be sent in the time (see
    /// [`domain::webhooks::MAX_ATTEMPTS_PER_SECOND`]). Deliveries another worker holds now are left alone.
    #[tracing::instrument(skip(self, deliveries), fields(deliveries = deliveries.len()))]
    pub async fn defer_webhook_deliveries(
        &self,
        worker: &str,
        deliveries: &[(&ClaimedDelivery, i64)],
        now: i64,
    ) -> Result<(), StoreError> {
        if deliveries.is_empty() {
            return Ok(());
        }
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            for (delivery, due) in deliveries {
                sqlx::query(
                    "UPDATE webhook_deliveries SET status = 'pending', locked_by = NULL, locked_until = NULL, \
                     next_attempt_at = $4, updated_at = $5 \
                     WHERE society_id = $1 AND id = $2 AND status = 'delivering' AND locked_by = $3",
                )
                .bind(delivery.society_id)
                .bind(delivery.id)
                .bind(worker)
                .bind(*due)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            }
            tx.commit().await?;
            Ok(())
        })
    }

    /// Records an attempt of a delivery `worker` holds, and what follows from it at `now`; `jitter` (0 to 1) spreads
    /// the next attempt within its back-off.
    pub async fn record_webhook_attempt(
        &self,
        delivery: &ClaimedDelivery,
        worker: &str,
        attempt: &Attempt,
        now: i64,
        jitter: f64,
    ) -> Result<Recorded, StoreError> {
        let recorded = self
            .record_webhook_attempts(worker, &[(delivery, attempt, jitter)], now)
            .await?;
        Ok(recorded.into_iter().next().unwrap_or(Recorded::LostLease))
    }
}
