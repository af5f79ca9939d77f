//! The delivery worker every server process runs beside the job worker: it fans events out to the endpoints that
//! want them, claims the deliveries that are due, sends them ([`send`]) and records each attempt. Processes need no
//! coordination beyond the database: the fan-out moves each endpoint's cursor compare-and-set, and a delivery is held
//! under a lease (see `store::webhooks::deliveries`).
//!
//! The worker is one function, [`Deliverer::step`]: production takes a step, waits ([`Deliverer::wait`]) and takes
//! the next ([`Deliverer::spawn`]); tests call the same step, and [`Deliverer::settle`] to read what it did. A step
//! starts its attempts and returns: each runs in its own task, holding one of [`WebhooksConfig::batch`] slots, and
//! the next step records those that have finished.
//!
//! Each endpoint is sent at most [`WebhooksConfig::per_endpoint_rate`] attempts a second by a process ([`pace`]).
//!
//! The worker reads time through [`Clock`], which follows tokio's clock: on a paused clock a test drives the worker
//! through days of back-off without waiting.

pub mod pace;
pub mod send;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use domain::webhooks::{UrlPolicy, MAX_ATTEMPTS_PER_SECOND};
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

/// One process's delivery worker. Clones are the same worker: they share its slots, its pace and the attempts it has
/// in flight.
#[derive(Debug, Clone)]
pub struct Deliverer {
    store: Store,
    config: WebhooksConfig,
    client: reqwest::Client,
    clock: Clock,
    name: String,
    pacer: Arc<Mutex<pace::Pacer>>,
    /// One permit per delivery that may be in flight at once ([`WebhooksConfig::batch`]): an attempt holds its own
    /// until it ends, so a slow receiver holds only its slot.
    slots: Arc<Semaphore>,
    /// Where each attempt leaves what it found, for the next step to record.
    finished: mpsc::UnboundedSender<(ClaimedDelivery, Attempt)>,
    to_record: Arc<Mutex<mpsc::UnboundedReceiver<(ClaimedDelivery, Attempt)>>>,
}

/// What one [`Deliverer::step`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Step {
    /// Attempts it started.
    pub started: usize,
}

impl Deliverer {
    /// A worker over `store`.
    pub fn new(store: Store, config: WebhooksConfig) -> reqwest::Result<Self> {
        let client = send::client(config.policy, config.timeout)?;
        let (finished, to_record) = mpsc::unbounded_channel();
        Ok(Self {
            store,
            client,
            clock: Clock::start(),
            name: format!("{}-{}", std::process::id(), uuid::Uuid::new_v4().simple()),
            pacer: Arc::new(Mutex::new(pace::Pacer::new(config.per_endpoint_rate))),
            slots: Arc::new(Semaphore::new(usize::try_from(Self::slot_count(&config)).unwrap_or(1))),
            finished,
            to_record: Arc::new(Mutex::new(to_record)),
            config,
        })
    }

    /// Attempts in flight at once: [`WebhooksConfig::batch`], at least one.
    fn slot_count(config: &WebhooksConfig) -> u32 {
        config
            .batch
            .clamp(1, u32::try_from(Semaphore::MAX_PERMITS).unwrap_or(u32::MAX))
    }

    /// One step of the worker, the same in production and in tests: records the attempts that finished since the
    /// last step (one commit for all of them), fans new events out, claims as many due deliveries as there are free
    /// slots, hands back those whose endpoint's slot has not come ([`pace`]), and starts sending the others, each in
    /// its own task. A fan-out that fails is logged and the step goes on, since deliveries already queued can still
    /// go; a claim that fails is the step's error, and nothing is started.
    pub async fn step(&self) -> Result<Step, store::StoreError> {
        self.record_finished().await;
        if let Err(error) = self.fan_out().await {
            tracing::warn!(%error, "could not fan events out to webhook endpoints");
        }
        let free = u32::try_from(self.slots.available_permits()).unwrap_or(u32::MAX);
        if free == 0 {
            return Ok(Step::default());
        }
        let claimed = self.claim(free).await?;
        let started = claimed.len();
        for delivery in claimed {
            let Ok(slot) = self.slots.clone().acquire_owned().await else {
                break;
            };
            let (client, policy, clock) = (self.client.clone(), self.config.policy, self.clock);
            let finished = self.finished.clone();
            tokio::spawn(async move {
                let attempt = send::attempt(&client, policy, &delivery, clock.now()).await;
                // The worker outlives its attempts; if it is gone, the process is stopping, and the delivery is sent
                // again after its lease.
                let _ = finished.send((delivery, attempt));
                drop(slot);
            });
        }
        Ok(Step { started })
    }

    /// Waits until the next step is worth taking: after a step that started nothing, a poll interval; then until a
    /// quarter of the slots are free, a poll interval at most, so that claims come in batches rather than one
    /// delivery per transaction as each attempt ends.
    pub async fn wait(&self, step: Step) {
        if step.started == 0 {
            tokio::time::sleep(self.config.poll_interval).await;
        }
        let quarter = (Self::slot_count(&self.config) / 4).max(1);
        if let Ok(Ok(permits)) = tokio::time::timeout(self.config.poll_interval, self.slots.acquire_many(quarter)).await
        {
            drop(permits);
        }
    }

    /// Waits until no attempt is in flight, and records them: what a test does after a step, to read its outcome,
    /// where production [`waits`](Self::wait) and lets the next step record them.
    pub async fn settle(&self) {
        if let Ok(all) = self.slots.acquire_many(Self::slot_count(&self.config)).await {
            drop(all);
        }
        self.record_finished().await;
    }

    /// Runs [`step`](Self::step) and [`wait`](Self::wait) in turn until aborted (attempts in flight then finish on
    /// their own, unrecorded, and are sent again after their lease).
    pub fn spawn(self) -> JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                let step = self.step().await.unwrap_or_else(|error| {
                    tracing::warn!(%error, "could not claim webhook deliveries");
                    Step::default()
                });
                self.wait(step).await;
            }
        })
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

    /// Records every attempt that has finished, [`RECORD_BATCH`] to a transaction.
    async fn record_finished(&self) {
        let mut finished = Vec::new();
        {
            // Nothing panics while holding it; a poisoned lock still holds a usable receiver.
            let mut to_record = self.to_record.lock().unwrap_or_else(PoisonError::into_inner);
            while let Ok(attempt) = to_record.try_recv() {
                finished.push(attempt);
            }
        }
        for attempts in finished.chunks(RECORD_BATCH) {
            self.record(attempts).await;
        }
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
}
