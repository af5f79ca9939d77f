//! Schema migrations: one ordered list of SQL files for both backends, rendered per dialect where DDL differs
//! (identity columns and tenant keys), so the two schemas cannot drift apart. Applied ones are recorded with a
//! checksum; an edited, already-applied migration is refused rather than silently skipped.

use sha2::{Digest, Sha256};

use crate::db::{with_writer, BeginWrite, Db, Dialect};
use crate::{now_millis, StoreError};

/// Every migration, in order. Append only.
const MIGRATIONS: &[(i64, &str, &str)] = &[
    (1, "foundation", include_str!("migrations/0001_foundation.sql")),
    (2, "domain", include_str!("migrations/0002_domain.sql")),
    (3, "idempotency", include_str!("migrations/0003_idempotency.sql")),
    (4, "table_versions", include_str!("migrations/0004_table_versions.sql")),
    (
        5,
        "society_versions",
        include_str!("migrations/0005_society_versions.sql"),
    ),
    (
        6,
        "device_events_by_device",
        include_str!("migrations/0006_device_events_by_device.sql"),
    ),
    (
        7,
        "device_event_references",
        include_str!("migrations/0007_device_event_references.sql"),
    ),
    (
        8,
        "work_order_external_ids",
        include_str!("migrations/0008_work_order_external_ids.sql"),
    ),
    (
        9,
        "campaign_external_codes",
        include_str!("migrations/0009_campaign_external_codes.sql"),
    ),
    (10, "reference_data", include_str!("migrations/0010_reference_data.sql")),
    (
        11,
        "master_data_import",
        include_str!("migrations/0011_master_data_import.sql"),
    ),
    (
        12,
        "device_event_type_updates",
        include_str!("migrations/0012_device_event_type_updates.sql"),
    ),
    (13, "events", include_str!("migrations/0013_events.sql")),
    (14, "webhooks", include_str!("migrations/0014_webhooks.sql")),
    (
        15,
        "event_line_probes",
        include_str!("migrations/0015_event_line_probes.sql"),
    ),
    (16, "housekeeping", include_str!("migrations/0016_housekeeping.sql")),
    (
        17,
        "rate_limit_buckets",
        include_str!("migrations/0017_rate_limit_buckets.sql"),
    ),
    (
        18,
        "console_requests",
        include_str!("migrations/0018_console_requests.sql"),
    ),
    (
        19,
        "events_payload_lz4",
        include_str!("migrations/0019_events_payload_lz4.sql"),
    ),
    (
        20,
        "work_order_line_positions",
        include_str!("migrations/0020_work_order_line_positions.sql"),
    ),
    (
        21,
        "smaller_sqlite_event_triggers",
        include_str!("migrations/0021_smaller_sqlite_event_triggers.sql"),
    ),
    (
        22,
        "live_id_indexes",
        include_str!("migrations/0022_live_id_indexes.sql"),
    ),
    (
        23,
        "webhook_history_ages",
        include_str!("migrations/0023_webhook_history_ages.sql"),
    ),
    (
        24,
        "event_society_check",
        include_str!("migrations/0024_event_society_check.sql"),
    ),
    (
        25,
        "idempotency_leases",
        include_str!("migrations/0025_idempotency_leases.sql"),
    ),
];

/// The function the PostgreSQL triggers of `{track_versions:…}` call: one upsert per statement and society touched,
/// in the slot of the transaction. Migration 5 replaces it ([`POSTGRES_SOCIETY_VERSIONS`]); this is what migration 4
/// made.
const POSTGRES_VERSION_FUNCTION: &str = "CREATE FUNCTION bump_table_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO table_versions (society_id, table_name, slot, version)
    SELECT DISTINCT society_id, TG_TABLE_NAME, pg_current_xact_id()::text::bigint % 16, 1 FROM changed
    ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1;
    RETURN NULL;
END
$$;";

