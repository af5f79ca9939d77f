//! `tranquera serve`: the production server. Migrates at start (several processes may start at once: migrations
//! serialise on an advisory lock) and serves until SIGTERM.

use std::net::SocketAddr;

use clap::Args;
use server::Application;

use crate::settings::{close, connect, init_logging, AuthArgs, DatabaseArgs, Failure, HttpArgs};

/// Flags of `tranquera serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    database: DatabaseArgs,
    #[command(flatten)]
    auth: AuthArgs,
    #[command(flatten)]
    http: HttpArgs,
    /// Address to listen on.
    #[arg(long, env = "TRANQUERA_LISTEN", default_value = "0.0.0.0:8080")]
    listen: SocketAddr,
}

/// Runs the server.
pub async fn run(args: ServeArgs) -> Result<(), Failure> {
    init_logging(args.http.log_json);
    // Bound first, so that an address in use fails before migrations run.
    let listener = server::bind(args.listen)
        .await
        .map_err(|error| crate::say::cannot_listen(args.listen, &error, "--listen (TRANQUERA_LISTEN)"))?;
    let store = connect(&args.database, Some(&args.auth)).await?;
    let migrated = store.migrate().await?;
    tracing::info!(
        applied = migrated.schema,
        reference = ?migrated.reference,
        dialect = ?store.dialect(),
        "database ready"
    );
    let app = Application::build_on(listener, store.clone(), args.http.server_config(args.listen)).await?;
    tracing::info!(address = %app.local_addr()?, "serving the integration API");
    if let Some(address) = app.metrics_addr() {
        tracing::info!(address = %address?, "serving Prometheus metrics at /metrics");
    }
    app.run_until_stopped().await?;
    close(&store).await;
    Ok(())
}
