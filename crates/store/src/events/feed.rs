//! Reading one society's feed after a cursor, and pruning it after the retention period.
//!
//! Each society's events are ordered by (position, id). A write's commit gives its events the next positions of its
//! society's row of `society_feeds` and holds that row's lock until it commits (see [`super::commit`]), so within a
//! society positions are commit order: an event a reader sees has every earlier position of its society committed
//! before it, and nothing can later appear before a cursor already handed out. No reader waits for a writer, and no
//! transaction id or snapshot takes part, so the same order holds on SQLite, PostgreSQL and Citus. Events written
//! before positions were per society keep theirs (transaction ids on PostgreSQL, 0 on SQLite, where ids were commit
//! order), all below the heads migration 27 set: the id orders those of one position, and their cursors still read.
//!
//! A cursor names the database's feed identity (made once by migration 27), its society and its place; whether a
//! cursor is one this feed answered is decided by [`FeedStart::place`].

use domain::events::{EventCursor, EventTypes, Feed, FeedPlace, FeedRefusal, FeedStart};

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
        /// Its place in its society's commit order.
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
    /// A society's row of `society_feeds`: its head and its pruning mark.
    struct FeedRow {
        head: i64,
        pruned_position: i64,
        pruned_id: i64,
    }
}

crate::row_by_position! {
    /// The database's feed identity.
    struct IdentityRow {
        identity: String,
    }
}

