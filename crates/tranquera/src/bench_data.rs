//! `tranquera bench-data`: makes the benchmark's large society (see `bench/run` and docs/performance.md). Migrates
//! the database, seeds the demo when it is empty, then grows the demo's Argentine society, whose demo account
//! (`integrador@lapampa.com.ar`) reads and writes it. A database whose society already grew is left as it is.

use std::time::Instant;

use clap::Args;
use demo::large::{self, LargeOptions};
use demo::{DemoOptions, DEMO_ACCOUNTS};

use crate::settings::{connect, DatabaseArgs, Failure};

/// Flags of `tranquera bench-data`.
#[derive(Debug, Args)]
pub struct BenchDataArgs {
    #[command(flatten)]
    database: DatabaseArgs,
    /// Farmers to add (each with 10 establishments of 10 plots, each plot with a campaign).
    #[arg(long, default_value_t = LargeOptions::default().farmers)]
    farmers: usize,
    /// Work orders to add.
    #[arg(long, default_value_t = LargeOptions::default().work_orders)]
    work_orders: usize,
    /// Supply plus labour lines of a work order, on average.
    #[arg(long, default_value_t = LargeOptions::default().lines_per_order)]
    lines_per_order: usize,
    /// Weather stations to add.
    #[arg(long, default_value_t = LargeOptions::default().devices)]
    devices: usize,
    /// Readings of all the stations together.
    #[arg(long, default_value_t = LargeOptions::default().device_events)]
    device_events: usize,
}

/// Seeds the demo if needed and grows its Argentine society.
pub async fn run(args: BenchDataArgs) -> Result<(), Failure> {
    let store = connect(&args.database, None).await?;
    store.migrate().await?;
    let started = Instant::now();
    if !demo::is_seeded(&store).await? {
        println!("Seeding the demo…");
        demo::demo(&store, &DemoOptions::default()).await?;
    }
    if large::is_large(&store).await? {
        println!("The demo society has already grown; nothing to do.");
        store.close().await;
        return Ok(());
    }
    let options = LargeOptions {
        farmers: args.farmers,
        work_orders: args.work_orders,
        lines_per_order: args.lines_per_order,
        devices: args.devices,
        device_events: args.device_events,
        ..LargeOptions::default()
    };
    let summary = large::grow(&store, &options, |table, rows, seconds| {
        println!("  {table:<32} {rows:>9} rows  {seconds:>6.1} s");
    })
    .await?;
    let rows: u64 = summary.tables.iter().map(|(_, rows, _)| rows).sum();
    println!(
        "Society {} grew by {rows} rows in {:.1} s.",
        summary.society_id,
        started.elapsed().as_secs_f64()
    );
    if let Some(account) = DEMO_ACCOUNTS.first() {
        println!("Its account: {} / {}", account.email, account.password);
    }
    store.close().await;
    Ok(())
}
