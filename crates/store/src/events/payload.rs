//! Each event's payload: its record as the resource's read answers it, rendered inside the writing transaction just
//! before it commits (see [`crate::db::WriteTx`]), so it shows the record as that change left it. A record that no
//! longer exists is `{"id": …, "deleted_at": …}`. A writer that has just rendered a record from what it wrote (a
//! work order's answer) pauses capture for its transaction and hands the event over whole instead
//! ([`crate::db::WriteTx::event`]): it is written once, with its payload, and the record is not read back.
//!
//! On PostgreSQL the same statement also places the event after any earlier event of its record: a transaction
//! that took its id before another but changed the record after that one committed would otherwise sort first.

use std::collections::BTreeMap;

use serde::Serialize;
use sqlx::{PgConnection, SqliteConnection};

use crate::bulk::insert_statements;
use crate::db::{bind_args, Arg, Batch, Dialect, Sql, IDS_PER_QUERY};
use crate::resources::establishments::Establishments;
use crate::resources::farmers::FarmersV3;
use crate::resources::field::{
    DeviceEvents, Devices, FertilizationControls, ProgressReports, ScoutingMeasures, Scoutings, SilobagCampaigns,
    Silobags, Waypoints, WeatherAnomalies,
};
use crate::resources::operations::{Applicators, Contractors, Machines, ObjectiveYieldJobs, Warehouses};
use crate::resources::planning::{
    Campaigns, Cultivations, ExternalPlotAssociations, ExternalSystems, MasterCampaigns, Tags,
};
use crate::resources::plots::PlotsV3;
use crate::resources::work_orders::read::{
    assemble, lines_query, links_queries, LabourLinkRow, LabourLinks, LabourRow, SupplyRow, LABOUR_COLUMNS,
    SUPPLY_COLUMNS,
};
use crate::resources::work_orders::WorkOrderHeaders;
use crate::webhooks::WebhookEndpoints;
use crate::{ListSpec, Render, Resource};

/// One resource's records being read and rendered, by id.
type Rendering<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<BTreeMap<i64, String>, sqlx::Error>> + Send + 'a>>;

/// An event of the committing transaction still without its payload.
#[derive(Debug, sqlx::FromRow)]
struct Pending {
    id: i64,
    society_id: i64,
    resource: String,
    resource_id: i64,
    occurred_at: i64,
    time_zone: String,
}

/// An event its writer hands over whole, with the record as it rendered it.
#[derive(Debug)]
pub(crate) struct OwnEvent {
    pub(crate) society_id: i64,
    pub(crate) resource: &'static str,
    pub(crate) id: i64,
    /// `created`, `updated` or `deleted`.
    pub(crate) action: &'static str,
    pub(crate) occurred_at: i64,
    pub(crate) payload: String,
}

/// The payload of an event whose record is gone.
#[derive(Serialize)]
struct Gone {
    id: i64,
    deleted_at: wire::Timestamp,
}

fn encode(error: serde_json::Error) -> sqlx::Error {
    sqlx::Error::Encode(Box::new(error))
}

/// The payloads of one society's pending events, by event id.
fn payloads(
    pending: &[&Pending],
    rendered: &BTreeMap<i64, String>,
    render: &Render,
) -> Result<Vec<(i64, String)>, sqlx::Error> {
    pending
        .iter()
        .map(|event| {
            let payload = match rendered.get(&event.resource_id) {
                Some(payload) => payload.clone(),
                None => serde_json::to_string(&Gone {
                    id: event.resource_id,
                    deleted_at: render.at(event.occurred_at),
                })
                .map_err(encode)?,
            };
            Ok((event.id, payload))
        })
        .collect()
}

/// The rows of records `ids` of `society_id` as declaration `spec` selects them. Its fixed condition is not applied:
/// an event names a row of the table, whichever slice lists it.
fn records(spec: &ListSpec, society_id: i64, ids: &[i64]) -> Sql {
    let mut sql = Sql::default();
    sql.push(&format!(
        "SELECT {} FROM {} WHERE t.society_id = ",
        spec.columns, spec.from
    ))
    .arg(Arg::Int(society_id))
    .push(" AND t.id IN ")
    .id_list(ids);
    sql
}

