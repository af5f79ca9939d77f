//! Durable acknowledgements on SQLite, by group commit.
//!
//! SQLite commits with `synchronous=NORMAL` write the transaction to the write-ahead log without waiting for the
//! disk: a process crash loses nothing, a power cut may lose the last commits. `synchronous=FULL` would wait for one
//! fsync per commit on the single writer connection, so writes could never outpace the disk's fsync rate. Instead,
//! before a write is acknowledged, [`WriteUnderWay::durable`] waits for one fsync of the log that began after its
//! commit; every writer waiting at the same time shares that fsync. PostgreSQL makes its own commits durable and needs
//! none of this.
//!
//! SQLite commits one at a time, and an fsync can take less time than a commit, so writers rarely arrive while one
//! runs: with many clients nearly every write had an fsync of its own, a large part of what a work-order create
//! cost (docs/performance.md). So while other API writes are under way ([`WalSync::write_started`]), an fsync first
//! waits for them to finish, up to 2 ms, and covers them too. A lone writer never waits.

use std::io;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{Mutex, Notify};

/// The longest an fsync waits for writes under way to join it: a small part of a write's time in a queue of
/// writers, which is when it waits.
const GATHER: Duration = Duration::from_millis(2);

/// Makes committed SQLite transactions durable, many at a time.
#[derive(Debug)]
pub struct WalSync {
    wal: PathBuf,
    /// Tickets handed to callers; a caller's commits all happened before its ticket was issued.
    issued: AtomicU64,
    /// The highest ticket an fsync is known to cover; held while an fsync runs, so they run one at a time.
    covered: Mutex<u64>,
    /// API writes started and not yet waiting for durability.
    under_way: AtomicUsize,
    /// Told when no API write is under way.
    quiet: Notify,
}

/// An API write under way, from its start until it asks for durability ([`WriteUnderWay::durable`]) or is dropped.
#[derive(Debug)]
pub struct WriteUnderWay(Arc<WalSync>);

impl WriteUnderWay {
    /// Returns once the write's commits, and everything committed before, are on disk. The write stops counting as
    /// under way only once it holds its ticket, so the fsync it lets go covers it.
    pub fn durable(self) -> impl std::future::Future<Output = io::Result<()>> {
        let wal = Arc::clone(&self.0);
        let ticket = wal.ticket();
        drop(self);
        async move { wal.sync_to(ticket).await }
    }
}

impl Drop for WriteUnderWay {
    fn drop(&mut self) {
        if self.0.under_way.fetch_sub(1, Ordering::SeqCst) == 1 {
            self.0.quiet.notify_waiters();
        }
    }
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
            under_way: AtomicUsize::new(0),
            quiet: Notify::new(),
        }
    }

    /// Counts an API write as under way until the answer is dropped.
    pub fn write_started(self: &Arc<Self>) -> WriteUnderWay {
        self.under_way.fetch_add(1, Ordering::SeqCst);
        WriteUnderWay(Arc::clone(self))
    }

    /// A ticket for everything committed so far.
    fn ticket(&self) -> u64 {
        self.issued.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// Returns once an fsync covers `ticket`.
    async fn sync_to(&self, ticket: u64) -> io::Result<()> {
        let mut covered = self.covered.lock().await;
        if *covered >= ticket {
            return Ok(());
        }
        let quiet = self.quiet.notified();
        if self.under_way.load(Ordering::SeqCst) > 0 {
            // Each of them would otherwise need an fsync of its own right after this one.
            let _ = tokio::time::timeout(GATHER, quiet).await;
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
                tokio::spawn(async move { sync.write_started().durable().await })
            })
            .collect();
        for caller in callers {
            caller.await.expect("joined").expect("synced");
        }
        assert_eq!(*sync.covered.lock().await, sync.issued.load(Ordering::SeqCst));
        let _ = std::fs::remove_file(format!("{}-wal", path.display()));
    }

    /// On tokio's paused clock, which moves only when every task waits for a timer, so waits are counted exactly
    /// rather than timed.
    #[tokio::test(start_paused = true)]
    async fn an_fsync_waits_for_writes_under_way_but_not_for_ever() {
        let path = std::env::temp_dir().join(format!("walsync-gather-{}.sqlite", std::process::id()));
        std::fs::write(format!("{}-wal", path.display()), b"frames").expect("a log");
        let sync = Arc::new(WalSync::new(path.clone()));
        // A lone writer does not wait.
        let started = tokio::time::Instant::now();
        sync.write_started().durable().await.expect("synced");
        assert_eq!(started.elapsed(), Duration::ZERO);
        // An fsync asked for while a write is under way waits for it, and covers its commit.
        let under_way = sync.write_started();
        let leader = tokio::spawn({
            let sync = Arc::clone(&sync);
            async move { sync.write_started().durable().await }
        });
        tokio::task::yield_now().await;
        let joined = under_way.durable();
        leader.await.expect("joined").expect("synced");
        assert_eq!(
            *sync.covered.lock().await,
            3,
            "the leader's fsync covers the write that was under way"
        );
        joined.await.expect("synced");
        // A write that stays under way holds an fsync back for the gathering time only.
        let _stuck = sync.write_started();
        let started = tokio::time::Instant::now();
        sync.write_started()
            .durable()
            .await
            .expect("synced despite a write under way");
        assert_eq!(started.elapsed(), GATHER);
        let _ = std::fs::remove_file(format!("{}-wal", path.display()));
    }

    #[tokio::test]
    async fn a_database_without_a_log_has_nothing_to_sync() {
        let sync = Arc::new(WalSync::new(std::env::temp_dir().join("walsync-test-absent.sqlite")));
        sync.write_started().durable().await.expect("nothing to do");
    }
}
