//! Flags shared by the subcommands; each can also come from the environment, so operators configure processes the
//! same way whatever starts them.

use std::error::Error;
use std::fmt;
use std::net::SocketAddr;
use std::time::Duration;

use clap::builder::BoolishValueParser;
use clap::{Args, ValueEnum};
use domain::webhooks::UrlPolicy;
use domain::NextPagePolicy;
use server::config;
use server::console::{ConsoleConfig, DEFAULT_RING_SIZE};
use server::housekeeping::HousekeepingConfig;
use server::ratelimit::{self, IpNet, Rate, RateLimits};
use server::webhooks::WebhooksConfig;
use server::worker::JobsConfig;
use server::ServerConfig;
use store::auth::AuthConfig;
use store::pages::PagesConfig;
use store::{PoolOptions, SqliteSync, Store, StoreConfig};

/// Seconds in an hour, for the retentions given in hours and days.
const HOUR: u64 = 3600;

/// Any error a subcommand reports.
pub type Failure = Box<dyn Error + Send + Sync>;

/// Where the database is and how to pool it. `Debug` prints the URL without its password.
#[derive(Clone, Args)]
pub struct DatabaseArgs {
    /// `sqlite://PATH` or `postgres://USER@HOST/DB`.
    #[arg(long = "database", env = "DATABASE_URL")]
    pub url: String,
    /// Most pooled database connections per process; on PostgreSQL half serve requests' reads and half writes and
    /// background work, and the per-request token check has 4 more of its own.
    #[arg(long, env = "TRANQUERA_DB_MAX_CONNECTIONS", default_value_t = 16)]
    pub db_max_connections: u32,
    /// Seconds a request waits for a database connection before it fails with 503.
    #[arg(long, env = "TRANQUERA_DB_ACQUIRE_TIMEOUT", default_value_t = 5)]
    pub db_acquire_timeout: u64,
    /// When a SQLite commit returns: `normal`, at once, with answers to API writes waiting for a disk flush shared by
    /// every writer (group commit); `full`, once on disk, every commit alone (background jobs' too), much slower.
    #[arg(long, env = "TRANQUERA_SQLITE_SYNCHRONOUS", value_enum, default_value_t = SqliteSynchronous::Normal)]
    pub sqlite_synchronous: SqliteSynchronous,
}

impl fmt::Debug for DatabaseArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DatabaseArgs")
            .field("url", &without_password(&self.url))
            .field("db_max_connections", &self.db_max_connections)
            .field("db_acquire_timeout", &self.db_acquire_timeout)
            .field("sqlite_synchronous", &self.sqlite_synchronous)
            .finish()
    }
}

/// `url` with any password replaced by `redacted` (brackets would be percent-encoded in a URL's user info); a URL that
/// does not parse is redacted whole, since where its password is cannot be told.
fn without_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => match parsed.set_password(Some("redacted")) {
            Ok(()) => parsed.to_string(),
            Err(()) => "[redacted]".to_owned(),
        },
        Ok(_) => url.to_owned(),
        Err(_) => "[redacted]".to_owned(),
    }
}

/// SQLite's `synchronous` setting, as a flag gives it.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum SqliteSynchronous {
    /// Commit once the write-ahead log is on the disk.
    Full,
    /// Commit once the write-ahead log is with the operating system.
    Normal,
}

/// Token lifetimes.
#[derive(Debug, Clone, Args)]
pub struct AuthArgs {
    /// Seconds an access token works.
    #[arg(long, env = "TRANQUERA_ACCESS_TTL", default_value_t = 3600)]
    pub access_ttl: u64,
    /// Seconds a refresh token works.
    #[arg(long, env = "TRANQUERA_REFRESH_TTL", default_value_t = 30 * 24 * 3600)]
    pub refresh_ttl: u64,
}

/// What `next_page` says on the last page.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum NextPageOnLast {
    /// `null`, as the specification's schema states.
    Null,
    /// The current page, as the specification's sample responses show.
    Repeat,
}

