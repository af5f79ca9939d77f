//! PostgreSQL's per-request reads over connections of their own: the token check (with its society's data version),
//! a list's page rows and records, a work order's lines, a table's version, and the change feed's marks and single
//! events.
//!
//! sqlx's pool makes a round trip to the server when it takes a connection back (it pings it, and cannot be told
//! not to), so every read through it paid a second round trip, as long as the read itself for a one-row lookup. These
//! connections are shared by the reads under way, without a word to the server between them: several reads go over
//! one connection at once, and a connection that failed is forgotten so that no later read is sent on it. Writes and
//! background work keep sqlx's pool, whose transactions need its care.
//!
//! The connections are `tokio-postgres` clients. sqlx's driver hands each row of an answer on through an async stream
//! of its own, a large part of an uncached page's work in the server; `tokio-postgres` reads the answer into its buffer
//! and the rows are decoded where they lie. Each connection prepares a statement once, with the argument types sqlx
//! would bind, and keeps it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt;
use sqlx::postgres::PgConnectOptions;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{Client, Config, NoTls, Row, Statement};

use crate::metered::PoolVitals;
use crate::metered::{server_stopping, ServerWatch, Waiting, ACQUIRE_WAIT};
use crate::rows::{column, FromPgRow, PgColumn};
use crate::sql::Arg;
use crate::StoreError;

/// Run on each new connection to PostgreSQL: on a server with Citus loaded, every statement is planned with its
/// values. Citus routes a statement to its society's worker by the value, and plans no `INSERT … SELECT` on
/// parameters; a server without Citus ignores it. `tranquera migrate` also sets it on the database when it places
/// tables, for the connections a pooler opens.
pub(crate) const PLAN_WITH_VALUES: &str = "SELECT set_config('plan_cache_mode', 'force_custom_plan', false) \
     WHERE current_setting('citus.version', true) IS NOT NULL";

/// Statements a connection keeps prepared; past this it forgets them all and prepares again as they come. A list's
/// statement differs by its filters, so the set is bounded, not fixed.
const STATEMENTS_KEPT: usize = 256;

/// The connection settings of the readers: those sqlx resolved from the URL, the environment and `.pgpass` (host or
/// socket, port, user, password, database, application name, options), so that both kinds of connection reach the
/// same server as the same user.
pub(crate) fn reader_config(options: &PgConnectOptions) -> Config {
    let mut config = Config::new();
    match options.get_socket() {
        Some(directory) => config.host_path(directory),
        None if options.get_host().starts_with('/') => config.host_path(options.get_host()),
        None => config.host(options.get_host()),
    };
    config.port(options.get_port()).user(options.get_username());
    if let Some(database) = options.get_database() {
        config.dbname(database);
    }
    if let Some(name) = options.get_application_name() {
        config.application_name(name);
    }
    if let Some(startup_options) = options.get_options() {
        config.options(startup_options);
    }
    // sqlx has no getter for the password it resolved; the URL it writes of its options carries it, encoded.
    if let Some(password) = sqlx::ConnectOptions::to_url_lossy(options).password() {
        config.password(percent_encoding::percent_decode_str(password).collect::<Vec<u8>>());
    }
    config
}

/// Reads one connection carries at once before the set opens another. A connection's reads are sent one after the
/// other without waiting for the answers (`tokio-postgres` pipelines them), and its server process answers them in
/// turn without sleeping between them: an uncached page cost PostgreSQL less CPU, and the server too
/// (docs/performance.md). A read waits behind those ahead of it on its connection; eight keep the wait to a
/// few pages' time, and the `read` set (eight connections by default) reaches all of them, and as many of
/// PostgreSQL's cores, at 64 reads at once.
const READS_PER_CONNECTION: u32 = 8;

