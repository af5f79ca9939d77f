//! Reading the feed after a cursor, and pruning it after the retention period.
//!
//! The order is (position, id). SQLite commits one writer at a time, so ids are commit order and every position
//! is 0. On PostgreSQL an id taken early can commit late, so a reader returns only events whose position is below
//! the oldest transaction its snapshot saw still running ([`POSTGRES_HORIZON`]): every transaction below it has
//! ended, so no event can later appear before a cursor already handed out. A later change of a record is never
//! placed before an earlier one (see [`super::payload`]). The price: a long writing transaction on the same database
//! (an operator's import of a million plots) holds the feed back until it ends. Events are delayed, never missed.

use domain::events::{EventCursor, EventTypes, FeedStart};

use crate::db::{with_reader, with_writer};
use crate::sql::{bind_args, Arg, Dialect, Sql};
use crate::write::BeginWrite;
use crate::{Scope, Store, StoreError};

crate::row_by_position! {
    /// One event as stored.
    #[derive(Debug, Clone)]
    pub struct StoredEvent {
        /// Its id.
        pub id: i64,
        /// Its place in the feed's order.
        pub position: i64,
        /// The record's resource (`work_order`).
        pub resource: String,
        /// What happened (`created`).
        pub action: String,
        /// The record's id.
        pub resource_id: i64,
        /// When, in epoch milliseconds.
        pub occurred_at: i64,
        /// The record's read shape just after the change, as JSON.
        pub payload: Option<String>,
    }
}

crate::row_by_position! {
    /// A place in the feed: the pruning mark's, or the head's.
    struct Mark {
        position: i64,
        id: i64,
    }
}

impl From<Mark> for EventCursor {
    fn from(Mark { position, id }: Mark) -> Self {
        EventCursor { position, id }
    }
}

impl StoredEvent {
    /// The cursor just after this event.
    pub fn cursor(&self) -> EventCursor {
        EventCursor {
            position: self.position,
            id: self.id,
        }
    }
}

/// One page of the feed.
#[derive(Debug, Clone)]
pub struct FeedPage {
    /// The events after the cursor, in feed order.
    pub events: Vec<StoredEvent>,
    /// Where the next read continues.
    pub next: EventCursor,
    /// Whether more events were already readable.
    pub has_more: bool,
}

/// Why the feed cannot be read from where the caller asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedRefusal {
    /// Events after the cursor have been pruned: the client must resync.
    Expired,
}

/// The position below which every writer of this database has ended, as the statement's snapshot sees it: the
/// smallest transaction it saw running, or the next to start. A transaction still running on another database of
/// the cluster (whose ids are shared) cannot write these events and is left out, so another database's long
/// transaction does not hold this feed back; one that has ended since the snapshot counts, to be safe.
const POSTGRES_HORIZON: &str =
    "(SELECT COALESCE(MIN(running.xid), pg_snapshot_xmax(pg_current_snapshot())::text::bigint) \
     FROM (SELECT x::text::bigint AS xid FROM pg_snapshot_xip(pg_current_snapshot()) x) running \
     WHERE NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname <> current_database() \
     AND a.backend_xid IS NOT NULL AND a.backend_xid::text::bigint = running.xid % 4294967296))";

/// The condition that holds back events a running transaction could still precede (PostgreSQL; see the module).
fn horizon(dialect: Dialect) -> String {
    match dialect {
        Dialect::Sqlite => String::new(),
        Dialect::Postgres => format!(" AND position < {POSTGRES_HORIZON}"),
    }
}

/// `AND (position, id) > cursor`, in the form each backend walks as a range of the feed's index, so a page costs
/// its own events however long the feed is. An `OR` of the two columns' conditions was walked from the society's
/// first event on both, and so was a row value on SQLite: their pages grew slower as the feed grew, where the range's
/// do not. On SQLite every position is 0 (ids are commit order, migration 0013) and a cursor
/// before the pruning mark, as one with a negative position is, was refused: so the events after a cursor are those
/// of its position with a larger id.
fn after(sql: &mut Sql, dialect: Dialect, cursor: EventCursor) {
    match dialect {
        Dialect::Sqlite => sql
            .push(" AND position = ")
            .arg(Arg::Int(cursor.position))
            .push(" AND id > ")
            .arg(Arg::Int(cursor.id)),
        Dialect::Postgres => sql
            .push(" AND (position, id) > (")
            .arg(Arg::Int(cursor.position))
            .push(", ")
            .arg(Arg::Int(cursor.id))
            .push(")"),
    };
}

