//! The seam between the two backends: one enum over a SQLite and a PostgreSQL pool, and the macros that run one
//! query body against whichever is configured. Queries are written once in the SQL subset both accept (`$n`
//! placeholders, `RETURNING`, `ON CONFLICT`); the macros monomorphise them per driver.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::durability::WalSync;
use crate::inline::InlineReader;
use crate::metered::{MeteredPool, ServerWatch};
use crate::pg_readers::PgReaders;
use crate::StoreError;

use crate::sql::Dialect;

/// Pool sizes and time-outs, and how durable a SQLite commit is.
#[derive(Debug, Clone)]
pub struct PoolOptions {
    /// Most connections to PostgreSQL, half for writes and background work and half for requests' reads (the token
    /// check has four more of its own); or reader connections to SQLite (two at most).
    pub max_connections: u32,
    /// How long a request waits for a connection before it fails with 503.
    pub acquire_timeout: Duration,
    /// When a SQLite commit returns (PostgreSQL's own `synchronous_commit` decides there).
    pub sqlite_sync: SqliteSync,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            max_connections: 16,
            acquire_timeout: Duration::from_secs(5),
            sqlite_sync: SqliteSync::Normal,
        }
    }
}

/// When a SQLite commit returns. Either way an API write is answered only once it is on disk (see
/// [`crate::durability`]); the setting decides whether every other commit (a background job's progress, say) waits
/// for the disk too.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SqliteSync {
    /// Once the write-ahead log is on the disk (`synchronous=FULL`): one disk flush per commit, and SQLite commits one
    /// at a time, so writes cannot outpace the disk's flush rate.
    Full,
    /// Once the write-ahead log is with the operating system (`synchronous=NORMAL`); answers to API writes then wait
    /// for one flush shared by every writer waiting at the time (group commit).
    Normal,
}

/// The most reader connections to SQLite, whatever the pool size says. Requests read pages, records, the change feed
/// and tokens on their own threads, and page indexes on the blocking threads ([`crate::inline`]); these serve
/// background and operator work, and are opened when it first reads. Each has a thread, a page cache and a parsed copy
/// of the schema of its own.
const MAX_SQLITE_READERS: u32 = 1;

/// Each reader's page cache (`cache_size`, negative for KiB): 512 KiB rather than SQLite's 2 MiB, since the operating
/// system caches the database file anyway.
const READER_CACHE: &str = "-512";

/// Pages of write-ahead log after which the writer copies them into the database (`wal_autocheckpoint`, 40 MiB
/// rather than SQLite's 4 MiB). A work-order create writes many pages, so at SQLite's default the writer
/// checkpointed every few creates, two fsyncs each; a longer log also copies a page rewritten by many commits once.
const WRITER_CHECKPOINT_PAGES: &str = "10000";

/// Connections for the token check on PostgreSQL: each is one short round trip, so a few carry a core's worth of
/// requests.
const PG_TOKEN_CONNECTIONS: u32 = 4;

/// Which database the store talks to.
#[derive(Debug, Clone)]
pub(crate) enum Db {
    /// SQLite allows one writer at a time, so writes go through a one-connection pool of their own: writers queue
    /// in the pool instead of failing with `SQLITE_BUSY`, and readers never wait for them (WAL).
    /// Answers to writes wait for [`WalSync`], which makes their commits durable in groups.
    /// Every request's reads (its token check, list pages, records) go through [`InlineReader`], not the read pool.
    Sqlite {
        read: MeteredPool<sqlx::Sqlite>,
        write: MeteredPool<sqlx::Sqlite>,
        wal: Arc<WalSync>,
        inline: Arc<InlineReader>,
    },
    /// PostgreSQL handles concurrent writers itself. A request's reads go through [`PgReaders`] instead of the
    /// pool: its token check through `token`, its page rows, records and table versions through `read`. The pool
    /// keeps writes and background work.
    Postgres {
        pool: MeteredPool<sqlx::Postgres>,
        token: Arc<PgReaders>,
        read: Arc<PgReaders>,
    },
}

/// Runs `$body` with `$pool` bound to a pool that may be read from.
macro_rules! with_reader {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            $crate::db::Db::Sqlite { read: $pool, .. } => $body,
            $crate::db::Db::Postgres { pool: $pool, .. } => $body,
        }
    };
}

/// Runs `$body` with `$pool` bound to a pool that may be written to.
macro_rules! with_writer {
    ($db:expr, $pool:ident => $body:expr) => {
        match $db {
            $crate::db::Db::Sqlite { write: $pool, .. } => $body,
            $crate::db::Db::Postgres { pool: $pool, .. } => $body,
        }
    };
}

