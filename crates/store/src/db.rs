//! The seam between the two backends: one enum over a SQLite and a PostgreSQL pool, and the macros that run one
//! query body against whichever is configured. Queries are written once in the SQL subset both accept (`$n`
//! placeholders, `RETURNING`, `ON CONFLICT`); the macros monomorphise them per driver.

use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use sqlx::pool::PoolConnection;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use crate::durability::WalSync;
use crate::events::OwnEvent;
use crate::inline::InlineReader;
use crate::metered::{MeteredPool, ServerWatch};
use crate::pg_readers::PgReaders;
use crate::StoreError;

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
/// of the schema of its own (SQLite's schema heap is 0.9 MB with the events' triggers).
const MAX_SQLITE_READERS: u32 = 1;

/// Each reader's page cache (`cache_size`, negative for KiB): 512 KiB rather than SQLite's 2 MiB, since the operating
/// system caches the database file anyway.
const READER_CACHE: &str = "-512";

/// Pages of write-ahead log after which the writer copies them into the database (`wal_autocheckpoint`, 40 MiB
/// rather than SQLite's 4 MiB). A work-order create writes some 27 pages, so at SQLite's default the writer
/// checkpointed every 37 creates, two fsyncs each; a longer log also copies a page rewritten by many commits once.
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

/// Binds a slice of [`Arg`]s to a query, in order.
macro_rules! bind_args {
    ($query:expr, $args:expr) => {{
        let mut query = $query;
        for arg in $args {
            query = match arg {
                $crate::db::Arg::Int(v) => query.bind(*v),
                $crate::db::Arg::OptionalInt(v) => query.bind(*v),
                $crate::db::Arg::Float(v) => query.bind(*v),
                $crate::db::Arg::OptionalFloat(v) => query.bind(*v),
                $crate::db::Arg::Bool(v) => query.bind(*v),
                $crate::db::Arg::Text(v) => query.bind(v.clone()),
                $crate::db::Arg::OptionalText(v) => query.bind(v.clone()),
            };
        }
        query
    }};
}

pub(crate) use {bind_args, with_reader, with_writer};

/// Starts write transactions. On SQLite it is `BEGIN IMMEDIATE`, which takes the write lock at once: a transaction
/// that reads before it writes then waits out another process's writer (the busy timeout) instead of failing with
/// `SQLITE_BUSY` when it upgrades from reading to writing.
pub(crate) trait BeginWrite {
    /// The backend.
    type Database: sqlx::Database;

    /// Begins a transaction that will write.
    fn begin_write(
        &self,
    ) -> impl std::future::Future<Output = Result<WriteTx<'static, Self::Database>, sqlx::Error>> + Send;

    /// Begins a transaction that will write records it renders itself, and hand each one's event over
    /// ([`WriteTx::event`]) instead of the triggers capturing it: capture is paused from its first statement, in the
    /// same round trip as its `BEGIN`.
    fn begin_write_own_events(
        &self,
    ) -> impl std::future::Future<Output = Result<WriteTx<'static, Self::Database>, sqlx::Error>> + Send;

    /// [`Self::begin_write_own_events`] for a write whose statements before [`WriteTx::commit_with`] only read, and
    /// need no lock. PostgreSQL begins it only when its writes take more than one statement: until then each read runs
    /// on its connection in a transaction of its own, and a write of one statement runs with its event as one
    /// statement, which commits alone (one round trip where `BEGIN`, the write, the events and `COMMIT` took four).
    /// SQLite begins it at once.
    fn begin_write_own_events_lazily(
        &self,
    ) -> impl std::future::Future<Output = Result<WriteTx<'static, Self::Database>, sqlx::Error>> + Send;
}

impl BeginWrite for MeteredPool<sqlx::Sqlite> {
    type Database = sqlx::Sqlite;