/// A set of connections to PostgreSQL for short reads, at most a fixed number of them, each carrying several reads
/// at once. A read goes to the first connection that carries fewer than [`READS_PER_CONNECTION`]; another is opened
/// only when every open one carries that many, and once all are open the least busy takes it.
pub(crate) struct PgReaders {
    /// `read` or `token`: the set's label in the metrics.
    name: &'static str,
    config: Config,
    max: u32,
    /// The open connections, in the order they were opened: the first ones are filled first.
    open: Mutex<Vec<Arc<Reader>>>,
    /// Held while a connection is being opened, so that a burst of reads opens one at a time and then shares it.
    opening: tokio::sync::Mutex<()>,
    waiting: AtomicU32,
    acquire_timeout: Duration,
    /// Whether the server is there, shared with the other connections of this process to it.
    watch: Arc<ServerWatch>,
}

impl std::fmt::Debug for PgReaders {
    /// Without the configuration, which holds the password.
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("PgReaders")
            .field("name", &self.name)
            .field("max", &self.max)
            .field("open", &self.lock_open().len())
            .finish_non_exhaustive()
    }
}

/// One connection, the statements it has prepared, and the reads it carries now.
struct Reader {
    client: Client,
    statements: Mutex<HashMap<String, Statement>>,
    reads: AtomicU32,
}

impl Reader {
    /// The rows `text` selects with `args`, preparing it first on this connection if it has not yet.
    async fn query(&self, text: &str, args: &[Arg]) -> Result<Vec<Row>, tokio_postgres::Error> {
        let statement = self.statement(text, args).await?;
        let values: Vec<&(dyn ToSql + Sync)> = args.iter().map(Arg::pg_value).collect();
        self.client.query(&statement, &values).await
    }

    /// Hands `each` every row `text` selects with `args` as it arrives, none of them kept.
    async fn each_row(
        &self,
        text: &str,
        args: &[Arg],
        mut each: impl FnMut(&Row) + Send,
    ) -> Result<(), tokio_postgres::Error> {
        let statement = self.statement(text, args).await?;
        let rows = self
            .client
            .query_raw(&statement, args.iter().map(Arg::pg_value))
            .await?;
        let mut rows = std::pin::pin!(rows);
        while let Some(row) = rows.try_next().await? {
            each(&row);
        }
        Ok(())
    }

    /// The statement of `text` with the types of `args`, prepared on this connection the first time it is asked.
    async fn statement(&self, text: &str, args: &[Arg]) -> Result<Statement, tokio_postgres::Error> {
        // The field sqlx's own statement log uses, as SQLite's reads on the request's thread do (`store::inline`), so
        // one filter (`RUST_LOG=sqlx::query=debug,store::pg_readers=debug`) shows every statement a request runs.
        tracing::debug!(db.statement = %text, "pg read");
        if let Some(statement) = self.prepared().get(text) {
            return Ok(statement.clone());
        }
        // Two reads may prepare the same text at once; the second one's statement is kept, the first closed when
        // its read ends.
        let types: Vec<Type> = args.iter().map(Arg::pg_type).collect();
        let statement = self.client.prepare_typed(text, &types).await?;
        let mut prepared = self.prepared();
        if prepared.len() >= STATEMENTS_KEPT {
            prepared.clear();
        }
        prepared.insert(text.to_owned(), statement.clone());
        Ok(statement)
    }