/// Writes the renderer of one backend: each resource's rows of the `pending` events read on the transaction's own
/// connection, rendered, and the payloads written back.
macro_rules! renderer {
    ($vis:vis $name:ident, $connection:ty, $store:ident) => {
        /// Renders the payload of each of the `pending` events of the transaction on `conn`.
        $vis async fn $name(conn: &mut $connection, pending: Vec<Pending>) -> Result<(), sqlx::Error> {
            let mut groups: BTreeMap<(i64, &str), Vec<&Pending>> = BTreeMap::new();
            for event in &pending {
                groups
                    .entry((event.society_id, event.resource.as_str()))
                    .or_default()
                    .push(event);
            }
            for ((society_id, resource), events) in groups {
                let render = Render::new(events[0].time_zone.parse().unwrap_or(chrono_tz::Tz::UTC));
                let mut ids: Vec<i64> = events.iter().map(|event| event.resource_id).collect();
                ids.sort_unstable();
                ids.dedup();
                let rendered = records_rendered(conn, society_id, resource, &ids, &render).await?;
                let payloads = payloads(&events, &rendered, &render)?;
                $store(conn, society_id, payloads).await?;
            }
            Ok(())
        }

        /// The records `ids` of `resource` in `society_id`, rendered, by id; none of a resource without a read.
        ///
        /// Not an `async fn`: each resource's read is boxed and handed back as it is. An `async fn` holding all 26
        /// reads was a state machine the size of every one of them together, and its code was copied wherever it was
        /// awaited: 4.6 MB in 17 copies, a sixth of the binary's code. Behind one boxed future, each read's code is
        /// written once.
        $vis fn records_rendered<'a>(
            conn: &'a mut $connection,
            society_id: i64,
            resource: &str,
            ids: &'a [i64],
            render: &'a Render,
        ) -> Rendering<'a> {
            match resource {
                "farmer" => Box::pin(rows::<FarmersV3>(conn, society_id, ids, render)),
                "establishment" => Box::pin(rows::<Establishments>(conn, society_id, ids, render)),
                "plot" => Box::pin(rows::<PlotsV3>(conn, society_id, ids, render)),
                "tag" => Box::pin(rows::<Tags>(conn, society_id, ids, render)),
                "master_campaign" => Box::pin(rows::<MasterCampaigns>(conn, society_id, ids, render)),
                "campaign" => Box::pin(rows::<Campaigns>(conn, society_id, ids, render)),
                "cultivation" => Box::pin(rows::<Cultivations>(conn, society_id, ids, render)),
                "contractor" => Box::pin(rows::<Contractors>(conn, society_id, ids, render)),
                "machine" => Box::pin(rows::<Machines>(conn, society_id, ids, render)),
                "applicator" => Box::pin(rows::<Applicators>(conn, society_id, ids, render)),
                "warehouse" => Box::pin(rows::<Warehouses>(conn, society_id, ids, render)),
                "work_order" => Box::pin(work_orders(conn, society_id, ids, render)),
                "scouting" => Box::pin(rows::<Scoutings>(conn, society_id, ids, render)),
                "scouting_measure" => Box::pin(rows::<ScoutingMeasures>(conn, society_id, ids, render)),
                "waypoint" => Box::pin(rows::<Waypoints>(conn, society_id, ids, render)),
                "progress" => Box::pin(rows::<ProgressReports>(conn, society_id, ids, render)),
                "field_control" => Box::pin(rows::<FertilizationControls>(conn, society_id, ids, render)),
                "external_system" => Box::pin(rows::<ExternalSystems>(conn, society_id, ids, render)),
                "external_plot_association" => {
                    Box::pin(rows::<ExternalPlotAssociations>(conn, society_id, ids, render))
                }
                "silobag" => Box::pin(rows::<Silobags>(conn, society_id, ids, render)),
                "silobag_campaign" => Box::pin(rows::<SilobagCampaigns>(conn, society_id, ids, render)),
                "weather_anomaly" => Box::pin(rows::<WeatherAnomalies>(conn, society_id, ids, render)),
                "device" => Box::pin(rows::<Devices>(conn, society_id, ids, render)),
                "device_event" => Box::pin(rows::<DeviceEvents>(conn, society_id, ids, render)),
                "job" => Box::pin(rows::<ObjectiveYieldJobs>(conn, society_id, ids, render)),
                "webhook_endpoint" => Box::pin(rows::<WebhookEndpoints>(conn, society_id, ids, render)),
                _ => Box::pin(std::future::ready(Ok(BTreeMap::new()))),
            }
        }

        /// The records `ids` of resource `R` in `society_id`, rendered, by id.
        async fn rows<R: Resource<Related = ()>>(
            conn: &mut $connection,
            society_id: i64,
            ids: &[i64],
            render: &Render,
        ) -> Result<BTreeMap<i64, String>, sqlx::Error> {
            let mut rendered = BTreeMap::new();
            for chunk in ids.chunks(IDS_PER_QUERY) {
                let sql = records(&R::SPEC, society_id, chunk);
                let rows: Vec<R::Row> = bind_args!(sqlx::query_as::<_, R::Row>(&sql.text), &sql.args)
                    .fetch_all(&mut *conn)
                    .await?;
                for row in rows {
                    let id = R::id(&row);
                    rendered.insert(
                        id,
                        serde_json::to_string(&R::render(row, (), render)).map_err(encode)?,
                    );
                }
            }
            Ok(rendered)
        }

        /// Work orders `ids` with their lines, rendered, by id.
        async fn work_orders(
            conn: &mut $connection,
            society_id: i64,
            ids: &[i64],
            render: &Render,
        ) -> Result<BTreeMap<i64, String>, sqlx::Error> {
            let mut rendered = BTreeMap::new();
            for chunk in ids.chunks(IDS_PER_QUERY) {
                let sql = records(&WorkOrderHeaders::SPEC, society_id, chunk);
                let headers: Vec<_> = bind_args!(
                    sqlx::query_as::<_, crate::resources::work_orders::WorkOrderRow>(&sql.text),
                    &sql.args
                )
                .fetch_all(&mut *conn)
                .await?
                .into_iter()
                .map(|row| WorkOrderHeaders::render(row, (), render))
                .collect();
                let supplies_sql = lines_query(SUPPLY_COLUMNS, "work_order_supplies", "s", society_id, chunk);
                let labours_sql = lines_query(LABOUR_COLUMNS, "work_order_labours", "l", society_id, chunk);
                let supplies: Vec<SupplyRow> = bind_args!(
                    sqlx::query_as::<_, SupplyRow>(&supplies_sql.text),
                    &supplies_sql.args
                )
                .fetch_all(&mut *conn)
                .await?;
                let labours: Vec<LabourRow> = bind_args!(
                    sqlx::query_as::<_, LabourRow>(&labours_sql.text),
                    &labours_sql.args
                )
                .fetch_all(&mut *conn)
                .await?;
                let labour_ids: Vec<i64> = labours.iter().map(|labour| labour.id).collect();
                let mut links = Vec::new();
                for sql in links_queries(society_id, &labour_ids) {
                    links.extend(
                        bind_args!(sqlx::query_as::<_, LabourLinkRow>(&sql.text), &sql.args)
                            .fetch_all(&mut *conn)
                            .await?,
                    );
                }
                for order in assemble(headers, supplies, labours, LabourLinks::new(links), render) {
                    rendered.insert(
                        order.header.local_id,
                        serde_json::to_string(&order).map_err(encode)?,
                    );
                }
            }
            Ok(rendered)
        }
    };
}

