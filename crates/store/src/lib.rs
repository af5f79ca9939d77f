//! Storage of the integration API on SQLite and PostgreSQL: the only place SQL lives.
//!
//! Every tenant-owned query takes a [`Scope`], and a `Scope` can only be obtained by authenticating a token (or,
//! for operator tools, through [`Store::admin`]): an unscoped query of tenant data cannot be written by accident.
//!
//! # Layout
//! - [`cache`]: the bounded, versioned cache of page indexes and rendered lists.
//! - [`console`]: the sandbox console's ring of recent requests per society.
//! - [`bulk`]: many rows written or read at once, for loaders such as the demo data.
//! - [`db`]: the seam between the two backends, and the macros that run one query body on either.
//! - `sql`, `arg`, `inserts`: SQL text built at run time, the values it binds, and multi-row inserts.
//! - `write`: the write transaction every write commits through, which writes its changes' events and counters.
//! - [`rows`]: rows decoded by position, for each driver.
//! - [`dependants`]: which records a logical deletion would orphan, from the schema's foreign keys.
//! - `migrate`: the schema, one set of migrations rendered per dialect; `citus` places it on a Citus cluster.
//! - [`auth`]: login, refresh, token checks, API keys, login throttling.
//! - `shared_checks`: one token check under way per token on PostgreSQL, shared by the requests that arrive during it.
//! - [`housekeeping`]: bounded purges of expired tokens, login failures, idempotency keys and finished jobs.
//! - [`idempotency`]: the first answer to a POST with an `Idempotency-Key`, replayed to its retries.
//! - [`jobs`]: background jobs, claimed under a lease and worked in committed chunks.
//! - [`events`]: the change feed: events written with their changes, rendered at commit, read in commit order.
//! - [`list`]: the one generic list and detail implementation every read resource uses.
//! - `read`: the read seam, which picks the driver that reads a request's rows on each backend.
//! - [`declare`]: the macros that declare a read resource in a few lines.
//! - `snapshot`: the token snapshot, what a society's data looked like when a request began.
//! - `lookups`: what a write asks the database before it writes (are these ids live?), and the row locks it takes.
//! - [`resources`]: the declaration of each resource (table, columns, scope, wire shape) and its writes.
//! - [`admin`]: what operators create outside the API (societies, users, farmers, keys).
//! - [`import`]: operators' bulk loads and exports of master data, one engine for every importable resource.
//! - [`rate_limits`]: the rate limits' buckets every server process shares.
//! - [`trigger`]: the changes `tranquera trigger` makes so that a society's feed shows an event of a given type.
//! - [`webhooks`]: webhook endpoints, and their deliveries from fan-out to the last attempt.
//! - [`metrics`]: what operators' metrics read of the store: pools, job queue, webhook backlog.

pub mod admin;
mod arg;
pub mod auth;
pub mod bulk;
pub mod cache;
pub mod citus;
pub mod console;
pub mod db;
pub mod declare;
pub mod dependants;
pub mod durability;
pub mod events;
pub mod housekeeping;
pub mod idempotency;
pub mod import;
mod inline;
mod inserts;
pub mod jobs;
pub mod list;
mod lookups;
mod metered;
pub mod metrics;
mod migrate;
pub mod pages;
pub mod pg_readers;
pub mod rate_limits;
mod read;
pub mod reference;
pub mod render;
pub mod resources;
pub mod rows;
mod shared_checks;
mod snapshot;
mod sql;
pub mod trigger;
pub mod webhooks;
mod write;

use std::sync::Arc;

use chrono_tz::Tz;
use thiserror::Error;

pub use db::{PoolOptions, SqliteSync};
pub use list::{ListSpec, Resource, Scoping};
pub use render::Render;
pub use snapshot::Snapshot;
pub use sql::{Arg, Dialect};

/// What [`Store::migrate`] did.
#[derive(Debug, Clone)]
pub struct Migrated {
    /// Schema migrations applied.
    pub schema: usize,
    /// How the tables lie on the Citus cluster, when the database has Citus.
    pub citus: Option<citus::Placement>,
    /// The reference data release applied, when this build's was new to the database.
    pub reference: Option<reference::ReferenceApplied>,
}

use db::{with_writer, Db};