    fn prepared(&self) -> std::sync::MutexGuard<'_, HashMap<String, Statement>> {
        self.statements.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl PgReaders {
    /// At most `connections` (at least one) connections made with `config`, named `name` in the metrics; a read waits
    /// at most `acquire_timeout` for one to open.
    pub fn new(name: &'static str, config: Config, connections: u32, acquire_timeout: Duration) -> Self {
        Self {
            name,
            max: connections.max(1),
            open: Mutex::new(Vec::new()),
            opening: tokio::sync::Mutex::new(()),
            waiting: AtomicU32::new(0),
            acquire_timeout,
            watch: ServerWatch::of(&config),
            config,
        }
    }

    fn lock_open(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Reader>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The open connection a read should go to, if one should: the first with room, or the least busy once no
    /// more may be opened. `None` when another should be opened first. Connections that ended are forgotten here.
    fn choose(&self) -> Option<ReaderLease<'_>> {
        let mut open = self.lock_open();
        open.retain(|reader| !reader.client.is_closed());
        let with_room = open
            .iter()
            .find(|reader| reader.reads.load(Ordering::Relaxed) < READS_PER_CONNECTION);
        let chosen = match with_room {
            Some(reader) => reader,
            None if open.len() < usize::try_from(self.max).unwrap_or(usize::MAX) => return None,
            None => open.iter().min_by_key(|reader| reader.reads.load(Ordering::Relaxed))?,
        };
        Some(ReaderLease::new(self, Arc::clone(chosen)))
    }

    /// A connection to read on: an open one with room, or a new one; at once an error while the server is known to
    /// be down.
    async fn acquire(&self) -> Result<ReaderLease<'_>, StoreError> {
        let asked = Instant::now();
        if self.watch.is_down() {
            return Err(StoreError::Unavailable(Box::new(ServerWatch::unreachable())));
        }
        if let Some(lease) = self.choose() {
            ::metrics::histogram!(ACQUIRE_WAIT, "pool" => self.name).record(asked.elapsed().as_secs_f64());
            return Ok(lease);
        }
        let waiting = Waiting::enter(&self.waiting);
        let opened = tokio::time::timeout(self.acquire_timeout, async {
            let _opening = self.opening.lock().await;
            // Another read may have opened one while this one waited its turn.
            if let Some(lease) = self.choose() {
                return Ok(lease);
            }
            // Boxed: `tokio-postgres`'s connect future, nested inside every handler's, made their types too deep for
            // the compiler to lay out.
            let connected = self
                .watch
                .guard(
                    Box::pin(async { self.config.connect(NoTls).await.map_err(Some) }),
                    || None,
                )
                .await
                .map_err(|error| self.connect_failed(error));
            let (client, connection) = connected?;
            self.watch.answered();
            tokio::spawn(async move {
                if let Err(error) = connection.await {
                    tracing::debug!(%error, "a request reads' connection to PostgreSQL ended");
                }
            });
            client
                .batch_execute(PLAN_WITH_VALUES)
                .await
                .map_err(|error| self.connect_failed(Some(error)))?;
            let reader = Arc::new(Reader {
                client,
                statements: Mutex::new(HashMap::new()),
                reads: AtomicU32::new(0),
            });
            self.lock_open().push(Arc::clone(&reader));
            Ok::<_, StoreError>(ReaderLease::new(self, reader))
        })
        .await;
        drop(waiting);
        ::metrics::histogram!(ACQUIRE_WAIT, "pool" => self.name).record(asked.elapsed().as_secs_f64());
        opened.map_err(|_| StoreError::from(sqlx::Error::PoolTimedOut))?
    }

    /// The error of a connection that could not be opened (`None`: the server was found down meanwhile), marking the
    /// server down when it was not there to answer.
    fn connect_failed(&self, error: Option<tokio_postgres::Error>) -> StoreError {
        match error {
            Some(error) => {
                if error.code().is_none_or(|code| server_stopping(code.code())) {
                    self.watch.went_down();
                }
                error.into()
            }
            None => StoreError::Unavailable(Box::new(ServerWatch::unreachable())),
        }
    }

    /// The rows `text` selects with `args`.
    async fn query(&self, text: &str, args: &[Arg]) -> Result<Vec<Row>, StoreError> {
        let lease = self.acquire().await?;
        // On the heap, as the connect future is: inline, it made every handler's future larger, and each middleware
        // copies a handler's future whole as it boxes it.
        let rows = Box::pin(lease.reader.query(text, args)).await;
        lease.after(&rows);
        Ok(rows?)
    }

    /// Hands `each` every row `text` selects with `args`, decoded by `T`, as it arrives: a list's ids for its page
    /// index are a million rows for the largest lists, and need not all be held at once.
    pub async fn for_each<T: FromPgRow>(
        &self,
        text: &str,
        args: &[Arg],
        mut each: impl FnMut(T) + Send,
    ) -> Result<(), StoreError> {
        let lease = self.acquire().await?;
        let mut undecodable = None;
        let read = Box::pin(lease.reader.each_row(text, args, |row| match T::from_pg_row(row) {
            Ok(decoded) if undecodable.is_none() => each(decoded),
            Ok(_) => {}
            Err(error) => {
                undecodable.get_or_insert(error);
            }
        }))
        .await;
        lease.after(&read);
        read?;
        match undecodable {
            Some(error) => Err(error.into()),
            None => Ok(()),
        }
    }

