//! Schema migrations: one ordered list of SQL files for both backends, rendered per dialect where DDL differs
//! (identity columns and tenant keys), so the two schemas cannot drift apart. Applied ones are recorded with a
//! checksum; an edited, already-applied migration is refused rather than silently skipped.

use sha2::{Digest, Sha256};

use crate::citus::Placement;
use crate::db::{with_writer, Db};
use crate::sql::Dialect;
use crate::write::BeginWrite;
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
    (
        26,
        "writes_record_their_changes",
        include_str!("migrations/0026_writes_record_their_changes.sql"),
    ),
    (27, "society_feeds", include_str!("migrations/0027_society_feeds.sql")),
    (
        28,
        "claims_by_society",
        include_str!("migrations/0028_claims_by_society.sql"),
    ),
    (29, "import_staging", include_str!("migrations/0029_import_staging.sql")),
    (
        30,
        "webhook_redelivery",
        include_str!("migrations/0030_webhook_redelivery.sql"),
    ),
];

/// PostgreSQL's `society_versions` (see migration 5), made from the counts so far.
const POSTGRES_SOCIETY_VERSIONS: &str = "CREATE TABLE society_versions (
    society_id BIGINT NOT NULL,
    slot BIGINT NOT NULL,
    version BIGINT NOT NULL,
    PRIMARY KEY (society_id, slot)
);
INSERT INTO society_versions (society_id, slot, version)
SELECT society_id, slot, SUM(version) FROM table_versions GROUP BY society_id, slot;";

/// What migration 7 did on PostgreSQL that outlives migration 26: it dropped device events' foreign keys, which
/// statement triggers replaced until migration 26 made them foreign keys again.
const POSTGRES_DEVICE_EVENT_REFERENCES: &str = "ALTER TABLE device_events
    DROP CONSTRAINT device_events_society_id_fkey,
    DROP CONSTRAINT device_events_device_event_type_id_fkey,
    DROP CONSTRAINT device_events_society_id_device_id_fkey;";

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

/// What migration 24 did on PostgreSQL that outlives migration 26: it dropped the events' foreign key to their
/// society, which statement triggers replaced until migration 26 made it a foreign key again.
const POSTGRES_EVENT_SOCIETY_CHECK: &str = "ALTER TABLE events DROP CONSTRAINT events_society_id_fkey;";

/// PostgreSQL's references that statement triggers checked until migration 26, foreign keys again: a device event's
/// society, device and event type, and an event's society.
const POSTGRES_FOREIGN_KEYS: &str = "ALTER TABLE device_events
    ADD CONSTRAINT device_events_society_id_fkey FOREIGN KEY (society_id) REFERENCES societies (id),
    ADD CONSTRAINT device_events_device_event_type_id_fkey FOREIGN KEY (device_event_type_id)
        REFERENCES device_event_types (id),
    ADD CONSTRAINT device_events_society_id_device_id_fkey FOREIGN KEY (society_id, device_id)
        REFERENCES devices (society_id, id);
ALTER TABLE events ADD CONSTRAINT events_society_id_fkey FOREIGN KEY (society_id) REFERENCES societies (id);";

/// Migration 27 on PostgreSQL: each society's feed starts at the next transaction id, above every position and
/// cursor handed out before, once the writers in flight have committed their events.
const POSTGRES_FEED_HEADS: &str = "LOCK TABLE events IN SHARE MODE;
UPDATE society_feeds SET head = pg_snapshot_xmax(pg_current_snapshot())::text::bigint;";

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
        .replace("{global_id}", global_id)
        // Tables whose rows never outlive a transaction (imports' staging) skip PostgreSQL's write-ahead log.
        .replace(
            "{unlogged}",
            match dialect {
                Dialect::Sqlite => "",
                Dialect::Postgres => "UNLOGGED ",
            },
        )
        .replace(
            "{random_identity}",
            match dialect {
                Dialect::Sqlite => "lower(hex(randomblob(8)))",
                Dialect::Postgres => "substr(md5(random()::text || clock_timestamp()::text), 1, 16)",
            },
        );
    for (token, postgres) in [
        ("{postgres_society_versions}", POSTGRES_SOCIETY_VERSIONS),
        ("{postgres_device_event_references}", POSTGRES_DEVICE_EVENT_REFERENCES),
        ("{postgres_events_payload_lz4}", POSTGRES_EVENTS_PAYLOAD_LZ4),
        ("{postgres_live_id_indexes}", POSTGRES_LIVE_ID_INDEXES),
        ("{postgres_event_society_check}", POSTGRES_EVENT_SOCIETY_CHECK),
        ("{postgres_foreign_keys}", POSTGRES_FOREIGN_KEYS),
        ("{postgres_feed_heads}", POSTGRES_FEED_HEADS),
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
            if TRIGGER_TOKENS.iter().any(|token| line.starts_with(token)) {
                String::new()
            } else if line == "{drop_triggers}" {
                drop_triggers(dialect)
            } else {
                format!("{line}\n")
            }
        })
        .collect()
}

/// The lines by which migrations before 26 made triggers (`{track_events:farmers}`, …). Changes, events and counters
/// are written by the write transaction now, so these lines make nothing in a fresh database, and migration 26
/// drops what they made in an older one.
const TRIGGER_TOKENS: &[&str] = &[
    "{track_versions_setup}",
    "{postgres_reference_version}",
    "{postgres_device_event_referenced_by_table}",
    "{track_versions:",
    "{track_reference:",
    "{track_events:",
    "{track_events_again:",
    "{sqlite_track_events_again:",
];

