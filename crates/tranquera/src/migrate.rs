//! `tranquera migrate`: applies pending migrations and exits, for deployments that migrate before rolling out.

use clap::Args;

use crate::settings::{connect, init_logging, DatabaseArgs, Failure};

/// Flags of `tranquera migrate`.
#[derive(Debug, Args)]
pub struct MigrateArgs {
    #[command(flatten)]
    database: DatabaseArgs,
}

/// Applies the migrations.
pub async fn run(args: MigrateArgs) -> Result<(), Failure> {
    init_logging(false);
    let store = connect(&args.database, None).await?;
    let applied = store.migrate().await?;
    println!("{applied} migration(s) applied; the schema is current.");
    store.close().await;
    Ok(())
}
