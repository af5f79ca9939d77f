//! A bounded, versioned, least-recently-used cache over moka, the one the store keeps page indexes in and the server
//! keeps the rendered bodies of lists in. Each entry is valid for one version of what it was made from (a table's
//! version, a society's data); a lookup with another version misses, and the next store replaces the entry.
//! Requests that miss at the same time wait for one of them to make the value. `HeldByKey` keeps their gates, and the
//! token checks' lanes (`shared_checks`).

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

/// What a cached value costs the cache's budget (ids, bytes…).
pub trait Weighted {
    /// The value's weight, in the budget's unit.
    fn weight(&self) -> usize;
}

/// A value and the version it was made at.
struct Kept<V, T> {
    version: V,
    value: Arc<T>,
}

/// Values by key that exist while someone holds them: the first to ask for a key makes its value, and the last to
/// let go of it removes it. A value is only reached through the map, under its lock, so no one can take it up again
/// while it is being removed.
pub(crate) struct HeldByKey<V> {
    by_key: Mutex<HashMap<String, Arc<V>>>,
}

impl<V> Default for HeldByKey<V> {
    fn default() -> Self {
        Self {
            by_key: Mutex::new(HashMap::new()),
        }
    }
}

impl<V: Default> HeldByKey<V> {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<V>>> {
        // The map is consistent after every statement, so a panic elsewhere leaves nothing half-done.
        self.by_key.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The value of `key`, made now if no one holds it.
    pub(crate) fn hold(&self, key: &str) -> Arc<V> {
        Arc::clone(self.lock().entry(key.to_owned()).or_default())
    }

    /// Lets go of `held`, the value of `key`; the last holder removes it.
    pub(crate) fn release(&self, key: &str, held: Arc<V>) {
        let mut by_key = self.lock();
        if by_key.get(key).is_some_and(|current| Arc::ptr_eq(current, &held)) && Arc::strong_count(&held) == 2 {
            by_key.remove(key);
        }
    }

    /// How many keys are held; for the tests.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.lock().len()
    }
}

/// Values of type `T` by key, each valid for one version `V`; at most `budget` in weight together, the least
/// recently used forgotten first. The entries, their weights and the eviction are moka's, which applies evictions
/// over later calls rather than at once.
pub struct VersionedCache<V, T> {
    entries: moka::sync::Cache<String, Arc<Kept<V, T>>>,
    budget: usize,
    /// Requests that find no value wait for the one already making it rather than each make their own: one gate
    /// per key whose value is being made.
    gates: HeldByKey<tokio::sync::Mutex<()>>,
}

impl<V, T> std::fmt::Debug for VersionedCache<V, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VersionedCache")
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}