    async fn begin_write(&self) -> Result<WriteTx<'static, sqlx::Sqlite>, sqlx::Error> {
        Ok(WriteTx::new(begin_sqlite(self, "BEGIN IMMEDIATE").await?))
    }

    async fn begin_write_own_events(&self) -> Result<WriteTx<'static, sqlx::Sqlite>, sqlx::Error> {
        let begun = begin_sqlite(self, crate::events::SQLITE_BEGIN_OWN_EVENTS).await?;
        Ok(WriteTx {
            own_events: true,
            ..WriteTx::new(begun)
        })
    }

    async fn begin_write_own_events_lazily(&self) -> Result<WriteTx<'static, sqlx::Sqlite>, sqlx::Error> {
        self.begin_write_own_events().await
    }
}

/// A SQLite transaction begun by `statement`.
async fn begin_sqlite(
    pool: &MeteredPool<sqlx::Sqlite>,
    statement: &'static str,
) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, sqlx::Error> {
    // sqlx checks a custom BEGIN took effect after the worker ran it, at an await of its own: a caller cancelled
    // there (a request whose client left, or that timed out) left the connection inside a transaction no
    // `Transaction` owned, and every later write failed ("begin_with at non-zero transaction depth"). Begun on a
    // task of its own, the begin always completes, and a transaction nobody awaits any more is dropped, which
    // rolls it back.
    let pool = pool.clone();
    tokio::spawn(async move { pool.begin_with(Some(statement)).await })
        .await
        .map_err(|_| sqlx::Error::WorkerCrashed)?
}

impl BeginWrite for MeteredPool<sqlx::Postgres> {
    type Database = sqlx::Postgres;

    async fn begin_write(&self) -> Result<WriteTx<'static, sqlx::Postgres>, sqlx::Error> {
        Ok(WriteTx::new(self.begin_with(None).await?))
    }

    async fn begin_write_own_events(&self) -> Result<WriteTx<'static, sqlx::Postgres>, sqlx::Error> {
        let begun = self.begin_with(Some(crate::events::POSTGRES_BEGIN_OWN_EVENTS)).await?;
        Ok(WriteTx {
            own_events: true,
            ..WriteTx::new(begun)
        })
    }

    async fn begin_write_own_events_lazily(&self) -> Result<WriteTx<'static, sqlx::Postgres>, sqlx::Error> {
        Ok(WriteTx {
            session: Session::Unbegun(self.acquire().await?),
            own_events: true,
            own: Vec::new(),
        })
    }
}

/// A transaction that writes. Its `commit` first renders the payload of every event its changes wrote
/// ([`crate::events`]), so no write path can commit a change whose event lacks its record, and marks the
/// `Idempotency-Key` of the request it serves ([`crate::idempotency`]), so no keyed write can commit without the trace
/// that stops its retry from writing it again. It is the only way the store commits (clippy's `disallowed_methods` refuses `sqlx::Transaction::commit` elsewhere).
pub(crate) struct WriteTx<'c, DB: sqlx::Database> {
    session: Session<'c, DB>,
    /// Begun with capture paused ([`BeginWrite::begin_write_own_events`]): the events are `own`.
    own_events: bool,
    own: Vec<OwnEvent>,
}

/// Where a [`WriteTx`]'s statements run.
enum Session<'c, DB: sqlx::Database> {
    /// In its transaction.
    Begun(sqlx::Transaction<'c, DB>),
    /// On a PostgreSQL connection that no transaction has begun on yet
    /// ([`BeginWrite::begin_write_own_events_lazily`]).
    Unbegun(PoolConnection<DB>),
}

impl<'c, DB: sqlx::Database> WriteTx<'c, DB> {
    /// Wraps a transaction begun on a connection of its own (an operator's import).
    pub(crate) fn new(tx: sqlx::Transaction<'c, DB>) -> Self {
        Self {
            session: Session::Begun(tx),
            own_events: false,
            own: Vec::new(),
        }
    }