/// `AND` the event's type is one of `types`, passed as one parameter (a JSON array of type names) so the statement
/// is the same whatever the list's length: a condition per type made SQLite's expression tree too deep for a few
/// hundred types, and gave each length a statement of its own to prepare.
fn of_types(sql: &mut Sql, dialect: Dialect, types: &EventTypes) {
    let names = serde_json::Value::from(types.names()).to_string();
    sql.push(" AND resource || '.' || action IN (");
    match dialect {
        Dialect::Sqlite => sql
            .push("SELECT value FROM json_each(")
            .arg(Arg::Text(names))
            .push("))"),
        Dialect::Postgres => sql
            .push("SELECT jsonb_array_elements_text(CAST(")
            .arg(Arg::Text(names))
            .push(" AS jsonb)))"),
    };
}

impl Store {
    /// The caller's events after `start`, at most `size`, of the `types` asked for (all when empty).
    #[tracing::instrument(skip(self, scope, types), fields(society = scope.society_id()))]
    pub async fn event_feed(
        &self,
        scope: &Scope,
        start: FeedStart,
        types: &EventTypes,
        size: u32,
    ) -> Result<Result<FeedPage, FeedRefusal>, StoreError> {
        let dialect = self.dialect();
        let society_id = scope.society_id();
        let pruned = self
            .feed_mark("SELECT position, event_id FROM events_pruned WHERE id = 1")
            .await?;
        let cursor = match start {
            FeedStart::Beginning => pruned,
            FeedStart::After(cursor) if cursor < pruned => return Ok(Err(FeedRefusal::Expired)),
            FeedStart::After(cursor) => cursor,
            FeedStart::Now => self.feed_head().await?.max(pruned),
        };
        let mut matching = Sql::default();
        matching
            .push("SELECT id, position, resource, action, resource_id, occurred_at, payload FROM events WHERE society_id = ")
            .arg(Arg::Int(society_id));
        after(&mut matching, dialect, cursor);
        matching.push(&horizon(dialect));
        if !types.0.is_empty() {
            of_types(&mut matching, dialect, types);
        }
        matching
            .push(" ORDER BY position, id LIMIT ")
            .arg(Arg::Int(i64::from(size) + 1));
        // With a filter, the same statement (so the same snapshot) also finds the last readable event of any type:
        // when no more events of these types are readable, the next read can start past the others read so far.
        let mut sql = Sql::default();
        sql.push("SELECT * FROM (").push(&matching.text).push(") matching");
        sql.args = matching.args;
        if !types.0.is_empty() {
            sql.push(
                " UNION ALL SELECT id, position, '' AS resource, '' AS action, 0 AS resource_id, 0 AS occurred_at, \
                 NULL AS payload FROM (SELECT id, position FROM events WHERE society_id = ",
            )
            .arg(Arg::Int(society_id));
            after(&mut sql, dialect, cursor);
            sql.push(&horizon(dialect))
                .push(" ORDER BY position DESC, id DESC LIMIT 1) latest");
        }
        // On SQLite the page is read as a list page is, over the request threads' own connections: the whole feed in
        // order is a walk of its index bounded by the page. A type filter may pass over many events to find a few, so
        // that statement runs on the blocking threads. On PostgreSQL the request reads' connections measured slower
        // for a feed page than sqlx's pool, so the page stays on the pool.
        let rows: Vec<StoredEvent> = match self.dialect() {
            Dialect::Sqlite if types.0.is_empty() => self.select_rows(&sql).await?,
            Dialect::Sqlite => self.select_rows_unbounded(sql).await?,
            Dialect::Postgres => with_reader!(&self.db, pool => {
                bind_args!(sqlx::query_as::<_, StoredEvent>(&sql.text), &sql.args).fetch_all(pool).await?
            }),
        };
        let (mut events, latest): (Vec<StoredEvent>, Vec<StoredEvent>) =
            rows.into_iter().partition(|event| !event.resource.is_empty());
        events.sort_by_key(StoredEvent::cursor);
        let has_more = events.len() > size as usize;
        events.truncate(size as usize);
        let mut next = events.last().map_or(cursor, StoredEvent::cursor);
        if let (false, Some(latest)) = (has_more, latest.first()) {
            next = next.max(latest.cursor());
        }
        Ok(Ok(FeedPage { events, next, has_more }))
    }

    /// One of the caller's events by id, while it is kept.
    pub async fn find_event(&self, scope: &Scope, id: i64) -> Result<Option<StoredEvent>, StoreError> {
        let mut sql = Sql::default();
        sql.push(
            "SELECT id, position, resource, action, resource_id, occurred_at, payload FROM events WHERE society_id = ",
        )
        .arg(Arg::Int(scope.society_id()))
        .push(" AND id = ")
        .arg(Arg::Int(id));
        Ok(self.select_rows(&sql).await?.pop())
    }