/// How the HTTP server behaves.
#[derive(Debug, Clone, Args)]
pub struct HttpArgs {
    /// The token in header names: `X-<TOKEN>-SYSTEM-ID`, `X-<TOKEN>-APIKEY`.
    #[arg(long, env = "TRANQUERA_HEADER_TOKEN", default_value = "SVC")]
    pub header_token: String,
    /// What `next_page` says on the last page.
    #[arg(long, env = "TRANQUERA_NEXT_PAGE_ON_LAST", value_enum, default_value_t = NextPageOnLast::Null)]
    pub next_page_on_last: NextPageOnLast,
    /// Largest request body, in bytes.
    #[arg(long, env = "TRANQUERA_BODY_LIMIT", default_value_t = server::config::DEFAULT_BODY_LIMIT)]
    pub body_limit: usize,
    /// Seconds a request may take before it is answered with 408.
    #[arg(long, env = "TRANQUERA_REQUEST_TIMEOUT", default_value_t = 30)]
    pub request_timeout: u64,
    /// Seconds a client may take to send a request's head; also how long an idle connection waits for its next
    /// request.
    #[arg(long, env = "TRANQUERA_HEADER_READ_TIMEOUT", value_parser = clap::value_parser!(u64).range(1..),
          default_value_t = config::DEFAULT_HEADER_READ_TIMEOUT.as_secs())]
    pub header_read_timeout: u64,
    /// Seconds a request body may pause before the request is answered with 408.
    #[arg(long, env = "TRANQUERA_BODY_READ_TIMEOUT", value_parser = clap::value_parser!(u64).range(1..),
          default_value_t = config::DEFAULT_BODY_READ_TIMEOUT.as_secs())]
    pub body_read_timeout: u64,
    /// Seconds a stopping server (SIGTERM, Ctrl-C) lets requests in flight finish before it drops them.
    #[arg(long, env = "TRANQUERA_SHUTDOWN_TIMEOUT", default_value_t = config::DEFAULT_SHUTDOWN_TIMEOUT.as_secs())]
    pub shutdown_timeout: u64,
    /// Requests a second per bearer token, across every process on the database; 0 for no limit.
    #[arg(long, env = "TRANQUERA_RATE_LIMIT_TOKEN", default_value_t = ratelimit::DEFAULT_TOKEN_RATE)]
    pub rate_limit_token: u32,
    /// Requests a token may send at once, above its rate.
    #[arg(long, env = "TRANQUERA_RATE_LIMIT_TOKEN_BURST", default_value_t = ratelimit::DEFAULT_TOKEN_BURST)]
    pub rate_limit_token_burst: u32,
    /// Requests a second per client address, across every process on the database; 0 for no limit.
    #[arg(long, env = "TRANQUERA_RATE_LIMIT_ADDRESS", default_value_t = ratelimit::DEFAULT_ADDRESS_RATE)]
    pub rate_limit_address: u32,
    /// Requests a client address may send at once, above its rate.
    #[arg(long, env = "TRANQUERA_RATE_LIMIT_ADDRESS_BURST", default_value_t = ratelimit::DEFAULT_ADDRESS_BURST)]
    pub rate_limit_address_burst: u32,
    /// A proxy (address or network) whose `X-Forwarded-For` names the client; repeat the flag, or separate with
    /// commas. Without one the header is ignored.
    #[arg(long = "trusted-proxy", env = "TRANQUERA_TRUSTED_PROXIES", value_delimiter = ',',
          value_parser = ratelimit::parse_network)]
    pub trusted_proxies: Vec<IpNet>,
    /// Bytes of list answers this process keeps for repeated requests while their data stands; 0 keeps none.
    #[arg(long, env = "TRANQUERA_LIST_CACHE_BYTES", default_value_t = config::DEFAULT_LIST_CACHE_BYTES)]
    pub list_cache_bytes: usize,
    /// Hours an expired access or refresh token is kept before housekeeping deletes it.
    #[arg(long, env = "TRANQUERA_KEEP_EXPIRED_TOKENS_HOURS", default_value_t = 24)]
    pub keep_expired_tokens_hours: u64,
    /// Hours a failed login is kept; the login throttle counts the last 15 minutes' only.
    #[arg(long, env = "TRANQUERA_KEEP_LOGIN_FAILURES_HOURS", default_value_t = 24,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_login_failures_hours: u64,
    /// Hours an idempotency key is kept after it expires (24 hours after its first use): its retries are then
    /// answered as new requests either way.
    #[arg(long, env = "TRANQUERA_KEEP_EXPIRED_IDEMPOTENCY_KEYS_HOURS", default_value_t = 0)]
    pub keep_expired_idempotency_keys_hours: u64,
    /// Days a finished or failed job stays readable (`GET …/jobs/{id}`) before housekeeping deletes it.
    #[arg(long, env = "TRANQUERA_KEEP_FINISHED_JOBS_DAYS", default_value_t = 30)]
    pub keep_finished_jobs_days: u64,
    /// Days a settled webhook delivery (succeeded, failed or abandoned) and its attempts stay readable
    /// (`GET …/webhook_endpoints/{id}/deliveries`) before housekeeping deletes them.
    #[arg(long, env = "TRANQUERA_KEEP_WEBHOOK_DELIVERIES_DAYS", default_value_t = 30)]
    pub keep_webhook_deliveries_days: u64,
    /// Serve Prometheus metrics at `GET /metrics` on this address (e.g. `127.0.0.1:9464`), apart from the API's
    /// port; off unless given. Keep it off the public network: it shows the service's traffic and queues.
    #[arg(long, env = "TRANQUERA_METRICS_LISTEN")]
    pub metrics_listen: Option<SocketAddr>,
    /// Log as JSON lines (for log collectors) instead of text.
    #[arg(long, env = "TRANQUERA_LOG_JSON", value_parser = BoolishValueParser::new())]
    pub log_json: bool,
    /// Do not run background jobs in this process (other processes on the database still do).
    #[arg(long, env = "TRANQUERA_NO_JOBS", value_parser = BoolishValueParser::new())]
    pub no_jobs: bool,
    /// Do not send webhook deliveries from this process (other processes on the database still do).
    #[arg(long, env = "TRANQUERA_NO_WEBHOOKS", value_parser = BoolishValueParser::new())]
    pub no_webhooks: bool,
    /// Let webhook endpoints have `http://` URLs, not only `https://` (`demo` always does).
    #[arg(long, env = "TRANQUERA_WEBHOOKS_ALLOW_HTTP", value_parser = BoolishValueParser::new())]
    pub webhooks_allow_http: bool,
    /// Let webhook endpoints be, or resolve to, loopback, private, link-local or other internal addresses (`demo`
    /// always does). Off, deliveries cannot be aimed at the server's own network (server-side request forgery).
    #[arg(long, env = "TRANQUERA_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES", value_parser = BoolishValueParser::new())]
    pub webhooks_allow_private_addresses: bool,
    /// Seconds a process holds a delivery it is sending; a process that dies mid-delivery leaves it to be sent again
    /// by another (or itself, restarted) once this runs out. More than the receivers' 10-second time-out.
    #[arg(long, env = "TRANQUERA_WEBHOOKS_LEASE", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(11..))]
    pub webhooks_lease: u64,
    /// Serve the sandbox console at `/console` and record, per society, its recent requests (bodies redacted) in
    /// the database for it: `1` or `0`. Off in `serve` unless given; on in `demo` unless `0`.
    #[arg(long, env = "TRANQUERA_CONSOLE", value_parser = BoolishValueParser::new(), num_args = 0..=1,
          default_missing_value = "true")]
    pub console: Option<bool>,
    /// Requests the console keeps per society, across every process on the database; older ones are deleted.
    #[arg(long, env = "TRANQUERA_CONSOLE_RING_SIZE", default_value_t = DEFAULT_RING_SIZE,
          value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub console_ring_size: u32,
}