impl StoredEvent {
    /// The place just after this event.
    pub fn place(&self) -> FeedPlace {
        FeedPlace {
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

/// How many ranges of the feed's index [`after`] reads the events after a place in.
fn ranges(dialect: Dialect) -> usize {
    match dialect {
        Dialect::Sqlite => 2,
        Dialect::Postgres => 1,
    }
}

/// `AND (position, id) > place`, or its part `range` of [`ranges`]: each a range of the feed's index that one
/// `SELECT` walks, so a page costs its own events however long the feed is. PostgreSQL walks the row comparison as
/// one range. SQLite walked a row value, as both walked an `OR` of the two columns' conditions, from the society's
/// first event, and their pages grew slower as the feed grew: there the events after a place are those of its
/// position with a larger id, then those of the positions after it, two ranges read by two `SELECT`s.
fn after(sql: &mut Sql, dialect: Dialect, place: FeedPlace, range: usize) {
    match (dialect, range) {
        (Dialect::Sqlite, 0) => sql
            .push(" AND position = ")
            .arg(Arg::Int(place.position))
            .push(" AND id > ")
            .arg(Arg::Int(place.id)),
        (Dialect::Sqlite, _) => sql.push(" AND position > ").arg(Arg::Int(place.position)),
        (Dialect::Postgres, _) => sql
            .push(" AND (position, id) > (")
            .arg(Arg::Int(place.position))
            .push(", ")
            .arg(Arg::Int(place.id))
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

/// The statement reading a page of `society_id`'s events after `place`: at most `size + 1` of `types` (all when
/// empty), and with a filter the last event of any type too, whose `resource` is empty.
fn page_statement(dialect: Dialect, society_id: i64, place: FeedPlace, types: &EventTypes, size: u32) -> Sql {
    let mut sql = Sql::default();
    for range in 0..ranges(dialect) {
        sql.push(if range == 0 {
            "SELECT * FROM ("
        } else {
            " UNION ALL SELECT * FROM ("
        })
        .push(
            "SELECT id, position, resource, action, resource_id, occurred_at, payload FROM events WHERE society_id = ",
        )
        .arg(Arg::Int(society_id));
        after(&mut sql, dialect, place, range);
        if !types.0.is_empty() {
            of_types(&mut sql, dialect, types);
        }
        sql.push(" ORDER BY position, id LIMIT ")
            .arg(Arg::Int(i64::from(size) + 1))
            .push(&format!(") matching_{range}"));
    }
    // With a filter, the same statement (so the same snapshot) also finds the last readable event of any type: when
    // no more events of these types are readable, the next read can start past the others read so far.
    if !types.0.is_empty() {
        for range in 0..ranges(dialect) {
            sql.push(
                " UNION ALL SELECT id, position, '' AS resource, '' AS action, 0 AS resource_id, 0 AS occurred_at, \
                 NULL AS payload FROM (SELECT id, position FROM events WHERE society_id = ",
            )
            .arg(Arg::Int(society_id));
            after(&mut sql, dialect, place, range);
            sql.push(&format!(" ORDER BY position DESC, id DESC LIMIT 1) latest_{range}"));
        }
    }
    sql
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
        let database = self.feed_identity().await?;
        let mut sql = Sql::default();
        sql.push("SELECT head, pruned_position, pruned_id FROM society_feeds WHERE society_id = ")
            .arg(Arg::Int(society_id));
        let row: Option<FeedRow> = self.select_rows(&sql).await?.pop();
        let feed = Feed {
            database: &database,
            society_id,
            head: row.as_ref().map_or(0, |row| row.head),
            pruned: row.map_or_else(FeedPlace::default, |row| FeedPlace {
                position: row.pruned_position,
                id: row.pruned_id,
            }),
        };
        let place = match start.place(&feed) {
            Ok(place) => place,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let sql = page_statement(dialect, society_id, place, types, size);
        // On SQLite the page is read as a list page is, over the request threads' own connections: the whole feed in
        // order is a walk of its index bounded by the page. A type filter may pass over many events to find a few, so
        // that statement runs on the blocking threads. On PostgreSQL the request reads' connections measured slower
        // for a feed page than sqlx's pool, so the page stays on the pool.
        let rows: Vec<StoredEvent> = match dialect {
            Dialect::Sqlite if types.0.is_empty() => self.select_rows(&sql).await?,
            Dialect::Sqlite => self.select_rows_unbounded(sql).await?,
            Dialect::Postgres => with_reader!(&self.db, pool => {
                bind_args!(sqlx::query_as::<_, StoredEvent>(&sql.text), &sql.args).fetch_all(pool).await?
            }),
        };
        let (mut events, latest): (Vec<StoredEvent>, Vec<StoredEvent>) =
            rows.into_iter().partition(|event| !event.resource.is_empty());
        events.sort_by_key(StoredEvent::place);
        let has_more = events.len() > size as usize;
        events.truncate(size as usize);
        let mut next = events.last().map_or(place, StoredEvent::place);
        if let (false, Some(latest)) = (has_more, latest.iter().map(StoredEvent::place).max()) {
            next = next.max(latest);
        }
        Ok(Ok(FeedPage {
            events,
            next: feed.cursor(next),
            has_more,
        }))
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

    /// The database's feed identity (migration 27), read once per process.
    async fn feed_identity(&self) -> Result<std::sync::Arc<str>, StoreError> {
        let identity = self
            .feed_identity
            .get_or_try_init(|| async {
                let sql = Sql {
                    text: "SELECT identity FROM feed_identity WHERE id = 1".to_owned(),
                    args: Vec::new(),
                };
                let row: Option<IdentityRow> = self.lookup_rows(&sql).await?.pop();
                row.map(|row| std::sync::Arc::from(row.identity))
                    .ok_or_else(|| StoreError::from(sqlx::Error::RowNotFound))
            })
            .await?;
        Ok(std::sync::Arc::clone(identity))
    }

    /// Deletes the events that occurred before `before` (epoch ms), society by society, and moves each society's
    /// pruning mark past them, so a cursor among them is refused rather than silently skipping what was deleted.
    /// Answers how many it deleted.
    pub async fn prune_events(&self, before: i64) -> Result<u64, StoreError> {
        let societies = Sql {
            text:
                "/* all societies: retention prunes each one's events in turn */ SELECT id FROM societies ORDER BY id"
                    .to_owned(),
            args: Vec::new(),
        };
        let societies: Vec<SocietyRow> = self.lookup_rows(&societies).await?;
        let mut deleted = 0;
        for society in societies {
            deleted += self.prune_society(society.id, before).await?;
        }
        Ok(deleted)
    }

    /// [`Self::prune_events`] for one society, in a transaction of its own: the society's writers wait for its mark
    /// to move only while its own events are deleted.
    async fn prune_society(&self, society_id: i64, before: i64) -> Result<u64, StoreError> {
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mark: Option<(i64, i64)> = sqlx::query_as(
                "SELECT position, id FROM events WHERE society_id = $1 AND occurred_at < $2 \
                 ORDER BY position DESC, id DESC LIMIT 1",
            )
            .bind(society_id)
            .bind(before)
            .fetch_optional(&mut *tx)
            .await?;
            let Some((position, id)) = mark else {
                tx.rollback().await?;
                return Ok(0);
            };
            // The events that occurred before `before`, through their age's index. An event that sorts before the
            // mark yet occurred after `before` (its writer stamped it before another's that committed first) stays
            // until it ages out: no cursor reads it, as the mark refuses every cursor before it.
            let deleted = sqlx::query("DELETE FROM events WHERE society_id = $1 AND occurred_at < $2")
                .bind(society_id)
                .bind(before)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            sqlx::query(
                "INSERT INTO society_feeds (society_id, head, pruned_position, pruned_id) VALUES ($1, $2, $2, $3) \
                 ON CONFLICT (society_id) DO UPDATE SET pruned_position = $2, pruned_id = $3 \
                 WHERE society_feeds.pruned_position < $2 OR society_feeds.pruned_position = $2 AND society_feeds.pruned_id < $3",
            )
            .bind(society_id)
            .bind(position)
            .bind(id)
            .execute(&mut *tx)
            .await?;
            tx.commit().await?;
            Ok(deleted)
        })
    }
}

crate::row_by_position! {
    /// A society's id.
    struct SocietyRow {
        id: i64,
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

    /// A migrated SQLite store on the file `scratch`.
    async fn migrated_scratch(scratch: &std::path::Path) -> Store {
        let config = StoreConfig {
            pool: PoolOptions::default(),
            auth: AuthConfig::throwaway(),
            pages: Default::default(),
        };
        let store = Store::connect(&format!("sqlite://{}", scratch.display()), config)
            .await
            .expect("connect");
        store.migrate().await.expect("migrate");
        store
    }

    /// Each database's schema makes its own feed identity, which every cursor names: a cursor of another database
    /// (another deployment, or this one before `demo --reset`) is told apart from this one's.
    #[tokio::test]
    async fn each_database_makes_its_own_feed_identity() {
        let mut identities = Vec::new();
        for name in ["one", "two"] {
            let scratch = std::env::temp_dir().join(format!("feed-identity-{name}-{}.sqlite", std::process::id()));
            let store = migrated_scratch(&scratch).await;
            let identity = store.feed_identity().await.expect("its identity");
            assert_eq!(identity.len(), 16, "{identity}");
            assert!(identity.bytes().all(|byte| byte.is_ascii_hexdigit()), "{identity}");
            identities.push(identity);
            store.close().await;
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{}{suffix}", scratch.display()));
            }
        }
        assert_ne!(identities[0], identities[1]);
    }

    /// A write whose caller gives up at any point (a request whose client left) must leave the one SQLite writer
    /// connection usable. sqlx left it inside a transaction nobody owned when the caller was cancelled between the
    /// begin and its check, and every later write failed.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn writes_cancelled_anywhere_leave_the_writer_usable() {
        let scratch = std::env::temp_dir().join(format!("cancelled-writes-{}.sqlite", std::process::id()));
        let store = migrated_scratch(&scratch).await;
        // Pruning writes society by society: one society to prune.
        store
            .admin()
            .create_society("Poda S.A.", "AR", None)
            .await
            .expect("a society");
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
