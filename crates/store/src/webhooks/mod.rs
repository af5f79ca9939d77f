//! Webhook endpoints: their declaration as a read resource, their creation, secret rotation and deletion, and the
//! delivery history an endpoint's owner reads. How events become deliveries is in [`deliveries`]; how deliveries are
//! claimed is in `claims`; how their attempts are recorded is in `attempts`.
//!
//! A society has at most [`MAX_ENDPOINTS`] endpoints: a create counts them under a lock, so concurrent creates
//! cannot pass the limit together.
//!
//! The signing secret is read from the database only to sign a delivery, or to answer the one request that made it
//! (the create, a rotation); the endpoint's read shape has no secret. A rotation keeps the previous secret valid for
//! [`domain::webhooks::SECRET_OVERLAP`]: deliveries in that window carry a signature by each.

mod attempts;
mod claims;
pub mod deliveries;

use domain::events::{EventTypes, FeedStart};
use domain::webhooks::{new_secret, DeliveryStatus, MAX_ENDPOINTS, SECRET_OVERLAP};
use domain::PageRequest;
use wire::webhooks::{WebhookAttempt, WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret};

use crate::db::{with_reader, with_writer};
use crate::events::EventResource;
use crate::resources::Deletable;
use crate::sql::RowLock;
use crate::write::BeginWrite;
use crate::{now_millis, resource, Scope, Store, StoreError};

resource! {
    /// `GET /api/v3/third_party/webhook_endpoints[/{id}]`: the society's endpoints, without their secrets.
    WebhookEndpoints, WebhookEndpointRow => WebhookEndpoint {
        name: "webhook_endpoints",
        from: "webhook_endpoints t",
        scoping: Society,
        created: Some("t.created_at"),
        updated: Some("t.updated_at"),
        deleted: Some("t.deleted_at"),
        active: None,
        fields {
            url: String = "t.url" => plain,
            types: String = "t.types" => words,
            description: Option<String> = "t.description" => plain,
            state: String = "t.state" => plain,
            disabled_at: Option<i64> = "t.disabled_at" => at_opt,
            created_at: i64 = "t.created_at" => at,
            updated_at: i64 = "t.updated_at" => at,
            deleted_at: Option<i64> = "t.deleted_at" => at_opt,
        }
    }
}

impl Deletable for WebhookEndpoints {
    const TABLE: &'static str = "webhook_endpoints";
    const EVENTS: &'static EventResource = &WEBHOOK_ENDPOINT;
}

/// An endpoint's events: its owner's edits, and its disabling after days of failed deliveries. Deliveries and their
/// bookkeeping are not news.
pub(crate) static WEBHOOK_ENDPOINT: EventResource =
    EventResource::of::<WebhookEndpoints>("webhook_endpoint", &["webhook_endpoints"]);

/// A checked endpoint to register (see [`domain::webhooks::EndpointCommand::check`]).
#[derive(Debug, Clone)]
pub struct NewEndpoint<'a> {
    /// The URL, checked.
    pub url: &'a str,
    /// Event types wanted; empty for all.
    pub types: &'a [String],
    /// For people.
    pub description: Option<&'a str>,
}

/// A create refused because the society already has [`MAX_ENDPOINTS`] endpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooManyEndpoints;

#[derive(sqlx::FromRow)]
struct DeliveryRow {
    id: i64,
    endpoint_id: i64,
    event_id: i64,
    event_type: String,
    status: String,
    next_attempt_at: i64,
    created_at: i64,
    delivered_at: Option<i64>,
}

#[derive(sqlx::FromRow)]
struct AttemptRow {
    delivery_id: i64,
    attempted_at: i64,
    status_code: Option<i64>,
    latency_ms: i64,
    response_head: Option<String>,
    error: Option<String>,
}