/// PostgreSQL's `society_versions` (see migration 5): made from the counts so far, then bumped along with
/// `table_versions` by the trigger function, which this replaces. Writers wait for the copy, so no count is missed.
const POSTGRES_SOCIETY_VERSIONS: &str = "LOCK TABLE table_versions IN SHARE ROW EXCLUSIVE MODE;
CREATE TABLE society_versions (
    society_id BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (society_id, slot)
);
INSERT INTO society_versions (society_id, slot, version)
SELECT society_id, slot, SUM(version) FROM table_versions GROUP BY society_id, slot;
CREATE OR REPLACE FUNCTION bump_table_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO table_versions (society_id, table_name, slot, version)
    SELECT DISTINCT society_id, TG_TABLE_NAME, pg_current_xact_id()::text::bigint % 16, 1 FROM changed
    ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = table_versions.version + 1;
    INSERT INTO society_versions (society_id, slot, version)
    SELECT DISTINCT society_id, pg_current_xact_id()::text::bigint % 16, 1 FROM changed
    ON CONFLICT (society_id, slot) DO UPDATE SET version = society_versions.version + 1;
    RETURN NULL;
END
$$;";

/// PostgreSQL's checks of device events' references (see migration 7), in place of three foreign keys. A batch
/// locks its distinct devices and event types `FOR KEY SHARE`, as the foreign keys' row checks did, so none can be
/// deleted or rekeyed until it commits; one that is already gone leaves fewer rows locked than asked for.
const POSTGRES_DEVICE_EVENT_REFERENCES: &str = "ALTER TABLE device_events
    DROP CONSTRAINT device_events_society_id_fkey,
    DROP CONSTRAINT device_events_device_event_type_id_fkey,
    DROP CONSTRAINT device_events_society_id_device_id_fkey;
CREATE FUNCTION device_events_check_references() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    devices_named BIGINT;
    devices_locked BIGINT;
    types_named BIGINT;
    types_locked BIGINT;
BEGIN
    SELECT count(*) INTO devices_named FROM (SELECT DISTINCT society_id, device_id FROM changed) named;
    SELECT count(*) INTO devices_locked FROM (
        SELECT 1 FROM devices WHERE (society_id, id) IN (SELECT society_id, device_id FROM changed) FOR KEY SHARE
    ) locked;
    SELECT count(*) INTO types_named FROM (SELECT DISTINCT device_event_type_id FROM changed) named;
    SELECT count(*) INTO types_locked FROM (
        SELECT 1 FROM device_event_types WHERE id IN (SELECT device_event_type_id FROM changed) FOR KEY SHARE
    ) locked;
    IF devices_locked <> devices_named OR types_locked <> types_named THEN
        RAISE EXCEPTION 'a device event names a device of another society, or one or an event type that does not exist'
            USING ERRCODE = 'foreign_key_violation', TABLE = 'device_events';
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER device_events_references_insert AFTER INSERT ON device_events REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION device_events_check_references();
CREATE TRIGGER device_events_references_update AFTER UPDATE ON device_events REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION device_events_check_references();
CREATE FUNCTION device_events_check_referenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'devices' AND EXISTS (
        SELECT 1 FROM gone JOIN device_events e ON e.society_id = gone.society_id AND e.device_id = gone.id
        WHERE NOT EXISTS (SELECT 1 FROM devices d WHERE d.society_id = gone.society_id AND d.id = gone.id)
    ) OR TG_TABLE_NAME = 'device_event_types' AND EXISTS (
        SELECT 1 FROM gone JOIN device_events e ON e.device_event_type_id = gone.id
        WHERE NOT EXISTS (SELECT 1 FROM device_event_types t WHERE t.id = gone.id)
    ) THEN
        RAISE EXCEPTION '% still named by device events', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME;
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER devices_referenced_delete AFTER DELETE ON devices REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION device_events_check_referenced();
CREATE TRIGGER devices_referenced_update AFTER UPDATE ON devices REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION device_events_check_referenced();
CREATE TRIGGER device_event_types_referenced_delete AFTER DELETE ON device_event_types REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION device_events_check_referenced();
CREATE TRIGGER device_event_types_referenced_update AFTER UPDATE ON device_event_types REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION device_events_check_referenced();";

/// Migration 19: events' payloads compressed with lz4 where the server has it. The statement is built at run time,
/// since before PostgreSQL 14 it does not parse.
const POSTGRES_EVENTS_PAYLOAD_LZ4: &str = "DO $$
BEGIN
    IF current_setting('server_version_num')::int >= 140000 THEN
        EXECUTE 'ALTER TABLE events ALTER COLUMN payload SET COMPRESSION lz4';
    END IF;