    /// The cursor before every event not yet readable: on PostgreSQL the horizon, on SQLite the last event written.
    async fn feed_head(&self) -> Result<EventCursor, StoreError> {
        match self.dialect() {
            Dialect::Sqlite => self.feed_mark("SELECT 0, COALESCE(MAX(id), 0) FROM events").await,
            Dialect::Postgres => {
                self.feed_mark(&format!("SELECT {POSTGRES_HORIZON}, CAST(0 AS BIGINT)"))
                    .await
            }
        }
    }

    /// The one place in the feed that `select` (a position and an id) reads.
    async fn feed_mark(&self, select: &str) -> Result<EventCursor, StoreError> {
        let mut sql = Sql::default();
        sql.push(select);
        let mark: Option<Mark> = self.select_rows(&sql).await?.pop();
        mark.map(EventCursor::from)
            .ok_or_else(|| StoreError::from(sqlx::Error::RowNotFound))
    }

    /// Deletes the events that occurred before `before` (epoch ms) and moves the pruning mark past them, so a
    /// cursor among them is refused rather than silently skipping what was deleted. Answers how many it deleted.
    pub async fn prune_events(&self, before: i64) -> Result<u64, StoreError> {
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mark: Option<(i64, i64)> = sqlx::query_as(
                "SELECT position, id FROM events WHERE occurred_at < $1 ORDER BY position DESC, id DESC LIMIT 1",
            )
            .bind(before)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((position, id)) = mark else {
                return Ok(0);
            };
            // The events that occurred before `before`, through their age's index: deleting by the feed's order up
            // to the mark read the whole table on PostgreSQL, where no index leads with the position, every round.
            // An event that sorts before the mark yet occurred after `before` (its transaction took its position
            // early) stays until it ages out: no cursor reads it, as the mark refuses every cursor before it.
            let deleted = sqlx::query("DELETE FROM events WHERE occurred_at < $1")
                .bind(before)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            sqlx::query(
                "UPDATE events_pruned SET position = $1, event_id = $2 \
                 WHERE id = 1 AND (position < $1 OR position = $1 AND event_id < $2)",
            )
            .bind(position)
            .bind(id)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(deleted)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::future::Future;
    use std::task::Poll;

    use domain::events::{event_types, EventTypes};

    use super::of_types;
    use crate::auth::AuthConfig;
    use crate::sql::{Dialect, Sql};
    use crate::{PoolOptions, Store, StoreConfig};

    #[test]
    fn a_type_filter_is_one_parameter_however_long() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            let statement = |list: &str| {
                let mut sql = Sql::default();
                of_types(&mut sql, dialect, &EventTypes::parse(list).expect("known types"));
                sql
            };
            let one = statement("plot.created");
            let every = statement(&event_types().join(","));
            assert_eq!(one.text, every.text);
            assert_eq!(every.args.len(), 1);
        }
    }

    /// A write whose caller gives up at any point (a request whose client left) must leave the one SQLite writer
    /// connection usable. sqlx left it inside a transaction nobody owned when the caller was cancelled between the
    /// begin and its check, and every later write failed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_cancelled_anywhere_leave_the_writer_usable() {
        let scratch = std::env::temp_dir().join(format!("cancelled-writes-{}.sqlite", std::process::id()));
        let config = StoreConfig {
            pool: PoolOptions::default(),
            auth: AuthConfig::throwaway(),
            pages: Default::default(),
        };
        let store = Store::connect(&format!("sqlite://{}", scratch.display()), config)
            .await
            .expect("connect");
        store.migrate().await.expect("migrate");
        for round in 0..600_usize {
            // Give up after the write has waited `round % 16` times: at every await of the begin in turn.
            let limit = round % 16;
            let mut write = Box::pin(store.prune_events(0));
            let mut waits = 0;
            std::future::poll_fn(|context| match write.as_mut().poll(context) {
                Poll::Ready(_) => Poll::Ready(()),
                Poll::Pending if waits >= limit => Poll::Ready(()),
                Poll::Pending => {
                    waits += 1;
                    Poll::Pending
                }
            })
            .await;
        }
        for _ in 0..3 {
            let write = tokio::time::timeout(std::time::Duration::from_secs(10), store.prune_events(0));
            write
                .await
                .expect("the writer is not stuck")
                .expect("the writer still begins transactions");
        }
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", scratch.display()));
        }
    }
}
