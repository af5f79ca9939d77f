//! The background half of the console's recorder: it takes captures off the channel, keeps them per society, and
//! stores them in batches, each in one transaction with one multi-row insert and one trim per society.
//!
//! Its cost is bounded in two ways, so that recording does not take the core from the requests it records:
//! - A capture that its own society's ring would trim away before anyone could read it is dropped unread: waiting
//!   captures are kept per society in a ring of the ring's size, and only those are redacted and stored. The ring the
//!   console shows is the same as if every capture had been stored and the older ones then trimmed.
//! - After a batch, the writer waits [`IDLE_SHARE`] times as long as the batch took (at most [`LONGEST_PAUSE`])
//!   before it stores the next, gathering captures meanwhile: under load it works a small share of the time, and an
//!   idle server still shows a request a moment after its answer.
//!
//! Captures held here are bounded by the channel's size: once that many wait, the writer stops taking from the
//! channel until its next batch, so the channel fills, and a full channel drops new captures and counts them, never
//! a request.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use serde_json::Value;
use store::console::NewConsoleRequest;
use store::Store;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::record::{Capture, Captured};
use super::{count_dropped, redact};

/// How many times as long as a batch took the writer waits before the next one.
const IDLE_SHARE: u32 = 9;
/// The longest wait between batches, however long the last one took: the console stays at most about this far
/// behind.
const LONGEST_PAUSE: Duration = Duration::from_secs(1);

/// What stores captures.
pub struct Writer {
    /// Where the rings are.
    pub store: Store,
    /// Requests kept per society.
    pub ring_size: u32,
    /// Captures held for the next batch at most (the channel holds as many again).
    pub queue: usize,
    /// Where captures that could not be stored are counted.
    pub dropped: Arc<AtomicU64>,
}

/// Captures waiting for the next batch: per society, the newest `ring` ones, each with its place in arrival order.
struct Waiting {
    ring: usize,
    arrived: u64,
    count: usize,
    by_society: HashMap<i64, VecDeque<(u64, Capture)>>,
}

impl Waiting {
    fn new(ring: u32) -> Self {
        Self {
            ring: usize::try_from(ring).unwrap_or(usize::MAX).max(1),
            arrived: 0,
            count: 0,
            by_society: HashMap::new(),
        }
    }

    /// Keeps `capture`; the oldest waiting capture of its society goes if that society already has a ring's worth.
    fn push(&mut self, capture: Capture) {
        self.arrived += 1;
        let waiting = self.by_society.entry(capture.scope.society_id()).or_default();
        if waiting.len() >= self.ring {
            waiting.pop_front();
        } else {
            self.count += 1;
        }
        waiting.push_back((self.arrived, capture));
    }

    /// Every waiting capture, in the order they arrived, leaving none.
    fn take(&mut self) -> Vec<Capture> {
        let mut all: Vec<(u64, Capture)> = self.by_society.drain().flat_map(|(_, waiting)| waiting).collect();
        all.sort_unstable_by_key(|(arrived, _)| *arrived);
        self.count = 0;
        all.into_iter().map(|(_, capture)| capture).collect()
    }
}

impl Writer {
    /// Stores what arrives, a batch at a time, until every sender is gone; then stores what is left.
    pub async fn run(self, mut receiver: mpsc::Receiver<Capture>) {
        let limit = self.queue.max(1);
        let mut waiting = Waiting::new(self.ring_size);
        let mut next_batch = Instant::now();
        let mut open = true;
        while open {
            // Wait for a first capture, then keep taking until the pause is over or the limit is reached.
            match receiver.recv().await {
                Some(capture) => waiting.push(capture),
                None => break,
            }
            while waiting.count < limit {
                match tokio::time::timeout_at(next_batch, receiver.recv()).await {
                    Ok(Some(capture)) => waiting.push(capture),
                    Ok(None) => {
                        open = false;
                        break;
                    }
                    Err(_) => break,
                }
            }
            // Whatever is already in the channel joins this batch without waiting.
            while waiting.count < limit {
                match receiver.try_recv() {
                    Ok(capture) => waiting.push(capture),
                    Err(_) => break,
                }
            }
            tokio::time::sleep_until(next_batch).await;
            let started = Instant::now();
            self.store(waiting.take()).await;
            let pause = started.elapsed().saturating_mul(IDLE_SHARE).min(LONGEST_PAUSE);
            next_batch = Instant::now() + pause;
        }
        self.store(waiting.take()).await;
    }

    async fn store(&self, captures: Vec<Capture>) {
        if captures.is_empty() {
            return;
        }
        let mut bodies = SameBodies::default();
        let requests: Vec<NewConsoleRequest> = captures
            .into_iter()
            .map(|capture| redacted(capture, &mut bodies))
            .collect();
        if let Err(error) = self.store.record_console_requests(&requests, self.ring_size).await {
            tracing::warn!(%error, lost = requests.len(), "could not store the console's requests");
            count_dropped(&self.dropped, u64::try_from(requests.len()).unwrap_or(u64::MAX));
        }
    }
}

/// Answers' bodies already redacted in this batch, by the identity of their one shared frame: the same kept page
/// answered many times is parsed and redacted once. Each entry holds its frame, so no other body can take its
/// address while the batch lasts; the map lives for one batch, so it holds at most a batch's bodies.
#[derive(Default)]
struct SameBodies(HashMap<(usize, usize), (Bytes, Option<String>)>);

impl SameBodies {
    fn text(&mut self, captured: &Captured) -> Option<String> {
        let Some(frame) = captured.single() else {
            return body_text(captured);
        };
        let key = (frame.as_ptr() as usize, frame.len());
        self.0
            .entry(key)
            .or_insert_with(|| (frame.clone(), body_text(captured)))
            .1
            .clone()
    }
}

/// A body as the console keeps it: redacted JSON, or a note of what it was.
fn body_text(captured: &Captured) -> Option<String> {
    if captured.length == 0 {
        return None;
    }
    let Some(kept) = captured.whole() else {
        return Some(format!("[{} bytes: longer than the console keeps]", captured.length));
    };
    match serde_json::from_slice::<Value>(&kept) {
        Ok(mut value) => {
            redact::json(&mut value);
            Some(value.to_string())
        }
        // A body that is not JSON cannot be searched for secrets by name, so none of it is kept.
        Err(_) => Some(format!("[{} bytes, not JSON: not kept]", captured.length)),
    }
}

/// The envelope's message of an error answer.
fn error_message(status: u16, body: Option<&str>) -> Option<String> {
    if status < 400 {
        return None;
    }
    let value: Value = serde_json::from_str(body?).ok()?;
    value["error"]["message"].as_str().map(str::to_owned)
}

fn redacted(capture: Capture, bodies: &mut SameBodies) -> NewConsoleRequest {
    let response_body = capture.response_body().and_then(|captured| bodies.text(&captured));
    NewConsoleRequest {
        error_message: error_message(capture.status, response_body.as_deref()),
        request_body: capture.request_body().as_ref().and_then(body_text),
        request_headers: redact::headers(&capture.headers).to_string(),
        query: capture.query.as_deref().map(redact::query),
        method: capture.method.as_str().to_owned(),
        scope: capture.scope,
        recorded_at: capture.recorded_at,
        path: capture.path,
        status: capture.status,
        latency_ms: capture.latency_ms,
        request_id: capture.request_id,
        response_body,
    }
}