EXCEPTION WHEN feature_not_supported THEN
    NULL;
END
$$;";

/// Migration 22's indexes: live ids read from an index alone, and plots' areas from the index by establishment. The
/// two indexes it replaces, `device_events_pkey` and `plots_establishment`, keep their names.
const POSTGRES_LIVE_ID_INDEXES: &str = "\
CREATE UNIQUE INDEX device_events_key_with_deleted ON device_events (society_id, id) INCLUDE (deleted_at);
ALTER TABLE device_events DROP CONSTRAINT device_events_pkey,
    ADD CONSTRAINT device_events_pkey PRIMARY KEY USING INDEX device_events_key_with_deleted;
CREATE INDEX plots_live ON plots (society_id, id) WHERE deleted_at IS NULL;
CREATE INDEX campaigns_live ON campaigns (society_id, id) WHERE deleted_at IS NULL;
CREATE INDEX cultivations_live ON cultivations (society_id, id) WHERE deleted_at IS NULL;
CREATE INDEX plots_establishment_with_area ON plots (society_id, establishment_id) INCLUDE (deleted_at, area);
DROP INDEX plots_establishment;
ALTER INDEX plots_establishment_with_area RENAME TO plots_establishment;";

/// Migration 24: PostgreSQL's check of events' societies, in place of their foreign key. A statement's inserted events
/// lock their distinct societies `FOR KEY SHARE`, as the key's row checks did; a society already gone leaves fewer
/// rows locked than named. Only an update that names `society_id` is checked, so filling in payloads costs nothing.
const POSTGRES_EVENT_SOCIETY_CHECK: &str = "ALTER TABLE events DROP CONSTRAINT events_society_id_fkey;
CREATE FUNCTION events_check_society() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    named BIGINT;
    locked BIGINT;
BEGIN
    SELECT count(DISTINCT society_id) INTO named FROM changed;
    SELECT count(*) INTO locked FROM (
        SELECT 1 FROM societies WHERE id IN (SELECT society_id FROM changed) FOR KEY SHARE
    ) found;
    IF locked <> named THEN
        RAISE EXCEPTION 'an event names a society that does not exist'
            USING ERRCODE = 'foreign_key_violation', TABLE = 'events';
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER events_society_insert AFTER INSERT ON events REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION events_check_society();
CREATE FUNCTION events_check_moved_society() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM societies WHERE id = NEW.society_id FOR KEY SHARE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'an event names a society that does not exist'
            USING ERRCODE = 'foreign_key_violation', TABLE = 'events';
    END IF;
    RETURN NEW;
END
$$;
CREATE TRIGGER events_society_update BEFORE UPDATE OF society_id ON events FOR EACH ROW
    WHEN (NEW.society_id IS DISTINCT FROM OLD.society_id) EXECUTE FUNCTION events_check_moved_society();
CREATE FUNCTION societies_check_named_by_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (
        SELECT 1 FROM gone JOIN events e ON e.society_id = gone.id
        WHERE NOT EXISTS (SELECT 1 FROM societies s WHERE s.id = gone.id)
    ) THEN
        RAISE EXCEPTION 'societies still named by events'
            USING ERRCODE = 'foreign_key_violation', TABLE = 'societies';
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER societies_named_by_events_delete AFTER DELETE ON societies REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION societies_check_named_by_events();
CREATE TRIGGER societies_named_by_events_update AFTER UPDATE ON societies REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION societies_check_named_by_events();";

/// Migration 12's replacement of `device_events_check_referenced`: each table's query in a branch of its own, as
/// PL/pgSQL plans an expression whole and `device_event_types`' transition table has no `society_id`.
const POSTGRES_DEVICE_EVENT_REFERENCED_BY_TABLE: &str =
    "CREATE OR REPLACE FUNCTION device_events_check_referenced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_TABLE_NAME = 'devices' THEN
        IF EXISTS (
            SELECT 1 FROM gone JOIN device_events e ON e.society_id = gone.society_id AND e.device_id = gone.id
            WHERE NOT EXISTS (SELECT 1 FROM devices d WHERE d.society_id = gone.society_id AND d.id = gone.id)
        ) THEN
            RAISE EXCEPTION '% still named by device events', TG_TABLE_NAME
                USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME;
        END IF;
    ELSIF EXISTS (
        SELECT 1 FROM gone JOIN device_events e ON e.device_event_type_id = gone.id
        WHERE NOT EXISTS (SELECT 1 FROM device_event_types t WHERE t.id = gone.id)
    ) THEN
        RAISE EXCEPTION '% still named by device events', TG_TABLE_NAME
            USING ERRCODE = 'foreign_key_violation', TABLE = TG_TABLE_NAME;
    END IF;
    RETURN NULL;
