//! Which table's changes are events of which resource, and the triggers that write them: one declaration per
//! table, rendered into a migration by a `{track_events:<table>}` line, so a change cannot be committed without its
//! event, whatever path writes it (API, job, operator import or `admin` command).

use crate::db::Dialect;

/// How the changes of one table become events. In `record` and `action`, `{new}` is the changed row (the deleted
/// one for a deletion) and `{old}` the row before an update.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventSource {
    /// The table.
    pub table: &'static str,
    /// The resource its changes are events of (see `domain::events::RESOURCES`).
    pub resource: &'static str,
    /// The record an event names: the row's own id, or its parent's for a line or a link.
    pub record: &'static str,
    /// The action of an update; NULL writes no event. `None`: a line or a link, whose every change updates its parent.
    pub update: Option<&'static str>,
    /// Whether `record` or `update` can be NULL, so that a change writes no event: a link whose labour went with it,
    /// a job's lease. SQLite's triggers check only these, since every check is parsed again by each connection.
    pub nullable: bool,
}

/// A record's own table: an update that sets `deleted_at` deletes it, any other updates it.
const LOGICAL_DELETION: Option<&str> =
    Some("CASE WHEN {new}.deleted_at IS NOT NULL AND {old}.deleted_at IS NULL THEN 'deleted' ELSE 'updated' END");

const fn own(table: &'static str, resource: &'static str) -> EventSource {
    EventSource {
        table,
        resource,
        record: "{new}.id",
        update: LOGICAL_DELETION,
        nullable: false,
    }
}

const fn part_of(table: &'static str, resource: &'static str, record: &'static str) -> EventSource {
    EventSource {
        table,
        resource,
        record,
        update: None,
        nullable: false,
    }
}

/// A labour's link rows name the labour; their event is the work order's, and none when the labour is deleted with
/// them (its own event covers the order).
const fn link_of_labour(table: &'static str) -> EventSource {
    EventSource {
        table,
        resource: "work_order",
        record: "(SELECT l.work_order_id FROM work_order_labours l \
                 WHERE l.society_id = {new}.society_id AND l.id = {new}.labour_id)",
        update: None,
        nullable: true,
    }
}

/// Every table whose changes are events. Society tables that are not here are listed, with the reason, in the
/// migration test `every_society_table_has_events`.
pub(crate) const EVENT_SOURCES: &[EventSource] = &[
    own("farmers", "farmer"),
    own("establishments", "establishment"),
    own("plots", "plot"),
    part_of("plot_tags", "plot", "{new}.plot_id"),
    own("tags", "tag"),
    own("master_campaigns", "master_campaign"),
    own("campaigns", "campaign"),
    own("cultivations", "cultivation"),
    own("contractors", "contractor"),
    own("machines", "machine"),
    own("applicators", "applicator"),
    part_of("applicator_machines", "applicator", "{new}.applicator_id"),
    own("warehouses", "warehouse"),
    own("work_orders", "work_order"),
    part_of("work_order_supplies", "work_order", "{new}.work_order_id"),
    part_of("work_order_labours", "work_order", "{new}.work_order_id"),
    link_of_labour("work_order_labour_contractors"),
    link_of_labour("work_order_labour_machines"),
    link_of_labour("work_order_labour_applicators"),
    own("scoutings", "scouting"),
    own("scouting_measures", "scouting_measure"),
    own("waypoints", "waypoint"),
    own("progress", "progress"),
    own("field_controls", "field_control"),
    own("external_systems", "external_system"),
    own("external_plot_associations", "external_plot_association"),
    own("silobags", "silobag"),
    own("silobag_campaigns", "silobag_campaign"),
    own("weather_anomalies", "weather_anomaly"),
    own("devices", "device"),
    own("device_events", "device_event"),
    // A job's lease and heartbeat are not news: an event when its status or progress moves.
    EventSource {
        table: "jobs",
        resource: "job",
        record: "{new}.id",
        update: Some(
            "CASE WHEN {new}.status <> {old}.status AND {new}.status IN ('finished', 'failed') THEN {new}.status \
             WHEN {new}.status <> {old}.status OR {new}.processed_items <> {old}.processed_items THEN 'updated' END",
        ),
        nullable: true,
    },
    // Deliveries and their bookkeeping live in other tables: an endpoint's events are its owner's edits, and its
    // disabling after days of failed deliveries.
    EventSource {
        table: "webhook_endpoints",
        resource: "webhook_endpoint",
        record: "{new}.id",
        update: Some(
            "CASE WHEN {new}.state = 'disabled' AND {old}.state <> 'disabled' THEN 'disabled' \
             WHEN {new}.deleted_at IS NOT NULL AND {old}.deleted_at IS NULL THEN 'deleted' ELSE 'updated' END",
        ),
        nullable: false,
    },
];