impl HttpArgs {
    /// The server's configuration, listening on `listen`.
    pub fn server_config(&self, listen: SocketAddr) -> ServerConfig {
        ServerConfig {
            listen,
            header_token: self.header_token.clone(),
            next_page: match self.next_page_on_last {
                NextPageOnLast::Null => NextPagePolicy::Null,
                NextPageOnLast::Repeat => NextPagePolicy::Repeat,
            },
            body_limit: self.body_limit,
            request_timeout: Duration::from_secs(self.request_timeout),
            header_read_timeout: Duration::from_secs(self.header_read_timeout),
            body_read_timeout: Duration::from_secs(self.body_read_timeout),
            shutdown_timeout: Duration::from_secs(self.shutdown_timeout),
            rate_limits: RateLimits {
                per_token: Rate::per_second(self.rate_limit_token, self.rate_limit_token_burst),
                per_address: Rate::per_second(self.rate_limit_address, self.rate_limit_address_burst),
                trusted_proxies: self.trusted_proxies.clone(),
            },
            jobs: JobsConfig {
                enabled: !self.no_jobs,
                ..JobsConfig::default()
            },
            webhooks: WebhooksConfig {
                enabled: !self.no_webhooks,
                policy: UrlPolicy {
                    allow_http: self.webhooks_allow_http,
                    allow_private_addresses: self.webhooks_allow_private_addresses,
                },
                lease: Duration::from_secs(self.webhooks_lease),
                ..WebhooksConfig::default()
            },
            list_cache_bytes: self.list_cache_bytes,
            housekeeping: HousekeepingConfig {
                expired_tokens: Duration::from_secs(self.keep_expired_tokens_hours.saturating_mul(HOUR)),
                login_failures: Duration::from_secs(self.keep_login_failures_hours.saturating_mul(HOUR)),
                idempotency_keys: Duration::from_secs(self.keep_expired_idempotency_keys_hours.saturating_mul(HOUR)),
                finished_jobs: Duration::from_secs(self.keep_finished_jobs_days.saturating_mul(24 * HOUR)),
                webhook_deliveries: Duration::from_secs(self.keep_webhook_deliveries_days.saturating_mul(24 * HOUR)),
                ..HousekeepingConfig::default()
            },
            metrics_listen: self.metrics_listen,
            console: ConsoleConfig {
                enabled: self.console.unwrap_or(false),
                ring_size: self.console_ring_size,
                ..ConsoleConfig::default()
            },
            // `serve` offers no account on /docs; `demo` sets its documented one.
            docs_login: None,
        }
    }
}

