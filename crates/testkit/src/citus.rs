//! A Citus cluster of the tester's own under the suites: when `TEST_CITUS_WORKERS` lists the workers' ports (on
//! 127.0.0.1, comma-separated) and `TEST_DATABASE_URL` names a database on their coordinator, each test database is
//! made on the coordinator and on every worker, with the `citus` extension in each, and the workers added to the
//! coordinator's; `tranquera migrate` then distributes the schema as it does for an operator. Citus is in no package
//! registry these machines reach, so CI never sets it; docs/performance.md says how the suite was run on one.
//!
//! A copy of a template is made on every node, from each node's copy of it: the coordinator's shard placements name
//! shards that each worker's copy holds under the same names. A template takes no connection once it is one, since
//! PostgreSQL copies no database anyone is connected to and Citus's own daemons connect to every database that has
//! the extension.

use std::time::Duration;

use sqlx::Connection as _;

/// A test's own connection to a node, told apart from the service's as [`crate::statement_log::TEST_CONNECTION`].
async fn connect(url: &str) -> Result<sqlx::PgConnection, sqlx::Error> {
    use sqlx::ConnectOptions as _;
    let options: sqlx::postgres::PgConnectOptions = url.parse()?;
    options
        .application_name(crate::statement_log::TEST_CONNECTION)
        .connect()
        .await
}

/// The workers' ports, when the run is on a Citus cluster.
pub fn workers() -> Vec<u16> {
    std::env::var("TEST_CITUS_WORKERS")
        .unwrap_or_default()
        .split(',')
        .filter_map(|port| port.trim().parse().ok())
        .collect()
}

/// Whether the run is on a Citus cluster.
pub fn requested() -> bool {
    !workers().is_empty()
}

/// The URL of database `name` on the node at `port` of the coordinator's host, with the coordinator URL's user.
fn node_url(coordinator_url: &str, port: u16, name: &str) -> String {
    let options: sqlx::postgres::PgConnectOptions = coordinator_url.parse().expect("a PostgreSQL URL");
    format!("postgres://{}@127.0.0.1:{port}/{name}", options.get_username())
}

fn port_of(url: &str) -> u16 {
    let options: sqlx::postgres::PgConnectOptions = url.parse().expect("a PostgreSQL URL");
    options.get_port()
}

async fn run(url: &str, statements: &[String]) {
    let mut connection = connect(url)
        .await
        .unwrap_or_else(|error| panic!("connect to {url}: {error}"));
    for statement in statements {
        sqlx::raw_sql(statement)
            .execute(&mut connection)
            .await
            .unwrap_or_else(|error| panic!("{statement} on {url}: {error}"));
    }
    let _ = connection.close().await;
}

/// Makes database `name` on every node, a copy of `template` when given; when it is new, with the `citus`
/// extension on every node and the workers added to the coordinator's. `admin_url` is a database on the coordinator.
pub async fn create(admin_url: &str, name: &str, template: Option<&str>) {
    let coordinator = port_of(admin_url);
    for port in workers().into_iter().chain([coordinator]) {
        let admin = node_url(admin_url, port, "postgres");
        match template {
            Some(template) => copy(&admin, name, template).await,
            None => run(&admin, &[format!("CREATE DATABASE {name}")]).await,
        }
    }
    if template.is_some() {
        return;
    }
    for port in workers() {
        run(&node_url(admin_url, port, name), &["CREATE EXTENSION citus".to_owned()]).await;
    }
    let mut setup = vec![
        "CREATE EXTENSION citus".to_owned(),
        format!("SELECT citus_set_coordinator_host('127.0.0.1', {coordinator})"),
    ];
    setup.extend(
        workers()
            .into_iter()
            .map(|port| format!("SELECT citus_add_node('127.0.0.1', {port})")),
    );
    run(&node_url(admin_url, coordinator, name), &setup).await;
}

/// `CREATE DATABASE name TEMPLATE template` on the server of `admin_url`, after closing the template to every
/// connection, Citus's daemons included; retried while one of them is still leaving.
async fn copy(admin_url: &str, name: &str, template: &str) {
    let mut connection = connect(admin_url).await.expect("connect to a Citus node");
    // Tests that copy the template at once each close it: one of two that do it together is told "tuple concurrently
    // updated", and tries again.
    for attempt in 0.. {
        match sqlx::raw_sql(&format!("ALTER DATABASE {template} ALLOW_CONNECTIONS false"))
            .execute(&mut connection)
            .await
        {
            Ok(_) => break,
            Err(error) if attempt < 50 && error.to_string().contains("concurrently") => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(error) => panic!("close {template} on {admin_url}: {error}"),
        }
    }
    for attempt in 0.. {
        match sqlx::raw_sql(&format!("CREATE DATABASE {name} TEMPLATE {template}"))
            .execute(&mut connection)
            .await
        {
            Ok(_) => break,
            Err(error) if attempt < 50 && error.to_string().contains("being accessed") => {
                let _ = sqlx::raw_sql(&format!(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{template}'"
                ))
                .execute(&mut connection)
                .await;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("copy {template} on {admin_url}: {error}"),
        }
    }
    let _ = connection.close().await;
}

/// Drops database `name` from every worker (the coordinator's is the caller's), best effort.
pub async fn drop_everywhere(admin_url: &str, name: &str) {
    for port in workers() {
        if let Ok(mut connection) = connect(&node_url(admin_url, port, "postgres")).await {
            let _ = sqlx::raw_sql(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                .execute(&mut connection)
                .await;
        }
    }
}
