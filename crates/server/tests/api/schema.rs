//! The migrated schema's keys are those Citus needs to distribute it by society: every society table (one with a
//! `society_id` column, but the reference tables) keeps each society's rows apart in its primary key, its unique
//! constraints and indexes, and its foreign keys to other society tables, all of which include `society_id`. On
//! PostgreSQL only: it reads
//! `pg_catalog`, and Citus distributes a PostgreSQL schema. (That no table has a trigger is checked on both
//! backends, in `events`.)

mod postgres {
    use sqlx::Connection;

    use crate::helpers::{Backend, TestApp};

    /// The tables with a `society_id` column that are not distributed by it, and why.
    const REFERENCE_TABLES: &[(&str, &str)] = &[
        (
            "users",
            "logged in to by e-mail, which is unique across societies: a reference table on Citus",
        ),
        (
            "societies",
            "read with its society's rows by every request, on whichever worker holds them: a reference table on Citus",
        ),
    ];

    /// Each key that does not include its table's distribution column, as `table: what`, for the distributed tables:
    /// those with a `society_id` column but the reference tables.
    const OFFENDING_KEYS: &str = "
        WITH distributed AS (
            SELECT c.oid, c.relname, a.attnum AS key, a.attname AS key_name
            FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = c.oid AND NOT a.attisdropped
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
              AND a.attname = 'society_id' AND c.relname <> ALL($1)
        )
        SELECT format('%s: no primary key', d.relname)
        FROM distributed d
        WHERE NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = d.oid AND k.contype = 'p')
        UNION ALL
        SELECT format('%s: %s %s does not include %s', d.relname,
                      CASE k.contype WHEN 'p' THEN 'primary key' WHEN 'u' THEN 'unique constraint'
                                     ELSE 'unique index' END,
                      i.relname, d.key_name)
        FROM distributed d
        JOIN pg_index x ON x.indrelid = d.oid AND x.indisunique
        JOIN pg_class i ON i.oid = x.indexrelid
        LEFT JOIN pg_constraint k ON k.conindid = x.indexrelid AND k.conrelid = d.oid
        WHERE NOT d.key = ANY ((x.indkey::int2[])[0:x.indnkeyatts - 1])
        UNION ALL
        SELECT format('%s: foreign key %s to %s does not pair %s with %s', d.relname, f.conname, r.relname,
                      d.key_name, r.key_name)
        FROM pg_constraint f
        JOIN distributed d ON d.oid = f.conrelid
        JOIN distributed r ON r.oid = f.confrelid
        WHERE f.contype = 'f'
          AND NOT EXISTS (SELECT 1 FROM generate_subscripts(f.conkey, 1) s
                          WHERE f.conkey[s] = d.key AND f.confkey[s] = r.key)
        ORDER BY 1";

    /// The distributed tables, to show the check is not empty.
    const DISTRIBUTED: &str = "
        SELECT c.relname::text FROM pg_class c
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_attribute a ON a.attrelid = c.oid AND NOT a.attisdropped
        WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
          AND a.attname = 'society_id' AND c.relname <> ALL($1)
        ORDER BY 1";

    /// Tables made to offend in each way, in a schema of their own, and what the check says of them.
    const PROBES: &str = "
        CREATE TABLE societies (id BIGINT PRIMARY KEY);
        CREATE TABLE users (id BIGINT PRIMARY KEY, society_id BIGINT REFERENCES societies, email TEXT UNIQUE);
        CREATE TABLE farmers (society_id BIGINT, id BIGINT, code TEXT UNIQUE, PRIMARY KEY (society_id, id));
        CREATE TABLE plots (society_id BIGINT, id BIGINT PRIMARY KEY, farmer_id BIGINT,
                            FOREIGN KEY (society_id, farmer_id) REFERENCES farmers (society_id, id));
        CREATE UNIQUE INDEX plots_by_farmer ON plots (farmer_id) INCLUDE (society_id);
        CREATE TABLE tags (society_id BIGINT REFERENCES societies (id), name TEXT);
        CREATE TABLE links (society_id BIGINT, id BIGINT, plot_id BIGINT REFERENCES plots (id),
                            PRIMARY KEY (society_id, id), FOREIGN KEY (id) REFERENCES societies (id))";
    const PROBED: &[&str] = &[
        "farmers: unique constraint farmers_code_key does not include society_id",
        "links: foreign key links_plot_id_fkey to plots does not pair society_id with society_id",
        "plots: primary key plots_pkey does not include society_id",
        "plots: unique index plots_by_farmer does not include society_id",
        "tags: no primary key",
    ];

    #[tokio::test]
    async fn the_key_check_finds_each_kind_of_offence() {
        let app = TestApp::spawn(Backend::Postgres).await;
        let mut connection = testkit::postgres::connect(&app.url).await.expect("connect");
        let mut probe = connection.begin().await.expect("a transaction");
        sqlx::raw_sql("CREATE SCHEMA probe; SET LOCAL search_path = probe")
            .execute(&mut *probe)
            .await
            .expect("a schema of the probes' own");
        sqlx::raw_sql(PROBES).execute(&mut *probe).await.expect("the probes");
        let reference: Vec<&str> = REFERENCE_TABLES.iter().map(|(table, _why)| *table).collect();
        let offending: Vec<String> = sqlx::query_scalar(OFFENDING_KEYS)
            .bind(&reference)
            .fetch_all(&mut *probe)
            .await
            .expect("the probes' keys");
        probe.rollback().await.expect("roll the probes back");
        assert_eq!(offending, PROBED);
    }

    #[tokio::test]
    async fn every_key_of_a_society_table_includes_its_society() {
        let app = TestApp::spawn(Backend::Postgres).await;
        let mut connection = testkit::postgres::connect(&app.url).await.expect("connect");
        let reference: Vec<&str> = REFERENCE_TABLES.iter().map(|(table, _why)| *table).collect();
        let tables: Vec<String> = sqlx::query_scalar(DISTRIBUTED)
            .bind(&reference)
            .fetch_all(&mut connection)
            .await
            .expect("the society tables");
        for table in [
            "farmers",
            "work_orders",
            "work_order_supplies",
            "events",
            "auth_tokens",
            "jobs",
        ] {
            assert!(
                tables.iter().any(|t| t == table),
                "{table} is a society table: {tables:?}"
            );
        }
        let offending: Vec<String> = sqlx::query_scalar(OFFENDING_KEYS)
            .bind(&reference)
            .fetch_all(&mut connection)
            .await
            .expect("the keys of the society tables");
        connection.close().await.expect("close");
        assert!(
            offending.is_empty(),
            "{} keys of society tables do not include society_id:\n{}",
            offending.len(),
            offending.join("\n")
        );
    }
}