/// Pending events rendered at a time: an import's commit has a million, which held at once took 770 MB.
const RENDER_PAGE: usize = 2_000;

/// SQLite: the first [`RENDER_PAGE`] of the committing transaction's events still without a payload (`tx` is 0
/// there: one writer at a time). They are read in the order of index `events_pending`, which drops an event as soon
/// as it has its payload: ordered by id, each page (and the commit of every transaction that wrote no event) scanned
/// the whole feed, and the million events of an import took minutes.
const SQLITE_PENDING: &str = "SELECT e.id, e.society_id, e.resource, e.resource_id, e.occurred_at, s.time_zone \
     FROM events e JOIN societies s ON s.id = e.society_id WHERE e.tx = 0 AND e.payload IS NULL \
     ORDER BY e.society_id, e.resource, e.resource_id LIMIT $1";

/// SQLite: how each statement writing a transaction's own events begins and ends around its rows (six values each),
/// so that an event is written only while no other pause holds.
const SQLITE_OWN_EVENTS: (&str, &str) = (
    "INSERT INTO events (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
     SELECT column1, 0, 0, column2, column3, column4, column5, column6 FROM (VALUES ",
    ") WHERE NOT EXISTS (SELECT 1 FROM events_paused)",
);

/// SQLite: begins a transaction that writes its own events ([`crate::db::BeginWrite::begin_write_own_events`]). Its
/// pause is a row of its own (id 2), which its commit removes; a pause of a seed load or an operator's (id 1) stays.
pub(crate) const SQLITE_BEGIN_OWN_EVENTS: &str =
    "BEGIN IMMEDIATE; INSERT INTO events_paused (id) VALUES (2) ON CONFLICT (id) DO NOTHING";

/// Renders the payload of every event the transaction on `conn` wrote, and writes its `own` events whole.
pub(crate) async fn render_pending_sqlite(conn: &mut SqliteConnection, own: Vec<OwnEvent>) -> Result<(), sqlx::Error> {
    let page = i64::try_from(RENDER_PAGE).unwrap_or(i64::MAX);
    let mut pending: Vec<Pending> = if own.is_empty() {
        sqlx::query_as(SQLITE_PENDING).bind(page).fetch_all(&mut *conn).await?
    } else {
        // One hand-off to sqlx's worker thread: the pause lifted, the events written unless another pause holds,
        // and whatever else is pending (nothing, unless a change came before the pause). A batch of device readings
        // hands over up to 10,000 events, in several statements.
        let values = own
            .into_iter()
            .flat_map(|event| {
                [
                    Arg::Int(event.society_id),
                    Arg::Text(event.resource.to_owned()),
                    Arg::Int(event.id),
                    Arg::Text(event.action.to_owned()),
                    Arg::Int(event.occurred_at),
                    Arg::Text(event.payload),
                ]
            })
            .collect();
        let (before, after) = SQLITE_OWN_EVENTS;
        let mut sql = Sql::default();
        sql.push("DELETE FROM events_paused WHERE id = 2;\n");
        for statement in insert_statements(Dialect::Sqlite, before, after, 6, values) {
            sql.push(&statement.text).push(";\n");
            sql.args.extend(statement.args);
        }
        sql.push(&SQLITE_PENDING.replace("$1", "?"));
        sql.args.push(Arg::Int(page));
        bind_args!(sqlx::query_as(&sql.text), &sql.args)
            .fetch_all(&mut *conn)
            .await?
    };
    while !pending.is_empty() {
        let full = pending.len() >= RENDER_PAGE;
        render_rest_sqlite(conn, pending).await?;
        pending = if full {
            sqlx::query_as(SQLITE_PENDING).bind(page).fetch_all(&mut *conn).await?
        } else {
            Vec::new()
        };
    }
    Ok(())
}

/// SQLite: the payloads stored, [`IDS_PER_QUERY`] events a statement.
async fn store_sqlite(
    conn: &mut SqliteConnection,
    _society_id: i64,
    payloads: Vec<(i64, String)>,
) -> Result<(), sqlx::Error> {
    let mut payloads = payloads.into_iter().peekable();
    while payloads.peek().is_some() {
        let mut sql = Sql::default();
        sql.push("WITH v(id, payload) AS (VALUES ");
        for (index, (id, payload)) in payloads.by_ref().take(IDS_PER_QUERY).enumerate() {
            if index > 0 {
                sql.push(", ");
            }
            sql.row([Arg::Int(id), Arg::Text(payload)]);
        }
        sql.push(") UPDATE events SET payload = v.payload FROM v WHERE events.id = v.id");
        bind_args!(sqlx::query(&sql.text), &sql.args)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

/// An event's position raised to its record's latest event of another transaction, so that the feed shows a
/// record's changes in the order they committed (see the module's doc).
const POSTGRES_POSITION: &str = "GREATEST(e.position, COALESCE((SELECT max(o.position) FROM events o \
     WHERE o.society_id = e.society_id AND o.resource = e.resource AND o.resource_id = e.resource_id \
     AND o.tx <> e.tx), 0))";

/// PostgreSQL: begins a transaction that writes its own events ([`crate::db::BeginWrite::begin_write_own_events`]):
/// capture paused for it, and whether it was paused before (a seed load's or an operator's pause) kept for its commit.
/// Its prepared statements run on their generic plans: PostgreSQL otherwise planned the events' insert
/// ([`POSTGRES_OWN_AND_PENDING`]) afresh on every commit, as a plan for arrays of known length looked cheaper than
/// the generic one. That was 580-630 µs of planning in a work-order create, against 140-160 µs for all its
/// statements now; the transaction's other statements had settled on their generic plans already.
pub(crate) const POSTGRES_BEGIN_OWN_EVENTS: &str = "BEGIN; \
     SELECT set_config('tranquera.events_paused_before', COALESCE(current_setting('tranquera.events_paused', true), ''), true); \
     SELECT set_config('tranquera.events_paused', 'on', true); \
     SELECT set_config('plan_cache_mode', 'force_generic_plan', true)";

/// PostgreSQL: events written whole, with their payloads, from six arrays of their columns (`$1` to `$6`: society,
/// resource, record, action, time, payload), unless capture was paused before a transaction writing its own events
/// began. A created record has no earlier event to follow; any other is placed after its record's latest event (see
/// the module's doc).
const POSTGRES_INSERT_WHOLE: &str = "INSERT INTO events \
     (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
     SELECT w.society_id, CASE WHEN w.action = 'created' THEN x.tx ELSE GREATEST(x.tx, COALESCE((SELECT max(o.position) \
     FROM events o WHERE o.society_id = w.society_id AND o.resource = w.resource AND o.resource_id = w.resource_id), 0)) \
     END, x.tx, w.resource, w.resource_id, w.action, w.occurred_at, w.payload \
     FROM (SELECT pg_current_xact_id()::text::bigint AS tx) x, \
     unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[], $5::bigint[], $6::text[]) \
     AS w(society_id, resource, resource_id, action, occurred_at, payload) \
     WHERE current_setting('tranquera.events_paused_before', true) IS DISTINCT FROM 'on' \
     ORDER BY w.society_id, w.resource, w.resource_id";

/// PostgreSQL: a record's creation written whole as the last statement of a [`Batch`] that runs as one statement in
/// a transaction of its own ([`crate::db::WriteTx::commit_with`]), its other statements being that statement's
/// `WITH` clauses. It pauses capture for that transaction, as [`POSTGRES_BEGIN_OWN_EVENTS`] does: their triggers
/// run when the statement ends, so after the pause. Like [`POSTGRES_INSERT_WHOLE`], it writes nothing when capture
/// was paused before (read in a subquery of its own, which runs before the pause).
const POSTGRES_PAUSE_AND_CREATE: &str = "INSERT INTO events \
     (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
     SELECT ?, x.tx, x.tx, ?, ?, 'created', ?, ? \
     FROM (SELECT pg_current_xact_id()::text::bigint AS tx, b.before, \
     set_config('tranquera.events_paused', 'on', true) AS paused \
     FROM (SELECT current_setting('tranquera.events_paused', true) AS before OFFSET 0) b) x \
     WHERE x.before IS DISTINCT FROM 'on'";

/// Adds the event of a record's creation, written whole, as the last statement of `batch`
/// ([`POSTGRES_PAUSE_AND_CREATE`]).
pub(crate) fn postgres_own_creation_last(batch: &mut Batch, event: OwnEvent) {
    batch.statement().push_with(
        POSTGRES_PAUSE_AND_CREATE,
        &[
            Arg::Int(event.society_id),
            Arg::Text(event.resource.to_owned()),
            Arg::Int(event.id),
            Arg::Int(event.occurred_at),
            Arg::Text(event.payload),
        ],
    );
}

/// PostgreSQL, in one round trip: the transaction's own events written whole ([`POSTGRES_INSERT_WHOLE`]), and the
/// first [`RENDER_PAGE`] (`$7`) of its other events still without a payload (none when it never took an id, i.e.
/// wrote nothing).
static POSTGRES_OWN_AND_PENDING: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "WITH own AS ({POSTGRES_INSERT_WHOLE}) \
         {POSTGRES_PENDING_SELECT} ORDER BY e.society_id, e.resource, e.resource_id LIMIT $7"
    )
});