    /// Hands `commit` the event of record `id` of `resource`, with the record as the writer has just rendered it
    /// from what it wrote: `commit` writes it whole, once. Only in a transaction begun for its own events, and only
    /// for a record it will not change again.
    pub(crate) fn event(
        &mut self,
        society_id: i64,
        resource: &'static str,
        id: i64,
        action: &'static str,
        occurred_at: i64,
        record: &impl serde::Serialize,
    ) -> Result<(), sqlx::Error> {
        let payload = serde_json::to_string(record).map_err(|error| sqlx::Error::Encode(Box::new(error)))?;
        self.own.push(OwnEvent {
            society_id,
            resource,
            id,
            action,
            occurred_at,
            payload,
        });
        Ok(())
    }

    /// The events `commit` writes itself. A transaction begun for its own events must hand at least one over (its
    /// changes are captured by nothing else), and another may hand none (the triggers capture its changes).
    fn take_own_events(&mut self) -> Result<Vec<OwnEvent>, sqlx::Error> {
        if self.own_events == self.own.is_empty() {
            return Err(sqlx::Error::Protocol(
                "a transaction's own events do not match how it was begun".into(),
            ));
        }
        Ok(std::mem::take(&mut self.own))
    }

    /// Rolls back: nothing, events included, is kept.
    pub(crate) async fn rollback(self) -> Result<(), sqlx::Error> {
        match self.session {
            Session::Begun(tx) => tx.rollback().await,
            // Nothing was written yet.
            Session::Unbegun(_) => Ok(()),
        }
    }
}

impl<DB: sqlx::Database> std::ops::Deref for WriteTx<'_, DB> {
    type Target = DB::Connection;

    fn deref(&self) -> &DB::Connection {
        match &self.session {
            Session::Begun(tx) => tx,
            Session::Unbegun(connection) => connection,
        }
    }
}

impl<DB: sqlx::Database> std::ops::DerefMut for WriteTx<'_, DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        match &mut self.session {
            Session::Begun(tx) => tx,
            Session::Unbegun(connection) => connection,
        }
    }
}

impl WriteTx<'_, sqlx::Sqlite> {
    /// Writes the transaction's own events and renders the payloads of the others, then commits.
    #[allow(clippy::disallowed_methods, reason = "the one place the store commits")]
    pub(crate) async fn commit(mut self) -> Result<(), sqlx::Error> {
        let own = self.take_own_events()?;
        let Session::Begun(mut tx) = self.session else {
            return Err(sqlx::Error::Protocol("a SQLite write began no transaction".into()));
        };
        crate::events::render_pending_sqlite(&mut tx, own).await?;
        crate::idempotency::mark_committed!(tx)?;
        tx.commit().await
    }

    /// Runs `batch`, then commits as [`Self::commit`] does.
    pub(crate) async fn commit_with(mut self, batch: Batch) -> Result<(), sqlx::Error> {
        for sql in batch.into_queries() {
            bind_args!(sqlx::query(&sql.text), &sql.args)
                .execute(&mut *self)
                .await?;
        }
        self.commit().await
    }
}

