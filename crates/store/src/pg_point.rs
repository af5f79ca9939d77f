//! The point read every request makes on PostgreSQL (its token check and its society's data version), over
//! connections of its own.
//!
//! sqlx's pool makes a round trip to the server when it takes a connection back (it pings it, and cannot be told
//! not to), so a request whose only statement is this read paid two round trips for it; with the pool's ping on
//! hand-out as well, three. These connections are handed out and taken back without a word to the server: a
//! connection is kept only when its read was answered, so one the server dropped, or one left mid-statement by an
//! abandoned request, is closed instead of reused.

use std::ops::{Deref, DerefMut};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection};
use sqlx::Connection;
use tokio::sync::{Semaphore, SemaphorePermit};

use crate::StoreError;

/// Connections to PostgreSQL for the per-request point read, at most a few: each read is one short round trip.
#[derive(Debug)]
pub(crate) struct PgPointReader {
    options: PgConnectOptions,
    permits: Semaphore,
    idle: Mutex<Vec<PgConnection>>,
    acquire_timeout: Duration,
}

impl PgPointReader {
    /// At most `connections` connections made with `options`; a read waits at most `acquire_timeout` for one.
    pub fn new(options: PgConnectOptions, connections: usize, acquire_timeout: Duration) -> Self {
        Self {
            options,
            permits: Semaphore::new(connections),
            idle: Mutex::new(Vec::new()),
            acquire_timeout,
        }
    }

    /// An idle connection, or a new one.
    pub async fn acquire(&self) -> Result<PointConnection<'_>, StoreError> {
        let wait = async {
            let permit = self.permits.acquire().await.map_err(|_| sqlx::Error::PoolClosed)?;
            let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
            let connection = match idle {
                Some(connection) => connection,
                None => PgConnection::connect_with(&self.options).await?,
            };
            Ok::<_, sqlx::Error>(PointConnection {
                reader: self,
                connection: Some(connection),
                _permit: permit,
            })
        };
        tokio::time::timeout(self.acquire_timeout, wait)
            .await
            .map_err(|_| StoreError::from(sqlx::Error::PoolTimedOut))?
            .map_err(StoreError::from)
    }
}

/// A connection of a [`PgPointReader`], closed when dropped unless [`PointConnection::keep_after`] kept it.
pub(crate) struct PointConnection<'r> {
    reader: &'r PgPointReader,
    connection: Option<PgConnection>,
    _permit: SemaphorePermit<'r>,
}

impl PointConnection<'_> {
    /// Keeps the connection for the next read when `result` shows the server answered: a row, no row, or an error
    /// of its own about the statement.
    pub fn keep_after<T>(mut self, result: &Result<T, sqlx::Error>) {
        if matches!(result, Ok(_) | Err(sqlx::Error::Database(_))) {
            if let Some(connection) = self.connection.take() {
                self.reader
                    .idle
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(connection);
            }
        }
    }
}

impl Deref for PointConnection<'_> {
    type Target = PgConnection;

    fn deref(&self) -> &PgConnection {
        self.connection
            .as_ref()
            .expect("a connection until it is kept or dropped")
    }
}

impl DerefMut for PointConnection<'_> {
    fn deref_mut(&mut self) -> &mut PgConnection {
        self.connection
            .as_mut()
            .expect("a connection until it is kept or dropped")
    }
}
