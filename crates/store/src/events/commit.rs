//! What a write transaction's commit writes of its changes ([`super::Changes`]), in that transaction, before it
//! commits: each changed record's event with its payload (the record as the writer rendered it, or as its read shows
//! it now), and a bump of the change counters of the society, of each table changed and, when they changed, of the
//! catalogues.
//!
//! On PostgreSQL an event's position is the writing transaction's id, raised past its record's latest event: a
//! transaction that took its id before another but changed the record after that one committed would otherwise sort
//! first. On SQLite, with one writer at a time, the id orders the feed and the position is 0.

use std::collections::{BTreeMap, BTreeSet};

use sqlx::{PgConnection, SqliteConnection};

use super::changes::{Change, Changes, Listed};
use super::payload::{gone, RENDER_PAGE};
use super::EventResource;
use crate::inserts::insert_statements;
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

/// PostgreSQL: an event's position ([`Ready`] as `w`, the transaction's id as `x.tx`): a created record has no earlier
/// event to follow.
const POSTGRES_POSITION: &str = "CASE WHEN w.action = 'created' THEN x.tx ELSE GREATEST(x.tx, COALESCE((SELECT \
     max(o.position) FROM events o WHERE o.society_id = w.society_id AND o.resource = w.resource \
     AND o.resource_id = w.resource_id), 0)) END";

/// PostgreSQL: events from six arrays of their columns (`$1` to `$6`: society, resource, record, action, time,
/// payload), and the counters of the societies and tables of two more (`$7`, `$8`), the catalogues' when `$9`.
static POSTGRES_WRITE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "WITH x AS (SELECT pg_current_xact_id()::text::bigint AS tx), \
         written AS (INSERT INTO events (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
         SELECT w.society_id, {POSTGRES_POSITION}, x.tx, w.resource, w.resource_id, w.action, w.occurred_at, w.payload \
         FROM x, unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[]) \
         AS w(society_id, resource, resource_id, action, occurred_at, payload) \
         ORDER BY w.society_id, w.resource, w.resource_id), \
         tables AS (INSERT INTO table_versions (society_id, table_name, slot, version) \
         SELECT v.society_id, v.table_name, x.tx % 16, 1 FROM x, unnest($7::bigint[], $8::text[]) AS v(society_id, table_name) \
         ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1), \
         reference AS (UPDATE reference_version SET version = version + 1 WHERE id = 1 AND $9) \
         INSERT INTO society_versions (society_id, slot, version) \
         SELECT DISTINCT v.society_id, x.tx % 16, 1 FROM x, unnest($7::bigint[]) AS v(society_id) \
         ON CONFLICT (society_id, slot) DO UPDATE SET version = society_versions.version + 1"
    )
});

/// Writes `events` and, when given, bumps `counters` on PostgreSQL, in one statement.
async fn write_page_postgres(
    conn: &mut PgConnection,
    events: Vec<Ready>,
    counters: Option<&Counters>,
) -> Result<(), sqlx::Error> {
    let (societies, tables): (Vec<i64>, Vec<&str>) = counters
        .map(|counters| counters.tables.iter().copied().unzip())
        .unwrap_or_default();
    sqlx::query(&POSTGRES_WRITE)
        .bind(events.iter().map(|event| event.society_id).collect::<Vec<_>>())
        .bind(events.iter().map(|event| event.resource).collect::<Vec<_>>())
        .bind(events.iter().map(|event| event.id).collect::<Vec<_>>())
        .bind(events.iter().map(|event| event.action.as_str()).collect::<Vec<_>>())
        .bind(events.iter().map(|event| event.occurred_at).collect::<Vec<_>>())
        .bind(events.iter().map(|event| event.payload.as_str()).collect::<Vec<_>>())
        .bind(societies)
        .bind(tables)
        .bind(counters.is_some_and(|counters| counters.reference))
        .execute(&mut *conn)
        .await?;
    Ok(())
}

/// SQLite: the start and end of a statement writing events, six values a row.
const SQLITE_EVENTS: (&str, &str) = (
    "INSERT INTO events (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
     SELECT column1, 0, 0, column2, column3, column4, column5, column6 FROM (VALUES ",
    ")",
);

/// Writes `events` and, when given, bumps `counters` on SQLite, in one hand-off to its worker thread.
async fn write_page_sqlite(
    conn: &mut SqliteConnection,
    events: Vec<Ready>,
    counters: Option<&Counters>,
) -> Result<(), sqlx::Error> {
    let values: Vec<Arg> = events
        .into_iter()
        .flat_map(|event| {
            [
                Arg::Int(event.society_id),
                Arg::Text(event.resource.to_owned()),
                Arg::Int(event.id),
                Arg::Text(event.action),
                Arg::Int(event.occurred_at),
                Arg::Text(event.payload),
            ]
        })
        .collect();
    let (before, after) = SQLITE_EVENTS;
    let mut sql = Sql::default();
    for statement in insert_statements(Dialect::Sqlite, before, after, 6, values) {
        sql.push(&statement.text).push(";\n");
        sql.args.extend(statement.args);
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
/// which runs as one statement in a transaction of its own ([`crate::write::WriteTx::commit_with`]).
pub(crate) fn append_postgres(batch: &mut Batch, changes: Changes) {
    let tables = changes.counted_tables();
    let society_ids: BTreeSet<i64> = tables.iter().map(|(society_id, _)| *society_id).collect();
    let tx = "(SELECT pg_current_xact_id()::text::bigint)";
    if !tables.is_empty() {
        let sql = batch.statement();
        sql.push("INSERT INTO table_versions (society_id, table_name, slot, version) VALUES ");
        for (index, (society_id, table)) in tables.iter().enumerate() {
            sql.push(if index == 0 { "(" } else { ", (" })
                .arg(Arg::Int(*society_id))
                .push(", ")
                .arg(Arg::Text((*table).to_owned()))
                .push(&format!(", {tx} % 16, 1)"));
        }
        sql.push(" ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1");
        let sql = batch.statement();
        sql.push("INSERT INTO society_versions (society_id, slot, version) VALUES ");
        for (index, society_id) in society_ids.iter().enumerate() {
            sql.push(if index == 0 { "(" } else { ", (" })
                .arg(Arg::Int(*society_id))
                .push(&format!(", {tx} % 16, 1)"));
        }
        sql.push(" ON CONFLICT (society_id, slot) DO UPDATE SET version = society_versions.version + 1");
    }
    if changes.records.is_empty() {
        return;
    }
    let sql = batch.statement();
    sql.push(&format!(
        "INSERT INTO events (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
         SELECT w.society_id, {POSTGRES_POSITION}, x.tx, w.resource, w.resource_id, w.action, w.occurred_at, w.payload \
         FROM (SELECT pg_current_xact_id()::text::bigint AS tx) x, (VALUES "
    ));
    for (index, ((society_id, resource, id), change)) in changes.records.into_iter().enumerate() {
        let (occurred_at, payload) = change.rendered.unwrap_or_default();
        sql.push(if index == 0 { "(" } else { ", (" })
            .arg(Arg::Int(society_id))
            .push("::bigint, ")
            .arg(Arg::Text(resource.to_owned()))
            .push(", ")
            .arg(Arg::Int(id))
            .push("::bigint, ")
            .arg(Arg::Text(change.action.to_owned()))
            .push(", ")
            .arg(Arg::Int(occurred_at))
            .push("::bigint, ")
            .arg(Arg::Text(payload))
            .push(")");
    }
    sql.push(") AS w(society_id, resource, resource_id, action, occurred_at, payload)");
}
