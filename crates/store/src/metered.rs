//! A connection pool that knows who waits for it. sqlx's pool says how many connections are open and idle, but not
//! how many operations wait for one, which is what tells an operator the pool is too small before acquisitions
//! start timing out. Every query and transaction of the store takes its connection through [`MeteredPool::acquire`],
//! which counts the operation as waiting until it has one, and records how long that took.
//!
//! A pool to PostgreSQL also knows whether the server is there at all ([`ServerWatch`]). sqlx's pool retries a refused
//! connection until its acquire time-out (5 s), so during an outage every request waited that long. Here a wait past
//! [`SUSPECT_AFTER`] sends one probe, a connection of its own; a connection that fails, or a probe that does, marks the
//! server down. While it is down every acquisition, and every one already waiting, fails at once (503 with
//! `Retry-After`), and a background probe tries again every [`PROBE_EVERY`] until the server answers.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use futures_util::TryStreamExt;
use sqlx::pool::PoolConnection;
use sqlx::{Database, Describe, Either, Execute, Executor, Pool};
use tokio_postgres::{Config, NoTls};

/// One connection pool of this process.
#[derive(Debug, Clone, Copy)]
pub struct PoolVitals {
    /// `read` or `write` on SQLite (one writer at a time); `main`, `read` (requests' reads) or `token` (token checks)
    /// on PostgreSQL.
    pub name: &'static str,
    /// Connections open.
    pub open: u32,
    /// Open connections nobody holds.
    pub idle: u32,
    /// The most it opens.
    pub max: u32,
    /// Operations waiting for one of its connections.
    pub waiting: u32,
}

/// Time to get a pooled connection, by pool: from asking to holding one.
pub const ACQUIRE_WAIT: &str = "tranquera_db_pool_acquire_wait_seconds";

/// How long an acquisition waits before it asks whether the server is there at all.
pub(crate) const SUSPECT_AFTER: Duration = Duration::from_millis(250);
/// How long a probe waits for the server to accept a connection.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);
/// How often a server known to be down is probed, and the least time between two probes of one that is not.
pub(crate) const PROBE_EVERY: Duration = Duration::from_millis(500);

/// What this process knows of whether a PostgreSQL server can be reached: one per server (host and port), shared by
/// every pool and reader set that connects to it, so that the first to find it gone spares the others the wait.
pub(crate) struct ServerWatch {
    /// How a probe connects.
    config: Config,
    /// Whether the server is known to be down, read on every acquisition.
    down: AtomicBool,
    /// The same, for acquisitions waiting to hear that it went down.
    changes: tokio::sync::watch::Sender<bool>,
    /// Whether a probe is under way (or was, less than [`PROBE_EVERY`] ago).
    probing: AtomicBool,
}

impl std::fmt::Debug for ServerWatch {
    /// Without the configuration, which holds the password.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ServerWatch")
            .field("down", &self.down)
            .finish_non_exhaustive()
    }
}

impl ServerWatch {
    /// The watch of the server `config` connects to, shared with every other pool of this process that connects to it.
    pub(crate) fn of(config: &Config) -> Arc<Self> {
        static WATCHES: Mutex<Option<HashMap<String, Weak<ServerWatch>>>> = Mutex::new(None);
        let key = format!("{:?} {:?}", config.get_hosts(), config.get_ports());
        let mut watches = WATCHES.lock().unwrap_or_else(PoisonError::into_inner);
        let watches = watches.get_or_insert_with(HashMap::new);
        watches.retain(|_, watch| watch.strong_count() > 0);
        if let Some(watch) = watches.get(&key).and_then(Weak::upgrade) {
            return watch;
        }
        let watch = Arc::new(Self {
            config: config.clone(),
            down: AtomicBool::new(false),
            changes: tokio::sync::watch::Sender::new(false),
            probing: AtomicBool::new(false),
        });
        watches.insert(key, Arc::downgrade(&watch));
        watch
    }

    /// Whether the server is known to be down now.
    pub(crate) fn is_down(&self) -> bool {
        self.down.load(Ordering::Relaxed)
    }

    /// What an acquisition answers while the server is down.
    pub(crate) fn unreachable() -> std::io::Error {
        std::io::Error::new(
            std::io::ErrorKind::ConnectionRefused,
            "PostgreSQL cannot be reached; a probe will find it when it is back",
        )
    }

