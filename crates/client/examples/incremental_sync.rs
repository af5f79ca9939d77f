//! A full incremental sync with the SDK: log in, then for a few resources fetch what changed and what was deleted
//! since the last run, and remember when this run started for the next one.
//!
//! ```sh
//! TRANQUERA_BASE_URL=http://127.0.0.1:8080 \
//! TRANQUERA_EMAIL=integrador@lapampa.com.ar TRANQUERA_PASSWORD=LaPampa-2026 \
//!   cargo run -p client --example incremental_sync
//! ```
//!
//! The last sync instant is kept in `TRANQUERA_SYNC_STATE` (default `tranquera-sync.txt`); without it, the first run
//! fetches everything.

use std::error::Error as StdError;

use chrono::{DateTime, FixedOffset, Utc};
use client::futures_util::TryStreamExt;
use client::{Client, Filters, Items, WorkOrderStates};

type Result<T> = std::result::Result<T, Box<dyn StdError>>;

/// Counts the items of a stream; a real ERP would upsert (or delete) each into its own tables here.
async fn consume<T>(items: Items<T>) -> Result<usize> {
    Ok(items.try_fold(0, |n, _| async move { Ok(n + 1) }).await?)
}

#[tokio::main]
async fn main() -> Result<()> {
    let base = std::env::var("TRANQUERA_BASE_URL").unwrap_or_else(|_| "http://127.0.0.1:8080".to_owned());
    let email = std::env::var("TRANQUERA_EMAIL")?;
    let password = std::env::var("TRANQUERA_PASSWORD")?;
    let state_file = std::env::var("TRANQUERA_SYNC_STATE").unwrap_or_else(|_| "tranquera-sync.txt".to_owned());

    let since: Option<DateTime<FixedOffset>> = std::fs::read_to_string(&state_file)
        .ok()
        .and_then(|text| DateTime::parse_from_rfc3339(text.trim()).ok());
    // Taken before the first read, so a change made while this run reads is fetched again next time, not missed.
    let started = Utc::now();

    let api = Client::builder(base).build()?;
    let society = api.login(&email, &password).await?;
    println!("{} — syncCheck {}", society.legal_name, society.sync_check);
    match since {
        Some(at) => println!("changes since {at}"),
        None => println!("first sync: everything"),
    }

    // Two passes per resource: live changes, then deletions (which the first pass leaves out).
    let changed = |filters: Filters| match since {
        Some(at) => filters.updated_from(at),
        None => filters,
    };
    let deleted = since.map(|at| Filters::new().deleted_from(at));
    let page = || Filters::new().size(500);

    println!(
        "farmers:        {:>6} changed",
        consume(api.farmers(&changed(page()))).await?
    );
    println!(
        "establishments: {:>6} changed",
        consume(api.establishments(&changed(page()))).await?
    );
    println!(
        "plots (v2):     {:>6} changed",
        consume(api.plots(&changed(Filters::new()))).await?
    );
    println!(
        "campaigns:      {:>6} changed",
        consume(api.campaigns(&changed(page()))).await?
    );
    println!(
        "work orders:    {:>6} changed",
        consume(api.work_orders(&changed(page()), WorkOrderStates::default())).await?
    );
    if let Some(deleted) = deleted {
        println!(
            "establishments: {:>6} deleted",
            consume(api.establishments(&deleted)).await?
        );
        println!("campaigns:      {:>6} deleted", consume(api.campaigns(&deleted)).await?);
        println!(
            "work orders:    {:>6} deleted",
            consume(api.work_orders(&deleted, WorkOrderStates::default())).await?
        );
    }

    std::fs::write(&state_file, started.to_rfc3339())?;
    println!("next sync from {started}");
    Ok(())
}