/// Connects to the database described by `database` with token lifetimes from `auth`.
pub async fn connect(database: &DatabaseArgs, auth: Option<&AuthArgs>) -> Result<Store, Failure> {
    let mut auth_config = AuthConfig::default();
    if let Some(auth) = auth {
        auth_config.access_ttl = Duration::from_secs(auth.access_ttl);
        auth_config.refresh_ttl = Duration::from_secs(auth.refresh_ttl);
    }
    let config = StoreConfig {
        pool: PoolOptions {
            max_connections: database.db_max_connections,
            acquire_timeout: Duration::from_secs(database.db_acquire_timeout),
            sqlite_sync: match database.sqlite_synchronous {
                SqliteSynchronous::Full => SqliteSync::Full,
                SqliteSynchronous::Normal => SqliteSync::Normal,
            },
        },
        auth: auth_config,
        pages: PagesConfig::default(),
    };
    Ok(Store::connect(&database.url, config).await?)
}

/// Closes the database's connections; requests dropped at the end of the shutdown time-out may still hold some, and
/// are not waited for.
pub async fn close(store: &Store) {
    if tokio::time::timeout(Duration::from_secs(1), store.close())
        .await
        .is_err()
    {
        tracing::warn!("database connections still in use at exit");
    }
}

/// Starts logging: text for people, JSON lines for collectors; `RUST_LOG` overrides the level.
pub fn init_logging(json: bool) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info,sqlx=warn,tower_http=info"));
    let builder = tracing_subscriber::fmt().with_env_filter(filter);
    if json {
        builder.json().init();
    } else {
        builder.init();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn database(url: &str) -> DatabaseArgs {
        DatabaseArgs {
            url: url.to_owned(),
            db_max_connections: 16,
            db_acquire_timeout: 5,
            sqlite_synchronous: SqliteSynchronous::Normal,
        }
    }

    #[test]
    fn debug_output_redacts_the_database_password() {
        let printed = format!(
            "{:?}",
            database("postgres://tranquera:s3cret-pass@db.internal:5432/tranquera")
        );
        assert!(!printed.contains("s3cret-pass"), "{printed}");
        assert!(
            printed.contains("postgres://tranquera:redacted@db.internal:5432/tranquera"),
            "{printed}"
        );
        let sqlite = format!("{:?}", database("sqlite://demo.sqlite"));
        assert!(sqlite.contains("sqlite://demo.sqlite"), "nothing to hide: {sqlite}");
    }
}
