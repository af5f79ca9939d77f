//! From events to deliveries, and deliveries from one attempt to the next, for the delivery worker of every server
//! process. Nothing here reads a clock: every step takes `now` (epoch ms) from its caller, so a test drives days of
//! retries without waiting.
//!
//! - **Fan-out**: each enabled endpoint has a cursor into its society's change feed (`webhook_progress`). A fan-out
//!   reads the feed after it and, in one transaction, queues a delivery per event the endpoint wants and moves the
//!   cursor, compare-and-set: of two processes that read the same page, one moves the cursor and the other's
//!   transaction changes nothing, so no event is queued twice (the unique index on endpoint and event is the second
//!   guard).
//! - **Claim**: per society, each society's share of the worker's slots under a lease (see `claims`). A
//!   worker may hand back what it claimed beyond an endpoint's pace, unsent ([`Store::defer_webhook_deliveries`]).
//! - **Record**: a 2xx closes the delivery; anything else schedules the next attempt with back-off and jitter. An
//!   endpoint failing for [`domain::webhooks::GIVE_UP_AFTER`] is disabled (its `state`, and the `webhook_endpoint.disabled` event the
//!   events core emits for that change) and its waiting deliveries abandoned.

use std::time::Duration;

use domain::events::{EventCursor, EventTypes, FeedStart};
use secrecy::SecretString;
use serde_json::value::RawValue;

use crate::db::with_writer;
use crate::events::StoredEvent;
use crate::sql::{bind_args, Arg, Sql};
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
        // The one statement of a fan-out that cannot name a society: each endpoint's feed is then read, and its
        // deliveries queued, by statements that name the endpoint's society.
        let enabled = Sql {
            text: "/* all societies: every enabled webhook endpoint and where its fan-out stands in the feed; the \
                   delivery worker's background sweep, without locks */ \
                   SELECT e.society_id, e.id, e.types, p.feed_cursor, s.country, s.time_zone FROM webhook_endpoints e \
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
        // A cursor written before cursors named their feed reads as it always did; moving on writes one that does.
        let feed = match self.event_feed(&scope, start, &EventTypes::default(), page).await? {
            Ok(feed) => feed,
            // The feed pruned events this endpoint never read, or its cursor is not this feed's (a database copied
            // from another): it resumes at the head, and the gap is logged.
            Err(refusal) => {
                tracing::error!(
                    endpoint = endpoint.id,
                    ?refusal,
                    "the feed no longer serves a webhook endpoint's cursor"
                );
                return self.move_cursor(endpoint, None, &[], now).await;
            }
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
