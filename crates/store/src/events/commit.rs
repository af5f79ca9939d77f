//! What a write transaction's commit writes of its changes ([`super::Changes`]), in that transaction, before it
//! commits: each changed record's event with its payload (the record as the writer rendered it, or as its read shows
//! it now), and a bump of the change counters of the society, of each table changed and, when they changed, of the
//! catalogues.
//!
//! A society's events take the next positions of its feed: one statement per society adds their number to its row
//! of `society_feeds` (made by the first) and gives them the positions up to the new head. That row stays locked
//! from the bump until the transaction commits, so a later writer of the society waits at its own bump until this
//! one has committed: within a society, positions are commit order, and no event can commit behind one a reader has
//! already seen. Writers of one society queue only for that instant; other societies' do not meet. Each statement
//! names its one society as a parameter, so on Citus it runs on the node that holds the society.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::LazyLock;

use sqlx::{PgConnection, SqliteConnection};

use super::changes::{Change, Changes, Listed};
use super::payload::{gone, RENDER_PAGE};
use super::EventResource;
use crate::inserts::{insert_statements, ROWS_PER_STATEMENT};
use crate::sql::{bind_args, Arg, Batch, Dialect, Sql, IDS_PER_QUERY};
use crate::{now_millis, Render};

/// An event ready to be written.
struct Ready {
    society_id: i64,
    resource: &'static str,
    id: i64,
    action: String,
    occurred_at: i64,
    payload: String,
}