END
$$;";

/// The function the PostgreSQL triggers of `{track_reference:…}` call (see migration 10): a statement that changed
/// no row changes no catalogue.
const POSTGRES_REFERENCE_VERSION: &str =
    "CREATE FUNCTION bump_reference_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM changed) THEN
        UPDATE reference_version SET version = version + 1 WHERE id = 1;
    END IF;
    RETURN NULL;
END
$$;";

/// The triggers that count changes to catalogue `table` in `reference_version`.
fn track_reference(table: &str, dialect: Dialect) -> String {
    change_triggers(table, dialect, "reference", "bump_reference_version", |_| {
        "UPDATE reference_version SET version = version + 1 WHERE id = 1;".to_owned()
    })
}

/// The triggers that count changes to `table` in `table_versions`. PostgreSQL counts once per statement (transition
/// tables), so a 1,000-row insert costs one upsert; SQLite has only row triggers.
fn track_versions(table: &str, dialect: Dialect) -> String {
    change_triggers(table, dialect, "version", "bump_table_version", |row| {
        format!(
            "INSERT INTO table_versions (society_id, table_name, slot, version) \
             VALUES ({row}.society_id, '{table}', 0, 1) \
             ON CONFLICT (society_id, table_name, slot) DO UPDATE SET version = version + 1;"
        )
    })
}

/// `{table}_{purpose}_{insert,update,delete}`: after each change of `table`, SQLite runs `sqlite_body(row)` per row
/// (`row` is `NEW` or `OLD`) and PostgreSQL calls `postgres_function` once per statement, its rows in `changed`.
fn change_triggers(
    table: &str,
    dialect: Dialect,
    purpose: &str,
    postgres_function: &str,
    sqlite_body: impl Fn(&str) -> String,
) -> String {
    let mut sql = String::new();
    for (event, row) in [("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")] {
        let name = format!("{table}_{purpose}_{}", event.to_ascii_lowercase());
        sql.push_str(&match dialect {
            Dialect::Sqlite => format!(
                "CREATE TRIGGER {name} AFTER {event} ON {table} BEGIN {} END;\n",
                sqlite_body(row)
            ),
            Dialect::Postgres => format!(
                "CREATE TRIGGER {name} AFTER {event} ON {table} REFERENCING {row} TABLE AS changed \
                 FOR EACH STATEMENT EXECUTE FUNCTION {postgres_function}();\n"
            ),
        });
    }
    sql
}

/// Key of the PostgreSQL advisory lock that serialises migrations of several processes starting at once.
pub(crate) const MIGRATION_LOCK: i64 = 0x7472_616e_7175;