/// Statements that drop every trigger and trigger function the migrations before 26 made. PostgreSQL lists them in
/// its catalogue; SQLite's are named after each trigger line of those migrations (`{table}_events_insert`, …), and
/// dropped if they exist.
fn drop_triggers(dialect: Dialect) -> String {
    match dialect {
        Dialect::Postgres => "DO $$\nDECLARE found record;\nBEGIN\n\
             FOR found IN SELECT t.tgname, t.tgrelid::regclass AS relation FROM pg_trigger t \
             JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace \
             WHERE NOT t.tgisinternal AND n.nspname = current_schema() LOOP\n\
             EXECUTE format('DROP TRIGGER %I ON %s', found.tgname, found.relation);\nEND LOOP;\n\
             FOR found IN SELECT p.oid::regprocedure AS function FROM pg_proc p \
             JOIN pg_namespace n ON n.oid = p.pronamespace \
             WHERE n.nspname = current_schema() AND p.prorettype = 'trigger'::regtype LOOP\n\
             EXECUTE format('DROP FUNCTION %s', found.function);\nEND LOOP;\nEND\n$$;\n"
            .to_owned(),
        Dialect::Sqlite => {
            let mut sql = String::new();
            for (_, _, migration) in MIGRATIONS {
                for line in migration.lines() {
                    let named = [("{track_versions:", "version"), ("{track_reference:", "reference")]
                        .into_iter()
                        .chain(TRIGGER_TOKENS[5..].iter().map(|token| (*token, "events")))
                        .find_map(|(token, purpose)| {
                            let table = line.strip_prefix(token)?.strip_suffix('}')?;
                            Some((table, purpose))
                        });
                    if let Some((table, purpose)) = named {
                        for operation in ["insert", "update", "delete"] {
                            sql.push_str(&format!("DROP TRIGGER IF EXISTS {table}_{purpose}_{operation};\n"));
                        }
                    }
                }
            }
            sql
        }
    }
}

fn checksum(sql: &str) -> String {
    crate::hex(&Sha256::digest(sql.as_bytes()))
}

/// Applies every migration not yet applied, then places new tables on the Citus cluster when the database has one;
/// returns how many migrations it applied, and how the tables lie on Citus.
pub(crate) async fn run(db: &Db) -> Result<(usize, Option<Placement>), StoreError> {
    let dialect = db.dialect();
    let count = with_writer!(db, pool => {
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
        if dialect == Dialect::Postgres {
            // On Citus, DDL over one connection per node, so that new shards and their keys to reference tables may
            // be made in one transaction; on a PostgreSQL without Citus the setting is an unread placeholder.
            sqlx::query("SELECT set_config('citus.multi_shard_modify_mode', 'sequential', true)")
                .execute(&mut *tx)
                .await?;
        }
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
            // Each step at debug: `migrate` and `serve` report the run in one line, and the demo opens with its banner.
            tracing::debug!(version, name, "applied migration");
            count += 1;
        }
        tx.commit().await?;
        Ok::<_, StoreError>(count)
    })?;
    let placement = match db {
        Db::Postgres { pool, .. } => crate::citus::place(pool, MIGRATION_LOCK).await?,
        Db::Sqlite { .. } => None,
    };
    Ok((count, placement))
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
    async fn no_trigger_is_made() {
        let (society_tables, triggers) = society_tables_and_triggers("migrate-triggers").await;
        assert!(society_tables.len() > 30, "{society_tables:?}");
        assert!(triggers.is_empty(), "{triggers:?}");
    }

    #[test]
    fn the_triggers_of_older_databases_are_dropped_by_name() {
        let drops = drop_triggers(Dialect::Sqlite);
        for name in [
            "farmers_events_insert",
            "work_order_labours_events_delete",
            "jobs_version_update",
            "users_version_insert",
            "species_reference_delete",
        ] {
            assert!(drops.contains(&format!("DROP TRIGGER IF EXISTS {name};")), "{name}");
        }
        assert!(drop_triggers(Dialect::Postgres).contains("DROP TRIGGER"));
    }

    /// Society tables whose changes are not events, and why: credentials, bookkeeping, the feed itself, and rows no
    /// read answers (a weather sample is read only through its anomalies). Every other table with a `society_id` must
    /// have an `EVENT_SOURCES` entry, or its changes would never reach the feed.
    const NO_EVENTS: &[&str] = &[
        "auth_tokens",
        "api_keys",
        "idempotency_keys",
        "table_versions",
        "society_versions",
        "users",
        "weather_samples",
        "events",
        "society_feeds",
        // Webhook bookkeeping: an endpoint's cursor and failures, its deliveries and their attempts.
        "webhook_progress",
        "webhook_deliveries",
        "webhook_attempts",
        // The console's ring of recent requests: a debugging aid, not API data.
        "console_requests",
    ];

    #[tokio::test]
    async fn every_society_table_has_events() {
        let (society_tables, _) = society_tables_and_triggers("migrate-events").await;
        for table in society_tables
            .iter()
            .filter(|table| !NO_EVENTS.contains(&table.as_str()))
            // An import's staged rows, gone when its transaction ends: its records' events are the import's.
            .filter(|table| !table.starts_with("import_staging_"))
        {
            assert!(
                crate::resources::events::source(table).is_some(),
                "{table} has no EVENT_SOURCES entry (store/src/resources/events.rs)"
            );
        }
    }

    #[test]
    fn versions_are_strictly_increasing() {
        assert!(MIGRATIONS.windows(2).all(|pair| pair[0].0 < pair[1].0));
    }
}
