//! `tranquera migrate`: applies pending migrations and this release's reference data, and exits, for deployments
//! that migrate before rolling out.

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
    let migrated = store.migrate().await?;
    println!("{} migration(s) applied; the schema is current.", migrated.schema);
    if let Some(citus) = &migrated.citus {
        println!(
            "Citus, {} worker(s): {} table(s) distributed by society, {} copied to every node, {} on the coordinator \
             ({} placed now).",
            citus.workers, citus.distributed, citus.reference, citus.coordinator, citus.placed_now
        );
    }
    match migrated.reference {
        Some(release) => println!(
            "Reference data {}: {} row(s) added, {} corrected, {} of the operator's adopted.",
            release.version, release.added, release.corrected, release.adopted
        ),
        None => println!("Reference data is current."),
    }
    store.close().await;
    Ok(())
}
