//! The reads of every request on SQLite, run on the request's own thread over read-only connections of their own:
//! the token check and the society's data version, and the rows of list pages, records and the change feed. A list's
//! page index (all its ids, a million for the largest) and a feed read filtered by type (which may pass over many
//! events to find a few) are read over the same connections on the blocking threads.
//!
//! sqlx's SQLite driver runs each connection on a thread of its own and hands every query and every row across
//! threads; for a one-row lookup that costs far more than the lookup, and for a page of a hundred rows about as much
//! as reading and rendering them (see docs/performance.md). These reads are short against a WAL database, whose
//! readers never wait for its writer, so running them where the request runs is cheaper than any hand-off. A page is
//! bounded (its size, by a keyset), so no read holds the thread for long.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::rows::FromSqliteRow;
use crate::sql::{Arg, Sql};
use crate::StoreError;

/// Idle connections kept for the next reads; a few per core cover every request thread.
const IDLE_CONNECTIONS: usize = 8;

/// Kibibytes of page cache per connection: the operating system caches the database file anyway, as for the pool's
/// readers.
const CACHE_KIB: i64 = 512;

/// Prepared statements kept per connection: one per list and shape of page asked lately.
const STATEMENTS: usize = 32;

/// Read-only connections to one SQLite database, opened when needed and kept idle between reads.
#[derive(Debug)]
pub(crate) struct InlineReader {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
    closed: AtomicBool,
}

impl InlineReader {
    /// Reads of the database at `path`.
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            idle: Mutex::new(Vec::new()),
            closed: AtomicBool::new(false),
        }
    }

    /// Closes the idle connections and refuses every later read, as a closed pool does.
    pub fn close(&self) {
        self.closed.store(true, Ordering::Release);
        self.idle.lock().unwrap_or_else(PoisonError::into_inner).clear();
    }

    /// Runs `read` on an idle connection (or a new one), on the calling thread.
    pub fn read<T>(&self, read: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(sqlx::Error::PoolClosed.into());
        }
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let connection = match idle {
            Some(connection) => connection,
            None => self.open()?,
        };
        let result = read(&connection);
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_CONNECTIONS && !self.closed.load(Ordering::Acquire) {
            idle.push(connection);
        }
        Ok(result?)
    }

    /// Runs `read` as [`InlineReader::read`] does, on the blocking threads: for a read that a page does not bound,
    /// which must not hold a request's thread.
    pub async fn read_blocking<T: Send + 'static>(
        self: &Arc<Self>,
        read: impl FnOnce(&Connection) -> rusqlite::Result<T> + Send + 'static,
    ) -> Result<T, StoreError> {
        let reader = Arc::clone(self);
        tokio::task::spawn_blocking(move || reader.read(read))
            .await
            .map_err(|error| StoreError::Database(Box::new(error)))?
    }

    fn open(&self) -> rusqlite::Result<Connection> {
        let connection = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.busy_timeout(Duration::from_secs(10))?;
        connection.pragma_update(None, "cache_size", -CACHE_KIB)?;
        connection.set_prepared_statement_cache_capacity(STATEMENTS);
        Ok(connection)
    }
}

/// The rows `sql` selects on `connection`, each decoded by `T`.
pub(crate) fn rows<T: FromSqliteRow>(connection: &Connection, sql: &Sql) -> rusqlite::Result<Vec<T>> {
    let mut decoded = Vec::new();
    each_row(connection, sql, |row| decoded.push(row))?;
    Ok(decoded)
}

/// Hands `each` every row `sql` selects on `connection`, decoded by `T`, as it is read: a list's ids for its page
/// index are a million rows for the largest lists, and need not all be held at once.
pub(crate) fn each_row<T: FromSqliteRow>(
    connection: &Connection,
    sql: &Sql,
    mut each: impl FnMut(T),
) -> rusqlite::Result<()> {
    // The field sqlx's own statement log uses, so one filter (`RUST_LOG=sqlx::query=debug,store::inline=debug`) shows
    // every statement a request runs.
    tracing::debug!(db.statement = %sql.text, "inline read");
    let mut statement = connection.prepare_cached(&sql.text)?;
    for index in 1..=statement.parameter_count() {
        // `$n` stands for the n-th argument wherever it appears, as sqlx binds it; SQLite numbers named parameters
        // in the order they first appear instead.
        let argument = statement
            .parameter_name(index)
            .and_then(|name| name.strip_prefix('$'))
            .and_then(|number| number.parse::<usize>().ok())
            .and_then(|number| number.checked_sub(1))
            .and_then(|position| sql.args.get(position))
            .ok_or(rusqlite::Error::InvalidParameterCount(index, sql.args.len()))?;
        statement.raw_bind_parameter(index, argument)?;
    }
    let mut rows = statement.raw_query();
    while let Some(row) = rows.next()? {
        each(T::from_sqlite_row(row)?);
    }
    Ok(())
}

impl rusqlite::ToSql for Arg {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        match self {
            Arg::Int(value) => value.to_sql(),
            Arg::OptionalInt(value) => value.to_sql(),
            Arg::Float(value) => value.to_sql(),
            Arg::OptionalFloat(value) => value.to_sql(),
            Arg::Bool(value) => value.to_sql(),
            Arg::Text(value) => value.to_sql(),
            Arg::OptionalText(value) => value.to_sql(),
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        use rusqlite::ErrorCode::{CannotOpen, DatabaseBusy, DatabaseLocked};
        match error.sqlite_error_code() {
            Some(CannotOpen | DatabaseBusy | DatabaseLocked) => StoreError::Unavailable(Box::new(error)),
            _ => StoreError::Database(Box::new(error)),
        }
    }
}
