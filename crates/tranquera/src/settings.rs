//! Flags shared by the subcommands; each can also come from the environment, so operators configure processes the
//! same way whatever starts them.

use std::error::Error;
use std::net::SocketAddr;
use std::time::Duration;

use clap::{Args, ValueEnum};
use domain::NextPagePolicy;
use server::worker::JobsConfig;
use server::ServerConfig;
use store::auth::AuthConfig;
use store::pages::PagesConfig;
use store::{PoolOptions, Store, StoreConfig};

/// Any error a subcommand reports.
pub type Failure = Box<dyn Error + Send + Sync>;

/// Where the database is and how to pool it.
#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// `sqlite://PATH` or `postgres://USER@HOST/DB`.
    #[arg(long = "database", env = "DATABASE_URL")]
    pub url: String,
    /// Most database connections per process.
    #[arg(long, env = "TRANQUERA_DB_MAX_CONNECTIONS", default_value_t = 16)]
    pub db_max_connections: u32,
    /// Seconds a request waits for a database connection before it fails with 503.
    #[arg(long, env = "TRANQUERA_DB_ACQUIRE_TIMEOUT", default_value_t = 5)]
    pub db_acquire_timeout: u64,
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
    /// Log as JSON lines (for log collectors) instead of text.
    #[arg(long, env = "TRANQUERA_LOG_JSON")]
    pub log_json: bool,
    /// Do not run background jobs in this process (other processes on the database still do).
    #[arg(long, env = "TRANQUERA_NO_JOBS")]
    pub no_jobs: bool,
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
            jobs: JobsConfig {
                enabled: !self.no_jobs,
                ..JobsConfig::default()
            },
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
        },
        auth: auth_config,
        pages: PagesConfig::default(),
    };
    Ok(Store::connect(&database.url, config).await?)
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
