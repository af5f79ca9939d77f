//! `tranquera` behind PgBouncer in transaction pooling mode. With PgBouncer keeping prepared statements
//! (`max_prepared_statements`, 1.21 and later) the schema is migrated and read again like on a direct connection;
//! the whole API suite also runs through it (`TEST_THROUGH_PGBOUNCER`, in scripts/test). Without, the operator is
//! told which setting to change, instead of PostgreSQL's bare "prepared statement already exists".

use std::process::{Command, Output};

use testkit::pgbouncer::{PgBouncer, PreparedStatements};

fn migrate(url: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tranquera"))
        .args(["migrate", "--database", url])
        .env("RUST_LOG", "warn")
        .output()
        .expect("tranquera runs")
}

async fn database_behind(prepared: PreparedStatements, tag: &str) -> (PgBouncer, String) {
    let pooler = PgBouncer::start(testkit::postgres::cluster_port(), prepared).expect("PgBouncer starts");
    let direct = testkit::postgres::create_database(&testkit::postgres::cluster_admin_url(), tag).await;
    let name = direct
        .rsplit_once('/')
        .map(|(_, name)| name.to_owned())
        .expect("a database name");
    let url = pooler.url(&name);
    (pooler, url)
}

#[tokio::test(flavor = "multi_thread")]
async fn through_a_pooler_that_keeps_prepared_statements_the_schema_migrates_and_reads_again() {
    let (_pooler, url) = database_behind(PreparedStatements::Tracked, "tranquera_pgb_kept").await;
    for run in ["first", "second"] {
        let output = migrate(&url);
        assert!(
            output.status.success(),
            "the {run} migration through PgBouncer failed: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_pooler_that_loses_prepared_statements_is_explained_with_the_setting_to_change() {
    let (_pooler, url) = database_behind(PreparedStatements::Untracked, "tranquera_pgb_lost").await;
    // A run leaves its statements on the pooler's one server connection, and the next meets them there; a run that
    // failed inside a transaction makes PgBouncer close that connection, and the next starts clean again.
    let failures: Vec<String> = (0..4)
        .map(|_| migrate(&url))
        .filter(|output| !output.status.success())
        .map(|output| String::from_utf8_lossy(&output.stderr).into_owned())
        .collect();
    assert!(!failures.is_empty(), "four runs through the pooler all succeeded");
    for stderr in failures {
        assert!(
            stderr.contains("pooler in transaction mode") && stderr.contains("max_prepared_statements"),
            "the failure does not name the setting: {stderr}"
        );
    }
}
