//! The HTTP server of the integration API.
//!
//! Data flows one way: HTTP → extractor (parse at the boundary) → store (scoped to the caller's society) → wire
//! shape → HTTP. Handlers are a few lines each; rules live in `domain`, SQL in `store`.
//!
//! # Layout
//! - [`config`]: the server's settings.
//! - [`console`]: the sandbox console at `/console`, and the recorder of requests it shows.
//! - [`routes`]: the route table of every generation, and the handlers; [`openapi`], the document it describes
//!   itself in; [`code_samples`], its samples; [`reference`], its translations.
//! - [`extract`]: the authenticated caller, list queries, JSON bodies; [`body`], bodies read strictly against the
//!   document's schemas.
//! - [`idempotency`]: retries of a POST with an `Idempotency-Key` get the first answer again.
//! - [`ratelimit`]: requests per token and per client address.
//! - [`metrics`]: Prometheus metrics on a listen address of their own; [`trace_context`]: W3C `traceparent`.
//! - [`worker`]: the background worker that runs jobs from the database; [`housekeeping`]: the periodic purges.
//! - [`webhooks`]: the worker that fans events out to webhook endpoints and delivers them, signed.
//! - [`durable`]: no write is answered before it is on disk; [`conditional`]: list `ETag`s and 304.
//! - [`error`], [`envelope`], [`i18n`]: one error type, rendered as the specification's envelope in the caller's
//!   language for every failure, ours or the framework's; [`head`], the request head's bounds, and hyper's own
//!   refusals in the envelope.
//!
//! [`Application`] accepts connections itself, with hyper's connection builder, so that a slow client cannot hold a
//! connection: a request's head must arrive within `header_read_timeout`, and a body may not pause longer than
//! `body_read_timeout`. A stopping server closes its listener, lets requests in flight finish for up to
//! `shutdown_timeout`, then drops what is left.

pub mod body;
pub mod code_samples;
pub mod conditional;
pub mod config;
pub mod console;
pub mod durable;
pub mod envelope;
pub mod error;
pub mod extract;
pub mod head;
pub mod housekeeping;
pub mod i18n;
pub mod idempotency;
pub mod metrics;
pub mod openapi;
pub mod ratelimit;
pub mod reference;
pub mod routes;
pub mod trace_context;
pub mod webhooks;
pub mod worker;

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{ConnectInfo, DefaultBodyLimit};
use axum::http::{HeaderName, Request, StatusCode};
use axum::{middleware, Router};
use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use hyper_util::server::graceful::GracefulShutdown;
use store::Store;
use tokio::net::TcpListener;
use tower::ServiceExt;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, RequestId, SetRequestIdLayer};
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};
use tower_http::trace::TraceLayer;

pub use config::ServerConfig;

/// Header names, built once from the configured token.
#[derive(Debug, Clone)]
pub struct HeaderNames {
    /// `x-<token>-system-id`.
    pub system_id: HeaderName,
    /// `X-<TOKEN>-SYSTEM-ID`, as messages spell it.
    pub system_id_display: String,
    /// `x-<token>-apikey`.
    pub api_key: HeaderName,
}

impl HeaderNames {
    fn new(token: &str) -> io::Result<Self> {
        let parse = |suffix: &str| {
            HeaderName::try_from(format!("x-{}-{suffix}", token.to_ascii_lowercase()))
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, format!("header token {token:?}: {e}")))
        };
        Ok(Self {
            system_id: parse("system-id")?,
            system_id_display: format!("X-{}-SYSTEM-ID", token.to_ascii_uppercase()),
            api_key: parse("apikey")?,
        })
    }

    /// `X-<TOKEN>-APIKEY`, as messages spell it.
    pub fn api_key_display(&self) -> String {
        self.system_id_display.replace("SYSTEM-ID", "APIKEY")
    }
}

/// What every handler can reach. Every middleware layer and extractor clones it for every request, so it is one
/// shared pointer to [`Shared`].
#[derive(Debug, Clone)]
pub struct AppState(Arc<Shared>);

impl std::ops::Deref for AppState {
    type Target = Shared;

    fn deref(&self) -> &Shared {
        &self.0
    }
}