/// The counters a commit bumps.
struct Counters {
    tables: BTreeSet<(i64, &'static str)>,
    reference: bool,
}

/// The events of a page by society, each with the tables whose counters it bumps with them (none but on the last
/// page), in the order of the societies' ids: writers of several societies lock their feeds in one order.
fn by_society(events: Vec<Ready>, counters: Option<&Counters>) -> BTreeMap<i64, (Vec<Ready>, Vec<&'static str>)> {
    let mut societies: BTreeMap<i64, (Vec<Ready>, Vec<&'static str>)> = BTreeMap::new();
    for event in events {
        societies.entry(event.society_id).or_default().0.push(event);
    }
    for (society_id, table) in counters.into_iter().flat_map(|counters| counters.tables.iter()) {
        societies.entry(*society_id).or_default().1.push(table);
    }
    societies
}

/// PostgreSQL: a society's feed (`$1`) moved on by its number of events (`$2`), answering its new head.
const POSTGRES_FEED: &str = "INSERT INTO society_feeds (society_id, head, pruned_position, pruned_id) \
     VALUES ($1::bigint, $2::bigint, 0, 0) \
     ON CONFLICT (society_id) DO UPDATE SET head = society_feeds.head + EXCLUDED.head RETURNING head";

/// PostgreSQL: the change-counter slot a writer bumps. Writers on other connections mostly bump other slots, so
/// those that write no event (a job's lease) do not queue on one row; readers add the slots up.
const POSTGRES_SLOT: &str = "pg_backend_pid() % 16";

/// PostgreSQL: a society's events (`$1`), one statement per society, in the three shapes of [`postgres_statement`].
/// With events, their insert is the statement's main query: PostgreSQL runs it, and the feed's bump it reads, before
/// the `WITH` clauses nothing reads, so every writer of a society locks its feed before its counters' slots, and two
/// writers never wait for each other's in turn.
static POSTGRES_STATEMENTS: LazyLock<[String; 3]> = LazyLock::new(|| {
    let events = "INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload) \
         SELECT $1::bigint, feed.head - $2::bigint + w.n, w.resource, w.resource_id, w.action, w.occurred_at, \
         w.payload FROM feed, unnest($3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::text[]) WITH ORDINALITY \
         AS w(resource, resource_id, action, occurred_at, payload, n)";
    let tables = |tables: usize| {
        format!(
            "INSERT INTO table_versions (society_id, table_name, slot, version) \
             SELECT $1::bigint, t.name, {POSTGRES_SLOT}, 1 FROM unnest(${tables}::text[]) AS t(name) \
             ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1"
        )
    };
    let society = format!(
        "INSERT INTO society_versions (society_id, slot, version) VALUES ($1::bigint, {POSTGRES_SLOT}, 1) \
         ON CONFLICT (society_id, slot) DO UPDATE SET version = society_versions.version + 1"
    );
    [
        format!("WITH feed AS ({POSTGRES_FEED}) {events}"),
        format!("WITH tables AS ({}) {society}", tables(2)),
        format!(
            "WITH feed AS ({POSTGRES_FEED}), tables AS ({}), society AS ({society}) {events}",
            tables(8)
        ),
    ]
});

/// PostgreSQL: the statement writing a society's events (`$1`: the society; `$2`: how many; `$3` to `$7`: arrays of
/// their resources, records, actions, times and payloads) and bumping the counters of its tables (the next
/// parameter, an array of their names) and its own: the events' part when it has events, the counters' when tables.
fn postgres_statement(events: bool, tables: bool) -> Option<&'static str> {
    match (events, tables) {
        (true, false) => Some(&POSTGRES_STATEMENTS[0]),
        (false, true) => Some(&POSTGRES_STATEMENTS[1]),
        (true, true) => Some(&POSTGRES_STATEMENTS[2]),
        (false, false) => None,
    }
}

/// Writes `events` and, when given, bumps `counters` on PostgreSQL: one statement per society.
async fn write_page_postgres(
    conn: &mut PgConnection,
    events: Vec<Ready>,
    counters: Option<&Counters>,
) -> Result<(), sqlx::Error> {
    for (society_id, (events, tables)) in by_society(events, counters) {
        let Some(statement) = postgres_statement(!events.is_empty(), !tables.is_empty()) else {
            continue;
        };
        let mut query = sqlx::query(statement).bind(society_id);
        if !events.is_empty() {
            query = query
                .bind(i64::try_from(events.len()).unwrap_or(i64::MAX))
                .bind(events.iter().map(|event| event.resource).collect::<Vec<_>>())
                .bind(events.iter().map(|event| event.id).collect::<Vec<_>>())
                .bind(events.iter().map(|event| event.action.as_str()).collect::<Vec<_>>())
                .bind(events.iter().map(|event| event.occurred_at).collect::<Vec<_>>())
                .bind(events.iter().map(|event| event.payload.as_str()).collect::<Vec<_>>());
        }
        if !tables.is_empty() {
            query = query.bind(tables);
        }
        query.execute(&mut *conn).await?;
    }
    if counters.is_some_and(|counters| counters.reference) {
        sqlx::query("UPDATE reference_version SET version = version + 1 WHERE id = 1")
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// SQLite: the start and end of a statement writing one society's events (the first two values: the society, twice),
/// six values a row: the event's place among its society's in this statement (its head's last, 0, and those before
/// it below), then its columns.
const SQLITE_EVENTS: (&str, &str) = (
    "INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload) \
     SELECT ?, (SELECT head FROM society_feeds WHERE society_id = ?) + column1, column2, column3, column4, column5, \
     column6 FROM (VALUES ",
    ")",
);

/// Writes `events` and, when given, bumps `counters` on SQLite, in one hand-off to its worker thread: for each
/// society, its feed's bump, then its events at the positions up to the new head.
async fn write_page_sqlite(
    conn: &mut SqliteConnection,
    events: Vec<Ready>,
    counters: Option<&Counters>,
) -> Result<(), sqlx::Error> {
    let mut sql = Sql::default();
    for (society_id, (events, _)) in by_society(events, None) {
        let count = i64::try_from(events.len()).unwrap_or(i64::MAX);
        sql.push(
            "INSERT INTO society_feeds (society_id, head, pruned_position, pruned_id) VALUES (?, ?, 0, 0) \
             ON CONFLICT (society_id) DO UPDATE SET head = head + excluded.head;\n",
        );
        sql.args.extend([Arg::Int(society_id), Arg::Int(count)]);
        let (before, after) = SQLITE_EVENTS;
        let mut offsets = 1 - count..;
        let mut events = events.into_iter().peekable();
        // A statement of its own for each chunk of rows, which names the society in its first two values.
        while events.peek().is_some() {
            let values: Vec<Arg> = events
                .by_ref()
                .take(ROWS_PER_STATEMENT)
                .zip(offsets.by_ref())
                .flat_map(|(event, offset)| {
                    [
                        Arg::Int(offset),
                        Arg::Text(event.resource.to_owned()),
                        Arg::Int(event.id),
                        Arg::Text(event.action),
                        Arg::Int(event.occurred_at),
                        Arg::Text(event.payload),
                    ]
                })
                .collect();
            for statement in insert_statements(Dialect::Sqlite, before, after, 6, values) {
                sql.push(&statement.text).push(";\n");
                sql.args.extend([Arg::Int(society_id), Arg::Int(society_id)]);
                sql.args.extend(statement.args);
            }
        }
    }
    if let Some(counters) = counters {
        if !counters.tables.is_empty() {
            sql.push("INSERT INTO table_versions (society_id, table_name, slot, version) VALUES ");
            for (index, (society_id, table)) in counters.tables.iter().enumerate() {
                sql.push(if index == 0 { "(?, ?, 0, 1)" } else { ", (?, ?, 0, 1)" });
                sql.args.push(Arg::Int(*society_id));
                sql.args.push(Arg::Text((*table).to_owned()));
            }
            sql.push(" ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = version + 1;\n");
        }
        if counters.reference {
            sql.push("UPDATE reference_version SET version = version + 1 WHERE id = 1;\n");
        }
    }
    if !sql.text.is_empty() {
        bind_args!(sqlx::query(&sql.text), &sql.args)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// Writes the commit of one backend: the events of `listed` tables and of `records`, page by page, the last page
/// with the counters.
macro_rules! committer {
    ($vis:vis $name:ident, $connection:ty, $render:ident, $write_page:ident) => {
        $vis async fn $name(conn: &mut $connection, changes: Changes) -> Result<(), sqlx::Error> {
            if changes.is_empty() {
                return Ok(());
            }
            let now = now_millis();
            let counters = Counters {
                tables: changes.counted_tables(),
                reference: changes.reference,
            };
            let societies: BTreeSet<i64> = changes
                .records
                .iter()
                .filter(|(_, change)| change.rendered.is_none())
                .map(|((society_id, _, _), _)| *society_id)
                .chain(changes.listed.iter().map(|listed| listed.society_id))
                .collect();
            let renders = time_zones!(conn, societies);
            for listed in &changes.listed {
                let render = renders.get(&listed.society_id).cloned().unwrap_or_else(|| Render::new(chrono_tz::Tz::UTC));
                let mut after = 0;
                loop {
                    let page: Vec<(i64, String)> =
                        sqlx::query_as(&format!("SELECT id, action FROM {} WHERE id > $1 ORDER BY id LIMIT $2", listed.table))
                            .bind(after)
                            .bind(i64::try_from(RENDER_PAGE).unwrap_or(i64::MAX))
                            .fetch_all(&mut *conn)
                            .await?;
                    let Some(&(last, _)) = page.last() else { break };
                    after = last;
                    let full = page.len() >= RENDER_PAGE;
                    let ids: Vec<i64> = page.iter().map(|(id, _)| *id).collect();
                    let mut rendered = (listed.resource.$render)(conn, listed.society_id, &ids, &render).await?;
                    let events = page
                        .into_iter()
                        .map(|(id, action)| ready(listed, id, action, now, rendered.remove(&id), &render))
                        .collect::<Result<Vec<_>, _>>()?;
                    $write_page(conn, events, None).await?;
                    if !full {
                        break;
                    }
                }
            }
            let records: Vec<_> = changes.records.into_iter().collect();
            let mut pages = records.chunks(RENDER_PAGE).peekable();
            if pages.peek().is_none() {
                return $write_page(conn, Vec::new(), Some(&counters)).await;
            }
            while let Some(page) = pages.next() {
                let mut events = Vec::with_capacity(page.len());
                let mut unrendered: BTreeMap<(i64, &'static str), (&'static EventResource, Vec<i64>)> = BTreeMap::new();
                for ((society_id, name, id), change) in page {
                    if change.rendered.is_none() {
                        unrendered.entry((*society_id, *name)).or_insert((change.resource, Vec::new())).1.push(*id);
                    }
                }
                let mut rendered = BTreeMap::new();
                for ((society_id, resource), (events, ids)) in unrendered {
                    let render = renders.get(&society_id).cloned().unwrap_or_else(|| Render::new(chrono_tz::Tz::UTC));
                    for (id, payload) in (events.$render)(conn, society_id, &ids, &render).await? {
                        rendered.insert((society_id, resource, id), payload);
                    }
                    for id in ids {
                        if !rendered.contains_key(&(society_id, resource, id)) {
                            rendered.insert((society_id, resource, id), gone(id, now, &render)?);
                        }
                    }
                }
                for ((society_id, resource, id), change) in page {
                    let Change { action, rendered: handed, .. } = change;
                    let (occurred_at, payload) = match handed {
                        Some((at, payload)) => (*at, payload.clone()),
                        None => (now, rendered.remove(&(*society_id, *resource, *id)).unwrap_or_default()),
                    };
                    events.push(Ready {
                        society_id: *society_id,
                        resource,
                        id: *id,
                        action: (*action).to_owned(),
                        occurred_at,
                        payload,
                    });
                }
                let last = pages.peek().is_none();
                $write_page(conn, events, last.then_some(&counters)).await?;
            }
            Ok(())
        }
    };
}

/// The renderings of the time zones of `societies`, read on `$conn`.
macro_rules! time_zones {
    ($conn:expr, $societies:expr) => {{
        let mut renders = BTreeMap::new();
        let ids: Vec<i64> = $societies.into_iter().collect();
        for chunk in ids.chunks(IDS_PER_QUERY) {
            let mut sql = Sql::default();
            sql.push("SELECT id, time_zone FROM societies WHERE id IN ")
                .id_list(chunk);
            let rows: Vec<(i64, String)> = bind_args!(sqlx::query_as(&sql.text), &sql.args)
                .fetch_all(&mut *$conn)
                .await?;
            for (id, time_zone) in rows {
                renders.insert(id, Render::new(time_zone.parse().unwrap_or(chrono_tz::Tz::UTC)));
            }
        }
        renders
    }};
}

/// A listed record's event.
fn ready(
    listed: &Listed,
    id: i64,
    action: String,
    now: i64,
    rendered: Option<String>,
    render: &Render,
) -> Result<Ready, sqlx::Error> {
    Ok(Ready {
        society_id: listed.society_id,
        resource: listed.resource.name,
        id,
        action,
        occurred_at: now,
        payload: match rendered {
            Some(payload) => payload,
            None => gone(id, now, render)?,
        },
    })
}

committer!(pub(crate) write_sqlite, SqliteConnection, sqlite, write_page_sqlite);
committer!(pub(crate) write_postgres, PgConnection, postgres, write_page_postgres);

/// PostgreSQL: a write's events, all handed over rendered, and its counters, as the last statements of `batch`,
/// which runs as one statement in a transaction of its own ([`crate::write::WriteTx::commit_with`]): for each society,
/// its counters, its feed's bump, and its events at the positions the bump answers. The last society's events are
/// the query's main statement, so its feed is locked first (see [`POSTGRES_STATEMENTS`]).
pub(crate) fn append_postgres(batch: &mut Batch, changes: Changes) {
    let tables = changes.counted_tables();
    let mut records: BTreeMap<i64, Vec<(&'static str, i64, Change)>> = BTreeMap::new();
    for ((society_id, resource, id), change) in changes.records {
        records.entry(society_id).or_default().push((resource, id, change));
    }
    let society_ids: BTreeSet<i64> = tables.iter().map(|(society_id, _)| *society_id).collect();
    for society_id in society_ids {
        let sql = batch.statement();
        sql.push("INSERT INTO table_versions (society_id, table_name, slot, version) VALUES ");
        for (index, (_, table)) in tables.iter().filter(|(society, _)| *society == society_id).enumerate() {
            sql.push(if index == 0 { "(" } else { ", (" })
                .arg(Arg::Int(society_id))
                .push(", ")
                .arg(Arg::Text((*table).to_owned()))
                .push(&format!(", {POSTGRES_SLOT}, 1)"));
        }
        sql.push(" ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1");
        batch
            .statement()
            .push("INSERT INTO society_versions (society_id, slot, version) VALUES (")
            .arg(Arg::Int(society_id))
            .push(&format!(", {POSTGRES_SLOT}, 1)"))
            .push(" ON CONFLICT (society_id, slot) DO UPDATE SET version = society_versions.version + 1");
    }
    for (society_id, events) in records {
        let count = i64::try_from(events.len()).unwrap_or(i64::MAX);
        let (sql, feed) = batch.statement_read_by_next();
        sql.push("INSERT INTO society_feeds (society_id, head, pruned_position, pruned_id) VALUES (")
            .arg(Arg::Int(society_id))
            .push("::bigint, ")
            .arg(Arg::Int(count))
            .push(
                "::bigint, 0, 0) ON CONFLICT (society_id) DO UPDATE SET head = society_feeds.head + EXCLUDED.head \
                 RETURNING head",
            );
        let sql = batch.statement();
        sql.push(
            "INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload) SELECT ",
        )
        .arg(Arg::Int(society_id))
        .push("::bigint, feed.head - ")
        .arg(Arg::Int(count))
        .push(&format!(
            "::bigint + w.n, w.resource, w.resource_id, w.action, w.occurred_at, w.payload FROM {feed} feed, (VALUES "
        ));
        for (index, (resource, id, change)) in events.into_iter().enumerate() {
            let (occurred_at, payload) = change.rendered.unwrap_or_default();
            sql.push(if index == 0 { "(" } else { ", (" })
                .arg(Arg::Text(resource.to_owned()))
                .push(", ")
                .arg(Arg::Int(id))
                .push("::bigint, ")
                .arg(Arg::Text(change.action.to_owned()))
                .push(", ")
                .arg(Arg::Int(occurred_at))
                .push("::bigint, ")
                .arg(Arg::Text(payload))
                .push(&format!(", {}::bigint)", index + 1));
        }
        sql.push(") AS w(resource, resource_id, action, occurred_at, payload, n)");
    }
}