pub(crate) use {with_reader, with_writer};

impl Db {
    /// Connects to `url`: `sqlite://path` (created when missing) or `postgres://…`.
    pub async fn connect(url: &str, options: &PoolOptions) -> Result<Self, StoreError> {
        if url.starts_with("sqlite:") {
            let connect = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .synchronous(match options.sqlite_sync {
                    SqliteSync::Full => SqliteSynchronous::Full,
                    SqliteSync::Normal => SqliteSynchronous::Normal,
                })
                .busy_timeout(Duration::from_secs(10))
                .foreign_keys(true);
            let wal = Arc::new(WalSync::new(connect.get_filename().to_path_buf()));
            let inline = Arc::new(InlineReader::new(connect.get_filename().to_path_buf()));
            // A SQLite connection is a file handle, which no server can drop: checking it before handing it out
            // would only cost a hand-off to its thread.
            let write = SqlitePoolOptions::new()
                .max_connections(1)
                .test_before_acquire(false)
                .acquire_timeout(options.acquire_timeout.max(Duration::from_secs(30)))
                .connect_with(connect.clone().pragma("wal_autocheckpoint", WRITER_CHECKPOINT_PAGES))
                .await?;
            // Each SQLite connection has a thread, a page cache and a parsed copy of the schema of its own. Requests
            // read through `inline`, so this one is opened when background or operator work first reads.
            let read = SqlitePoolOptions::new()
                .max_connections(options.max_connections.min(MAX_SQLITE_READERS))
                .test_before_acquire(false)
                .acquire_timeout(options.acquire_timeout)
                .connect_lazy_with(connect.read_only(true).pragma("cache_size", READER_CACHE));
            Ok(Db::Sqlite {
                read: MeteredPool::new(read, "read"),
                write: MeteredPool::new(write, "write"),
                wal,
                inline,
            })
        } else if url.starts_with("postgres:") || url.starts_with("postgresql:") {
            // PostgreSQL 12 and later already print floats exactly, and a pooler refuses startup parameters it
            // does not know (PgBouncer unless `ignore_startup_parameters` names this one): sqlx's default is left
            // unsent.
            let connect = PgConnectOptions::from_str(url)?.extra_float_digits(None);
            // A connection the server dropped fails its next statement, which answers 503 and closes it, instead
            // of every request paying a round trip to find out first.
            // The configured connections are split between the pool and the request's reads, so a process opens no
            // more than before the reads had their own.
            let (pooled, readers) = split_connections(options.max_connections);
            let pool = PgPoolOptions::new()
                .max_connections(pooled)
                .test_before_acquire(false)
                .acquire_timeout(options.acquire_timeout)
                .after_connect(|connection, _| {
                    Box::pin(async move {
                        // Unprepared: a pooler that keeps no prepared statements must still let it through.
                        sqlx::Executor::execute(&mut *connection, crate::pg_readers::PLAN_WITH_VALUES).await?;
                        Ok(())
                    })
                })
                .connect_with(connect.clone())
                .await?;
            let reader_config = crate::pg_readers::reader_config(&connect);
            let watch = ServerWatch::of(&reader_config);
            let token = PgReaders::new(
                "token",
                reader_config.clone(),
                PG_TOKEN_CONNECTIONS,
                options.acquire_timeout,
            );
            let read = PgReaders::new("read", reader_config, readers, options.acquire_timeout);
            Ok(Db::Postgres {
                pool: MeteredPool::watched(pool, "main", watch),
                token: Arc::new(token),
                read: Arc::new(read),
            })
        } else {
            Err(StoreError::Config(format!(
                "unsupported database URL {url:?}: use sqlite://PATH or postgres://…"
            )))
        }
    }

    /// Which SQL dialect this backend speaks, for the few statements that differ.
    pub fn dialect(&self) -> Dialect {
        match self {
            Db::Sqlite { .. } => Dialect::Sqlite,
            Db::Postgres { .. } => Dialect::Postgres,
        }
    }
}

/// How PostgreSQL's `max_connections` configured connections are shared: `(pool, request reads)`, half each, and
/// at least one each.
fn split_connections(max_connections: u32) -> (u32, u32) {
    let readers = (max_connections / 2).max(1);
    (max_connections.saturating_sub(readers).max(1), readers)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_configured_connections_are_shared_and_each_side_has_one() {
        assert_eq!(split_connections(16), (8, 8));
        assert_eq!(split_connections(5), (3, 2));
        assert_eq!(split_connections(1), (1, 1));
    }
}
