//! Page-boundary indexes: for one list (a society, a resource, its filters and a page size), the id each page
//! starts at and how many rows there are in all. With one, any page is a keyset read (`t.id >= start LIMIT size`),
//! whatever its number, and the envelope's totals need no `count(*)`.
//!
//! An index is built by one pass over the list's ids and kept, per process, for as long as the version of the
//! list's table (its change counter in `table_versions`) stands; the cache holds a bounded number of ids in all and
//! forgets the least recently used lists first.

use std::future::Future;
use std::sync::Arc;

use crate::cache::{VersionedCache, Weighted};

/// Ids held by every cached index together, unless configured otherwise: 2 MiB.
pub const DEFAULT_BUDGET: usize = 256 * 1024;

/// How much the page indexes of a process may hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PagesConfig {
    /// Ids held by every cached index together.
    pub budget: usize,
    /// Lists of at most this many rows keep every id in their index, so that a page is read by primary key whatever
    /// the filters: a narrow audit filter then never makes the database walk a wide id range to find a page's rows.
    pub small_list: usize,
}

impl Default for PagesConfig {
    fn default() -> Self {
        Self {
            budget: DEFAULT_BUDGET,
            small_list: 10_000,
        }
    }
}

/// Where each page of one list starts.
#[derive(Debug, PartialEq, Eq)]
pub struct PageIndex {
    /// Rows in the list.
    pub total: u64,
    /// The first id of each page, in page order.
    pub starts: Vec<i64>,
    /// Every id of the list, when it is a small one (see [`PagesConfig::small_list`]).
    pub ids: Option<Vec<i64>>,
}

/// How to read the rows of one page.
#[derive(Debug, PartialEq, Eq)]
pub enum PageRows {
    /// Exactly these ids.
    Ids(Vec<i64>),
    /// The list's rows with ids from `from`, below `until` when another page follows.
    Range {
        /// The page's first id.
        from: i64,
        /// The next page's first id.
        until: Option<i64>,
    },
}

/// Builds a [`PageIndex`] from a list's ids as they stream in, in ascending order.
#[derive(Debug)]
pub struct PageIndexBuilder {
    size: u64,
    small_list: usize,
    index: PageIndex,
}

impl PageIndexBuilder {
    /// A builder for pages of `size` rows, keeping every id of lists up to `small_list` rows.
    pub fn new(size: u64, small_list: usize) -> Self {
        Self {
            size: size.max(1),
            small_list,
            index: PageIndex {
                total: 0,
                starts: Vec::new(),
                ids: Some(Vec::new()),
            },
        }
    }

    /// The list's next id.
    pub fn push(&mut self, id: i64) {
        if self.index.total.checked_rem(self.size) == Some(0) {
            self.index.starts.push(id);
        }
        self.index.total += 1;
        if let Some(ids) = &mut self.index.ids {
            if ids.len() < self.small_list {
                ids.push(id);
            } else {
                self.index.ids = None;
            }
        }
    }

    /// The finished index.
    pub fn finish(self) -> PageIndex {
        self.index
    }
}

impl PageIndex {
    /// The index of a list whose ids, in ascending order, are `ids`, cut in pages of `size`.
    pub fn build(ids: impl IntoIterator<Item = i64>, size: u64, small_list: usize) -> Self {
        let mut builder = PageIndexBuilder::new(size, small_list);
        for id in ids {
            builder.push(id);
        }
        builder.finish()
    }

    /// How to read 1-based page `page` of `size` rows, if the list has that page.
    pub fn page(&self, page: u64, size: u64) -> Option<PageRows> {
        let position = usize::try_from(page.checked_sub(1)?).ok()?;
        let from = *self.starts.get(position)?;
        Some(match &self.ids {
            Some(ids) => {
                let size = usize::try_from(size).ok()?;
                let first = position.checked_mul(size)?;
                let last = first.saturating_add(size).min(ids.len());
                PageRows::Ids(ids.get(first..last)?.to_vec())
            }
            None => PageRows::Range {
                from,
                until: self.starts.get(position + 1).copied(),
            },
        })
    }
}

impl Weighted for PageIndex {
    /// Ids this index holds.
    fn weight(&self) -> usize {
        self.starts.len() + self.ids.as_ref().map_or(0, Vec::len)
    }
}

/// The per-process cache of page indexes, keyed by list and valid for one table version.
#[derive(Debug)]
pub struct PageIndexes {
    indexes: VersionedCache<i64, PageIndex>,
    config: PagesConfig,
}

impl PageIndexes {
    /// A cache configured by `config`.
    pub fn new(config: PagesConfig) -> Self {
        Self {
            indexes: VersionedCache::new(config.budget),
            config,
        }
    }

    /// A builder for a list of pages of `size`, as this cache's configuration says.
    pub fn builder(&self, size: u64) -> PageIndexBuilder {
        PageIndexBuilder::new(size, self.config.small_list)
    }