/// What [`AppState`] points to.
#[derive(Debug)]
pub struct Shared {
    /// The database.
    pub store: Store,
    /// The server's settings.
    pub config: Arc<ServerConfig>,
    /// Header names derived from the configured token.
    pub headers: Arc<HeaderNames>,
    /// The OpenAPI document and its page, rendered once.
    pub docs: Arc<routes::docs::Rendered>,
    /// The rate limits' buckets.
    pub limiters: Arc<ratelimit::Limiters>,
    /// Bodies of recent list answers, while their data stands.
    pub rendered_lists: Arc<conditional::RenderedLists>,
    /// How long each list route's last answer was, to reserve room for the next.
    pub body_sizes: Arc<conditional::BodySizes>,
    /// The request bodies' schemas, compiled from the document.
    pub bodies: Arc<body::BodySchemas>,
    /// The sandbox console, when it is on.
    pub console: Option<Arc<console::Console>>,
    /// Where a method that a path does not take is served instead, for the 405's message.
    pub method_hints: Arc<envelope::hints::MethodHints>,
}

/// The OpenAPI document of every route, with the header names of `header_token`.
pub fn openapi_document(header_token: &str) -> utoipa::openapi::OpenApi {
    routes::table().finish(header_token).2
}

/// Builds the whole application: routes, fallbacks and middleware, counting requests against `limiters` (which
/// [`Application`] shares with the other processes).
fn app(store: Store, config: ServerConfig, limiters: Arc<ratelimit::Limiters>) -> io::Result<Router> {
    let headers = HeaderNames::new(&config.header_token)?;
    let table = routes::table();
    let method_hints = Arc::new(envelope::hints::MethodHints::new(table.operations()));
    let (api, open, document) = table.finish(&config.header_token);
    let docs = Arc::new(routes::docs::render(&document));
    let bodies = Arc::new(body::BodySchemas::new(&document).map_err(io::Error::other)?);
    let console = config.console.enabled.then(|| {
        let document = serde_json::to_value(&document).unwrap_or_default();
        console::Console::start(store.clone(), &config.console, &document, &headers.system_id_display)
    });
    let state = AppState(Arc::new(Shared {
        store,
        config: Arc::new(config.clone()),
        headers: Arc::new(headers),
        docs,
        limiters,
        rendered_lists: Arc::new(conditional::RenderedLists::new(config.list_cache_bytes)),
        body_sizes: Arc::default(),
        bodies,
        console,
        method_hints,
    }));
    let api = api
        .layer(middleware::from_fn_with_state(
            state.clone(),
            idempotency::idempotent_posts,
        ))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            envelope::require_system_id,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), durable::durable_writes));
    let router = Router::new()
        .merge(open)
        .merge(api)
        .merge(console::routes(&state))
        .fallback(envelope::route_not_found)
        .layer(DefaultBodyLimit::max(config.body_limit))
        .layer(RequestBodyTimeoutLayer::new(config.body_read_timeout))
        .layer(CatchPanicLayer::new())
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            config.request_timeout,
        ))
        .layer(middleware::from_fn_with_state(state.clone(), ratelimit::limit))
        .layer(middleware::from_fn_with_state(state.clone(), head::check_head))
        .layer(middleware::from_fn_with_state(state.clone(), envelope::render_errors));
    // Outside the envelope, to record answers as they are sent; inside the request id, to record it.
    let router = console::record_requests(router, &state)
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(TraceLayer::new_for_http().make_span_with(|request: &Request<_>| {
            let request_id = request
                .extensions()
                .get::<RequestId>()
                .and_then(|id| id.header_value().to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let trace_id = request
                .extensions()
                .get::<trace_context::TraceContext>()
                .map(|context| context.trace_id.clone())
                .unwrap_or_default();
            tracing::info_span!(
                "request",
                method = %request.method(),
                path = %request.uri().path(),
                request_id,
                trace_id
            )
        }))
        .layer(middleware::from_fn(trace_context::trace_context))
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid));
    // Outermost, so that it times and counts every answer, refusals and time-outs included.
    let router = match config.metrics_listen {
        Some(_) => router.layer(middleware::from_fn(metrics::record_requests)),
        None => router,
    };
    Ok(router.with_state(state))
}

/// A server bound to its address, ready to run.
pub struct Application {
    listener: TcpListener,
    router: Router,
    store: Store,
    jobs: worker::JobsConfig,
    webhooks: webhooks::WebhooksConfig,
    housekeeping: housekeeping::HousekeepingConfig,
    limiters: Arc<ratelimit::Limiters>,
    metrics: Option<metrics::MetricsListener>,
    header_read_timeout: Duration,
    shutdown_timeout: Duration,
}