/// Renders a migration's dialect tokens.
pub(crate) fn render(sql: &str, dialect: Dialect) -> String {
    let (id, tenant_key, global_id) = match dialect {
        // The rowid alias keeps SQLite's ids dense and fast; (society_id, id) is unique so children can reference it.
        Dialect::Sqlite => (
            "id INTEGER PRIMARY KEY",
            "UNIQUE (society_id, id)",
            "id INTEGER PRIMARY KEY",
        ),
        // Keys lead with society_id so tenant tables can be distributed by society (Citus) without redesign.
        Dialect::Postgres => (
            "id BIGINT GENERATED BY DEFAULT AS IDENTITY",
            "PRIMARY KEY (society_id, id)",
            "id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
        ),
    };
    let (event_id, events_key) = match dialect {
        // AUTOINCREMENT: an id is never reused, even after retention has emptied the table.
        Dialect::Sqlite => ("id INTEGER PRIMARY KEY AUTOINCREMENT", ""),
        Dialect::Postgres => (
            "id BIGINT GENERATED ALWAYS AS IDENTITY",
            ", PRIMARY KEY (society_id, id)",
        ),
    };
    let mut rendered = sql
        .replace("{event_id}", event_id)
        .replace("{events_key}", events_key)
        .replace("{id}", id)
        .replace("{tenant_key}", tenant_key)
        .replace("{global_id}", global_id);
    for (token, postgres) in [
        ("{track_versions_setup}", POSTGRES_VERSION_FUNCTION),
        ("{postgres_society_versions}", POSTGRES_SOCIETY_VERSIONS),
        ("{postgres_device_event_references}", POSTGRES_DEVICE_EVENT_REFERENCES),
        ("{postgres_reference_version}", POSTGRES_REFERENCE_VERSION),
        (
            "{postgres_device_event_referenced_by_table}",
            POSTGRES_DEVICE_EVENT_REFERENCED_BY_TABLE,
        ),
        ("{postgres_events_payload_lz4}", POSTGRES_EVENTS_PAYLOAD_LZ4),
        ("{postgres_live_id_indexes}", POSTGRES_LIVE_ID_INDEXES),
        ("{postgres_event_society_check}", POSTGRES_EVENT_SOCIETY_CHECK),
    ] {
        let replacement = match dialect {
            Dialect::Sqlite => "",
            Dialect::Postgres => postgres,
        };
        rendered = rendered.replace(token, replacement);
    }
    rendered
        .lines()
        .map(|line| {
            let tracked = |prefix: &str| line.strip_prefix(prefix).and_then(|rest| rest.strip_suffix('}'));
            if let Some(table) = tracked("{track_versions:") {
                track_versions(table, dialect)
            } else if let Some(table) = tracked("{track_reference:") {
                track_reference(table, dialect)
            } else if let Some(table) = tracked("{track_events:") {
                crate::events::track_events(table, dialect)
            } else if let Some(table) = tracked("{track_events_again:") {
                crate::events::track_events_again(table, dialect)
            } else if let Some(table) = tracked("{sqlite_track_events_again:") {
                match dialect {
                    Dialect::Sqlite => crate::events::track_events_again(table, dialect),
                    Dialect::Postgres => String::new(),
                }
            } else {
                format!("{line}\n")
            }
        })
        .collect()
}

fn checksum(sql: &str) -> String {
    crate::hex(&Sha256::digest(sql.as_bytes()))
}

