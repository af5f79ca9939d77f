//! The delivery worker every server process runs beside the job worker: it fans events out to the endpoints that
//! want them, claims the deliveries that are due, sends them ([`send`]) and records each attempt. Processes need no
//! coordination beyond the database: the fan-out moves each endpoint's cursor compare-and-set, and a delivery is held
//! under a lease (see `store::webhooks::deliveries`).
//!
//! Each endpoint is sent at most [`WebhooksConfig::per_endpoint_rate`] attempts a second by a process ([`pace`]).
//!
//! The worker reads time through [`Clock`], which follows tokio's clock: on a paused clock a test drives the worker
//! through days of back-off without waiting.

pub mod pace;
pub mod send;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use domain::webhooks::{UrlPolicy, MAX_ATTEMPTS_PER_SECOND};
use futures_util::stream::{self, StreamExt};
use store::webhooks::deliveries::{Attempt, ClaimedDelivery, Recorded};
use store::{now_millis, Store};
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinHandle;

/// The most finished attempts recorded in one transaction.
const RECORD_BATCH: usize = 512;

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
    /// The most attempts a second to one endpoint, retries included.
    pub per_endpoint_rate: u32,
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
            per_endpoint_rate: MAX_ATTEMPTS_PER_SECOND,
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
    pacer: Arc<Mutex<pace::Pacer>>,
}