/// PostgreSQL: the committing transaction's events still without a payload.
const POSTGRES_PENDING_SELECT: &str =
    "SELECT e.id, e.society_id, e.resource, e.resource_id, e.occurred_at, s.time_zone \
     FROM events e JOIN societies s ON s.id = e.society_id \
     WHERE e.payload IS NULL AND e.tx = pg_current_xact_id_if_assigned()::text::bigint";

/// PostgreSQL: the next [`RENDER_PAGE`] of the committing transaction's events still without a payload, after the
/// event of record `($2, $3, $4)`. They are read in the order of index `events_pending`, each page from where the last
/// one stopped: the index keeps the entries of the events given their payload until the transaction ends, so a page
/// read from the start (or ordered by id, as it was) went over every event before it, and a million-row import took
/// nine minutes.
static POSTGRES_PENDING: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    format!(
        "{POSTGRES_PENDING_SELECT} AND (e.society_id, e.resource, e.resource_id) > ($2, $3, $4) \
         ORDER BY e.society_id, e.resource, e.resource_id LIMIT $1"
    )
});

/// Renders the payload of every event the transaction on `conn` wrote, and writes its `own` events whole.
pub(crate) async fn render_pending_postgres(conn: &mut PgConnection, own: Vec<OwnEvent>) -> Result<(), sqlx::Error> {
    let page = i64::try_from(RENDER_PAGE).unwrap_or(i64::MAX);
    let mut pending: Vec<Pending> = sqlx::query_as(&POSTGRES_OWN_AND_PENDING)
        .bind(own.iter().map(|event| event.society_id).collect::<Vec<_>>())
        .bind(own.iter().map(|event| event.resource).collect::<Vec<_>>())
        .bind(own.iter().map(|event| event.id).collect::<Vec<_>>())
        .bind(own.iter().map(|event| event.action).collect::<Vec<_>>())
        .bind(own.iter().map(|event| event.occurred_at).collect::<Vec<_>>())
        .bind(own.into_iter().map(|event| event.payload).collect::<Vec<_>>())
        .bind(page)
        .fetch_all(&mut *conn)
        .await?;
    while let Some(last) = pending.last() {
        let full = pending.len() >= RENDER_PAGE;
        let after = (last.society_id, last.resource.clone(), last.resource_id);
        postgres::render_rest_postgres(conn, pending).await?;
        pending = if full {
            sqlx::query_as(&POSTGRES_PENDING)
                .bind(page)
                .bind(after.0)
                .bind(after.1)
                .bind(after.2)
                .fetch_all(&mut *conn)
                .await?
        } else {
            Vec::new()
        };
    }
    Ok(())
}

