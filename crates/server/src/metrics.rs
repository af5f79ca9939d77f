//! Prometheus metrics for operators: the process's recorder, the middleware that counts and times every request by
//! its route template, and `GET /metrics` on a listen address of its own (`--metrics-listen`), never on the public
//! port. Labels carry only bounded values (route templates, methods, statuses, outcome names): no ids, tokens or
//! society names.
//!
//! What a scrape reads from the database (pools, job queue, webhook backlog) is read when it is scraped, so a process
//! nobody scrapes pays nothing for it. Without `--metrics-listen` no recorder is installed, and recording anywhere
//! in the process does nothing.

use std::io;
use std::net::SocketAddr;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use metrics::{counter, describe_counter, describe_gauge, describe_histogram, gauge, histogram, Unit};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use store::Store;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;

/// Requests answered, by route template, method and status.
pub const REQUESTS: &str = "tranquera_http_requests_total";
/// Time to answer a request, by route template and method.
const REQUEST_DURATION: &str = "tranquera_http_request_duration_seconds";
/// Requests refused with 429, by the limit that refused them.
pub const RATE_LIMITED: &str = "tranquera_rate_limited_requests_total";
/// Webhook delivery attempts recorded, by outcome.
pub const WEBHOOK_ATTEMPTS: &str = "tranquera_webhook_delivery_attempts_total";

/// Upper bounds of the request-duration buckets, in seconds: from a kept page (under a millisecond) to the request
/// time-out.
const DURATION_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// Upper bounds of the pool's acquire-wait buckets, in seconds: from a free connection (microseconds) to the acquire
/// time-out.
const ACQUIRE_WAIT_BUCKETS: &[f64] = &[0.0001, 0.001, 0.01, 0.1, 0.5, 1.0, 5.0, 30.0];

/// The process's recorder, installed once: every server of a process (a test's several) shares it.
static HANDLE: Mutex<Option<PrometheusHandle>> = Mutex::new(None);

/// The process's recorder, installed by the first call.
fn handle() -> io::Result<PrometheusHandle> {
    let mut installed = HANDLE.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(handle) = installed.as_ref() {
        return Ok(handle.clone());
    }
    let recorder = PrometheusBuilder::new()
        .set_buckets_for_metric(Matcher::Full(REQUEST_DURATION.to_owned()), DURATION_BUCKETS)
        .map_err(io::Error::other)?
        .set_buckets_for_metric(
            Matcher::Full(store::metrics::ACQUIRE_WAIT.to_owned()),
            ACQUIRE_WAIT_BUCKETS,
        )
        .map_err(io::Error::other)?
        .build_recorder();
    let handle = recorder.handle();
    metrics::set_global_recorder(recorder).map_err(io::Error::other)?;
    describe();
    gauge!("tranquera_build_info", "version" => env!("CARGO_PKG_VERSION")).set(1.0);
    *installed = Some(handle.clone());
    Ok(handle)
}

/// The help text of every metric, which `promtool check metrics` asks for.
fn describe() {
    describe_counter!(REQUESTS, "Requests answered, by route template, method and status.");
    describe_histogram!(
        REQUEST_DURATION,
        Unit::Seconds,
        "Time from a request's arrival to its answer, by route template and method."
    );
    describe_counter!(
        RATE_LIMITED,
        "Requests refused with 429, by the limit (token or address) that refused them."
    );
    describe_counter!(
        WEBHOOK_ATTEMPTS,
        "Webhook delivery attempts recorded by this process, by outcome."
    );
    describe_counter!(
        store::metrics::ACQUIRE_TIMEOUTS,
        "Database operations that found no free pooled connection within the acquire time-out (answered 503)."
    );
    describe_gauge!(
        "tranquera_build_info",
        "The running build's version, as a label; always 1."
    );
    describe_gauge!(
        "tranquera_db_pool_connections",
        "Open pooled database connections of this process, by pool and state (in_use or idle)."
    );
    describe_gauge!(
        "tranquera_db_pool_waiting",
        "Database operations of this process waiting for a pooled connection now, by pool."
    );
    describe_histogram!(
        store::metrics::ACQUIRE_WAIT,
        Unit::Seconds,
        "Time database operations waited for a pooled connection (opening one included), by pool."
    );
    describe_gauge!(
        "tranquera_db_pool_max_connections",
        "The most pooled database connections this process opens, by pool."
    );
    describe_gauge!(
        "tranquera_jobs_queued",
        "Background jobs waiting for a worker, in the whole database."
    );
    describe_gauge!(
        "tranquera_jobs_oldest_queued_age_seconds",
        Unit::Seconds,
        "Age of the oldest job waiting for a worker; 0 when none waits."
    );
    describe_gauge!(
        "tranquera_webhook_deliveries_pending",
        "Webhook deliveries not yet made (first attempt or retry), in the whole database."
    );
    describe_gauge!(
        "tranquera_webhook_oldest_pending_age_seconds",
        Unit::Seconds,
        "Age of the oldest webhook delivery not yet made; 0 when none is pending."
    );
}

