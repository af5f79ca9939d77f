//! The sandbox console at `/console`: a page where an integrator logs in with its API credentials and sees its own
//! society's recent requests (bodies redacted), with a link from each to its operation in the reference, and its
//! webhook endpoints and deliveries.
//!
//! - [`record`]: the middleware that captures each request a token was accepted for and hands the capture to the
//!   writer through a bounded channel: a full channel drops the capture and counts it, never the request.
//! - [`writer`]: the background task that redacts captures and stores them in the society's ring
//!   (`store::console`) in batches, working a bounded share of the time.
//! - [`api`]: the page, its script and stylesheet, and the JSON the page reads (`/console/api/…`), scoped by the
//!   bearer token's society, behind the system-id header as the API is.
//! - [`redact`]: what is never stored: secrets in bodies, queries and headers, by name.
//! - [`resend`]: whether a recorded request can be sent again from the page as it was recorded.
//!
//! Off (the default of `serve`), no route of the console exists, and no layer of it is in the request path.

pub mod api;
pub mod record;
pub mod redact;
pub mod resend;
pub mod writer;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use axum::http::Method;
use axum::routing::MethodRouter;
use axum::{middleware, Router};
use serde_json::Value;
use store::{Scope, Store};
use tokio::sync::mpsc;

use crate::AppState;

/// Requests kept per society, unless configured otherwise.
pub const DEFAULT_RING_SIZE: u32 = 200;
/// Captures the channel holds, and as many the writer holds for its next batch; beyond, new ones are dropped (and
/// counted).
pub const DEFAULT_QUEUE: usize = 512;
/// Bytes of a body kept; a longer body is stored as its size only.
pub const BODY_CAP: usize = 64 * 1024;
/// Counter of captures dropped because the writer was behind or the database refused them.
pub const DROPPED: &str = "tranquera_console_dropped_requests_total";

/// The console's settings.
#[derive(Debug, Clone)]
pub struct ConsoleConfig {
    /// Whether `/console` exists and requests are recorded.
    pub enabled: bool,
    /// Requests kept per society.
    pub ring_size: u32,
    /// Captures waiting for the writer at most.
    pub queue: usize,
}

impl Default for ConsoleConfig {
    fn default() -> Self {
        Self {
            enabled: false,
            ring_size: DEFAULT_RING_SIZE,
            queue: DEFAULT_QUEUE,
        }
    }
}

/// The running console: the recorder's channel, and what the pages need.
pub struct Console {
    ring_size: u32,
    sender: mpsc::Sender<record::Capture>,
    dropped: Arc<AtomicU64>,
    operations: api::Operations,
    page: String,
}

impl std::fmt::Debug for Console {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Console")
            .field("ring_size", &self.ring_size)
            .field("dropped", &self.dropped)
            .finish_non_exhaustive()
    }
}

impl Console {
    /// Starts the console's writer on `store`, and indexes `document`'s operations for the reference links. The
    /// writer ends, having stored what it was sent, once the application that holds the console is dropped.
    pub fn start(store: Store, config: &ConsoleConfig, document: &Value, system_id_header: &str) -> Arc<Self> {
        metrics::describe_counter!(
            DROPPED,
            "Requests the console could not record: its writer was behind, or the database refused them."
        );
        let (sender, receiver) = mpsc::channel(config.queue.max(1));
        let console = Arc::new(Self {
            ring_size: config.ring_size.max(1),
            sender,
            dropped: Arc::default(),
            operations: api::Operations::new(document),
            page: api::page(system_id_header),
        });
        let writer = writer::Writer {
            store,
            ring_size: console.ring_size,
            queue: config.queue.max(1),
            dropped: console.dropped.clone(),
        };
        tokio::spawn(writer.run(receiver));
        console
    }

    /// Captures this process could not store since it started.
    fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// Counts `count` captures that will never be stored.
fn count_dropped(dropped: &AtomicU64, count: u64) {
    dropped.fetch_add(count, Ordering::Relaxed);
    metrics::counter!(DROPPED).increment(count);
}

/// The society a request's token was accepted for, which the [`crate::extract::Caller`] extractor fills in: only such
/// requests are recorded, in that society's ring.
#[derive(Debug, Clone, Default)]
pub struct SeenSociety(Arc<OnceLock<Scope>>);

impl SeenSociety {
    /// Records the caller's society.
    pub fn learn(&self, scope: &Scope) {
        let _ = self.0.set(scope.clone());
    }

    fn get(&self) -> Option<&Scope> {
        self.0.get()
    }
}

/// Every route of the console, built once here so that the route-isolation test reads the same list the router has.
fn table() -> Vec<(Method, &'static str, MethodRouter<AppState>)> {
    use axum::routing::get;
    vec![
        (Method::GET, "/console", get(api::page_html)),
        (Method::GET, "/console/console.js", get(api::script)),
        (Method::GET, "/console/console.css", get(api::stylesheet)),
        (Method::GET, "/console/api/requests", get(api::requests)),
        (Method::GET, "/console/api/requests/{id}", get(api::request)),
    ]
}

/// Every `(method, path)` the console routes when it is on.
pub fn operations() -> Vec<(Method, &'static str)> {
    table().into_iter().map(|(method, path, _)| (method, path)).collect()
}

/// The console's routes, or none when it is off. Its JSON routes need the system-id header as every API call does
/// (the page's script sends it); the page and its files are loaded by the browser itself, which sends no header.
pub fn routes(state: &AppState) -> Router<AppState> {
    let system_id = middleware::from_fn_with_state(state.clone(), crate::envelope::require_system_id);
    match state.console {
        Some(_) => table().into_iter().fold(Router::new(), |router, (_, path, route)| {
            let route = match path.starts_with("/console/api/") {
                true => route.route_layer(system_id.clone()),
                false => route,
            };
            router.route(path, route)
        }),
        None => Router::new(),
    }
}

/// `router` with the recorder around it when the console is on; untouched when it is off.
pub fn record_requests(router: Router<AppState>, state: &AppState) -> Router<AppState> {
    match &state.console {
        Some(console) => router.layer(middleware::from_fn_with_state(console.clone(), record::record)),
        None => router,
    }
}