impl<V, T> VersionedCache<V, T>
where
    V: PartialEq + Send + Sync + 'static,
    T: Weighted + Send + Sync + 'static,
{
    /// An empty cache holding at most `budget` in weight.
    pub fn new(budget: usize) -> Self {
        let entries = moka::sync::Cache::builder()
            .max_capacity(u64::try_from(budget).unwrap_or(u64::MAX))
            .weigher(|_: &String, kept: &Arc<Kept<V, T>>| u32::try_from(kept.value.weight()).unwrap_or(u32::MAX))
            .eviction_policy(moka::policy::EvictionPolicy::lru())
            .build();
        Self {
            entries,
            budget,
            gates: HeldByKey::default(),
        }
    }

    /// The value kept for `key` at `version`, or the one `make` makes (and keeps): made once however many requests
    /// ask for it at the same time.
    pub async fn get_or_build<E, F>(&self, key: String, version: V, make: F) -> Result<Arc<T>, E>
    where
        F: Future<Output = Result<T, E>>,
    {
        if let Some(value) = self.get(&key, &version) {
            return Ok(value);
        }
        let gate = self.gates.hold(&key);
        let made = {
            let _making = gate.lock().await;
            match self.get(&key, &version) {
                Some(value) => Ok(value),
                None => make.await.map(|value| {
                    let value = Arc::new(value);
                    self.put(key.clone(), version, Arc::clone(&value));
                    value
                }),
            }
        };
        self.gates.release(&key, gate);
        made
    }

    /// The value kept for `key` if it was made at `version`.
    pub fn get(&self, key: &str, version: &V) -> Option<Arc<T>> {
        let kept = self.entries.get(key)?;
        (kept.version == *version).then(|| Arc::clone(&kept.value))
    }

    /// Keeps `value`, made at `version`, for `key`, in place of any other version of it. A value heavier than the
    /// whole budget is not kept.
    pub fn put(&self, key: String, version: V, value: Arc<T>) {
        if value.weight() <= self.budget {
            self.entries.insert(key, Arc::new(Kept { version, value }));
        }
    }

    /// Applies the evictions moka has pending, so that a test sees the cache as later calls would.
    #[cfg(test)]
    fn settle(&self) {
        self.entries.run_pending_tasks();
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    struct Items(usize);

    impl Weighted for Items {
        fn weight(&self) -> usize {
            self.0
        }
    }

    #[test]
    fn a_value_is_valid_only_for_its_version() {
        let cache = VersionedCache::new(10);
        cache.put("plots".into(), 7, Arc::new(Items(2)));
        assert!(cache.get("plots", &7).is_some());
        assert!(cache.get("plots", &8).is_none());
        cache.put("plots".into(), 8, Arc::new(Items(2)));
        assert!(cache.get("plots", &7).is_none());
        assert!(cache.get("plots", &8).is_some());
    }

    #[test]
    fn the_least_recently_used_entry_goes_first() {
        let cache = VersionedCache::new(4);
        cache.put("a".into(), 1, Arc::new(Items(2)));
        cache.settle();
        cache.put("b".into(), 1, Arc::new(Items(2)));
        cache.settle();
        assert!(cache.get("a", &1).is_some());
        cache.settle();
        cache.put("c".into(), 1, Arc::new(Items(2)));
        cache.settle();
        assert!(cache.get("a", &1).is_some());
        assert!(cache.get("b", &1).is_none());
        assert!(cache.get("c", &1).is_some());
    }

    #[tokio::test]
    async fn requests_at_the_same_time_make_a_value_once() {
        let cache = VersionedCache::new(10);
        let made = AtomicUsize::new(0);
        let make = || async {
            made.fetch_add(1, Ordering::SeqCst);
            tokio::task::yield_now().await;
            Ok::<_, ()>(Items(3))
        };
        let (a, b, c) = tokio::join!(
            cache.get_or_build("plots".into(), 1, make()),
            cache.get_or_build("plots".into(), 1, make()),
            cache.get_or_build("plots".into(), 1, make()),
        );
        assert_eq!(made.load(Ordering::SeqCst), 1);
        for value in [a, b, c] {
            assert_eq!(value.map(|value| value.0), Ok(3));
        }
        let remade = cache.get_or_build("plots".into(), 2, make()).await;
        assert_eq!(remade.map(|value| value.0), Ok(3));
        assert_eq!(made.load(Ordering::SeqCst), 2, "another version is made again");
        assert_eq!(cache.gates.len(), 0, "no gate is left behind");
    }

    #[test]
    fn a_value_beyond_the_budget_is_not_kept() {
        let cache = VersionedCache::new(1);
        cache.put("a".into(), 1, Arc::new(Items(3)));
        assert!(cache.get("a", &1).is_none());
    }

    #[test]
    fn replacing_an_entry_frees_its_weight() {
        let cache = VersionedCache::new(4);
        cache.put("a".into(), 1, Arc::new(Items(3)));
        cache.put("a".into(), 2, Arc::new(Items(3)));
        cache.put("b".into(), 1, Arc::new(Items(1)));
        cache.settle();
        assert!(cache.get("a", &2).is_some());
        assert!(cache.get("b", &1).is_some());
    }
}
