//! PostgreSQL's per-request reads over connections of their own: the token check (with its society's data version),
//! a list's page rows and records, a work order's lines, and a table's version.
//!
//! sqlx's pool makes a round trip to the server when it takes a connection back (it pings it, and cannot be told
//! not to), so every read through it paid a second round trip, as long as the read itself for a one-row lookup. These
//! connections are handed out and taken back without a word to the server: a connection is kept only when its read
//! was answered, so one the server dropped, or one left mid-statement by an abandoned request, is closed instead of
//! reused. Writes and background work keep sqlx's pool, whose transactions need its care.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use sqlx::postgres::{PgArguments, PgConnectOptions, PgConnection, PgRow};
use sqlx::query::{QueryAs, QueryScalar};
use sqlx::{Connection, FromRow, Postgres};
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::metered::{Waiting, ACQUIRE_WAIT};
use crate::metrics::PoolVitals;
use crate::StoreError;

/// A set of connections to PostgreSQL for short reads, at most a fixed number of them.
#[derive(Debug)]
pub(crate) struct PgReaders {
    /// `read` or `token`: the set's label in the metrics.
    name: &'static str,
    options: PgConnectOptions,
    max: u32,
    permits: Semaphore,
    idle: Mutex<Vec<PgConnection>>,
    /// Connections open, held or idle.
    open: AtomicU32,
    waiting: AtomicU32,
    acquire_timeout: Duration,
}

impl PgReaders {
    /// At most `connections` (at least one) connections made with `options`, named `name` in the metrics; a read waits
    /// at most `acquire_timeout` for one.
    pub fn new(name: &'static str, options: PgConnectOptions, connections: u32, acquire_timeout: Duration) -> Self {
        let max = connections.max(1);
        Self {
            name,
            options,
            max,
            permits: Semaphore::new(usize::try_from(max).unwrap_or(1)),
            idle: Mutex::new(Vec::new()),
            open: AtomicU32::new(0),
            waiting: AtomicU32::new(0),
            acquire_timeout,
        }
    }

    /// An idle connection, or a new one.
    async fn acquire(&self) -> Result<ReaderConnection<'_>, StoreError> {
        let asked = Instant::now();
        let waiting = Waiting::enter(&self.waiting);
        let wait = async {
            let permit = self.permits.acquire().await.map_err(|_| sqlx::Error::PoolClosed)?;
            let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let connection = match idle {
                Some(connection) => connection,
                None => {
                    let connection = PgConnection::connect_with(&self.options).await?;
                    self.open.fetch_add(1, Ordering::Relaxed);
                    connection
                }
            };
            Ok::<_, sqlx::Error>(ReaderConnection {
                readers: self,
                connection: Some(connection),
                _permit: permit,
            })
        };
        let connection = tokio::time::timeout(self.acquire_timeout, wait).await;
        drop(waiting);
        ::metrics::histogram!(ACQUIRE_WAIT, "pool" => self.name).record(asked.elapsed().as_secs_f64());
        connection
            .map_err(|_| StoreError::from(sqlx::Error::PoolTimedOut))?
            .map_err(StoreError::from)
    }

    /// Every row `query` selects.
    pub async fn fetch_all<'q, T>(&self, query: QueryAs<'q, Postgres, T, PgArguments>) -> Result<Vec<T>, StoreError>
    where
        T: for<'r> FromRow<'r, PgRow> + Send + Unpin,
    {
        let mut connection = self.acquire().await?;
        let rows = query.fetch_all(&mut *connection).await;
        connection.keep_after(&rows);
        Ok(rows?)
    }

    /// The row `query` selects, if any.
    pub async fn fetch_optional<'q, T>(
        &self,
        query: QueryAs<'q, Postgres, T, PgArguments>,
    ) -> Result<Option<T>, StoreError>
    where
        T: for<'r> FromRow<'r, PgRow> + Send + Unpin,
    {
        let mut connection = self.acquire().await?;
        let row = query.fetch_optional(&mut *connection).await;
        connection.keep_after(&row);
        Ok(row?)
    }

    /// The one value `query` selects.
    pub async fn fetch_scalar<'q, T>(&self, query: QueryScalar<'q, Postgres, T, PgArguments>) -> Result<T, StoreError>
    where
        T: Send + Unpin,
        (T,): for<'r> FromRow<'r, PgRow>,
    {
        let mut connection = self.acquire().await?;
        let value = query.fetch_one(&mut *connection).await;
        connection.keep_after(&value);
        Ok(value?)
    }

    /// The set's figures now, for the metrics.
    pub fn vitals(&self) -> PoolVitals {
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).len();
        PoolVitals {
            name: self.name,
            open: self.open.load(Ordering::Relaxed),
            idle: u32::try_from(idle).unwrap_or(u32::MAX),
            max: self.max,
            waiting: self.waiting.load(Ordering::Relaxed),
        }
    }
}

/// A connection of a [`PgReaders`], closed when dropped unless [`ReaderConnection::keep_after`] kept it.
pub(crate) struct ReaderConnection<'r> {
    readers: &'r PgReaders,
    connection: Option<PgConnection>,
    _permit: SemaphorePermit<'r>,
}

impl ReaderConnection<'_> {
    /// Keeps the connection for the next read when `result` shows the server answered: rows, no row, or an error of
    /// its own about the statement.
    fn keep_after<T>(mut self, result: &Result<T, sqlx::Error>) {
        if matches!(result, Ok(_) | Err(sqlx::Error::Database(_))) {
            if let Some(connection) = self.connection.take() {
                self.readers
                    .idle
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(connection);
            }
        }
    }
}

impl Drop for ReaderConnection<'_> {
    fn drop(&mut self) {
        if self.connection.take().is_some() {
            self.readers.open.fetch_sub(1, Ordering::Relaxed);
        }
    }
}

impl Deref for ReaderConnection<'_> {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        self.connection
            .as_ref()
            .expect("a connection until it is kept or dropped")
    }
}

impl DerefMut for ReaderConnection<'_> {
    fn deref_mut(&mut self) -> &mut PgConnection {
        self.connection
            .as_mut()
            .expect("a connection until it is kept or dropped")
    }
}