/// Applies every migration not yet applied; returns how many it applied.
pub(crate) async fn run(db: &Db) -> Result<usize, StoreError> {
    let dialect = db.dialect();
    with_writer!(db, pool => {
        let mut tx = pool.begin_write().await?;
        if dialect == Dialect::Postgres {
            sqlx::query("SELECT pg_advisory_xact_lock($1)").bind(MIGRATION_LOCK).execute(&mut *tx).await?;
        }
        sqlx::raw_sql(
            "CREATE TABLE IF NOT EXISTS schema_migrations (version BIGINT PRIMARY KEY, name TEXT NOT NULL, \
             checksum TEXT NOT NULL, applied_at BIGINT NOT NULL)",
        )
        .execute(&mut *tx)
        .await?;
        let applied: Vec<(i64, String)> =
            sqlx::query_as("SELECT version, checksum FROM schema_migrations ORDER BY version").fetch_all(&mut *tx).await?;
        let mut count = 0;
        for (version, name, sql) in MIGRATIONS {
            let sum = checksum(sql);
            match applied.iter().find(|(v, _)| v == version) {
                Some((_, recorded)) if *recorded == sum => continue,
                Some(_) => {
                    return Err(StoreError::Config(format!(
                        "migration {version} ({name}) was changed after it was applied; add a new migration instead"
                    )))
                }
                None => {}
            }
            sqlx::raw_sql(&render(sql, dialect)).execute(&mut *tx).await?;
            sqlx::query("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES ($1, $2, $3, $4)")
                .bind(version)
                .bind(name)
                .bind(sum)
                .bind(now_millis())
                .execute(&mut *tx)
                .await?;
            tracing::info!(version, name, "applied migration");
            count += 1;
        }
        tx.commit().await?;
        Ok(count)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_token_survives_rendering() {
        for (_, _, sql) in MIGRATIONS {
            for dialect in [Dialect::Sqlite, Dialect::Postgres] {
                let rendered = render(sql, dialect);
                assert!(
                    !rendered.contains('{'),
                    "unrendered token left in migration for {dialect:?}"
                );
            }
        }
    }

    /// Society tables that are not API data: credentials, stored answers and the change feed. Every other table with a
    /// `society_id` must count its changes, or lists would serve stale page indexes and ETags.
    const UNTRACKED: &[&str] = &[
        "auth_tokens",
        "api_keys",
        "idempotency_keys",
        "table_versions",
        "society_versions",
        "events",
        // Webhook bookkeeping: changes at every delivery, and no list is served from it.
        "webhook_progress",
        "webhook_deliveries",
        "webhook_attempts",
        // The console's ring of recent requests: a debugging aid, not API data.
        "console_requests",
    ];

    /// The tables with a `society_id`, and every trigger, of a freshly migrated SQLite database.
    async fn society_tables_and_triggers(name: &str) -> (Vec<String>, Vec<String>) {
        let path = std::env::temp_dir().join(format!("{name}-{}.sqlite", std::process::id()));
        let url = format!("sqlite://{}", path.display());
        let db = Db::connect(&url, &crate::PoolOptions::default()).await.expect("open");
        run(&db).await.expect("migrate");
        let found = with_writer!(&db, pool => {
            let tables = sqlx::query_scalar(
                "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' \
                 AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'society_id')",
            )
            .fetch_all(pool)
            .await
            .expect("tables");
            let triggers = sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'trigger'")
                .fetch_all(pool)
                .await
                .expect("triggers");
            (tables, triggers)
        });
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        found
    }

    #[tokio::test]
    async fn every_society_table_counts_its_changes() {
        let (society_tables, triggers) = society_tables_and_triggers("migrate-versions").await;
        assert!(society_tables.len() > 30, "{society_tables:?}");
        for table in society_tables
            .iter()
            .filter(|table| !UNTRACKED.contains(&table.as_str()))
        {
            for event in ["insert", "update", "delete"] {
                let trigger = format!("{table}_version_{event}");
                assert!(
                    triggers.contains(&trigger),
                    "{table} has no {trigger}: add a {{track_versions:{table}}} line"
                );
            }
        }
    }

    /// Society tables whose changes are not events, and why: credentials, bookkeeping, the feed itself, and rows no
    /// read answers (a weather sample is read only through its anomalies). Every other table with a `society_id` must
    /// have an `EVENT_SOURCES` entry and its triggers, or its changes would never reach the feed.
    const NO_EVENTS: &[&str] = &[
        "auth_tokens",
        "api_keys",
        "idempotency_keys",
        "table_versions",
        "society_versions",
        "users",
        "weather_samples",
        "events",
        // Webhook bookkeeping: an endpoint's cursor and failures, its deliveries and their attempts.
        "webhook_progress",
        "webhook_deliveries",
        "webhook_attempts",
        // The console's ring of recent requests: a debugging aid, not API data.
        "console_requests",
    ];

    #[tokio::test]
    async fn every_society_table_has_events() {
        let (society_tables, triggers) = society_tables_and_triggers("migrate-events").await;
        for table in society_tables
            .iter()
            .filter(|table| !NO_EVENTS.contains(&table.as_str()))
        {
            assert!(
                crate::events::EVENT_SOURCES
                    .iter()
                    .any(|source| source.table == table.as_str()),
                "{table} has no EVENT_SOURCES entry (store/src/events/sources.rs)"
            );
            for operation in ["insert", "update", "delete"] {
                let trigger = format!("{table}_events_{operation}");
                assert!(
                    triggers.contains(&trigger),
                    "{table} has no {trigger}: add a {{track_events:{table}}} line"
                );
            }
        }
        for source in crate::events::EVENT_SOURCES {
            assert!(
                domain::events::RESOURCES
                    .iter()
                    .any(|(resource, _)| *resource == source.resource),
                "{} is not a resource of domain::events::RESOURCES",
                source.resource
            );
        }
    }

    #[test]
    fn versions_are_strictly_increasing() {
        assert!(MIGRATIONS.windows(2).all(|pair| pair[0].0 < pair[1].0));
    }
}