impl Application {
    /// Binds the configured address (port 0 picks a free port) and builds the application.
    pub async fn build(store: Store, config: ServerConfig) -> io::Result<Self> {
        let listener = bind(config.listen).await?;
        Self::build_on(listener, store, config).await
    }

    /// Builds the application on a listener already bound (see [`bind`]), so that a command can learn that its
    /// address is taken before it prepares a database.
    pub async fn build_on(listener: TcpListener, store: Store, config: ServerConfig) -> io::Result<Self> {
        let jobs = config.jobs.clone();
        let webhooks = config.webhooks.clone();
        let housekeeping = config.housekeeping.clone();
        let (header_read_timeout, shutdown_timeout) = (config.header_read_timeout, config.shutdown_timeout);
        let metrics = match config.metrics_listen {
            Some(address) => Some(metrics::MetricsListener::bind(address, store.clone()).await?),
            None => None,
        };
        let limiters = Arc::new(ratelimit::Limiters::new(&config.rate_limits));
        let router = app(store.clone(), config, limiters.clone())?;
        Ok(Self {
            listener,
            router,
            store,
            jobs,
            webhooks,
            housekeeping,
            limiters,
            metrics,
            header_read_timeout,
            shutdown_timeout,
        })
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// The address `GET /metrics` is served on, when it is.
    pub fn metrics_addr(&self) -> Option<io::Result<SocketAddr>> {
        self.metrics.as_ref().map(metrics::MetricsListener::local_addr)
    }

    /// Serves until the process is asked to stop (Ctrl-C or SIGTERM), letting requests in flight finish.
    pub async fn run_until_stopped(self) -> io::Result<()> {
        self.run_until(shutdown_signal()).await
    }

    /// Serves until `signal` completes, then stops accepting connections and lets requests in flight finish, for
    /// up to the shutdown time-out.
    pub async fn run_until(mut self, signal: impl Future<Output = ()> + Send + 'static) -> io::Result<()> {
        let scrapes = self.metrics.take().map(metrics::MetricsListener::spawn);
        let purges = housekeeping::spawn(self.store.clone(), self.housekeeping.clone());
        let shares = ratelimit::spawn_sharing(self.limiters.clone(), self.store.clone());
        let worker = self
            .jobs
            .enabled
            .then(|| worker::spawn(self.store.clone(), self.jobs.clone()));
        let deliverer = match self.webhooks.enabled {
            true => Some(
                webhooks::Deliverer::new(self.store.clone(), self.webhooks.clone())
                    .map_err(io::Error::other)?
                    .spawn(),
            ),
            false => None,
        };
        let mut builder = auto::Builder::new(TokioExecutor::new()).http1_only();
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(self.header_read_timeout);
        let connections = GracefulShutdown::new();
        tokio::pin!(signal);
        loop {
            let (stream, peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        // Out of file descriptors, or a connection reset before it was accepted: pause, go on.
                        tracing::warn!(%error, "could not accept a connection");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                        continue;
                    }
                },
                () = &mut signal => break,
            };
            tracing::trace!(%peer, "connection accepted");
            let router = self.router.clone();
            let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
                request.extensions_mut().insert(ConnectInfo(peer));
                router.clone().oneshot(request)
            });
            let stream = TokioIo::new(head::Enveloped::new(stream));
            let connection = connections.watch(builder.serve_connection(stream, service).into_owned());
            tokio::spawn(async move {
                if let Err(error) = connection.await {
                    tracing::debug!(%peer, %error, "connection closed on an error");
                }
            });
        }
        drop(self.listener);
        tokio::select! {
            () = connections.shutdown() => tracing::info!("every request in flight has been answered"),
            () = tokio::time::sleep(self.shutdown_timeout) => {
                tracing::warn!(timeout = ?self.shutdown_timeout, "requests still in flight are dropped");
            }
        }
        for worker in [worker, deliverer, scrapes, Some(purges), Some(shares)]
            .into_iter()
            .flatten()
        {
            worker.abort();
        }
        Ok(())
    }
}

/// Binds `address`; the error names the address, as an operator reads it.
pub async fn bind(address: SocketAddr) -> io::Result<TcpListener> {
    TcpListener::bind(address)
        .await
        .map_err(|error| io::Error::new(error.kind(), format!("cannot listen on {address}: {error}")))
}

async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = terminate => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}