impl WriteTx<'_, sqlx::Postgres> {
    /// Writes the transaction's own events and renders the payloads of the others, then commits.
    #[allow(clippy::disallowed_methods, reason = "the one place the store commits")]
    pub(crate) async fn commit(mut self) -> Result<(), sqlx::Error> {
        let own = self.take_own_events()?;
        let mut tx = match self.session {
            Session::Begun(tx) => tx,
            Session::Unbegun(connection) => begin_own_events_postgres(connection).await?,
        };
        crate::events::render_pending_postgres(&mut tx, own).await?;
        crate::idempotency::mark_committed!(tx)?;
        tx.commit().await
    }

    /// Runs `batch`, then commits as [`Self::commit`] does. A transaction not begun yet, whose batch is one query and
    /// whose one event is a record's creation, runs the batch and that event as one statement, which commits alone
    /// ([`crate::events::postgres_own_creation_last`]); unless it is a keyed request's, whose key [`Self::commit`]
    /// marks in the same transaction.
    pub(crate) async fn commit_with(mut self, mut batch: Batch) -> Result<(), sqlx::Error> {
        let alone = matches!(self.session, Session::Unbegun(_))
            && crate::idempotency::current_claim().is_none()
            && batch.is_one_query()
            && matches!(self.own.as_slice(), [event] if event.action == "created");
        if alone {
            if let Some(event) = self.own.pop() {
                crate::events::postgres_own_creation_last(&mut batch, event);
            }
        } else if let Session::Unbegun(connection) = self.session {
            self.session = Session::Begun(begin_own_events_postgres(connection).await?);
        }
        for sql in batch.into_queries() {
            bind_args!(sqlx::query(&sql.text), &sql.args)
                .execute(&mut *self)
                .await?;
        }
        if alone {
            return Ok(());
        }
        self.commit().await
    }
}

/// The transaction of a [`WriteTx`] begun lazily, once it needs one.
async fn begin_own_events_postgres(
    connection: PoolConnection<sqlx::Postgres>,
) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
    sqlx::Transaction::begin(connection, Some(crate::events::POSTGRES_BEGIN_OWN_EVENTS.into())).await
}

/// Ids bound in one `IN (…)` list: far within SQLite's and PostgreSQL's limits on bound parameters.
pub(crate) const IDS_PER_QUERY: usize = 500;

/// The lowest and highest of `ids` when they are a dense run: fewer than twice as many ids between them as `ids`
/// holds. Rows written together have such ids (a page's orders and their lines, a page's plots' establishments).
/// Reading such a run by its range ([`Sql::between`]) walks one stretch of an index instead of looking up each id, and
/// needs no argument per id; the range may also hold rows of a few ids not asked for, which the caller leaves.
fn dense_range(ids: &[i64]) -> Option<(i64, i64)> {
    let (&low, &high) = (ids.iter().min()?, ids.iter().max()?);
    let dense = high.saturating_sub(low) < 2 * i64::try_from(ids.len()).unwrap_or(i64::MAX / 2);
    dense.then_some((low, high))
}

/// How one statement asks for a set of ids, completing a condition `… <column>` ([`IdSet::complete`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum IdSet {
    /// ` BETWEEN low AND high`: a dense run, by its range (see [`dense_range`]).
    Range(i64, i64),
    /// ` IN (…)`: the ids themselves.
    List(Vec<i64>),
}

impl IdSet {
    /// All of `ids` in one set: their range when they are a dense run, else one list. For sets bounded elsewhere, such
    /// as a page's orders.
    pub(crate) fn whole(ids: &[i64]) -> Self {
        match dense_range(ids) {
            Some((low, high)) => Self::Range(low, high),
            None => Self::List(ids.to_vec()),
        }
    }

    /// `ids` in as many sets as their statements need: one range when they are a dense run, else lists of at most
    /// [`IDS_PER_QUERY`] ids. No set at all when `ids` is empty.
    pub(crate) fn chunked(ids: &[i64]) -> Vec<Self> {
        match dense_range(ids) {
            Some((low, high)) => vec![Self::Range(low, high)],
            None => ids
                .chunks(IDS_PER_QUERY)
                .map(|chunk| Self::List(chunk.to_vec()))
                .collect(),
        }
    }

    /// A list with its last id repeated up to a power of two (within [`IDS_PER_QUERY`]), so that lists of many lengths
    /// share a few statements, each of which a connection prepares once. A range is left as it is.
    pub(crate) fn padded(self) -> Self {
        match self {
            Self::List(mut ids) => {
                let width = ids.len().next_power_of_two().min(IDS_PER_QUERY).max(ids.len());
                if let Some(&last) = ids.last() {
                    ids.resize(width, last);
                }
                Self::List(ids)
            }
            range @ Self::Range(..) => range,
        }
    }

