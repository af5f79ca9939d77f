//! The server's settings.

use std::net::SocketAddr;
use std::time::Duration;

use domain::NextPagePolicy;

use crate::console::ConsoleConfig;
use crate::housekeeping::HousekeepingConfig;
use crate::ratelimit::RateLimits;
use crate::webhooks::WebhooksConfig;
use crate::worker::JobsConfig;

/// Largest request body accepted, in bytes, unless configured otherwise.
pub const DEFAULT_BODY_LIMIT: usize = 2 * 1024 * 1024;
/// Longest wait for a request's head, unless configured otherwise.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest pause inside a request body, unless configured otherwise.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long requests in flight may take to finish once the server is asked to stop, unless configured otherwise.
pub const DEFAULT_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(10);

/// Bytes of list answers a process keeps for repeated requests, unless configured otherwise.
pub const DEFAULT_LIST_CACHE_BYTES: usize = 4 * 1024 * 1024;

/// How the HTTP server behaves.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on; port 0 picks a free one.
    pub listen: SocketAddr,
    /// The token in header names (`X-<token>-SYSTEM-ID`, `X-<token>-APIKEY`); `SVC` unless an operator runs the real
    /// maker's names.
    pub header_token: String,
    /// What `next_page` says on the last page.
    pub next_page: NextPagePolicy,
    /// Largest request body, in bytes.
    pub body_limit: usize,
    /// Longest a request may take before it is answered with 408.
    pub request_timeout: Duration,
    /// Longest wait for a request's head, an idle kept-alive connection's next request included, before the
    /// connection is closed.
    pub header_read_timeout: Duration,
    /// Longest pause inside a request body before the request is answered with 408.
    pub body_read_timeout: Duration,
    /// How long a stopping server lets requests in flight finish before it drops them.
    pub shutdown_timeout: Duration,
    /// Requests per bearer token and per client address.
    pub rate_limits: RateLimits,
    /// The background worker.
    pub jobs: JobsConfig,
    /// The webhook delivery worker, and which URLs endpoints may have.
    pub webhooks: WebhooksConfig,
    /// Bytes of list answers kept for repeated requests while their data stands; 0 keeps none.
    pub list_cache_bytes: usize,
    /// The periodic purges, and how long what they purge is kept.
    pub housekeeping: HousekeepingConfig,
    /// Where `GET /metrics` (Prometheus) is served, apart from the API; `None` serves no metrics and records none.
    pub metrics_listen: Option<SocketAddr>,
    /// The sandbox console at `/console`, and the recording of requests it shows; off unless turned on.
    pub console: ConsoleConfig,
    /// The account `/docs` offers in its log-in form: the demo's documented one in `tranquera demo`, none (an empty
    /// form) in `tranquera serve`.
    pub docs_login: Option<DocsLogin>,
}

/// An account the docs page's log-in form is filled in with.
#[derive(Debug, Clone)]
pub struct DocsLogin {
    /// The account's email.
    pub email: String,
    /// Its password; a public, documented one, but redacted from `Debug` all the same.
    pub password: secrecy::SecretString,
    /// The value of the system-id header.
    pub system_id: String,
}

impl DocsLogin {
    /// The account `email` with `password`, sending `system_id`.
    pub fn new(email: &str, password: &str, system_id: &str) -> Self {
        Self {
            email: email.to_owned(),
            password: password.into(),
            system_id: system_id.to_owned(),
        }
    }
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            header_token: "SVC".into(),
            next_page: NextPagePolicy::Null,
            body_limit: DEFAULT_BODY_LIMIT,
            request_timeout: Duration::from_secs(30),
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            shutdown_timeout: DEFAULT_SHUTDOWN_TIMEOUT,
            rate_limits: RateLimits::default(),
            jobs: JobsConfig::default(),
            webhooks: WebhooksConfig::default(),
            list_cache_bytes: DEFAULT_LIST_CACHE_BYTES,
            housekeeping: HousekeepingConfig::default(),
            metrics_listen: None,
            console: ConsoleConfig::default(),
            docs_login: None,
        }
    }
}
