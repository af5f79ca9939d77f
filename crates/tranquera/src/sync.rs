//! `tranquera sync`: mirrors every readable list of a society into a folder, and keeps it current with incremental
//! runs.
//!
//! Every record lands first in the folder's SQLite mirror (`tranquera.sqlite`, via [`mirror`]), upserted by id
//! page by page; with `--format jsonl` or `csv` each resource's live records are then rendered to
//! `<resource>.jsonl` / `<resource>.csv`. The mirror is the one source of truth for every format, so switching
//! formats on a folder never refetches. An interrupted run loses nothing stored: its unfinished resource is walked
//! again whole.
//!
//! The state file `.tranquera-sync.json` records, per resource, the instant its last successful sync started,
//! minus a safety overlap. The next run asks only for records updated since then (`updated_at_from` in v3,
//! `updated_from` in v2) and for records deleted since then (`deleted_at_from` / `deleted_from`): deleted records
//! only ever appear under the deleted filter, so each incremental resource costs two passes. The state is saved
//! after each resource, so an interrupted run resumes with the resource it was on.
//!
//! When the server offers the change feed, the state also holds a feed cursor, and an incremental run first reads
//! the feed after it: only the lists that had events (and the catalogues, which have none) are walked as above.
//! Without a saved cursor the run walks every list and saves the feed's head, read before the walk.
//!
//! # Layout
//! - this file: arguments and the run.
//! - `resources`: the resource table (each list named by its path), and the order lists are started in.
//! - `rename`: a folder synced under lists' former names, renamed in place.
//! - `state`: the state file.
//! - `walk`: one resource's turn: fetched, or noted unchanged; its files written.
//! - `summary`: the summary a run reports.
//! - `export`: JSONL and CSV rendering.
//! - `feed`: which lists the change feed says changed.
//! - `fetch`: one list's pages, fetched ahead of the mirror's writes.
//! - `progress`: bars on a terminal, plain lines elsewhere.

mod export;
mod feed;
mod fetch;
mod mirror;
pub(crate) mod progress;
mod rename;
mod resources;
mod state;
mod summary;
mod walk;

use std::path::PathBuf;
use std::time::Instant;

use chrono::Utc;
use clap::{Args, ValueEnum};
use client::Client;
use futures_util::{stream, StreamExt as _};
use serde::Serialize;

use crate::login::Login;
use crate::say::{failure as said, say, Say};
use crate::settings::Failure;
use mirror::Mirror;
use progress::Reporter;
use resources::{select, walk_order, RESOURCES};
use state::State;
use summary::{final_line, ResourceSummary, Summary};
use walk::{Done, Run, Skip};

/// The state file's name inside the output folder.
pub const STATE_FILE: &str = ".tranquera-sync.json";
/// The mirror's name inside the output folder.
pub const MIRROR_FILE: &str = "tranquera.sqlite";
/// Resources synced at once; see [`run`].
const CONCURRENT_RESOURCES: usize = 2;

/// Arguments of `tranquera sync`. Credentials come from `TRANQUERA_EMAIL` / `TRANQUERA_PASSWORD` or a prompt,
/// never from a flag, so they stay out of shell history and process lists.
#[derive(Debug, Args)]
pub struct SyncArgs {
    #[command(flatten)]
    login: Login,
    /// Folder to mirror into; created when missing.
    #[arg(long)]
    out: PathBuf,
    /// What to write besides the SQLite mirror: one JSONL or CSV file per resource, or only the mirror.
    #[arg(long, value_enum, default_value_t = Format::Jsonl)]
    format: Format,
    /// Print only errors and the final summary.
    #[arg(long)]
    quiet: bool,
    /// Sync only this resource (repeatable), named as its path (`scouting`, `application_order_labour_types`);
    /// every list when omitted.
    #[arg(long = "resource", value_name = "NAME")]
    resources: Vec<String>,
    /// Seconds subtracted from each resource's recorded start instant, so a write committed while the previous
    /// run read (or a small clock difference with the server) is fetched again rather than missed.
    #[arg(long, default_value_t = 60, value_name = "SECONDS")]
    overlap: u32,
    /// Also write the run's summary as JSON to this file (per resource: mode, updated, deleted, pages…).
    #[arg(long, value_name = "FILE")]
    summary_json: Option<PathBuf>,
    /// Walk every list even when the server offers the change feed (the feed cursor saved is kept as it is).
    #[arg(long)]
    no_feed: bool,
}

/// The folder's file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
enum Format {
    /// `<resource>.jsonl`: one JSON object a line.
    Jsonl,
    /// `<resource>.csv`: top-level fields as columns, nested values as JSON text.
    Csv,
    /// Only `tranquera.sqlite`: one table per resource (id, record JSON, updated_at, deleted_at).
    Sqlite,
}