    /// Appends this set's half of the condition: ` BETWEEN …` or ` IN (…)`.
    pub(crate) fn complete(&self, sql: &mut Sql) {
        match self {
            Self::Range(low, high) => {
                sql.between(*low, *high);
            }
            Self::List(ids) => {
                sql.push(" IN ").id_list(ids);
            }
        }
    }
}

/// A value bound to a dynamically built query (and the values of [`crate::bulk`]'s rows).
#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// An integer.
    Int(i64),
    /// An integer or `NULL`.
    OptionalInt(Option<i64>),
    /// A number.
    Float(f64),
    /// A number or `NULL`.
    OptionalFloat(Option<f64>),
    /// A boolean.
    Bool(bool),
    /// Text.
    Text(String),
    /// Text or `NULL`.
    OptionalText(Option<String>),
}

impl Arg {
    /// The type PostgreSQL is told the argument has when a statement is prepared: the one sqlx binds it as.
    pub(crate) fn pg_type(&self) -> tokio_postgres::types::Type {
        use tokio_postgres::types::Type;
        match self {
            Arg::Int(_) | Arg::OptionalInt(_) => Type::INT8,
            Arg::Float(_) | Arg::OptionalFloat(_) => Type::FLOAT8,
            Arg::Bool(_) => Type::BOOL,
            Arg::Text(_) | Arg::OptionalText(_) => Type::TEXT,
        }
    }

    /// The argument as `tokio-postgres` sends it.
    pub(crate) fn pg_value(&self) -> &(dyn tokio_postgres::types::ToSql + Sync) {
        match self {
            Arg::Int(value) => value,
            Arg::OptionalInt(value) => value,
            Arg::Float(value) => value,
            Arg::OptionalFloat(value) => value,
            Arg::Bool(value) => value,
            Arg::Text(value) => value,
            Arg::OptionalText(value) => value,
        }
    }
}

impl From<i64> for Arg {
    fn from(value: i64) -> Self {
        Arg::Int(value)
    }
}

impl From<Option<i64>> for Arg {
    fn from(value: Option<i64>) -> Self {
        Arg::OptionalInt(value)
    }
}

impl From<f64> for Arg {
    fn from(value: f64) -> Self {
        Arg::Float(value)
    }
}

impl From<Option<f64>> for Arg {
    fn from(value: Option<f64>) -> Self {
        Arg::OptionalFloat(value)
    }
}

impl From<bool> for Arg {
    fn from(value: bool) -> Self {
        Arg::Bool(value)
    }
}

impl From<String> for Arg {
    fn from(value: String) -> Self {
        Arg::Text(value)
    }
}

impl From<&str> for Arg {
    fn from(value: &str) -> Self {
        Arg::Text(value.to_owned())
    }
}

impl From<Option<String>> for Arg {
    fn from(value: Option<String>) -> Self {
        Arg::OptionalText(value)
    }
}

impl From<Option<&str>> for Arg {
    fn from(value: Option<&str>) -> Self {
        Arg::OptionalText(value.map(str::to_owned))
    }
}

impl Arg {
    /// The integer this holds, if it holds one.
    pub fn int(&self) -> Option<i64> {
        match self {
            Arg::Int(value) | Arg::OptionalInt(Some(value)) => Some(*value),
            _ => None,
        }
    }

    /// The number this holds, if it holds one.
    pub fn float(&self) -> Option<f64> {
        match self {
            Arg::Float(value) | Arg::OptionalFloat(Some(value)) => Some(*value),
            _ => None,
        }
    }

    /// The text this holds, if it holds some.
    pub fn text(&self) -> Option<&str> {
        match self {
            Arg::Text(value) | Arg::OptionalText(Some(value)) => Some(value),
            _ => None,
        }
    }

