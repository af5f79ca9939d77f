//! The write transaction every store write commits through ([`WriteTx`]), and how one begins ([`BeginWrite`]).
//!
//! A write transaction is told what its statements changed: records created, updated or deleted
//! ([`WriteTx::changed`], or [`WriteTx::event`] with the record as the writer rendered it), tables changed without
//! news ([`WriteTx::counted`]), the catalogues ([`WriteTx::reference_changed`]). Its commit writes those changes'
//! events, with their payloads, and bumps the society's and the tables' change counters, in the same transaction
//! ([`crate::events::commit`]). No trigger and no session setting takes part: what commits is what the writer said.

use sqlx::pool::PoolConnection;

use crate::events::{Changes, EventResource, Listed};
use crate::metered::MeteredPool;
use crate::sql::{bind_args, Batch};

/// Starts write transactions. On SQLite it is `BEGIN IMMEDIATE`, which takes the write lock at once: a transaction
/// that reads before it writes then waits out another process's writer (the busy timeout) instead of failing with
/// `SQLITE_BUSY` when it upgrades from reading to writing.
pub(crate) trait BeginWrite {
    /// The backend.
    type Database: sqlx::Database;

    /// Begins a transaction that will write.
    fn begin_write(
        &self,
    ) -> impl std::future::Future<Output = Result<WriteTx<'static, Self::Database>, sqlx::Error>> + Send;

    /// [`Self::begin_write`] for a write whose statements before [`WriteTx::commit_with`] only read, and need no
    /// lock. PostgreSQL begins it only when its writes take more than one statement: until then each read runs on its
    /// connection in a transaction of its own, and a write of one statement runs with its events and counters as one
    /// statement, which commits alone. SQLite begins it at once.
    fn begin_write_lazily(
        &self,
    ) -> impl std::future::Future<Output = Result<WriteTx<'static, Self::Database>, sqlx::Error>> + Send;
}

impl BeginWrite for MeteredPool<sqlx::Sqlite> {
    type Database = sqlx::Sqlite;

    async fn begin_write(&self) -> Result<WriteTx<'static, sqlx::Sqlite>, sqlx::Error> {
        Ok(WriteTx::new(begin_sqlite(self).await?))
    }

    async fn begin_write_lazily(&self) -> Result<WriteTx<'static, sqlx::Sqlite>, sqlx::Error> {
        self.begin_write().await
    }
}

/// A SQLite transaction begun by `BEGIN IMMEDIATE`.
async fn begin_sqlite(
    pool: &MeteredPool<sqlx::Sqlite>,
) -> Result<sqlx::Transaction<'static, sqlx::Sqlite>, sqlx::Error> {
    // sqlx checks a custom BEGIN took effect after the worker ran it, at an await of its own: a caller cancelled
    // there (a request whose client left, or that timed out) left the connection inside a transaction no
    // `Transaction` owned, and every later write failed ("begin_with at non-zero transaction depth"). Begun on a
    // task of its own, the begin always completes, and a transaction nobody awaits any more is dropped, which
    // rolls it back.
    let pool = pool.clone();
    tokio::spawn(async move { pool.begin_with(Some("BEGIN IMMEDIATE")).await })
        .await
        .map_err(|_| sqlx::Error::WorkerCrashed)?
}

impl BeginWrite for MeteredPool<sqlx::Postgres> {
    type Database = sqlx::Postgres;

    async fn begin_write(&self) -> Result<WriteTx<'static, sqlx::Postgres>, sqlx::Error> {
        Ok(WriteTx::new(self.begin_with(Some(POSTGRES_BEGIN)).await?))
    }

    async fn begin_write_lazily(&self) -> Result<WriteTx<'static, sqlx::Postgres>, sqlx::Error> {
        Ok(WriteTx {
            session: Session::Unbegun(self.acquire().await?),
            changes: Changes::default(),
        })
    }
}