/// The resource of `table` when its rows are records of their own (not a line or a link of another record).
pub(crate) fn own_resource(table: &str) -> Option<&'static str> {
    source(table)
        .filter(|source| source.record == "{new}.id")
        .map(|source| source.resource)
}

/// The declaration of `table`.
pub(crate) fn source(table: &str) -> Option<&'static EventSource> {
    EVENT_SOURCES.iter().find(|source| source.table == table)
}

/// How two actions on one record within one transaction combine: a deletion wins, then a creation, then anything
/// more specific than an update (`finished`, `disabled`), alphabetically the smaller. On PostgreSQL a pending event
/// the combination leaves as it is is not rewritten: a work order's lines would otherwise rewrite its event once per
/// statement, which measured at about a tenth of a create. SQLite's line triggers skip a record with a pending event
/// before they write, so the same condition there would only be parsed by every connection.
const COMBINE_POSTGRES: &str =
    "CASE WHEN e.action = 'deleted' OR excluded.action = 'deleted' THEN 'deleted' ELSE LEAST(e.action, excluded.action) END";
const COMBINE_SQLITE: &str =
    "CASE WHEN action = 'deleted' OR excluded.action = 'deleted' THEN 'deleted' ELSE min(action, excluded.action) END";

/// The conflict target: one pending event per transaction, society, resource and record.
const PENDING: &str = "ON CONFLICT (tx, society_id, resource, resource_id) WHERE payload IS NULL";

/// SQLite's and PostgreSQL's clocks in epoch milliseconds.
const SQLITE_NOW: &str = "CAST(unixepoch('subsec') * 1000 AS INTEGER)";
const POSTGRES_NOW: &str = "CAST(extract(epoch FROM clock_timestamp()) * 1000 AS BIGINT)";