    /// The boolean this holds, if it holds one.
    pub fn bool(&self) -> Option<bool> {
        match self {
            Arg::Bool(value) => Some(*value),
            _ => None,
        }
    }
}

/// A query under construction: text with `$n` placeholders, and the values they stand for.
#[derive(Debug, Default)]
pub(crate) struct Sql {
    pub text: String,
    pub args: Vec<Arg>,
}

impl Sql {
    /// Appends text.
    pub fn push(&mut self, text: &str) -> &mut Self {
        self.text.push_str(text);
        self
    }

    /// Appends ` BETWEEN <low> AND <high>`, the bounds as arguments.
    pub fn between(&mut self, low: i64, high: i64) -> &mut Self {
        self.push(" BETWEEN ")
            .arg(Arg::Int(low))
            .push(" AND ")
            .arg(Arg::Int(high))
    }

    /// Appends `(…)` with a placeholder for each of `ids`, for an `IN` list; at most [`IDS_PER_QUERY`] of them keeps a
    /// statement within both backends' limits on bound parameters.
    pub fn id_list(&mut self, ids: &[i64]) -> &mut Self {
        self.row(ids.iter().map(|id| Arg::Int(*id)))
    }

    /// Appends `(…)` with a placeholder for each of `args`: one row of a multi-row `VALUES`.
    pub fn row(&mut self, args: impl IntoIterator<Item = Arg>) -> &mut Self {
        self.push("(");
        for (index, arg) in args.into_iter().enumerate() {
            if index > 0 {
                self.push(", ");
            }
            self.arg(arg);
        }
        self.push(")")
    }

    /// Appends `text`, with a placeholder for each of `args` where `text` has a `?`, in order.
    pub fn push_with(&mut self, text: &str, args: &[Arg]) -> &mut Self {
        let mut args = args.iter();
        for (index, piece) in text.split('?').enumerate() {
            if index > 0 {
                if let Some(arg) = args.next() {
                    self.arg(arg.clone());
                }
            }
            self.push(piece);
        }
        self
    }

    /// Appends a placeholder for `arg`.
    pub fn arg(&mut self, arg: Arg) -> &mut Self {
        self.args.push(arg);
        self.text.push('$');
        self.text.push_str(&self.args.len().to_string());
        self
    }
}

/// Arguments of one [`Batch`] statement past which the next statement starts another: far within PostgreSQL's
/// 65,535 parameters a statement.
const BATCH_ARGS: usize = 20_000;

/// Write statements that need nothing from one another's results, sent together: one round trip (and on SQLite one
/// hand-off to sqlx's worker thread) instead of one a statement. SQLite runs them as `;`-separated statements of one
/// call, binding placeholders numbered across them; PostgreSQL runs them as one statement whose data-modifying `WITH`
/// clauses run together, with foreign keys checked at its end. Since PostgreSQL gives those clauses no order, no
/// two statements of a batch may touch the same row.
#[derive(Debug)]
pub(crate) struct Batch {
    dialect: Dialect,
    /// Statements sent together, with where each statement starts in the text.
    groups: Vec<(Sql, Vec<usize>)>,
}

impl Batch {
    /// An empty batch for `dialect`.
    pub fn new(dialect: Dialect) -> Self {
        Self {
            dialect,
            groups: Vec::new(),
        }
    }

    /// Begins the next statement; it is written into the query this answers.
    pub fn statement(&mut self) -> &mut Sql {
        let full = self.groups.last().is_none_or(|(sql, _)| sql.args.len() >= BATCH_ARGS);
        if full {
            self.groups.push((Sql::default(), Vec::new()));
        }
        let (sql, starts) = self
            .groups
            .last_mut()
            .expect("a group was just made when there was none");
        if self.dialect == Dialect::Sqlite && !starts.is_empty() {
            sql.push(";\n");
        }
        starts.push(sql.text.len());
        sql
    }