async fn store_postgres(
    conn: &mut PgConnection,
    society_id: i64,
    payloads: Vec<(i64, String)>,
) -> Result<(), sqlx::Error> {
    for chunk in payloads.chunks(IDS_PER_QUERY * 2) {
        let (ids, texts): (Vec<i64>, Vec<String>) = chunk.iter().cloned().unzip();
        sqlx::query(&format!(
            "UPDATE events e SET payload = v.payload, position = {POSTGRES_POSITION} \
             FROM unnest($1::bigint[], $2::text[]) AS v(id, payload) WHERE e.society_id = $3 AND e.id = v.id"
        ))
        .bind(ids)
        .bind(texts)
        .bind(society_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}

/// A connection on which a writer can give the records it wrote with capture paused their events itself.
pub(crate) trait WrittenEvents {
    /// Writes the events of the records of `resource` in `society_id` that the transaction on this connection wrote
    /// with capture paused, listed with their action (`created`, `updated` or `deleted`) in table `written` (`id`,
    /// `action`), all stamped `occurred_at`.
    async fn insert_written_events(
        &mut self,
        society_id: i64,
        resource: &'static str,
        written: &str,
        occurred_at: i64,
    ) -> Result<(), sqlx::Error>;
}

/// SQLite's writers never pause capture to list what they wrote (see `import::sql::Statements::own_events`): its row
/// triggers have written every pending event, and the commit renders them.
impl WrittenEvents for SqliteConnection {
    async fn insert_written_events(&mut self, _: i64, _: &'static str, _: &str, _: i64) -> Result<(), sqlx::Error> {
        Ok(())
    }
}

/// PostgreSQL: each event is inserted with its payload, [`RENDER_PAGE`] at a time. An operator's import takes this
/// path: the triggers' pending event, then its payload's update, cost twice a record's own write on a million-row
/// file.
impl WrittenEvents for PgConnection {
    async fn insert_written_events(
        &mut self,
        society_id: i64,
        resource: &'static str,
        written: &str,
        occurred_at: i64,
    ) -> Result<(), sqlx::Error> {
        let (time_zone,): (String,) = sqlx::query_as("SELECT time_zone FROM societies WHERE id = $1")
            .bind(society_id)
            .fetch_one(&mut *self)
            .await?;
        let render = Render::new(time_zone.parse().unwrap_or(chrono_tz::Tz::UTC));
        let next_page = format!("SELECT id, action FROM {written} WHERE id > $1 ORDER BY id LIMIT $2");
        let page_size = i64::try_from(RENDER_PAGE).unwrap_or(i64::MAX);
        let mut after = 0;
        loop {
            let page: Vec<(i64, String)> = sqlx::query_as(&next_page)
                .bind(after)
                .bind(page_size)
                .fetch_all(&mut *self)
                .await?;
            let Some(&(last, _)) = page.last() else { break };
            after = last;
            let full = page.len() >= RENDER_PAGE;
            let (ids, actions): (Vec<i64>, Vec<String>) = page.into_iter().unzip();
            let mut rendered = postgres::records_rendered(self, society_id, resource, &ids, &render).await?;
            let payloads = ids
                .iter()
                .map(|id| match rendered.remove(id) {
                    Some(payload) => Ok(payload),
                    None => serde_json::to_string(&Gone {
                        id: *id,
                        deleted_at: render.at(occurred_at),
                    })
                    .map_err(encode),
                })
                .collect::<Result<Vec<_>, _>>()?;
            let rows = ids.len();
            sqlx::query(POSTGRES_INSERT_WHOLE)
                .bind(vec![society_id; rows])
                .bind(vec![resource; rows])
                .bind(ids)
                .bind(actions)
                .bind(vec![occurred_at; rows])
                .bind(payloads)
                .execute(&mut *self)
                .await?;
            if !full {
                break;
            }
        }
        Ok(())
    }
}

renderer!(render_rest_sqlite, SqliteConnection, store_sqlite);

mod postgres {
    use super::*;

    renderer!(pub(super) render_rest_postgres, PgConnection, store_postgres);
}
