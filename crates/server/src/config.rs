//! The server's settings.

use std::net::SocketAddr;
use std::time::Duration;

use domain::NextPagePolicy;

use crate::worker::JobsConfig;

/// Largest request body accepted, in bytes, unless configured otherwise.
pub const DEFAULT_BODY_LIMIT: usize = 2 * 1024 * 1024;

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
    /// The background worker.
    pub jobs: JobsConfig,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
            header_token: "SVC".into(),
            next_page: NextPagePolicy::Null,
            body_limit: DEFAULT_BODY_LIMIT,
            request_timeout: Duration::from_secs(30),
            jobs: JobsConfig::default(),
        }
    }
}