    /// Whether the batch is sent as one query, with room in it for one more statement.
    pub fn is_one_query(&self) -> bool {
        match self.groups.as_slice() {
            [] => true,
            [(sql, _)] => sql.args.len() < BATCH_ARGS,
            _ => false,
        }
    }

    /// The queries that run the batch, in order: one unless it is very large.
    pub fn into_queries(self) -> Vec<Sql> {
        let dialect = self.dialect;
        self.groups
            .into_iter()
            .map(|(sql, starts)| match dialect {
                Dialect::Sqlite => sql,
                Dialect::Postgres => {
                    let mut text = String::with_capacity(sql.text.len() + 16 * starts.len());
                    let ends = starts.iter().skip(1).copied().chain([sql.text.len()]);
                    for (index, (start, end)) in starts.iter().zip(ends).enumerate() {
                        let statement = &sql.text[*start..end];
                        if index + 1 == starts.len() {
                            text.push_str(statement);
                        } else {
                            text.push_str(if index == 0 { "WITH " } else { ", " });
                            text.push_str(&format!("batch_{index} AS ({statement})"));
                            if index + 2 == starts.len() {
                                text.push(' ');
                            }
                        }
                    }
                    Sql { text, args: sql.args }
                }
            })
            .collect()
    }
}

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

/// The SQL dialects we render migrations for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// SQLite 3.35 or later.
    Sqlite,
    /// PostgreSQL 13 or later.
    Postgres,
}

/// How a write transaction holds the rows it reads until it commits.
#[derive(Debug, Clone, Copy)]
pub(crate) enum RowLock {
    /// Rows the transaction goes on to change: concurrent writers of them wait.
    Update,
    /// Rows the transaction relies on staying as read (a live parent): changing them waits.
    Share,
}