/// What can go wrong in the store.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The database cannot be reached now (connection refused, pool exhausted): worth retrying later.
    #[error("database unavailable: {0}")]
    Unavailable(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// Any other database failure.
    #[error("database error: {0}")]
    Database(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// The configuration is unusable.
    #[error("{0}")]
    Config(String),
    /// Committed writes could not be made durable (the disk failed to sync).
    #[error("syncing the database to disk failed: {0}")]
    Durability(String),
    /// Hashing a secret failed.
    #[error("password hashing failed: {0}")]
    Hashing(String),
}

/// An API write under way (see [`Store::write_started`]). PostgreSQL's commits already are durable; SQLite's are made
/// so in groups, and a write under way lets the fsync before it wait a moment to cover it too (see [`durability`]).
#[derive(Debug)]
pub struct WriteStarted(Option<durability::WriteUnderWay>);

impl WriteStarted {
    /// Returns once the write's commits, and every one before, are on disk.
    pub async fn durable(self) -> Result<(), StoreError> {
        match self.0 {
            Some(under_way) => under_way
                .durable()
                .await
                .map_err(|error| StoreError::Durability(error.to_string())),
            None => Ok(()),
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(error: sqlx::Error) -> Self {
        match error {
            sqlx::Error::PoolTimedOut => {
                ::metrics::counter!(metrics::ACQUIRE_TIMEOUTS).increment(1);
                StoreError::Unavailable(Box::new(error))
            }
            sqlx::Error::PoolClosed | sqlx::Error::Io(_) | sqlx::Error::WorkerCrashed => {
                StoreError::Unavailable(Box::new(error))
            }
            sqlx::Error::Database(ref database) if database.code().is_some_and(|code| server_went_away(&code)) => {
                StoreError::Unavailable(Box::new(error))
            }
            sqlx::Error::Database(ref database) if lost_prepared_statement(database.as_ref()) => StoreError::Config(
                format!("{POOLER_WITHOUT_PREPARED_STATEMENTS} (PostgreSQL said: {database})"),
            ),
            other => StoreError::Database(Box::new(other)),
        }
    }
}

impl From<tokio_postgres::Error> for StoreError {
    /// As for sqlx's errors: a server that went away, or was never reached, is unavailable; a pooler that lost the
    /// readers' prepared statements is a configuration to fix.
    fn from(error: tokio_postgres::Error) -> Self {
        match error.code().map(tokio_postgres::error::SqlState::code) {
            Some(code) if server_went_away(code) => StoreError::Unavailable(Box::new(error)),
            Some(code @ ("26000" | "42P05")) => StoreError::Config(format!(
                "{POOLER_WITHOUT_PREPARED_STATEMENTS} (PostgreSQL said {code}: {error})"
            )),
            Some(_) => StoreError::Database(Box::new(error)),
            None if error.is_closed()
                || std::error::Error::source(&error).is_some_and(|source| source.is::<std::io::Error>()) =>
            {
                StoreError::Unavailable(Box::new(error))
            }
            None => StoreError::Database(Box::new(error)),
        }
    }
}

impl From<rows::ColumnError> for StoreError {
    fn from(error: rows::ColumnError) -> Self {
        StoreError::Database(Box::new(error))
    }
}

/// SQLSTATEs of a PostgreSQL server that is stopping, starting, out of connections or cut off: the query was
/// fine, the server was not there to run it.
fn server_went_away(code: &str) -> bool {
    code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300")
}

/// What an operator reads when a connection pooler loses our prepared statements.
const POOLER_WITHOUT_PREPARED_STATEMENTS: &str = "the connection to PostgreSQL goes through a pooler in transaction \
    mode that does not keep prepared statements, and Tranquera prepares every statement it runs: with PgBouncer 1.21 \
    or later, set max_prepared_statements (200 by default from 1.22; 0 turns it off); with an older PgBouncer, use \
    pool_mode = session, or connect to PostgreSQL directly";

/// Whether PostgreSQL found one of our prepared statements missing, or already there, on a connection we did not
/// prepare it on: what a pooler in transaction mode does to a client when it does not keep prepared statements
/// (PgBouncer before 1.21, or with `max_prepared_statements = 0`) and hands it another server connection.
fn lost_prepared_statement(error: &dyn sqlx::error::DatabaseError) -> bool {
    // 26000 invalid_sql_statement_name, 42P05 duplicate_prepared_statement; sqlx names its statements sqlx_s_<n>.
    error.code().is_some_and(|code| code == "26000" || code == "42P05") && error.message().contains("sqlx_s_")
}

/// `bytes` in lowercase hexadecimal, as digests are stored and compared.
pub fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

/// Milliseconds since the Unix epoch, now.
pub fn now_millis() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// Tunable store behaviour.
#[derive(Debug, Clone, Default)]
pub struct StoreConfig {
    /// Pool sizes and time-outs.
    pub pool: PoolOptions,
    /// Token lifetimes and login throttling.
    pub auth: auth::AuthConfig,
    /// What the page indexes of lists may hold.
    pub pages: pages::PagesConfig,
}

/// The database of the integration API.
#[derive(Debug, Clone)]
pub struct Store {
    db: Db,
    config: StoreConfig,
    /// Page indexes of lists, shared by every clone of the store in the process.
    pages: Arc<pages::PageIndexes>,
    /// The version of the tables lists were read from, per society data version.
    table_versions: Arc<pages::TableVersions>,
    /// The database's identity (latest migration and when the schema was made), read once.
    instance: Arc<tokio::sync::OnceCell<Arc<str>>>,
    /// The database's feed identity, which every feed cursor names, read once.
    feed_identity: Arc<tokio::sync::OnceCell<Arc<str>>>,
    /// The dependants of each table, read from the schema's catalogue once.
    dependants: Arc<tokio::sync::OnceCell<dependants::Dependants>>,
    /// PostgreSQL's token checks under way, by token.
    token_checks: Arc<shared_checks::SharedChecks<Option<auth::AccessRow>>>,
    /// The password checks running at once, and room for more.
    password_checks: auth::PasswordChecks,
}

/// The society a request acts for. Obtained only by authenticating, so every tenant query is scoped.
#[derive(Debug, Clone)]
pub struct Scope {
    society_id: i64,
    country: String,
    time_zone: Tz,
    /// The society's data version as the request's token check read it; `None` outside a request.
    data_version: Option<i64>,
}

impl Scope {
    /// The society's id.
    pub fn society_id(&self) -> i64 {
        self.society_id
    }

    /// The society's country (ISO code), which decides the per-country catalogues it sees.
    pub fn country(&self) -> &str {
        &self.country
    }

    /// How this society's timestamps are rendered.
    pub fn render(&self) -> Render {
        Render::new(self.time_zone)
    }

    pub(crate) fn new(society_id: i64, country: &str, time_zone: &str) -> Self {
        Self {
            society_id,
            country: country.to_owned(),
            time_zone: time_zone.parse().unwrap_or(Tz::UTC),
            data_version: None,
        }
    }

    /// The scope of a request whose token check read the society's data version as `data_version`.
    pub(crate) fn at_data_version(self, data_version: i64) -> Self {
        Self {
            data_version: Some(data_version),
            ..self
        }
    }

    /// The society's data version as the request's token check read it, if this scope is a request's.
    pub(crate) fn data_version(&self) -> Option<i64> {
        self.data_version
    }
}

impl Store {
    /// Connects to `url` (`sqlite://path` or `postgres://…`); does not migrate.
    pub async fn connect(url: &str, config: StoreConfig) -> Result<Self, StoreError> {
        let db = Db::connect(url, &config.pool).await?;
        let password_checks = auth::PasswordChecks::new(&config.auth);
        Ok(Self {
            db,
            pages: Arc::new(pages::PageIndexes::new(config.pages)),
            table_versions: Arc::default(),
            config,
            instance: Arc::default(),
            feed_identity: Arc::default(),
            dependants: Arc::default(),
            token_checks: Arc::default(),
            password_checks,
        })
    }

    /// Applies pending schema migrations, then the reference data this build ships unless it is applied already.
    pub async fn migrate(&self) -> Result<Migrated, StoreError> {
        let (schema, citus) = migrate::run(&self.db).await?;
        let reference = self.apply_reference(&reference::ReferenceData::shipped()).await?;
        Ok(Migrated {
            schema,
            citus,
            reference,
        })
    }

    /// Applies a release of reference data (see [`reference`]); `None` when that very release was applied before.
    pub async fn apply_reference(
        &self,
        data: &reference::ReferenceData,
    ) -> Result<Option<reference::ReferenceApplied>, StoreError> {
        reference::apply(&self.db, data).await
    }

    /// The backend's dialect.
    pub fn dialect(&self) -> Dialect {
        self.db.dialect()
    }

    /// Checks that the database answers, for health checks.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let sql = sql::Sql {
            text: "SELECT 1".to_owned(),
            args: Vec::new(),
        };
        self.lookup_rows::<Answer>(&sql).await?;
        Ok(())
    }

    /// Marks the start of an API write, whose answer [`WriteStarted::durable`] holds until its commits are on disk.
    pub fn write_started(&self) -> WriteStarted {
        WriteStarted(match &self.db {
            Db::Sqlite { wal, .. } => Some(wal.write_started()),
            Db::Postgres { .. } => None,
        })
    }

    /// Closes the store's pools, waiting for connections in use, and SQLite's request reads.
    pub async fn close(&self) {
        if let Db::Sqlite { inline, .. } = &self.db {
            inline.close();
        }
        with_writer!(&self.db, pool => pool.pool().close().await);
        db::with_reader!(&self.db, pool => pool.pool().close().await);
    }

    /// Operator tools: societies, users, farmers and keys, which the API does not create.
    pub fn admin(&self) -> admin::Admin<'_> {
        admin::Admin { store: self }
    }
}

row_by_position! {
    /// The one column of a health check's `SELECT 1`.
    struct Answer {
        _one: i64,
    }
}

#[cfg(test)]
mod tests {
    use super::{hex, server_went_away};

    #[test]
    fn hex_is_lowercase_and_two_digits_a_byte() {
        assert_eq!(hex(&[0x00, 0x0f, 0xa5, 0xff]), "000fa5ff");
        assert_eq!(hex(&[]), "");
    }

    #[test]
    fn a_server_that_stops_or_refuses_connections_is_unavailable_not_broken() {
        for code in ["57P01", "57P03", "08006", "53300"] {
            assert!(server_went_away(code), "{code}");
        }
        for code in ["23505", "42P01", "40001"] {
            assert!(!server_went_away(code), "{code}");
        }
    }
}
