//! The local SQLite mirror that `tranquera sync` keeps of a society's lists: one table per resource, keyed by the
//! record id, holding the record's JSON as the API sent it and its `updated_at` / `deleted_at` instants.
//!
//! This is not the API's database: it lives on the integrator's machine, one file per sync folder, and is written
//! only by the sync. Logically deleted records are kept, marked by `deleted_at`, so a consumer of the file can tell
//! "deleted upstream" from "never seen"; [`Mirror::live`] leaves them out.
//!
//! Since the file is the sync command's own and not the API's database, its SQL lives here rather than in the
//! store crate.

use std::path::Path;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions, SqliteSynchronous};
use sqlx::Row as _;

use crate::say::{say, Say};
use crate::settings::Failure;

/// One record to store: its id, its JSON text, and its audit instants as the API rendered them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorRow {
    /// The record's id (`id`, or `header.local_id` for work orders).
    pub id: i64,
    /// The record as the API sent it, JSON text.
    pub record: String,
    /// Its `updated_at`, when it has one.
    pub updated_at: Option<String>,
    /// Its `deleted_at` when the API listed it as deleted; `None` for a live record.
    pub deleted_at: Option<String>,
}

/// Rows bound to one insert statement: 400 values, far below SQLite's limit of 32,766.
const ROWS_A_STATEMENT: usize = 100;

/// The page size of a new mirror file (see [`Mirror::open`]).
const MIRROR_PAGE_BYTES: u32 = 16 << 10;

/// An open mirror file.
#[derive(Debug, Clone)]
pub struct Mirror {
    pool: SqlitePool,
}

/// Table names come from the sync's fixed resource list, but they are spliced into SQL, so anything beyond
/// `[a-z0-9_]` is refused rather than quoted.
fn table(resource: &str) -> Result<&str, Failure> {
    let valid = !resource.is_empty()
        && resource
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if valid {
        Ok(resource)
    } else {
        Err(say(Say::BadTableName(resource)).into())
    }
}

impl Mirror {
    /// Opens (creating when missing) the mirror file at `path`.
    pub async fn open(path: &Path) -> Result<Self, Failure> {
        let options = SqliteConnectOptions::new()
            .filename(path)
            .create_if_missing(true)
            // WAL lets a reader (a BI tool, the tests) look at the file while a sync writes it.
            .journal_mode(SqliteJournalMode::Wal)
            // A page's commit need not reach the disk: a resource interrupted half-way is fetched again whole, and
            // `settle` makes a finished resource durable before the state file says so. One `fsync` a page was
            // a noticeable part of a full sync's client time.
            .synchronous(SqliteSynchronous::Normal)
            // A new mirror's pages are 16 KiB, not SQLite's 4 KiB: the log then takes a page's records in a quarter of
            // the writes. The client's kernel time in the PostgreSQL full sync fell, and the end of the sync, where
            // the client is the busier core, came sooner. A file made before keeps its pages: their size is fixed
            // when the file is made.
            .page_size(MIRROR_PAGE_BYTES)
            .busy_timeout(Duration::from_secs(10));
        // One connection: the sync writes page after page, and a single writer never waits on itself.
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await?;
        Ok(Self { pool })
    }

    /// Creates the table of `resource` when it does not exist yet.
    pub async fn prepare(&self, resource: &str) -> Result<(), Failure> {
        let table = table(resource)?;
        let sql = format!(
            "CREATE TABLE IF NOT EXISTS \"{table}\" (\
             id INTEGER PRIMARY KEY, \
             record TEXT NOT NULL, \
             updated_at TEXT, \
             deleted_at TEXT)"
        );
        sqlx::query(&sql).execute(&self.pool).await?;
        Ok(())
    }

    /// Gives the table of a list's former name `old` its present name `new`; when both have a table (a folder
    /// synced by two releases), the present name's is the one kept current, and the former one is dropped.
    /// Answers whether `old` had a table.
    pub async fn rename(&self, old: &str, new: &str) -> Result<bool, Failure> {
        let (old, new) = (table(old)?, table(new)?);
        if !self.has_table(old).await? {
            return Ok(false);
        }
        let sql = if self.has_table(new).await? {
            format!("DROP TABLE \"{old}\"")
        } else {
            format!("ALTER TABLE \"{old}\" RENAME TO \"{new}\"")
        };
        sqlx::query(&sql).execute(&self.pool).await?;
        Ok(true)
    }

    /// Whether the file has a table named `name`.
    async fn has_table(&self, name: &str) -> Result<bool, Failure> {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?")
            .bind(name)
            .fetch_one(&self.pool)
            .await?;
        Ok(count > 0)
    }