impl Dialect {
    /// The clause to end a `SELECT` with for `lock`. PostgreSQL's writers run side by side and need it; SQLite's
    /// write transactions (`BEGIN IMMEDIATE`) run one at a time, which already gives it.
    pub(crate) fn lock_rows(self, lock: RowLock) -> &'static str {
        match (self, lock) {
            (Dialect::Sqlite, _) => "",
            (Dialect::Postgres, RowLock::Update) => " FOR UPDATE",
            (Dialect::Postgres, RowLock::Share) => " FOR SHARE",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_inserts(dialect: Dialect) -> Vec<Sql> {
        let mut batch = Batch::new(dialect);
        batch.statement().push("INSERT INTO a (x) VALUES ").row([Arg::Int(1)]);
        batch
            .statement()
            .push("INSERT INTO b (x, y) VALUES ")
            .row([Arg::Int(2), Arg::Int(3)]);
        batch.into_queries()
    }

    #[test]
    fn ids_written_together_are_read_by_their_range() {
        assert_eq!(dense_range(&[5]), Some((5, 5)), "one id is its own range");
        assert_eq!(dense_range(&[3, 4, 6]), Some((3, 6)));
        assert_eq!(dense_range(&[3, 40, 900]), None);
        assert_eq!(dense_range(&[]), None);
    }

    #[test]
    fn a_set_of_ids_is_one_range_or_bounded_lists() {
        assert_eq!(IdSet::whole(&[12, 10, 11]), IdSet::Range(10, 12));
        assert_eq!(IdSet::whole(&[3, 40, 900]), IdSet::List(vec![3, 40, 900]));
        assert_eq!(IdSet::chunked(&[12, 10, 11]), [IdSet::Range(10, 12)]);
        assert!(IdSet::chunked(&[]).is_empty());
        let scattered: Vec<i64> = (0..1_200).map(|n| n * 10).collect();
        let lists = IdSet::chunked(&scattered);
        assert_eq!(lists.len(), scattered.len().div_ceil(IDS_PER_QUERY));
        let mut asked = Vec::new();
        for set in lists {
            match set {
                IdSet::List(ids) => {
                    assert!(ids.len() <= IDS_PER_QUERY);
                    asked.extend(ids);
                }
                IdSet::Range(..) => panic!("scattered ids were read by a range"),
            }
        }
        assert_eq!(asked, scattered, "every id once, in order");

        let mut sql = Sql::default();
        sql.push("x.id");
        IdSet::Range(4, 9).complete(&mut sql);
        IdSet::List(vec![1, 2]).complete(&mut sql);
        assert_eq!(sql.args, [Arg::Int(4), Arg::Int(9), Arg::Int(1), Arg::Int(2)]);
        assert!(sql.text.contains(" BETWEEN ") && sql.text.contains(" IN ("));
    }

    #[test]
    fn padded_lists_come_in_a_few_lengths() {
        let padded = |ids: &[i64]| match IdSet::List(ids.to_vec()).padded() {
            IdSet::List(ids) => ids,
            IdSet::Range(..) => panic!("a list became a range"),
        };
        assert_eq!(padded(&[4, 9, 30]), [4, 9, 30, 30]);
        assert_eq!(padded(&[4, 9, 30, 31]), [4, 9, 30, 31]);
        assert_eq!(padded(&[7]), [7]);
        assert!(padded(&[]).is_empty());
        let many: Vec<i64> = (0..300).map(|id| id * 10).collect();
        assert_eq!(
            padded(&many).len(),
            IDS_PER_QUERY,
            "never past the bound a statement may hold"
        );
        assert_eq!(IdSet::Range(1, 5).padded(), IdSet::Range(1, 5));
    }

    #[test]
    fn the_configured_connections_are_shared_and_each_side_has_one() {
        assert_eq!(split_connections(16), (8, 8));
        assert_eq!(split_connections(5), (3, 2));
        assert_eq!(split_connections(1), (1, 1));
    }

    #[test]
    fn a_batch_is_one_query_numbered_across_its_statements() {
        let sqlite = two_inserts(Dialect::Sqlite);
        assert_eq!(sqlite.len(), 1);
        assert_eq!(
            sqlite[0].text,
            "INSERT INTO a (x) VALUES ($1);\nINSERT INTO b (x, y) VALUES ($2, $3)"
        );
        let postgres = two_inserts(Dialect::Postgres);
        assert_eq!(postgres.len(), 1);
        assert_eq!(
            postgres[0].text,
            "WITH batch_0 AS (INSERT INTO a (x) VALUES ($1)) INSERT INTO b (x, y) VALUES ($2, $3)"
        );
        assert_eq!(postgres[0].args, [Arg::Int(1), Arg::Int(2), Arg::Int(3)]);
    }

    #[test]
    fn a_batch_of_one_statement_is_that_statement_and_an_empty_one_is_nothing() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            let mut batch = Batch::new(dialect);
            batch.statement().push("DELETE FROM a WHERE x = ").arg(Arg::Int(1));
            let queries = batch.into_queries();
            assert_eq!(queries.len(), 1);
            assert_eq!(queries[0].text, "DELETE FROM a WHERE x = $1");
            assert!(Batch::new(dialect).into_queries().is_empty());
        }
    }

    #[test]
    fn a_batch_past_its_arguments_starts_another_query_numbered_afresh() {
        let mut batch = Batch::new(Dialect::Postgres);
        for _ in 0..3 {
            batch
                .statement()
                .push("INSERT INTO a (x) VALUES ")
                .row(std::iter::repeat_n(Arg::Int(0), BATCH_ARGS / 2));
        }
        let queries = batch.into_queries();
        assert_eq!(queries.len(), 2);
        assert_eq!(queries[0].args.len(), BATCH_ARGS);
        assert!(queries[0].text.starts_with("WITH batch_0 AS (INSERT"));
        assert!(queries[1].text.starts_with("INSERT INTO a (x) VALUES ($1, "));
        assert_eq!(queries[1].args.len(), BATCH_ARGS / 2);
    }
}