/// The `/metrics` listener, bound and ready to serve.
pub struct MetricsListener {
    listener: TcpListener,
    router: Router,
}

impl MetricsListener {
    /// Installs the process's recorder and binds `address` for scrapes of `store`'s process.
    pub async fn bind(address: SocketAddr, store: Store) -> io::Result<Self> {
        let handle = handle()?;
        let listener = TcpListener::bind(address).await?;
        let router = Router::new().route("/metrics", get(scrape)).with_state((store, handle));
        Ok(Self { listener, router })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Serves scrapes until aborted.
    pub fn spawn(self) -> JoinHandle<()> {
        tokio::spawn(async move {
            if let Err(error) = axum::serve(self.listener, self.router).await {
                tracing::error!(%error, "the metrics listener stopped");
            }
        })
    }
}

/// `GET /metrics`: the database's gauges read now, then everything in Prometheus's text format.
async fn scrape(State((store, handle)): State<(Store, PrometheusHandle)>) -> Response {
    for pool in store.pool_vitals() {
        let in_use = pool.open.saturating_sub(pool.idle);
        gauge!("tranquera_db_pool_connections", "pool" => pool.name, "state" => "in_use").set(f64::from(in_use));
        gauge!("tranquera_db_pool_connections", "pool" => pool.name, "state" => "idle").set(f64::from(pool.idle));
        gauge!("tranquera_db_pool_max_connections", "pool" => pool.name).set(f64::from(pool.max));
        gauge!("tranquera_db_pool_waiting", "pool" => pool.name).set(f64::from(pool.waiting));
    }
    match store.queue_vitals().await {
        Ok(queues) => {
            gauge!("tranquera_jobs_queued").set(queues.jobs_queued as f64);
            gauge!("tranquera_jobs_oldest_queued_age_seconds").set(queues.oldest_job_age.as_secs_f64());
            gauge!("tranquera_webhook_deliveries_pending").set(queues.deliveries_pending as f64);
            gauge!("tranquera_webhook_oldest_pending_age_seconds").set(queues.oldest_delivery_age.as_secs_f64());
        }
        // The process's own figures are still worth a scrape; the queues' stay at their last reading.
        Err(error) => tracing::warn!(%error, "could not read the queues for a metrics scrape"),
    }
    handle.run_upkeep();
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8")],
        handle.render(),
    )
        .into_response()
}

/// Counts and times every request by its route template (`unmatched` for a path no route has), its method (`other`
/// for one the API has no route for) and its status.
pub async fn record_requests(matched: Option<MatchedPath>, request: Request, next: Next) -> Response {
    let route = matched.map_or_else(|| "unmatched".to_owned(), |path| path.as_str().to_owned());
    let method = method_label(request.method());
    let started = Instant::now();
    let response = next.run(request).await;
    let status = response.status().as_u16().to_string();
    histogram!(REQUEST_DURATION, "route" => route.clone(), "method" => method).record(started.elapsed().as_secs_f64());
    counter!(REQUESTS, "route" => route, "method" => method, "status" => status).increment(1);
    response
}

/// A method as a label: one of the few any route answers, so a client cannot mint label values.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}
