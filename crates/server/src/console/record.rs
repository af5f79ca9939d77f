//! Recording requests for the console. The middleware copies the first [`BODY_CAP`] bytes of each body as it streams
//! by (neither body is held back or buffered whole), and once the answer's body has been sent (or dropped) hands a
//! capture to the writer through a bounded channel, without waiting: a full channel drops it and counts it. The
//! writer redacts captures, off the request path, and stores them in batches.

use std::pin::Pin;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::Response;
use http_body::{Frame, SizeHint};
use serde_json::Value;
use store::console::NewConsoleRequest;
use store::{Scope, Store};
use tokio::sync::mpsc;

use super::{count_dropped, redact, Console, SeenSociety, BODY_CAP};

/// Captures the writer stores in one transaction at most.
const BATCH: usize = 100;

/// The first bytes of a body, and how long it was.
#[derive(Default)]
struct Captured {
    kept: Vec<u8>,
    length: usize,
}

type Shared = Arc<Mutex<Captured>>;

fn keep(captured: &Shared, data: &[u8]) {
    if let Ok(mut captured) = captured.lock() {
        let room = BODY_CAP.saturating_sub(captured.kept.len()).min(data.len());
        captured.kept.extend_from_slice(&data[..room]);
        captured.length = captured.length.saturating_add(data.len());
    }
}

/// A request as it was answered, not yet redacted: it never leaves this process, and has no `Debug`.
pub struct Capture {
    scope: Scope,
    recorded_at: i64,
    method: Method,
    path: String,
    query: Option<String>,
    status: u16,
    latency_ms: i64,
    request_id: Option<String>,
    headers: HeaderMap,
    request_body: Shared,
    response_body: Shared,
}

/// What sends a capture once the answer's body is done with.
struct Pending {
    capture: Capture,
    sender: mpsc::Sender<Capture>,
    dropped: Arc<AtomicU64>,
}

/// A body that keeps a copy of the first bytes that stream through it, and sends its capture, if it carries one,
/// when it is dropped.
struct Tee {
    inner: Body,
    captured: Shared,
    pending: Option<Pending>,
}

impl http_body::Body for Tee {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        let polled = Pin::new(&mut self.inner).poll_frame(cx);
        if let Poll::Ready(Some(Ok(frame))) = &polled {
            if let Some(data) = frame.data_ref() {
                keep(&self.captured, data);
            }
        }
        polled
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Tee {
    fn drop(&mut self) {
        if let Some(pending) = self.pending.take() {
            if pending.sender.try_send(pending.capture).is_err() {
                count_dropped(&pending.dropped, 1);
            }
        }
    }
}

/// The console's own routes are not recorded: reading the ring must not fill it.
fn is_console(path: &str) -> bool {
    path == "/console" || path.starts_with("/console/")
}

/// The middleware: records every request whose token was accepted, in the token's society's ring.
pub async fn record(State(console): State<Arc<Console>>, mut request: Request, next: Next) -> Response {
    if is_console(request.uri().path()) {
        return next.run(request).await;
    }
    let started = Instant::now();
    let seen = SeenSociety::default();
    request.extensions_mut().insert(seen.clone());
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let query = request.uri().query().map(str::to_owned);
    let headers = request.headers().clone();
    let request_body = Shared::default();
    let request = request.map(|body| {
        Body::new(Tee {
            inner: body,
            captured: request_body.clone(),
            pending: None,
        })
    });
    let response = next.run(request).await;
    let Some(scope) = seen.get().cloned() else {
        return response;
    };
    let request_id = headers
        .get("x-request-id")
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned);
    let capture = Capture {
        scope,
        recorded_at: store::now_millis(),
        method,
        path,
        query,
        status: response.status().as_u16(),
        latency_ms: i64::try_from(started.elapsed().as_millis()).unwrap_or(i64::MAX),
        request_id,
        headers,
        request_body,
        response_body: Shared::default(),
    };
    let pending = Pending {
        capture,
        sender: console.sender.clone(),
        dropped: console.dropped.clone(),
    };
    response.map(|body| {
        let captured = pending.capture.response_body.clone();
        Body::new(Tee {
            inner: body,
            captured,
            pending: Some(pending),
        })
    })
}

/// What stores captures: the background half of the recorder.
pub struct Writer {
    /// Where the rings are.
    pub store: Store,
    /// Requests kept per society.
    pub ring_size: u32,
    /// Where captures that could not be stored are counted.
    pub dropped: Arc<AtomicU64>,
}

impl Writer {
    /// Stores what arrives, a batch at a time, until every sender is gone.
    pub async fn run(self, mut receiver: mpsc::Receiver<Capture>) {
        let mut batch = Vec::with_capacity(BATCH);
        while receiver.recv_many(&mut batch, BATCH).await > 0 {
            let requests: Vec<NewConsoleRequest> = batch.drain(..).map(redacted).collect();
            if let Err(error) = self.store.record_console_requests(&requests, self.ring_size).await {
                tracing::warn!(%error, lost = requests.len(), "could not store the console's requests");
                count_dropped(&self.dropped, u64::try_from(requests.len()).unwrap_or(u64::MAX));
            }
        }
    }
}

/// A body as the console keeps it: redacted JSON, or a note of what it was.
fn body_text(captured: &Shared) -> Option<String> {
    let captured = captured.lock().ok()?;
    if captured.length == 0 {
        return None;
    }
    if captured.length > captured.kept.len() {
        return Some(format!("[{} bytes: longer than the console keeps]", captured.length));
    }
    match serde_json::from_slice::<Value>(&captured.kept) {
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

fn redacted(capture: Capture) -> NewConsoleRequest {
    let response_body = body_text(&capture.response_body);
    NewConsoleRequest {
        error_message: error_message(capture.status, response_body.as_deref()),
        scope: capture.scope,
        recorded_at: capture.recorded_at,
        method: capture.method.as_str().to_owned(),
        path: capture.path,
        query: capture.query.as_deref().map(redact::query),
        status: capture.status,
        latency_ms: capture.latency_ms,
        request_id: capture.request_id,
        request_headers: redact::headers(&capture.headers).to_string(),
        request_body: body_text(&capture.request_body),
        response_body,
    }
}