impl Deliverer {
    /// A worker over `store`.
    pub fn new(store: Store, config: WebhooksConfig) -> reqwest::Result<Self> {
        let client = send::client(config.policy, config.timeout)?;
        Ok(Self {
            store,
            client,
            clock: Clock::start(),
            name: format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple()),
            pacer: Arc::new(Mutex::new(pace::Pacer::new(config.per_endpoint_rate))),
            config,
        })
    }

    /// One round, for tests that drive the worker: fans new events out, then sends every delivery due whose
    /// endpoint's slot has come, `batch` at a time concurrently, and records them (handing the others back); answers
    /// how many attempts it made.
    pub async fn round(&self) -> Result<usize, store::StoreError> {
        self.fan_out().await?;
        let claimed = self.claim(self.config.batch).await?;
        let count = claimed.len();
        let batch = usize::try_from(self.config.batch).unwrap_or(1).max(1);
        let attempts: Vec<(ClaimedDelivery, Attempt)> = stream::iter(claimed)
            .map(|delivery| async move {
                let attempt = send::attempt(&self.client, self.config.policy, &delivery, self.clock.now()).await;
                (delivery, attempt)
            })
            .buffer_unordered(batch)
            .collect()
            .await;
        self.record(&attempts).await;
        Ok(count)
    }

    async fn fan_out(&self) -> Result<usize, store::StoreError> {
        self.store
            .fan_out_webhooks(self.config.fan_out_page, self.clock.now())
            .await
    }

    /// Claims up to `limit` due deliveries; answers those whose endpoint's slot has come, and hands the others back,
    /// due at their slots.
    async fn claim(&self, limit: u32) -> Result<Vec<ClaimedDelivery>, store::StoreError> {
        let now = self.clock.now();
        let claimed = self
            .store
            .claim_webhook_deliveries(&self.name, self.config.lease, limit, now)
            .await?;
        let paced = match self.pacer.lock() {
            Ok(mut pacer) => pacer.split(claimed, now),
            // A panic elsewhere while pacing left nothing half-changed that matters: slots are only advice.
            Err(poisoned) => poisoned.into_inner().split(claimed, now),
        };
        let later: Vec<(&ClaimedDelivery, i64)> = paced.later.iter().map(|(delivery, due)| (delivery, *due)).collect();
        if let Err(error) = self.store.defer_webhook_deliveries(&self.name, &later, now).await {
            // Their leases run out, and they are claimed again.
            tracing::warn!(%error, count = later.len(), "could not hand back paced webhook deliveries");
        }
        Ok(paced.now)
    }

    /// Records attempts in one transaction; a failure leaves their leases to run out, and they are sent again.
    async fn record(&self, attempts: &[(ClaimedDelivery, Attempt)]) {
        if attempts.is_empty() {
            return;
        }
        let batch: Vec<(&ClaimedDelivery, &Attempt, f64)> = attempts
            .iter()
            .map(|(delivery, attempt)| (delivery, attempt, rand::random::<f64>()))
            .collect();
        match self
            .store
            .record_webhook_attempts(&self.name, &batch, self.clock.now())
            .await
        {
            Ok(outcomes) => {
                for ((delivery, _), outcome) in attempts.iter().zip(outcomes) {
                    let label = match outcome {
                        Recorded::Delivered => "delivered",
                        Recorded::Retrying(_) => "retrying",
                        Recorded::GaveUp => "gave_up",
                        Recorded::EndpointDisabled => {
                            tracing::warn!(
                                delivery = delivery.id,
                                "webhook endpoint disabled after failing for 3 days"
                            );
                            "endpoint_disabled"
                        }
                        Recorded::LostLease => {
                            tracing::warn!(delivery = delivery.id, "lost a delivery's lease");
                            "lost_lease"
                        }
                    };
                    metrics::counter!(crate::metrics::WEBHOOK_ATTEMPTS, "outcome" => label).increment(1);
                }
            }
            Err(error) => tracing::warn!(%error, count = attempts.len(), "could not record delivery attempts"),
        }
    }

    /// Runs until aborted: up to `batch` deliveries in flight at once, each claimed as a slot frees up, so a slow
    /// receiver holds only its own slot; finished attempts are recorded together by one task (one commit for all
    /// that finished meanwhile).
    pub fn spawn(self) -> JoinHandle<()> {
        let worker = Arc::new(self);
        let (finished, mut to_record) = mpsc::unbounded_channel::<(ClaimedDelivery, Attempt)>();
        let recorder = worker.clone();
        let recording = async move {
            let mut attempts = Vec::new();
            while to_record.recv_many(&mut attempts, RECORD_BATCH).await > 0 {
                recorder.record(&attempts).await;
                attempts.clear();
            }
        };
        let sending = async move {
            let slots = Arc::new(Semaphore::new(usize::try_from(worker.config.batch).unwrap_or(1).max(1)));
            loop {
                if let Err(error) = worker.fan_out().await {
                    tracing::warn!(%error, "could not fan events out to webhook endpoints");
                }
                // Claims come in batches: wait (a poll interval at most) for a quarter of the slots to free up
                // rather than claim one delivery per transaction as each attempt ends.
                let quarter = (worker.config.batch / 4).max(1);
                if let Ok(Ok(permits)) =
                    tokio::time::timeout(worker.config.poll_interval, slots.acquire_many(quarter)).await
                {
                    drop(permits);
                }
                let free = u32::try_from(slots.available_permits()).unwrap_or(u32::MAX);
                let claimed = match free {
                    0 => Vec::new(),
                    free => worker.claim(free).await.unwrap_or_else(|error| {
                        tracing::warn!(%error, "could not claim webhook deliveries");
                        Vec::new()
                    }),
                };
                if claimed.is_empty() {
                    tokio::time::sleep(worker.config.poll_interval).await;
                    continue;
                }
                for delivery in claimed {
                    let Ok(slot) = slots.clone().acquire_owned().await else {
                        break;
                    };
                    let (worker, finished) = (worker.clone(), finished.clone());
                    tokio::spawn(async move {
                        let attempt =
                            send::attempt(&worker.client, worker.config.policy, &delivery, worker.clock.now()).await;
                        // The recorder outlives every sender; if it is gone, the process is stopping.
                        let _ = finished.send((delivery, attempt));
                        drop(slot);
                    });
                }
            }
        };
        // One task: aborting it stops both halves (attempts in flight finish on their own, unrecorded, and are sent
        // again after their lease).
        tokio::spawn(async move {
            tokio::join!(recording, sending);
        })
    }
}