    /// Marks the server down (a connection to it failed), and starts probing it until it answers.
    pub(crate) fn went_down(self: &Arc<Self>) {
        if self.down.swap(true, Ordering::Relaxed) {
            return;
        }
        self.changes.send_replace(true);
        tracing::warn!("PostgreSQL cannot be reached: requests fail at once until a probe reaches it again");
        let watch = Arc::downgrade(self);
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(PROBE_EVERY).await;
                // A store dropped while its server was down stops probing.
                let Some(watch) = watch.upgrade() else { return };
                if watch.probe().await {
                    watch.answered();
                    return;
                }
            }
        });
    }

    /// Marks the server up (a connection to it succeeded).
    pub(crate) fn answered(&self) {
        if self.down.swap(false, Ordering::Relaxed) {
            self.changes.send_replace(false);
            tracing::info!("PostgreSQL can be reached again");
        }
    }

    /// Whether the server accepts a connection within [`PROBE_TIMEOUT`]. One that answers with a refusal of its own
    /// (a wrong password, a missing database) is there: that is not an outage.
    async fn probe(&self) -> bool {
        match tokio::time::timeout(PROBE_TIMEOUT, self.config.connect(NoTls)).await {
            Ok(Ok((client, connection))) => {
                drop(client);
                // Ends the session politely, so that the server logs no lost connection.
                let _ = connection.await;
                true
            }
            Ok(Err(error)) => error.code().is_some_and(|code| !server_stopping(code.code())),
            Err(_) => false,
        }
    }

    /// Runs `work` (an acquisition), failing at once with `down()` while the server is known to be down, and as soon
    /// as it is found down while `work` waits; a wait past [`SUSPECT_AFTER`] sends a probe to find out.
    pub(crate) async fn guard<T, E>(
        self: &Arc<Self>,
        work: impl Future<Output = Result<T, E>>,
        down: impl FnOnce() -> E,
    ) -> Result<T, E> {
        if self.is_down() {
            return Err(down());
        }
        let mut work = std::pin::pin!(work);
        if let Ok(done) = tokio::time::timeout(SUSPECT_AFTER, &mut work).await {
            return done;
        }
        self.suspect();
        let mut changes = self.changes.subscribe();
        tokio::select! {
            done = &mut work => done,
            _ = changes.wait_for(|down| *down) => Err(down()),
        }
    }

    /// Sends one probe, unless one is under way or was sent less than [`PROBE_EVERY`] ago.
    fn suspect(self: &Arc<Self>) {
        if self.probing.swap(true, Ordering::Relaxed) {
            return;
        }
        let watch = Arc::clone(self);
        tokio::spawn(async move {
            if watch.probe().await {
                watch.answered();
            } else {
                watch.went_down();
            }
            tokio::time::sleep(PROBE_EVERY).await;
            watch.probing.store(false, Ordering::Relaxed);
        });
    }
}

/// SQLSTATEs of a server shutting down or starting up: it answered, but cannot serve.
pub(crate) fn server_stopping(code: &str) -> bool {
    matches!(code, "57P01" | "57P02" | "57P03")
}

/// A pool, with the count of the operations waiting for one of its connections.
#[derive(Debug)]
pub(crate) struct MeteredPool<DB: Database> {
    pool: Pool<DB>,
    /// `read`, `write` or `main`: the pool's label in the metrics.
    name: &'static str,
    waiting: Arc<AtomicU32>,
    /// Whether its server is there, for a pool to PostgreSQL (a SQLite file has no server to lose).
    watch: Option<Arc<ServerWatch>>,
}

impl<DB: Database> Clone for MeteredPool<DB> {
    fn clone(&self) -> Self {
        Self {
            pool: self.pool.clone(),
            name: self.name,
            waiting: Arc::clone(&self.waiting),
            watch: self.watch.clone(),
        }
    }
}

/// Counts one operation as waiting for as long as it lives, so that one cancelled while it waits stops counting.
pub(crate) struct Waiting<'a>(&'a AtomicU32);