/// The triggers that write the events of `table`'s changes (see [`EVENT_SOURCES`]). PostgreSQL writes once per
/// statement from its transition tables, grouping rows of one record; SQLite has only row triggers. Capture is
/// skipped while a seed load pauses it (`events_paused`, `tranquera.events_paused`).
pub(crate) fn track_events(table: &str, dialect: Dialect) -> String {
    let Some(source) = source(table) else {
        return format!("-- {table} has no EVENT_SOURCES entry: this fails the migration\nSELECT no_event_source;\n");
    };
    let changes = match source.update {
        Some(update) => [("INSERT", "'created'"), ("UPDATE", update), ("DELETE", "'deleted'")],
        None => [
            ("INSERT", "'updated'"),
            ("UPDATE", "'updated'"),
            ("DELETE", "'updated'"),
        ],
    };
    let mut sql = String::new();
    for (operation, action) in changes {
        let name = format!("{table}_events_{}", operation.to_ascii_lowercase());
        match dialect {
            Dialect::Sqlite => {
                let row = if operation == "DELETE" { "OLD" } else { "NEW" };
                let fill = |text: &str| text.replace("{new}", row).replace("{old}", "OLD");
                // A line's or a link's `updated` never changes its record's pending event (`updated` sorts after every
                // other action), so its trigger only looks for one: a work order's 25 lines and links no longer each
                // go through an `INSERT … ON CONFLICT` that changes nothing (creates per core +5 %).
                let pending = match source.update {
                    Some(_) => String::new(),
                    None => format!(
                        " AND NOT EXISTS (SELECT 1 FROM events WHERE tx = 0 AND payload IS NULL \
                         AND society_id = {row}.society_id AND resource = '{resource}' AND resource_id = {record})",
                        resource = source.resource,
                        record = fill(source.record),
                    ),
                };
                let record = fill(source.record);
                let action = fill(action);
                let present = if source.nullable {
                    format!(" AND {record} IS NOT NULL AND {action} IS NOT NULL")
                } else {
                    String::new()
                };
                // Every connection parses every trigger, a read-only one too, so this is the smallest form that does
                // the work: the conditions sit in `WHEN`, the row is plain `VALUES`, and a combination that leaves a
                // pending event as it is rewrites it in place (a line's trigger never gets that far, see `pending`).
                sql.push_str(&format!(
                    "CREATE TRIGGER {name} AFTER {operation} ON {table} WHEN NOT EXISTS (SELECT 1 FROM events_paused)\
                     {present}{pending} BEGIN INSERT INTO events \
                     (society_id, position, tx, resource, resource_id, action, occurred_at) \
                     VALUES ({row}.society_id, 0, 0, '{resource}', {record}, {action}, {SQLITE_NOW}) \
                     {PENDING} DO UPDATE SET action = {COMBINE_SQLITE}; END;\n",
                    resource = source.resource,
                ));
            }
            Dialect::Postgres => {
                let fill = |text: &str| text.replace("{new}", "r").replace("{old}", "o");
                let (transition, join) = if operation == "UPDATE" && action.contains("{old}") {
                    (
                        "OLD TABLE AS before NEW TABLE AS changed",
                        " JOIN before o ON o.society_id = r.society_id AND o.id = r.id",
                    )
                } else if operation == "DELETE" {
                    ("OLD TABLE AS changed", "")
                } else {
                    ("NEW TABLE AS changed", "")
                };
                sql.push_str(&format!(
                    "CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n\
                     IF current_setting('tranquera.events_paused', true) = 'on' THEN RETURN NULL; END IF;\n\
                     INSERT INTO events AS e (society_id, position, tx, resource, resource_id, action, occurred_at)\n\
                     SELECT society_id, pg_current_xact_id()::text::bigint, pg_current_xact_id()::text::bigint, \
                     '{resource}', record, CASE WHEN bool_or(action = 'deleted') THEN 'deleted' ELSE min(action) END, \
                     {POSTGRES_NOW}\n\
                     FROM (SELECT r.society_id, {record} AS record, {action} AS action FROM changed r{join}) c\n\
                     WHERE record IS NOT NULL AND action IS NOT NULL GROUP BY society_id, record\n\
                     {PENDING} DO UPDATE SET action = {COMBINE_POSTGRES} \
                     WHERE e.action IS DISTINCT FROM {COMBINE_POSTGRES};\n\
                     RETURN NULL;\nEND\n$$;\n\
                     CREATE TRIGGER {name} AFTER {operation} ON {table} REFERENCING {transition} \
                     FOR EACH STATEMENT EXECUTE FUNCTION {name}();\n",
                    resource = source.resource,
                    record = fill(source.record),
                    action = fill(action),
                ));
            }
        }
    }
    sql
}

/// The triggers of `table` made again as [`track_events`] now writes them, for a migration after the one that first
/// made them (`{track_events_again:<table>}`).
pub(crate) fn track_events_again(table: &str, dialect: Dialect) -> String {
    let mut sql = String::new();
    for operation in ["insert", "update", "delete"] {
        let name = format!("{table}_events_{operation}");
        sql.push_str(&match dialect {
            Dialect::Sqlite => format!("DROP TRIGGER IF EXISTS {name};\n"),
            Dialect::Postgres => {
                format!("DROP TRIGGER IF EXISTS {name} ON {table};\nDROP FUNCTION IF EXISTS {name}();\n")
            }
        });
    }
    sql + &track_events(table, dialect)
}

/// The statement that pauses capture for the rest of a seed load's transaction, and the one that resumes it before
/// that commits (SQLite's pause is a row, which must not outlive the transaction).
pub(crate) fn pause_capture(dialect: Dialect) -> (&'static str, &'static str) {
    match dialect {
        Dialect::Sqlite => (
            "INSERT INTO events_paused (id) VALUES (1) ON CONFLICT (id) DO NOTHING",
            "DELETE FROM events_paused",
        ),
        Dialect::Postgres => (
            "SELECT set_config('tranquera.events_paused', 'on', true)",
            "SELECT set_config('tranquera.events_paused', 'off', true)",
        ),
    }
}
