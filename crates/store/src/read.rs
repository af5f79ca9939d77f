//! The read seam: every read a request makes of lists, records, page indexes and table versions goes through here,
//! which picks the driver for the backend. There is more than one driver because sqlx's hand each row from the
//! connection's own thread or stream to the request's, which costs more than a short read itself: SQLite's request
//! reads run on the request's thread through `rusqlite` ([`crate::inline`]), PostgreSQL's over `tokio-postgres`
//! connections of their own that skip the pool's ping ([`crate::pg_readers`]). Writes, background work and lookups
//! outside a request's pages keep sqlx.

use sqlx::postgres::PgRow;
use sqlx::FromRow;

use crate::db::Db;
use crate::pages::{PageIndex, PageIndexBuilder};
use crate::rows::{FromPgRow, FromSqliteRow};
use crate::sql::{bind_args, Arg, Sql};
use crate::{row_by_position, Store, StoreError};

impl Store {
    /// The version of `table` for society `society_id`: the sum of its change counters, 0 before its first change.
    pub(crate) async fn read_table_version(&self, society_id: i64, table: &str) -> Result<i64, StoreError> {
        const VERSION: &str = "SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM table_versions \
                               WHERE society_id = $1 AND table_name = $2";
        match &self.db {
            Db::Sqlite { inline, .. } => inline.read(|connection| {
                connection
                    .prepare_cached(VERSION)?
                    .query_row((society_id, table), |row| row.get(0))
            }),
            Db::Postgres { read, .. } => {
                read.fetch_scalar(VERSION, &[Arg::Int(society_id), Arg::Text(table.to_owned())])
                    .await
            }
        }
    }

    /// The page index of the ids of `rows` (`FROM … ORDER BY t.id`), in ascending order: the largest lists have a
    /// million ids. They are read as a request's rows are ([`Store::select_rows`]), not through sqlx, whose drivers
    /// hand on each row by itself, which costs more than the read for so many rows. On SQLite they are pushed into
    /// `builder` as they are read, on the blocking threads, since unlike a page the scan is not bounded. On PostgreSQL
    /// they come as one array: read as a row each, they would cost the server far more CPU. There the largest lists'
    /// live ids are read from an index alone (migration 22), not by visiting each row for its `deleted_at`.
    pub(crate) async fn read_ids(&self, rows: Sql, mut builder: PageIndexBuilder) -> Result<PageIndex, StoreError> {
        match &self.db {
            Db::Sqlite { inline, .. } => {
                let ids = Sql {
                    text: format!("SELECT t.id {}", rows.text),
                    args: rows.args,
                };
                inline
                    .read_blocking(move |connection| {
                        crate::inline::each_row(connection, &ids, |ListId { id }| builder.push(id))?;
                        Ok(builder.finish())
                    })
                    .await
            }
            Db::Postgres { read, .. } => {
                let text = format!("SELECT ARRAY(SELECT CAST(t.id AS BIGINT) {})", rows.text);
                let ids: Vec<i64> = read.fetch_scalar(&text, &rows.args).await?;
                for id in ids {
                    builder.push(id);
                }
                Ok(builder.finish())
            }
        }
    }

    /// The rows `sql` selects. On SQLite they are read on the request's own thread ([`crate::inline`]): sqlx's driver
    /// would hand every row from its connection's thread to the request's, which costs more than reading it. On
    /// PostgreSQL they are read over the request reads' own connections ([`crate::pg_readers`]), which skip the
    /// pool's ping.
    pub(crate) async fn select_rows<T>(&self, sql: &Sql) -> Result<Vec<T>, StoreError>
    where
        T: FromSqliteRow + FromPgRow,
    {
        match &self.db {
            Db::Sqlite { inline, .. } => inline.read(|connection| crate::inline::rows(connection, sql)),
            Db::Postgres { read, .. } => read.fetch_all(&sql.text, &sql.args).await,
        }
    }

    /// The rows `sql` selects, for a lookup outside a request's pages and records (a login, a health check, the
    /// webhooks' fan-out): on SQLite over the request reads' connections on the calling thread, as
    /// [`Store::select_rows`] reads, so that the read pool's connection, with a parsed copy of the schema of its own,
    /// is opened only by the work that needs it; on PostgreSQL through the pool.
    pub(crate) async fn lookup_rows<T>(&self, sql: &Sql) -> Result<Vec<T>, StoreError>
    where
        T: FromSqliteRow + for<'r> FromRow<'r, PgRow> + Send + Unpin,
    {
        match &self.db {
            Db::Sqlite { inline, .. } => inline.read(|connection| crate::inline::rows(connection, sql)),
            Db::Postgres { pool, .. } => Ok(bind_args!(sqlx::query_as::<_, T>(&sql.text), &sql.args)
                .fetch_all(pool)
                .await?),
        }
    }

    /// The rows `sql` selects, as [`Store::select_rows`] reads them, for a statement whose work is not bounded by its
    /// page (a filter that may pass over many rows to find a few): on SQLite it runs on the blocking threads, so that
    /// it never holds a request thread for long.
    pub(crate) async fn select_rows_unbounded<T>(&self, sql: Sql) -> Result<Vec<T>, StoreError>
    where
        T: FromSqliteRow + FromPgRow + Send + 'static,
    {
        match &self.db {
            Db::Sqlite { inline, .. } => {
                inline
                    .read_blocking(move |connection| crate::inline::rows(connection, &sql))
                    .await
            }
            Db::Postgres { read, .. } => read.fetch_all(&sql.text, &sql.args).await,
        }
    }
}

row_by_position! {
    /// One id of a list, as its page index reads them.
    struct ListId {
        id: i64,
    }
}
