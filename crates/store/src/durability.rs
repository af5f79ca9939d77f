//! Durable acknowledgements on SQLite, by group commit.
//!
//! SQLite commits with `synchronous=NORMAL` write the transaction to the write-ahead log without waiting for the
//! disk: a process crash loses nothing, a power cut may lose the last commits. `synchronous=FULL` would wait for one
//! fsync per commit on the single writer connection, so writes could never outpace the disk's fsync rate. Instead,
//! before a write is acknowledged, [`WalSync::sync`] waits for one fsync of the log that began after its commit; every
//! writer waiting at the same time shares that fsync. PostgreSQL makes its own commits durable and needs none of this.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::Mutex;

/// Makes committed SQLite transactions durable, many at a time.
#[derive(Debug)]
pub struct WalSync {
    wal: PathBuf,
    /// Tickets handed to callers; a caller's commits all happened before its ticket was issued.
    issued: AtomicU64,
    /// The highest ticket an fsync is known to cover; held while an fsync runs, so they run one at a time.
    covered: Mutex<u64>,
}

impl WalSync {
    /// Syncs the write-ahead log of the database file `database`.
    pub fn new(database: PathBuf) -> Self {
        let mut wal = database.into_os_string();
        wal.push("-wal");
        Self {
            wal: wal.into(),
            issued: AtomicU64::new(0),
            covered: Mutex::new(0),
        }
    }

    /// Returns once everything committed before the call is on disk.
    pub async fn sync(&self) -> io::Result<()> {
        let ticket = self.issued.fetch_add(1, Ordering::SeqCst) + 1;
        let mut covered = self.covered.lock().await;
        if *covered >= ticket {
            return Ok(());
        }
        // Every ticket issued so far belongs to a caller whose commits precede this fsync.
        let reach = self.issued.load(Ordering::SeqCst);
        let wal = self.wal.clone();
        tokio::task::spawn_blocking(move || match std::fs::File::open(&wal) {
            Ok(file) => file.sync_data(),
            // No log yet means nothing was committed through it.
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(error),
        })
        .await
        .map_err(io::Error::other)??;
        *covered = reach;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn concurrent_callers_share_fsyncs_and_all_return() {
        let path = std::env::temp_dir().join(format!("walsync-test-{}.sqlite", std::process::id()));
        std::fs::write(format!("{}-wal", path.display()), b"frames").expect("a log");
        let sync = std::sync::Arc::new(WalSync::new(path.clone()));
        let callers: Vec<_> = (0..32)
            .map(|_| {
                let sync = std::sync::Arc::clone(&sync);
                tokio::spawn(async move { sync.sync().await })
            })
            .collect();
        for caller in callers {
            caller.await.expect("joined").expect("synced");
        }
        assert_eq!(*sync.covered.lock().await, sync.issued.load(Ordering::SeqCst));
        let _ = std::fs::remove_file(format!("{}-wal", path.display()));
    }

    #[tokio::test]
    async fn a_database_without_a_log_has_nothing_to_sync() {
        let sync = WalSync::new(std::env::temp_dir().join("walsync-test-absent.sqlite"));
        sync.sync().await.expect("nothing to do");
    }
}