    /// The index of list `key` at `version`: the kept one, or the one `build` makes, built once however many requests
    /// ask for it at the same time (64 clients asking for a large list after a write would otherwise make 64 scans).
    pub async fn get_or_build<E, F>(&self, key: String, version: i64, build: F) -> Result<Arc<PageIndex>, E>
    where
        F: Future<Output = Result<PageIndex, E>>,
    {
        self.indexes.get_or_build(key, version, build).await
    }
}

/// Lists whose table version a process remembers: one entry per society and table, a few dozen bytes each.
const REMEMBERED_TABLE_VERSIONS: usize = 4_096;

/// A table's version, as remembered for one society data version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TableVersion(i64);

impl Weighted for TableVersion {
    fn weight(&self) -> usize {
        1
    }
}

/// The version of each society's tables this process last read, remembered for the society's data version it read it
/// under, so that a request whose token check found the same data version knows its page index's version without
/// asking the database.
///
/// The data version is the sum of the society's change counters, which only grow: while it stands, no table of the
/// society has changed. A table version is read after the data version it is remembered for, so it may be newer than
/// that data version's, never older, and an index keyed by it is never older than its rows.
#[derive(Debug)]
pub struct TableVersions {
    versions: VersionedCache<i64, TableVersion>,
}

impl Default for TableVersions {
    fn default() -> Self {
        Self {
            versions: VersionedCache::new(REMEMBERED_TABLE_VERSIONS),
        }
    }
}

impl TableVersions {
    /// The version of `table` of society `society_id` remembered for `data_version`, or the one `read` reads (and
    /// this remembers).
    pub async fn get_or_read<E, F>(&self, society_id: i64, table: &str, data_version: i64, read: F) -> Result<i64, E>
    where
        F: Future<Output = Result<i64, E>>,
    {
        let remembered = self
            .versions
            .get_or_build(format!("{society_id}|{table}"), data_version, async {
                read.await.map(TableVersion)
            })
            .await?;
        Ok(remembered.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_list_reads_its_pages_by_id() {
        let index = PageIndex::build([3, 5, 8, 13, 21, 34, 55], 3, 10);
        assert_eq!(index.total, 7);
        assert_eq!(index.starts, vec![3, 13, 55]);
        assert_eq!(index.page(1, 3), Some(PageRows::Ids(vec![3, 5, 8])));
        assert_eq!(index.page(3, 3), Some(PageRows::Ids(vec![55])));
        assert_eq!(index.page(4, 3), None);
        assert_eq!(index.page(0, 3), None);
    }

    #[test]
    fn a_large_list_reads_its_pages_by_id_range() {
        let count = 1_005;
        let index = PageIndex::build((1..=count).map(|id| id * 2), 100, 1_000);
        assert_eq!(index.total, u64::try_from(count).expect("positive"));
        assert_eq!(index.ids, None);
        assert_eq!(
            index.page(1, 100),
            Some(PageRows::Range {
                from: 2,
                until: Some(202)
            })
        );
        let last = index.starts.len() as u64;
        assert_eq!(
            index.page(last, 100),
            Some(PageRows::Range {
                from: index.starts[index.starts.len() - 1],
                until: None
            })
        );
    }

    #[test]
    fn an_empty_list_has_no_pages() {
        let index = PageIndex::build([], 100, 10);
        assert_eq!(index.total, 0);
        assert_eq!(index.page(1, 100), None);
    }

    #[tokio::test]
    async fn an_index_is_valid_only_for_its_version() {
        let cache = PageIndexes::new(PagesConfig::default());
        let build = |ids: Vec<i64>| async move { Ok::<_, ()>(PageIndex::build(ids, 1, 10)) };
        let first = cache.get_or_build("plots".into(), 7, build(vec![1, 2])).await;
        assert_eq!(first.map(|index| index.total), Ok(2));
        let kept = cache.get_or_build("plots".into(), 7, build(vec![1, 2, 3])).await;
        assert_eq!(
            kept.map(|index| index.total),
            Ok(2),
            "the same version is the kept index"
        );
        let rebuilt = cache.get_or_build("plots".into(), 8, build(vec![1, 2, 3])).await;
        assert_eq!(
            rebuilt.map(|index| index.total),
            Ok(3),
            "another version is built again"
        );
    }

    #[tokio::test]
    async fn a_table_version_is_read_again_only_when_the_data_version_moves() {
        let versions = TableVersions::default();
        let read = |version: i64| async move { Ok::<_, ()>(version) };
        assert_eq!(versions.get_or_read(1, "plots", 10, read(3)).await, Ok(3));
        assert_eq!(
            versions.get_or_read(1, "plots", 10, read(4)).await,
            Ok(3),
            "the same data version: the remembered table version, not read"
        );
        assert_eq!(
            versions.get_or_read(1, "plots", 11, read(4)).await,
            Ok(4),
            "a new data version reads the table's version again"
        );
        assert_eq!(
            versions.get_or_read(2, "plots", 11, read(9)).await,
            Ok(9),
            "another society's table is its own"
        );
        assert_eq!(versions.get_or_read(1, "campaigns", 11, read(5)).await, Ok(5));
        assert_eq!(versions.get_or_read(1, "plots", 11, read(7)).await, Ok(4));
    }
}