    /// Inserts or replaces `rows` by id, in one transaction, so a page is stored whole or not at all. Rows go
    /// [`ROWS_A_STATEMENT`] to a statement: one statement a row cost a hand-off to sqlx's worker thread each.
    pub async fn upsert(&self, resource: &str, rows: &[MirrorRow]) -> Result<(), Failure> {
        let table = table(resource)?;
        let mut tx = self.pool.begin().await?;
        for chunk in rows.chunks(ROWS_A_STATEMENT) {
            let values = vec!["(?, ?, ?, ?)"; chunk.len()].join(", ");
            let sql = format!(
                "INSERT INTO \"{table}\" (id, record, updated_at, deleted_at) VALUES {values} \
                 ON CONFLICT (id) DO UPDATE SET record = excluded.record, updated_at = excluded.updated_at, \
                 deleted_at = excluded.deleted_at"
            );
            let mut query = sqlx::query(&sql);
            for row in chunk {
                query = query
                    .bind(row.id)
                    .bind(&row.record)
                    .bind(&row.updated_at)
                    .bind(&row.deleted_at);
            }
            query.execute(&mut *tx).await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Makes every committed page durable: a checkpoint first syncs the write-ahead log, and with it every
    /// commit the relaxed `synchronous` left unsynced.
    pub async fn settle(&self) -> Result<(), Failure> {
        sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
            .execute(&self.pool)
            .await?;
        Ok(())
    }

    /// The JSON text of every live (not deleted) record of `resource`, by ascending id.
    pub async fn live(&self, resource: &str) -> Result<Vec<(i64, String)>, Failure> {
        let table = table(resource)?;
        let sql = format!("SELECT id, record FROM \"{table}\" WHERE deleted_at IS NULL ORDER BY id");
        let rows = sqlx::query(&sql).fetch_all(&self.pool).await?;
        rows.iter()
            .map(|row| Ok((row.try_get::<i64, _>(0)?, row.try_get::<String, _>(1)?)))
            .collect::<Result<_, sqlx::Error>>()
            .map_err(Failure::from)
    }

    /// How many live (not deleted) records of `resource` the mirror holds.
    pub async fn live_count(&self, resource: &str) -> Result<u64, Failure> {
        let table = table(resource)?;
        let sql = format!("SELECT COUNT(*) FROM \"{table}\" WHERE deleted_at IS NULL");
        let count: i64 = sqlx::query_scalar(&sql).fetch_one(&self.pool).await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// How many records of `resource` are marked deleted; only the tests ask.
    #[cfg(test)]
    pub async fn deleted_count(&self, resource: &str) -> Result<u64, Failure> {
        let table = table(resource)?;
        let sql = format!("SELECT COUNT(*) FROM \"{table}\" WHERE deleted_at IS NOT NULL");
        let count: i64 = sqlx::query_scalar(&sql).fetch_one(&self.pool).await?;
        Ok(u64::try_from(count).unwrap_or(0))
    }

    /// Closes the file, checkpointing the write-ahead log into it.
    pub async fn close(self) {
        self.pool.close().await;
    }
}

#[cfg(test)]
mod tests {
    use testkit::scratch::Scratch;

    use super::*;

    #[test]
    fn only_plain_table_names_are_accepted() {
        assert!(table("work_orders").is_ok());
        assert!(table("x\"; DROP TABLE y; --").is_err());
        assert!(table("").is_err());
    }

    #[tokio::test]
    async fn a_new_mirror_has_large_pages() {
        let files = Scratch::new("mirror-pages");
        let mirror = Mirror::open(&files.join("mirror.sqlite")).await.expect("open");
        mirror.prepare("units").await.expect("prepare");
        let size: i64 = sqlx::query_scalar("PRAGMA page_size")
            .fetch_one(&mirror.pool)
            .await
            .expect("the page size");
        assert_eq!(size, i64::from(MIRROR_PAGE_BYTES));
        mirror.close().await;
    }

    #[tokio::test]
    async fn upserts_by_id_and_hides_deleted_records() {
        let files = Scratch::new("mirror-upserts");
        let mirror = Mirror::open(&files.join("mirror.sqlite")).await.expect("open");
        mirror.prepare("units").await.expect("prepare");
        let row = |id, record: &str, deleted: Option<&str>| MirrorRow {
            id,
            record: record.to_owned(),
            updated_at: Some("2025-01-01T00:00:00+00:00".to_owned()),
            deleted_at: deleted.map(str::to_owned),
        };
        mirror
            .upsert("units", &[row(1, "{\"a\":1}", None), row(2, "{\"b\":2}", None)])
            .await
            .expect("insert");
        mirror
            .upsert(
                "units",
                &[
                    row(1, "{\"a\":3}", None),
                    row(2, "{\"b\":2}", Some("2025-01-02T00:00:00+00:00")),
                ],
            )
            .await
            .expect("update");
        assert_eq!(
            mirror.live("units").await.expect("live"),
            vec![(1, "{\"a\":3}".to_owned())]
        );
        assert_eq!(mirror.deleted_count("units").await.expect("count"), 1);
        assert_eq!(mirror.live_count("units").await.expect("count"), 1);
        mirror.close().await;
    }

    #[tokio::test]
    async fn a_former_name_table_is_renamed_or_dropped_beside_a_present_one() {
        let files = Scratch::new("mirror-rename");
        let mirror = Mirror::open(&files.join("mirror.sqlite")).await.expect("open");
        let row = MirrorRow {
            id: 1,
            record: "{}".to_owned(),
            updated_at: None,
            deleted_at: None,
        };
        mirror.prepare("scoutings").await.expect("prepare");
        mirror.upsert("scoutings", &[row]).await.expect("insert");
        assert!(mirror.rename("scoutings", "scouting").await.expect("rename"));
        assert_eq!(mirror.live_count("scouting").await.expect("count"), 1, "its rows kept");
        assert!(!mirror.has_table("scoutings").await.expect("asked"));
        assert!(
            !mirror.rename("scoutings", "scouting").await.expect("rename"),
            "nothing left to rename"
        );
        mirror.prepare("adversities").await.expect("prepare");
        mirror.prepare("adversity").await.expect("prepare");
        assert!(mirror.rename("adversities", "adversity").await.expect("rename"));
        assert!(!mirror.has_table("adversities").await.expect("asked"));
        assert!(mirror.has_table("adversity").await.expect("asked"));
        mirror.close().await;
    }
}
