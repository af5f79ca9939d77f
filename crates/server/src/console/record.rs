//! Recording requests for the console. The middleware keeps the first [`BODY_CAP`] bytes of each body as it streams
//! by (the frames themselves, shared rather than copied; neither body is held back or buffered whole), and once the
//! answer's body has been sent (or dropped) hands a capture to the writer ([`super::writer`]) through a bounded
//! channel, without waiting: a full channel drops it and counts it. Redacting and storing are the writer's, off the
//! request path.

use std::borrow::Cow;
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
use store::Scope;
use tokio::sync::mpsc;

use super::{count_dropped, Console, SeenSociety, BODY_CAP};

/// The first bytes of a body, as the frames that brought them, and how long it was.
#[derive(Default)]
pub(super) struct Captured {
    frames: Vec<Bytes>,
    /// The body's length so far.
    pub(super) length: usize,
}

impl Captured {
    /// The body's bytes, if it is no longer than the console keeps.
    pub(super) fn whole(&self) -> Option<Cow<'_, [u8]>> {
        if self.length > BODY_CAP {
            return None;
        }
        match self.frames.as_slice() {
            [one] => Some(Cow::Borrowed(one)),
            frames => Some(Cow::Owned(frames.concat())),
        }
    }

    /// The body's one frame, if it came whole in one and is no longer than the console keeps: a page served from a
    /// cache is the same shared frame every time, which lets the writer redact it once.
    pub(super) fn single(&self) -> Option<&Bytes> {
        match self.frames.as_slice() {
            [one] if self.length <= BODY_CAP => Some(one),
            _ => None,
        }
    }
}

type Shared = Arc<Mutex<Captured>>;

fn keep(captured: &Shared, data: &Bytes) {
    if let Ok(mut captured) = captured.lock() {
        captured.length = captured.length.saturating_add(data.len());
        // A body longer than the cap is stored as its length only: its frames are of no use.
        match captured.length <= BODY_CAP {
            true => captured.frames.push(data.clone()),
            false => captured.frames.clear(),
        }
    }
}

/// What was kept of a body, taken out of the body that kept it.
fn taken(captured: &Shared) -> Option<Captured> {
    captured.lock().ok().map(|mut captured| std::mem::take(&mut *captured))
}

/// A request as it was answered, not yet redacted: it never leaves this process, and has no `Debug`.
pub struct Capture {
    pub(super) scope: Scope,
    pub(super) recorded_at: i64,
    pub(super) method: Method,
    pub(super) path: String,
    pub(super) query: Option<String>,
    pub(super) status: u16,
    pub(super) latency_ms: i64,
    pub(super) request_id: Option<String>,
    pub(super) headers: HeaderMap,
    request_body: Shared,
    response_body: Shared,
}

impl Capture {
    /// What was kept of the request's body.
    pub(super) fn request_body(&self) -> Option<Captured> {
        taken(&self.request_body)
    }

    /// What was kept of the answer's body.
    pub(super) fn response_body(&self) -> Option<Captured> {
        taken(&self.response_body)
    }
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
