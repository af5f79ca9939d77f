//! A connection pool that knows who waits for it. sqlx's pool says how many connections are open and idle, but not
//! how many operations wait for one, which is what tells an operator the pool is too small before acquisitions
//! start timing out. Every query and transaction of the store takes its connection through [`MeteredPool::acquire`],
//! which counts the operation as waiting until it has one, and records how long that took.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use futures_util::TryStreamExt;
use sqlx::pool::PoolConnection;
use sqlx::{Database, Describe, Either, Execute, Executor, Pool};

/// Time to get a pooled connection, by pool: from asking to holding one.
pub const ACQUIRE_WAIT: &str = "tranquera_db_pool_acquire_wait_seconds";

/// A pool, with the count of the operations waiting for one of its connections.
#[derive(Debug)]
pub(crate) struct MeteredPool<DB: Database> {
    pool: Pool<DB>,
    /// `read`, `write` or `main`: the pool's label in the metrics.
    name: &'static str,
    waiting: Arc<AtomicU32>,
}

impl<DB: Database> Clone for MeteredPool<DB> {
    fn clone(&self) -> Self {
        Self {
            pool: self.pool.clone(),
            name: self.name,
            waiting: Arc::clone(&self.waiting),
        }
    }
}

/// Counts one operation as waiting for as long as it lives, so that one cancelled while it waits stops counting.
pub(crate) struct Waiting<'a>(&'a AtomicU32);

impl<'a> Waiting<'a> {
    pub(crate) fn enter(count: &'a AtomicU32) -> Self {
        count.fetch_add(1, Ordering::Relaxed);
        Self(count)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl<DB: Database> MeteredPool<DB> {
    pub(crate) fn new(pool: Pool<DB>, name: &'static str) -> Self {
        Self {
            pool,
            name,
            waiting: Arc::default(),
        }
    }

    /// A connection of the pool, once one is free (or opened), or the pool's time-out.
    pub(crate) async fn acquire(&self) -> Result<PoolConnection<DB>, sqlx::Error> {
        let asked = Instant::now();
        let waiting = Waiting::enter(&self.waiting);
        let connection = self.pool.acquire().await;
        drop(waiting);
        ::metrics::histogram!(ACQUIRE_WAIT, "pool" => self.name).record(asked.elapsed().as_secs_f64());
        connection
    }

    /// A transaction begun by `statement` (the backend's own `BEGIN` when `None`), on a connection from
    /// [`Self::acquire`].
    pub(crate) async fn begin_with(
        &self,
        statement: Option<&'static str>,
    ) -> Result<sqlx::Transaction<'static, DB>, sqlx::Error> {
        // What `Pool::begin_with` does, with the connection taken through the count.
        sqlx::Transaction::begin(self.acquire().await?, statement.map(Into::into)).await
    }

    /// The operations waiting for a connection now.
    pub(crate) fn waiting(&self) -> u32 {
        self.waiting.load(Ordering::Relaxed)
    }

    /// `read`, `write` or `main`.
    pub(crate) fn name(&self) -> &'static str {
        self.name
    }

    /// The pool itself, for its sizes and for closing it.
    pub(crate) fn pool(&self) -> &Pool<DB> {
        &self.pool
    }
}

/// Queries run on the pool as on sqlx's own (each takes a connection for its duration), but count their wait.
impl<'p, DB: Database> Executor<'p> for &'_ MeteredPool<DB>
where
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
{
    type Database = DB;

    fn fetch_many<'e, 'q: 'e, E>(self, query: E) -> BoxStream<'e, Result<Either<DB::QueryResult, DB::Row>, sqlx::Error>>
    where
        E: 'q + Execute<'q, DB>,
    {
        let pool = self.clone();
        Box::pin(async_stream::try_stream! {
            let mut connection = pool.acquire().await?;
            let mut results = connection.fetch_many(query);
            while let Some(result) = results.try_next().await? {
                yield result;
            }
        })
    }

    fn fetch_optional<'e, 'q: 'e, E>(self, query: E) -> BoxFuture<'e, Result<Option<DB::Row>, sqlx::Error>>
    where
        E: 'q + Execute<'q, DB>,
    {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.fetch_optional(query).await })
    }

    fn prepare_with<'e, 'q: 'e>(
        self,
        sql: &'q str,
        parameters: &'e [DB::TypeInfo],
    ) -> BoxFuture<'e, Result<DB::Statement<'q>, sqlx::Error>> {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.prepare_with(sql, parameters).await })
    }

    fn describe<'e, 'q: 'e>(self, sql: &'q str) -> BoxFuture<'e, Result<Describe<DB>, sqlx::Error>> {
        let pool = self.clone();
        Box::pin(async move { pool.acquire().await?.describe(sql).await })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use sqlx::sqlite::SqlitePoolOptions;

    use super::*;

    /// Lets spawned tasks run up to their next wait.
    async fn settle() {
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    #[tokio::test]
    async fn an_operation_counts_as_waiting_only_while_no_connection_is_free() {
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect("sqlite::memory:")
            .await
            .expect("an in-memory pool");
        let pool = MeteredPool::new(pool, "read");
        let held = pool.acquire().await.expect("the only connection");
        assert_eq!(pool.waiting(), 0, "the first acquisition found a connection");

        let query = tokio::spawn({
            let pool = pool.clone();
            async move { sqlx::query_scalar::<_, i64>("SELECT 7").fetch_one(&pool).await }
        });
        let cancelled = tokio::spawn({
            let pool = pool.clone();
            async move { pool.acquire().await.map(drop) }
        });
        settle().await;
        assert_eq!(
            pool.waiting(),
            2,
            "a query and an acquisition wait for the held connection"
        );

        cancelled.abort();
        settle().await;
        assert_eq!(pool.waiting(), 1, "a cancelled wait stops counting");

        drop(held);
        assert_eq!(query.await.expect("the query's task").expect("the query"), 7);
        assert_eq!(pool.waiting(), 0);
    }
}
