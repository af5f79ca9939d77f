//! The point read every request makes on SQLite (its token check and its society's data version), run on the
//! request's own thread over read-only connections of their own.
//!
//! sqlx's SQLite driver runs each connection on a thread of its own and hands every query and every row across
//! threads; for a one-row lookup that costs far more than the lookup (see docs/performance.md). These reads take
//! microseconds against a WAL database, whose readers never wait for its writer, so running them where the request
//! runs is cheaper than any hand-off.

use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

use crate::StoreError;

/// Idle connections kept for the next reads; a few per core cover every request thread.
const IDLE_CONNECTIONS: usize = 8;

/// Kibibytes of page cache per connection: these reads touch a handful of index pages.
const CACHE_KIB: i64 = 256;

/// Read-only connections to one SQLite database, opened when needed and kept idle between reads.
#[derive(Debug)]
pub(crate) struct InlineReader {
    path: PathBuf,
    idle: Mutex<Vec<Connection>>,
}

impl InlineReader {
    /// Reads of the database at `path`.
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            idle: Mutex::new(Vec::new()),
        }
    }

    /// Runs `read` on an idle connection (or a new one), on the calling thread.
    pub fn read<T>(&self, read: impl FnOnce(&Connection) -> rusqlite::Result<T>) -> Result<T, StoreError> {
        let idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner).pop();
        let connection = match idle {
            Some(connection) => connection,
            None => self.open()?,
        };
        let result = read(&connection);
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        if idle.len() < IDLE_CONNECTIONS {
            idle.push(connection);
        }
        Ok(result?)
    }

    fn open(&self) -> rusqlite::Result<Connection> {
        let connection = Connection::open_with_flags(
            &self.path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.busy_timeout(Duration::from_secs(10))?;
        connection.pragma_update(None, "cache_size", -CACHE_KIB)?;
        Ok(connection)
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