impl Store {
    /// Registers an endpoint for the caller's society with a new secret; answers it with the secret, the only time
    /// it is shown, or [`TooManyEndpoints`] when the society already has [`MAX_ENDPOINTS`] (deleted ones aside). Its
    /// deliveries start with the events committed after it.
    #[tracing::instrument(skip(self, scope, endpoint), fields(society = scope.society_id()))]
    pub async fn create_webhook_endpoint(
        &self,
        scope: &Scope,
        endpoint: &NewEndpoint<'_>,
    ) -> Result<Result<WebhookEndpointWithSecret, TooManyEndpoints>, StoreError> {
        // The feed's head before the endpoint exists (a page of no events ends there): every event committed after
        // the create is delivered.
        let head = self
            .event_feed(scope, FeedStart::Now, &EventTypes::default(), 0)
            .await?
            .ok()
            .map(|page| page.next.to_string());
        let secret = new_secret();
        let now = now_millis();
        let max = i64::try_from(MAX_ENDPOINTS).unwrap_or(i64::MAX);
        // On PostgreSQL, two creates at the limit's edge both lock the society's endpoints, so the second counts
        // after the first commits (its count is a statement of its own, with a snapshot taken after the lock). SQLite's
        // writers run one at a time.
        let lock = self.db.dialect().lock_rows(RowLock::Update);
        let id: Option<i64> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let _locked: Vec<i64> = sqlx::query_scalar(&format!(
                "SELECT id FROM webhook_endpoints WHERE society_id = $1 AND deleted_at IS NULL{lock}"
            ))
            .bind(scope.society_id())
            .fetch_all(&mut *tx)
            .await?;
            let count: i64 = sqlx::query_scalar(
                "SELECT COUNT(*) FROM webhook_endpoints WHERE society_id = $1 AND deleted_at IS NULL",
            )
            .bind(scope.society_id())
            .fetch_one(&mut *tx)
            .await?;
            if count >= max {
                tx.rollback().await?;
                None
            } else {
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO webhook_endpoints (society_id, url, types, description, secret, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
                )
                .bind(scope.society_id())
                .bind(endpoint.url)
                .bind(endpoint.types.join(","))
                .bind(endpoint.description)
                .bind(&secret)
                .bind(now)
                .fetch_one(&mut *tx)
                .await?;
                sqlx::query("INSERT INTO webhook_progress (society_id, endpoint_id, feed_cursor) VALUES ($1, $2, $3)")
                    .bind(scope.society_id())
                    .bind(id)
                    .bind(head)
                    .execute(&mut *tx)
                    .await?;
                tx.changed(scope.society_id(), &WEBHOOK_ENDPOINT, [id], "created");
                tx.commit().await?;
                Some(id)
            }
        });
        match id {
            Some(id) => self.endpoint_with_secret(scope, id, secret).await.map(Ok),
            None => Ok(Err(TooManyEndpoints)),
        }
    }

    /// Gives a live endpoint of the caller's society a new secret; the previous one keeps signing deliveries, beside
    /// the new one, for [`SECRET_OVERLAP`]. `None` when the society has no such live endpoint.
    #[tracing::instrument(skip(self, scope), fields(society = scope.society_id()))]
    pub async fn rotate_webhook_secret(
        &self,
        scope: &Scope,
        id: i64,
    ) -> Result<Option<WebhookEndpointWithSecret>, StoreError> {
        let secret = new_secret();
        let now = now_millis();
        let overlap = i64::try_from(SECRET_OVERLAP.as_millis()).unwrap_or(i64::MAX);
        // A transaction of one statement: a write commits through `WriteTx`, which marks the request's
        // idempotency key in the same transaction, so a retried rotation never rotates twice.
        let rotated = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let rotated = sqlx::query(
                "UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $3, secret = $4, \
                 updated_at = $5 WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
            )
            .bind(scope.society_id())
            .bind(id)
            .bind(now.saturating_add(overlap))
            .bind(&secret)
            .bind(now)
            .execute(&mut *tx)
            .await?
            .rows_affected();
            if rotated > 0 {
                tx.changed(scope.society_id(), &WEBHOOK_ENDPOINT, [id], "updated");
            }
            tx.commit().await?;
            rotated
        });
        if rotated == 0 {
            return Ok(None);
        }
        self.endpoint_with_secret(scope, id, secret).await.map(Some)
    }

    async fn endpoint_with_secret(
        &self,
        scope: &Scope,
        id: i64,
        secret: String,
    ) -> Result<WebhookEndpointWithSecret, StoreError> {
        let endpoint = self
            .find::<WebhookEndpoints>(scope, id)
            .await?
            .ok_or_else(|| StoreError::Config(format!("webhook endpoint {id} vanished as it was written")))?;
        Ok(WebhookEndpointWithSecret { endpoint, secret })
    }

    /// One page of the deliveries to an endpoint of the caller's society, newest first, each with its attempts, and
    /// how many there are; `None` when the society has no such endpoint.
    #[tracing::instrument(skip(self, scope), fields(society = scope.society_id()))]
    pub async fn webhook_deliveries(
        &self,
        scope: &Scope,
        endpoint_id: i64,
        page: PageRequest,
    ) -> Result<Option<(Vec<WebhookDelivery>, u64)>, StoreError> {
        let offset = i64::try_from(page.offset()).unwrap_or(i64::MAX);
        let size = i64::try_from(page.size).unwrap_or(i64::MAX);
        self.read_deliveries(scope, endpoint_id, None, size, offset).await
    }

    /// The deliveries of an endpoint, newest first (only `delivery_id`, when given), with their attempts, and how
    /// many the endpoint has; `None` when the society has no such endpoint.
    async fn read_deliveries(
        &self,
        scope: &Scope,
        endpoint_id: i64,
        delivery_id: Option<i64>,
        size: i64,
        offset: i64,
    ) -> Result<Option<(Vec<WebhookDelivery>, u64)>, StoreError> {
        let society_id = scope.society_id();
        let (exists, total, rows, attempts) = with_reader!(&self.db, pool => {
            let exists: Option<i64> =
                sqlx::query_scalar("SELECT id FROM webhook_endpoints WHERE society_id = $1 AND id = $2")
                    .bind(society_id)
                    .bind(endpoint_id)
                    .fetch_optional(pool)
                    .await?;
            let total: i64 =
                sqlx::query_scalar("SELECT COUNT(*) FROM webhook_deliveries WHERE society_id = $1 AND endpoint_id = $2")
                    .bind(society_id)
                    .bind(endpoint_id)
                    .fetch_one(pool)
                    .await?;
            let rows: Vec<DeliveryRow> = sqlx::query_as(
                "SELECT id, endpoint_id, event_id, event_type, status, next_attempt_at, created_at, delivered_at \
                 FROM webhook_deliveries WHERE society_id = $1 AND endpoint_id = $2 AND ($5 IS NULL OR id = $5) \
                 ORDER BY id DESC LIMIT $3 OFFSET $4",
            )
            .bind(society_id)
            .bind(endpoint_id)
            .bind(size)
            .bind(offset)
            .bind(delivery_id)
            .fetch_all(pool)
            .await?;
            let (low, high) = (rows.iter().map(|r| r.id).min(), rows.iter().map(|r| r.id).max());
            let attempts: Vec<AttemptRow> = sqlx::query_as(
                "SELECT delivery_id, attempted_at, status_code, latency_ms, response_head, error FROM webhook_attempts \
                 WHERE society_id = $1 AND delivery_id BETWEEN $2 AND $3 ORDER BY id",
            )
            .bind(society_id)
            .bind(low.unwrap_or(0))
            .bind(high.unwrap_or(-1))
            .fetch_all(pool)
            .await?;
            (exists, total, rows, attempts)
        });
        if exists.is_none() {
            return Ok(None);
        }
        let render = scope.render();
        let deliveries = rows
            .into_iter()
            .map(|row| WebhookDelivery {
                id: row.id,
                endpoint_id: row.endpoint_id,
                event_id: row.event_id,
                next_attempt_at: (row.status == DeliveryStatus::Pending.as_str())
                    .then(|| render.at(row.next_attempt_at)),
                event_type: row.event_type,
                status: row.status,
                created_at: render.at(row.created_at),
                delivered_at: render.at_opt(row.delivered_at),
                attempts: attempts
                    .iter()
                    .filter(|attempt| attempt.delivery_id == row.id)
                    .map(|attempt| WebhookAttempt {
                        attempted_at: render.at(attempt.attempted_at),
                        status_code: attempt.status_code,
                        latency_ms: attempt.latency_ms,
                        response_head: attempt.response_head.clone(),
                        error: attempt.error.clone(),
                    })
                    .collect(),
            })
            .collect();
        Ok(Some((deliveries, u64::try_from(total).unwrap_or(0))))
    }

    /// Sends a delivery to an endpoint of the caller's society that is not deleted again, now, whatever became of it
    /// (succeeded, failed, abandoned), and answers it; `None` when the society has no such delivery of that endpoint.
    /// The next claim sends it even if the endpoint is disabled (once: see `claims`). A delivery being sent right now
    /// is left to finish.
    #[tracing::instrument(skip(self, scope), fields(society = scope.society_id()))]
    pub async fn retry_webhook_delivery(
        &self,
        scope: &Scope,
        endpoint_id: i64,
        delivery_id: i64,
    ) -> Result<Option<WebhookDelivery>, StoreError> {
        let now = now_millis();
        let lock = self.db.dialect().lock_rows(RowLock::Share);
        let found = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let live: Option<i64> = sqlx::query_scalar(&format!(
                "SELECT id FROM webhook_endpoints WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL{lock}"
            ))
            .bind(scope.society_id())
            .bind(endpoint_id)
            .fetch_optional(&mut *tx)
            .await?;
            if live.is_none() {
                return Ok(None);
            }
            let found: Option<i64> = sqlx::query_scalar(
                "UPDATE webhook_deliveries SET status = CASE WHEN status = 'delivering' THEN status ELSE 'pending' END, \
                 redelivery = CASE WHEN status = 'delivering' THEN redelivery ELSE TRUE END, \
                 next_attempt_at = $4, updated_at = $4 \
                 WHERE society_id = $1 AND endpoint_id = $2 AND id = $3 RETURNING id",
            )
            .bind(scope.society_id())
            .bind(endpoint_id)
            .bind(delivery_id)
            .bind(now)
            .fetch_optional(&mut *tx)
            .await?;
            tx.commit().await?;
            found
        });
        let Some(delivery_id) = found else {
            return Ok(None);
        };
        let read = self
            .read_deliveries(scope, endpoint_id, Some(delivery_id), 1, 0)
            .await?;
        Ok(read.and_then(|(mut deliveries, _)| deliveries.pop()))
    }
}