/// PostgreSQL: how a write transaction begins. Its prepared statements run on their generic plans: PostgreSQL
/// otherwise plans the commit's insert of events afresh each time, as a plan for arrays of known length looks cheaper
/// than the generic one, and that planning costs more than all the write's statements. A database set to plan every
/// statement with its values keeps that setting: on Citus, `tranquera migrate` sets it (`citus.rs`), since
/// Citus routes a statement by its values and cannot plan an `INSERT … SELECT` on parameters.
const POSTGRES_BEGIN: &str = "BEGIN; SELECT set_config('plan_cache_mode', 'force_generic_plan', true) \
     WHERE current_setting('plan_cache_mode') <> 'force_custom_plan'";

/// A transaction that writes, and what it changed. Its `commit` writes the events and counters of those changes
/// ([`crate::events::commit`]), and marks the `Idempotency-Key` of the request it serves ([`crate::idempotency`]), so
/// no keyed write can commit without the trace that stops its retry from writing it again. It is the only way the
/// store commits (clippy's `disallowed_methods` refuses `sqlx::Transaction::commit` elsewhere).
pub(crate) struct WriteTx<'c, DB: sqlx::Database> {
    session: Session<'c, DB>,
    changes: Changes,
}

/// Where a [`WriteTx`]'s statements run.
enum Session<'c, DB: sqlx::Database> {
    /// In its transaction.
    Begun(sqlx::Transaction<'c, DB>),
    /// On a PostgreSQL connection that no transaction has begun on yet ([`BeginWrite::begin_write_lazily`]).
    Unbegun(PoolConnection<DB>),
}

impl<'c, DB: sqlx::Database> WriteTx<'c, DB> {
    /// Wraps a transaction begun on a connection of its own (an operator's import, a migration).
    pub(crate) fn new(tx: sqlx::Transaction<'c, DB>) -> Self {
        Self {
            session: Session::Begun(tx),
            changes: Changes::default(),
        }
    }

    /// Records that the transaction changed records `ids` of `resource` in `society_id`: `action` is `created`,
    /// `updated`, `deleted` or a resource's own (`finished`, `disabled`). A change of a line or a link of a record is
    /// that record's `updated`. The commit renders each record as the resource's read shows it.
    pub(crate) fn changed(
        &mut self,
        society_id: i64,
        resource: &'static EventResource,
        ids: impl IntoIterator<Item = i64>,
        action: &'static str,
    ) {
        for id in ids {
            self.changes.record(society_id, resource, id, action, None);
        }
    }

    /// Records the change of record `id` of `resource` with the record as the writer has just rendered it from what
    /// it wrote: the commit writes it as the payload, without reading the record back.
    pub(crate) fn event(
        &mut self,
        society_id: i64,
        resource: &'static EventResource,
        id: i64,
        action: &'static str,
        occurred_at: i64,
        record: &impl serde::Serialize,
    ) -> Result<(), sqlx::Error> {
        let payload = serde_json::to_string(record).map_err(|error| sqlx::Error::Encode(Box::new(error)))?;
        self.changes
            .record(society_id, resource, id, action, Some((occurred_at, payload)));
        Ok(())
    }

    /// Records that `table` of `society_id` changed without news for the feed (a user, a weather sample, a job's
    /// lease): its change counters move, and no event is written.
    pub(crate) fn counted(&mut self, society_id: i64, table: &'static str) {
        self.changes.count(society_id, table);
    }

    /// Records that the transaction changed the shipped catalogues: their counter moves.
    pub(crate) fn reference_changed(&mut self) {
        self.changes.reference = true;
    }

    /// Records that the transaction changed the records of `resource` in `society_id` listed, with their action, in
    /// the temporary table `table` (`id`, `action`): an operator's import, too large to hold in memory.
    pub(crate) fn listed(&mut self, society_id: i64, resource: &'static EventResource, table: &'static str) {
        self.changes.listed.push(Listed {
            society_id,
            resource,
            table,
        });
    }