/// Runs `tranquera sync`.
pub async fn run(args: SyncArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let started_at = Utc::now().fixed_offset();
    let selected = select(&args.resources, |note| eprintln!("tranquera: {note}"))?;
    std::fs::create_dir_all(&args.out)?;
    let api = args.login.client().await?;

    let state_path = args.out.join(STATE_FILE);
    let reporter = Reporter::new(args.quiet);
    let (mut state, mirror) = open_folder(&args, &reporter).await?;
    let overlap = chrono::Duration::seconds(i64::from(args.overlap));
    let plan = feed_plan(&args, &api, &mut state, &reporter).await?;

    let mut summaries = Vec::new();
    let mut failure = None;
    let walks: Vec<_> = walk_order(selected)
        .into_iter()
        .map(|resource| (resource, state.resources.get(resource.name).map(|s| s.since)))
        .collect();
    let run = Run {
        api: &api,
        mirror: &mirror,
        plan: &plan,
        reporter: &reporter,
        out: &args.out,
        format: args.format,
    };
    // Two lists at once, and the next one starts as soon as either is done: while one waits on the server (work
    // orders) the other keeps the client busy (device events). In table order (`buffered`), a small list that was
    // done held its slot until the large one before it was, so the large lists ran alone. Each list's state is
    // independent of the others', and is recorded as soon as the list is done.
    let mut outcomes = stream::iter(walks)
        .map(|(resource, since)| run.resource(resource, since))
        .buffer_unordered(CONCURRENT_RESOURCES);
    while let Some(done) = outcomes.next().await {
        let Done {
            resource,
            since,
            started_at,
            outcome,
        } = done;
        match outcome {
            Ok(summary) => {
                state.synced(resource.name, started_at - overlap);
                // Saved after every resource: an interrupted run then resumes with the resource it was on.
                state.save(&state_path)?;
                summaries.push(summary);
            }
            Err(Skip::Unreadable(reason)) => {
                reporter.note(&say(Say::Skipped {
                    resource: resource.name,
                    why: &reason,
                }));
                summaries.push(ResourceSummary::skipped(resource.name, since, reason));
            }
            Err(Skip::Failed(error)) => {
                let error = said(error.as_ref());
                let line = say(Say::ResourceFailed {
                    resource: resource.name,
                    error: &error,
                });
                eprintln!("tranquera: {line}");
                failure = Some(format!("{}: {error}", resource.name));
                break;
            }
        }
    }
    // A list still in flight after a failure is given up; its state is not saved, so the next run walks it again.
    drop(outcomes);
    mirror.close().await;
    summaries.sort_by_key(|summary| RESOURCES.iter().position(|r| r.name == summary.name));
    if failure.is_none() {
        if let Some(cursor) = plan.cursor_to_save() {
            // Only after every list succeeded: a run cut short reads the same events again next time.
            state.feed_cursor = Some(cursor.to_owned());
            state.save(&state_path)?;
        }
    }

    let summary = Summary {
        format: args.format,
        out: args.out.clone(),
        started_at,
        elapsed_ms: started.elapsed().as_millis(),
        transferred: summaries.iter().map(|s| s.updated + s.deleted).sum(),
        resources: summaries,
        feed: plan.label(),
        feed_events: plan.events(),
        error: failure.clone(),
    };
    report(&args, &summary)?;
    match failure {
        Some(error) => Err(say(Say::SyncStopped(&error)).into()),
        None => Ok(()),
    }
}

/// The folder's state and mirror; lists kept under the names they had before they were named by their paths are
/// carried over first.
async fn open_folder(args: &SyncArgs, reporter: &Reporter) -> Result<(State, Mirror), Failure> {
    let state_path = args.out.join(STATE_FILE);
    let mut state = State::load(&state_path)?;
    let mirror = Mirror::open(&args.out.join(MIRROR_FILE)).await?;
    if rename::former_names(&args.out, &mirror, &mut state, reporter).await? {
        state.save(&state_path)?;
    }
    Ok((state, mirror))
}

/// Writes the run's summary where `--summary-json` asks, and prints its final line.
fn report(args: &SyncArgs, summary: &Summary) -> Result<(), Failure> {
    if let Some(path) = &args.summary_json {
        export::replace(path, &serde_json::to_vec_pretty(summary)?)?;
    }
    println!("{}", final_line(summary));
    Ok(())
}

/// How this run uses the change feed: not at all with `--no-feed` or `--resource`, else as the server and the saved
/// cursor allow. A feed the server lacks forgets the saved cursor.
async fn feed_plan(
    args: &SyncArgs,
    api: &Client,
    state: &mut State,
    reporter: &Reporter,
) -> Result<feed::FeedPlan, Failure> {
    let plan = if args.no_feed || !args.resources.is_empty() {
        feed::FeedPlan::Off
    } else {
        feed::plan(api, state.feed_cursor.as_deref()).await?
    };
    match &plan {
        // Each list is then walked from its own last sync, deleted records included: from scratch, the mirror
        // would keep as live the records deleted while the cursor aged.
        feed::FeedPlan::Expired { .. } => reporter.note(&say(Say::FeedCursorExpired)),
        feed::FeedPlan::Absent => state.feed_cursor = None,
        _ => {}
    }
    Ok(plan)
}