impl<'a> Waiting<'a> {
    pub(crate) fn enter(count: &'a AtomicU32) -> Self {
        count.fetch_add(1, Ordering::Relaxed);
        Self(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<DB: Database> MeteredPool<DB> {
    /// A pool with no server to watch (SQLite's, a file).
    pub(crate) fn new(pool: Pool<DB>, name: &'static str) -> Self {
        Self {
            pool,
            name,
            waiting: Arc::default(),
            watch: None,
        }
    }

    /// A pool to a server that `watch` knows the state of, shared with the other connections to it.
    pub(crate) fn watched(pool: Pool<DB>, name: &'static str, watch: Arc<ServerWatch>) -> Self {
        Self {
            watch: Some(watch),
            ..Self::new(pool, name)
        }
    }

    /// A connection of the pool, once one is free (or opened), or the pool's time-out; at once an error while the
    /// server is known to be down.
    pub(crate) async fn acquire(&self) -> Result<PoolConnection<DB>, sqlx::Error> {
        let asked = Instant::now();
        let waiting = Waiting::enter(&self.waiting);
        let connection = match &self.watch {
            None => self.pool.acquire().await,
            Some(watch) => {
                let connection = watch
                    .guard(self.pool.acquire(), || sqlx::Error::Io(ServerWatch::unreachable()))
                    .await;
                match &connection {
                    Ok(_) => watch.answered(),
                    Err(sqlx::Error::Io(_)) => watch.went_down(),
                    Err(_) => {}
                }
                connection
            }
        };
        drop(waiting);
        ::metrics::histogram!(ACQUIRE_WAIT, "pool" => self.name).record(asked.elapsed().as_secs_f64());
        connection
    }

    /// A transaction begun by `statement` (the backend's own `BEGIN` when `None`), on a connection from
    /// [`Self::acquire`].
    pub(crate) async fn begin_with(
        &self,
        statement: Option<&'static str>,
    ) -> Result<sqlx::Transaction<'static, DB>, sqlx::Error> {
        // What `Pool::begin_with` does, with the connection taken through the count.
        sqlx::Transaction::begin(self.acquire().await?, statement.map(Into::into)).await
    }

    /// The operations waiting for a connection now.
    pub(crate) fn waiting(&self) -> u32 {
        self.waiting.load(Ordering::Relaxed)
    }

    /// `read`, `write` or `main`.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// The pool itself, for its sizes and for closing it.
    pub(crate) fn pool(&self) -> &Pool<DB> {
        &self.pool
    }
}

/// Queries run on the pool as on sqlx's own (each takes a connection for its duration), but count their wait.
impl<'p, DB: Database> Executor<'p> for &'_ MeteredPool<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
{
    type Database = DB;

    fn fetch_many<'e, 'q: 'e, E>(self, query: E) -> BoxStream<'e, Result<Either<DB::QueryResult, DB::Row>, sqlx::Error>>
    where
        E: 'q + Execute<'q, DB>,
    {
        let pool = self.clone();
        Box::pin(async_stream::try_stream! {
            let mut connection = pool.acquire().await?;
            let mut results = connection.fetch_many(query);
            while let Some(result) = results.try_next().await? {
                yield result;
            }
        })
    }

    fn fetch_optional<'e, 'q: 'e, E>(self, query: E) -> BoxFuture<'e, Result<Option<DB::Row>, sqlx::Error>>
    where
        E: 'q + Execute<'q, DB>,
    {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.fetch_optional(query).await })
    }

    fn prepare_with<'e, 'q: 'e>(
        self,
        sql: &'q str,
        parameters: &'e [DB::TypeInfo],
    ) -> BoxFuture<'e, Result<DB::Statement<'q>, sqlx::Error>> {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.prepare_with(sql, parameters).await })
    }

    fn describe<'e, 'q: 'e>(self, sql: &'q str) -> BoxFuture<'e, Result<Describe<DB>, sqlx::Error>> {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.describe(sql).await })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use sqlx::sqlite::SqlitePoolOptions;

    use super::*;

    /// Lets spawned tasks run up to their next wait.
    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    #[tokio::test]
    async fn an_operation_counts_as_waiting_only_while_no_connection_is_free() {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .expect("an in-memory pool");
        let pool = MeteredPool::new(pool, "read");
        let held = pool.acquire().await.expect("the only connection");
        assert_eq!(pool.waiting(), 0, "the first acquisition found a connection");

        let query = tokio::spawn({
            let pool = pool.clone();
            async move { sqlx::query_scalar::<_, i64>("SELECT 7").fetch_one(&pool).await }
        });
        let cancelled = tokio::spawn({
            let pool = pool.clone();
            async move { pool.acquire().await.map(drop) }
        });
        settle().await;
        assert_eq!(
            pool.waiting(),
            2,
            "a query and an acquisition wait for the held connection"
        );

        cancelled.abort();
        settle().await;
        assert_eq!(pool.waiting(), 1, "a cancelled wait stops counting");

        drop(held);
        assert_eq!(query.await.expect("the query's task").expect("the query"), 7);
        assert_eq!(pool.waiting(), 0);
    }
}
