//! Checks that the requests of one key share: at most one check per key is under way, and the requests that arrive
//! while it is share the next one, which begins when it ends. The token check on PostgreSQL uses it, keyed by the
//! token: under load, many requests of one token arrive during each check, and a check is a round trip.
//!
//! A request never takes the outcome of a check that began before it arrived: every check it can share is sent
//! after it arrived, so it sees each write and each revocation committed before then, as a check of its own would.

use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::OnceCell;

use crate::cache::HeldByKey;

/// One check, shared by every request that joined it before it was sent.
type Flight<T> = Arc<OnceCell<T>>;

/// The checks of one key.
struct Lane<T> {
    /// Held while one of the key's checks runs, so that the next one begins only after it.
    running: tokio::sync::Mutex<()>,
    /// The check not sent yet, which a request that arrives now joins.
    next: Mutex<Option<Flight<T>>>,
}

impl<T> Default for Lane<T> {
    fn default() -> Self {
        Self {
            running: tokio::sync::Mutex::new(()),
            next: Mutex::new(None),
        }
    }
}

/// The checks of every key that has requests waiting.
pub(crate) struct SharedChecks<T> {
    lanes: HeldByKey<Lane<T>>,
}

impl<T> Default for SharedChecks<T> {
    fn default() -> Self {
        Self {
            lanes: HeldByKey::default(),
        }
    }
}

impl<T> std::fmt::Debug for SharedChecks<T> {
    /// The keys are secrets' digests, so they are not shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedChecks").finish_non_exhaustive()
    }
}

/// Locks a lane's slot, which is consistent after every statement, so a panic elsewhere leaves nothing half-done.
fn lock<V>(mutex: &Mutex<V>) -> MutexGuard<'_, V> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<T: Clone> SharedChecks<T> {
    /// The outcome of `check` for `key`, run after this call began, and shared with the calls for `key` that began
    /// while the check before it ran. A failed check is shared with no one: each caller then runs one of its own.
    pub(crate) async fn check<E, F, Fut>(&self, key: &str, check: F) -> Result<T, E>
    where
        F: Fn() -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        let lane = self.lanes.hold(key);
        let flight = Arc::clone(lock(&lane.next).get_or_insert_with(Flight::default));
        let outcome = flight
            .get_or_try_init(|| async {
                let _running = lane.running.lock().await;
                {
                    // The check is sent from here on: a request that arrives now waits for the next one.
                    let mut next = lock(&lane.next);
                    if next.as_ref().is_some_and(|waiting| Arc::ptr_eq(waiting, &flight)) {
                        *next = None;
                    }
                }
                check().await
            })
            .await
            .cloned();
        self.lanes.release(key, lane);
        outcome
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use tokio::sync::Notify;

    use super::*;

    #[tokio::test]
    async fn a_lone_call_runs_its_own_check_and_leaves_no_lane() {
        let checks = SharedChecks::<u32>::default();
        let runs = AtomicU32::new(0);
        let check = || async { Ok::<_, ()>(runs.fetch_add(1, Ordering::SeqCst) + 1) };
        assert_eq!(checks.check("a", check).await, Ok(1));
        assert_eq!(checks.check("a", check).await, Ok(2));
        assert_eq!(checks.lanes.len(), 0);
    }

    #[tokio::test]
    async fn calls_that_arrive_during_a_check_share_the_next_one_never_the_running_one() {
        let checks = Arc::new(SharedChecks::<u32>::default());
        let runs = Arc::new(AtomicU32::new(0));
        let release = Arc::new(Notify::new());
        let started = Arc::new(Notify::new());
        let check = {
            let (runs, release, started) = (runs.clone(), release.clone(), started.clone());
            move || {
                let (runs, release, started) = (runs.clone(), release.clone(), started.clone());
                async move {
                    let run = runs.fetch_add(1, Ordering::SeqCst) + 1;
                    started.notify_one();
                    release.notified().await;
                    Ok::<_, ()>(run)
                }
            }
        };
        let first = tokio::spawn({
            let (checks, check) = (checks.clone(), check.clone());
            async move { checks.check("t", check).await }
        });
        started.notified().await;
        // Three calls arrive while the first check runs: none may take its outcome.
        let later: Vec<_> = (0..3)
            .map(|_| {
                let (checks, check) = (checks.clone(), check.clone());
                tokio::spawn(async move { checks.check("t", check).await })
            })
            .collect();
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        release.notify_one();
        assert_eq!(first.await.ok(), Some(Ok(1)));
        // Lets the second check end whenever it runs.
        release.notify_one();
        for call in later {
            let outcome = tokio::time::timeout(std::time::Duration::from_secs(5), call).await;
            assert_eq!(
                outcome.ok().and_then(Result::ok),
                Some(Ok(2)),
                "the three share the second check"
            );
        }
        assert_eq!(runs.load(Ordering::SeqCst), 2);
        assert_eq!(checks.lanes.len(), 0);
    }

    #[tokio::test]
    async fn a_failed_check_is_kept_for_no_one() {
        let checks = SharedChecks::<u32>::default();
        let runs = AtomicU32::new(0);
        let check = || async {
            match runs.fetch_add(1, Ordering::SeqCst) {
                0 => Err("down"),
                run => Ok(run),
            }
        };
        let (a, b) = tokio::join!(checks.check("k", check), checks.check("k", check));
        assert_eq!((a, b), (Err("down"), Ok(1)));
        assert_eq!(checks.lanes.len(), 0);
    }
}