    /// Every row `text` selects with `args`, each decoded as it arrives: collecting the answer's rows first held
    /// all of them at once (a work-order page's lines are 5,000 rows and their links 8,000), in memory the request
    /// had to fault in afresh, while one row at a time reuses the same.
    pub async fn fetch_all<T: FromPgRow>(&self, text: &str, args: &[Arg]) -> Result<Vec<T>, StoreError> {
        let mut decoded = Vec::new();
        self.for_each(text, args, |row| decoded.push(row)).await?;
        Ok(decoded)
    }

    /// The first row `text` selects with `args`, if any.
    pub async fn fetch_optional<T: FromPgRow>(&self, text: &str, args: &[Arg]) -> Result<Option<T>, StoreError> {
        self.query(text, args)
            .await?
            .first()
            .map(|row| T::from_pg_row(row).map_err(StoreError::from))
            .transpose()
    }

    /// The first column of the one row `text` selects with `args`.
    pub async fn fetch_scalar<T: PgColumn>(&self, text: &str, args: &[Arg]) -> Result<T, StoreError> {
        let rows = self.query(text, args).await?;
        let row = rows.first().ok_or_else(|| StoreError::from(sqlx::Error::RowNotFound))?;
        Ok(column(row, 0)?)
    }

    /// The set's figures now, for the metrics: a connection is in use while it carries a read.
    pub fn vitals(&self) -> PoolVitals {
        let open = self.lock_open();
        let idle = open
            .iter()
            .filter(|reader| reader.reads.load(Ordering::Relaxed) == 0)
            .count();
        PoolVitals {
            name: self.name,
            open: u32::try_from(open.len()).unwrap_or(u32::MAX),
            idle: u32::try_from(idle).unwrap_or(u32::MAX),
            max: self.max,
            waiting: self.waiting.load(Ordering::Relaxed),
        }
    }
}

/// A read's hold on a connection of a [`PgReaders`], counted among the reads the connection carries until dropped.
struct ReaderLease<'r> {
    readers: &'r PgReaders,
    reader: Arc<Reader>,
}

impl<'r> ReaderLease<'r> {
    fn new(readers: &'r PgReaders, reader: Arc<Reader>) -> Self {
        reader.reads.fetch_add(1, Ordering::Relaxed);
        Self { readers, reader }
    }

    /// Forgets the connection when `result` shows it failed rather than the server refusing the statement, so that
    /// no later read is sent on it. An abandoned read needs nothing: `tokio-postgres` reads the rest of its answer
    /// and drops it, and the reads behind it are answered in turn.
    fn after<T>(self, result: &Result<T, tokio_postgres::Error>) {
        if let Err(error) = result {
            if error.as_db_error().is_none() || error.is_closed() {
                self.readers
                    .lock_open()
                    .retain(|reader| !Arc::ptr_eq(reader, &self.reader));
            }
        }
    }
}

impl Drop for ReaderLease<'_> {
    fn drop(&mut self) {
        self.reader.reads.fetch_sub(1, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_readers_connect_as_the_url_and_the_environment_say() {
        let url = "postgres://api:s%3Acret@db.example:6543/tranquera?application_name=tq";
        let options: PgConnectOptions = url.parse().expect("a URL sqlx reads");
        let config = reader_config(&options);
        assert_eq!(config.get_user(), Some("api"));
        assert_eq!(config.get_password(), Some(&b"s:cret"[..]));
        assert_eq!(config.get_dbname(), Some("tranquera"));
        assert_eq!(config.get_ports(), &[6543]);
        assert_eq!(config.get_application_name(), Some("tq"));
        assert!(matches!(config.get_hosts(), [tokio_postgres::config::Host::Tcp(host)] if host == "db.example"));
        assert!(!format!("{:?}", PgReaders::new("read", config, 1, Duration::from_secs(1))).contains("cret"));
    }
}