    /// Rolls back: nothing, events included, is kept.
    pub(crate) async fn rollback(self) -> Result<(), sqlx::Error> {
        match self.session {
            Session::Begun(tx) => tx.rollback().await,
            // Nothing was written yet.
            Session::Unbegun(_) => Ok(()),
        }
    }
}

impl<DB: sqlx::Database> std::ops::Deref for WriteTx<'_, DB> {
    type Target = DB::Connection;

    fn deref(&self) -> &DB::Connection {
        match &self.session {
            Session::Begun(tx) => tx,
            Session::Unbegun(connection) => connection,
        }
    }
}

impl<DB: sqlx::Database> std::ops::DerefMut for WriteTx<'_, DB> {
    fn deref_mut(&mut self) -> &mut DB::Connection {
        match &mut self.session {
            Session::Begun(tx) => tx,
            Session::Unbegun(connection) => connection,
        }
    }
}

impl WriteTx<'_, sqlx::Sqlite> {
    /// Writes the changes' events and counters, then commits.
    #[allow(clippy::disallowed_methods, reason = "the one place the store commits")]
    pub(crate) async fn commit(self) -> Result<(), sqlx::Error> {
        let Session::Begun(mut tx) = self.session else {
            return Err(sqlx::Error::Protocol("a SQLite write began no transaction".into()));
        };
        crate::events::commit::write_sqlite(&mut tx, self.changes).await?;
        crate::idempotency::mark_committed!(tx)?;
        tx.commit().await
    }

    /// Runs `batch`, then commits as [`Self::commit`] does.
    pub(crate) async fn commit_with(mut self, batch: Batch) -> Result<(), sqlx::Error> {
        for sql in batch.into_queries() {
            bind_args!(sqlx::query(&sql.text), &sql.args)
                .execute(&mut *self)
                .await?;
        }
        self.commit().await
    }
}

impl WriteTx<'_, sqlx::Postgres> {
    /// Writes the changes' events and counters, then commits.
    #[allow(clippy::disallowed_methods, reason = "the one place the store commits")]
    pub(crate) async fn commit(self) -> Result<(), sqlx::Error> {
        let mut tx = match self.session {
            Session::Begun(tx) => tx,
            Session::Unbegun(connection) => begin_postgres(connection).await?,
        };
        crate::events::commit::write_postgres(&mut tx, self.changes).await?;
        crate::idempotency::mark_committed!(tx)?;
        tx.commit().await
    }

    /// Runs `batch`, then commits as [`Self::commit`] does. A transaction not begun yet, whose batch is one query and
    /// whose changes are all handed over rendered, runs the batch, the events and the counters as one statement,
    /// which commits alone; unless it is a keyed request's, whose key [`Self::commit`] marks in the same transaction.
    pub(crate) async fn commit_with(mut self, mut batch: Batch) -> Result<(), sqlx::Error> {
        let alone = matches!(self.session, Session::Unbegun(_))
            && crate::idempotency::current_claim().is_none()
            && batch.is_one_query()
            && self.changes.all_rendered();
        if alone {
            crate::events::commit::append_postgres(&mut batch, std::mem::take(&mut self.changes));
        } else if let Session::Unbegun(connection) = self.session {
            self.session = Session::Begun(begin_postgres(connection).await?);
        }
        for sql in batch.into_queries() {
            bind_args!(sqlx::query(&sql.text), &sql.args)
                .execute(&mut *self)
                .await?;
        }
        if alone {
            return Ok(());
        }
        self.commit().await
    }
}

/// The transaction of a [`WriteTx`] begun lazily, once it needs one.
async fn begin_postgres(
    connection: PoolConnection<sqlx::Postgres>,
) -> Result<sqlx::Transaction<'static, sqlx::Postgres>, sqlx::Error> {
    sqlx::Transaction::begin(connection, Some(POSTGRES_BEGIN.into())).await
}
