//! The delivery worker every server process runs beside the job worker: it fans events out to the endpoints that
//! want them, claims the deliveries that are due, sends them ([`send`]) and records each attempt. Processes need no
//! coordination beyond the database: the fan-out moves each endpoint's cursor compare-and-set, and a delivery is held
//! under a lease (see `store::webhooks::deliveries`).
//!
//! The worker reads time through [`Clock`], which follows tokio's clock: on a paused clock a test drives the worker
//! through days of back-off without waiting.

pub mod send;

use std::time::Duration;

use domain::webhooks::UrlPolicy;
use futures_util::stream::{self, StreamExt};
use store::webhooks::deliveries::{ClaimedDelivery, Recorded};
use store::{now_millis, Store};
use tokio::task::JoinHandle;

/// How the delivery worker behaves.
#[derive(Debug, Clone)]
pub struct WebhooksConfig {
    /// Whether this process sends deliveries at all.
    pub enabled: bool,
    /// Which URLs may be registered and delivered to.
    pub policy: UrlPolicy,
    /// How often an idle worker looks for new events and due deliveries: short, so a change reaches its receivers
    /// within a second.
    pub poll_interval: Duration,
    /// How long a claim holds a delivery: longer than [`WebhooksConfig::timeout`], so a live worker never loses one.
    pub lease: Duration,
    /// How long a receiver has to answer.
    pub timeout: Duration,
    /// Deliveries claimed, and sent concurrently, at a time.
    pub batch: u32,
    /// Events read from the feed per endpoint and fan-out.
    pub fan_out_page: u32,
}

impl Default for WebhooksConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            policy: UrlPolicy::default(),
            poll_interval: Duration::from_millis(100),
            lease: Duration::from_secs(30),
            timeout: Duration::from_secs(10),
            batch: 128,
            fan_out_page: 1000,
        }
    }
}

/// The worker's time in epoch milliseconds: the wall clock, or tokio's clock counted from when the worker started,
/// whichever is later. In production the two agree; on tokio's paused clock time moves as the test advances it.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    wall_at_start: i64,
    started: tokio::time::Instant,
}

impl Clock {
    /// A clock starting now.
    pub fn start() -> Self {
        Self {
            wall_at_start: now_millis(),
            started: tokio::time::Instant::now(),
        }
    }

    /// Now, in epoch milliseconds.
    pub fn now(&self) -> i64 {
        let elapsed = i64::try_from(self.started.elapsed().as_millis()).unwrap_or(i64::MAX);
        now_millis().max(self.wall_at_start.saturating_add(elapsed))
    }
}

/// One process's delivery worker.
#[derive(Debug, Clone)]
pub struct Deliverer {
    store: Store,
    config: WebhooksConfig,
    client: reqwest::Client,
    clock: Clock,
    name: String,
}

impl Deliverer {
    /// A worker over `store`.
    pub fn new(store: Store, config: WebhooksConfig) -> reqwest::Result<Self> {
        let client = send::client(config.policy, config.timeout)?;
        Ok(Self {
            store,
            config,
            client,
            clock: Clock::start(),
            name: format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple()),
        })
    }

    /// One round: fans new events out, then sends every delivery due, `batch` at a time concurrently; answers how
    /// many attempts it made.
    pub async fn round(&self) -> Result<usize, store::StoreError> {
        self.store
            .fan_out_webhooks(self.config.fan_out_page, self.clock.now())
            .await?;
        let claimed = self
            .store
            .claim_webhook_deliveries(&self.name, self.config.lease, self.config.batch, self.clock.now())
            .await?;
        let count = claimed.len();
        let batch = usize::try_from(self.config.batch).unwrap_or(1).max(1);
        stream::iter(claimed)
            .for_each_concurrent(batch, |delivery| async move { self.deliver(&delivery).await })
            .await;
        Ok(count)
    }

    async fn deliver(&self, delivery: &ClaimedDelivery) {
        let attempt = send::attempt(&self.client, self.config.policy, delivery, self.clock.now()).await;
        let jitter: f64 = rand::random();
        match self
            .store
            .record_webhook_attempt(delivery, &self.name, &attempt, self.clock.now(), jitter)
            .await
        {
            Ok(Recorded::EndpointDisabled) => {
                tracing::warn!(
                    delivery = delivery.id,
                    "webhook endpoint disabled after failing for 3 days"
                );
            }
            Ok(Recorded::LostLease) => tracing::warn!(delivery = delivery.id, "lost a delivery's lease"),
            Ok(_) => {}
            // The lease runs out and the delivery is sent again.
            Err(error) => tracing::warn!(delivery = delivery.id, %error, "could not record a delivery attempt"),
        }
    }

    /// Runs rounds until aborted, pausing when a round found nothing to send.
    pub fn spawn(self) -> JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                match self.round().await {
                    Ok(0) => tokio::time::sleep(self.config.poll_interval).await,
                    Ok(_) => {}
                    Err(error) => {
                        tracing::warn!(%error, "webhook delivery round failed");
                        tokio::time::sleep(self.config.poll_interval).await;
                    }
                }
            }
        })
    }
}
