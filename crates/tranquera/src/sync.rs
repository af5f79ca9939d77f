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
//! - this file: arguments, the resource table, the state file, the run.
//! - `export`: JSONL and CSV rendering.
//! - `feed`: which lists the change feed says changed.
//! - `fetch`: one list's pages, fetched ahead of the mirror's writes.
//! - `progress`: bars on a terminal, plain lines elsewhere.

mod export;
mod feed;
mod fetch;
mod mirror;
pub(crate) mod progress;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use chrono::{DateTime, FixedOffset, Utc};
use clap::{Args, ValueEnum};
use client::{Client, Filters, Generation, StatusCode};
use futures_util::{stream, StreamExt as _};
use serde::{Deserialize, Serialize};

use crate::login::Login;
use crate::settings::Failure;
use mirror::Mirror;
use progress::Reporter;

/// The state file's name inside the output folder.
pub const STATE_FILE: &str = ".tranquera-sync.json";
/// The mirror's name inside the output folder.
pub const MIRROR_FILE: &str = "tranquera.sqlite";
/// Page size asked of v3 lists: the largest the API allows, so a sync makes the fewest requests (v2 pages by 100).
const PAGE_SIZE: u32 = 500;
/// Resources synced at once; see [`run`].
const CONCURRENT_RESOURCES: usize = 2;
/// The lists that are the largest in practice (a society's sensor readings, its work orders with their lines, its
/// plots), walked before the others in this order: started last, one of them ran alone for its whole length at the
/// end of a full sync, while started first they overlap each other and the small lists fill in beside them.
const LARGEST_FIRST: [&str; 3] = ["device_events", "work_orders", "plots"];

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
    /// Sync only this resource (repeatable); every list when omitted.
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

/// One list the sync mirrors.
struct Resource {
    name: &'static str,
    generation: Generation,
    path: &'static str,
}

const fn v3(name: &'static str, path: &'static str) -> Resource {
    Resource {
        name,
        generation: Generation::V3,
        path,
    }
}

const fn v2(name: &'static str, path: &'static str) -> Resource {
    Resource {
        name,
        generation: Generation::V2,
        path,
    }
}

/// Every v3 list, plus the lists only v2 has. Farmers are taken from v3 only: v2's farmers list is the same
/// records in an older shape.
const RESOURCES: &[Resource] = &[
    v3("farmers", "/api/v3/third_party/farmers"),
    v3("establishments", "/api/v3/third_party/establishments"),
    v2("plots", "/api/v2/third_party/plots"),
    v3("master_campaign_cycles", "/api/v3/third_party/master_campaign_cycles"),
    v3("planting_times", "/api/v3/third_party/planting_times"),
    v3("formulateds", "/api/v3/third_party/formulateds"),
    v3("cultivation_species", "/api/v3/third_party/cultivation_species"),
    v3("formulation_types", "/api/v3/third_party/formulation_types"),
    v3("units", "/api/v3/third_party/units"),
    v3("activity_statuses", "/api/v3/third_party/activity_statuses"),
    v3("hydric_states", "/api/v3/third_party/hydric_states"),
    v3("phenological_states", "/api/v3/third_party/phenological_states"),
    v3("tags", "/api/v3/third_party/tags"),
    v3("master_campaigns", "/api/v3/third_party/master_campaigns"),
    v3("campaigns", "/api/v3/third_party/campaigns"),
    v3("cultivations", "/api/v3/third_party/cultivations"),
    v3("external_systems", "/api/v3/third_party/external_systems"),
    v3(
        "external_plot_associations",
        "/api/v3/third_party/external_plot_associations",
    ),
    v3("applicators", "/api/v3/third_party/applicators"),
    v3("machines", "/api/v3/third_party/machines"),
    v3("contractors", "/api/v3/third_party/contractors"),
    v3("warehouses", "/api/v3/third_party/warehouses"),
    v3("voucher_types", "/api/v3/third_party/voucher_types"),
    v3("labour_types", "/api/v3/third_party/application_order_labour_types"),
    v3("work_orders", "/api/v3/third_party/work_orders"),
    v2("adversities", "/api/v2/third_party/adversity"),
    v2("adversity_categories", "/api/v2/third_party/adversity_categories"),
    v2("adversity_kinds", "/api/v2/third_party/adversity_kinds"),
    v3("scoutings", "/api/v3/third_party/scouting"),
    v3("scouting_measures", "/api/v3/third_party/scouting_measures"),
    v3("waypoints", "/api/v3/third_party/waypoints"),
    v3("progress_reports", "/api/v3/third_party/progress_report"),
    v3("planting_progress", "/api/v3/third_party/planting_progress"),
    v3("harvest_progress", "/api/v3/third_party/harvest_progress"),
    v3("fertilization_controls", "/api/v3/third_party/fertilization_control"),
    v3("planting_controls", "/api/v3/third_party/planting_control"),
    v3("plant_stand_controls", "/api/v3/third_party/plant_stand_control"),
    v3("silobags", "/api/v3/third_party/silobags"),
    v3("silobag_campaigns", "/api/v3/third_party/silobag_campaigns"),
    v3("weather_anomalies", "/api/v3/third_party/weather_anomaly"),
    v3("weather_anomaly_types", "/api/v3/third_party/weather_anomaly_types"),
    v3("climatic_factors", "/api/v3/third_party/climatic_factors"),
    v3("devices", "/api/v3/third_party/devices"),
    v3("device_events", "/api/v3/third_party/device_events"),
    v3("device_event_types", "/api/v3/third_party/device_event_types"),
    v2(
        "objective_yield_jobs",
        "/api/v2/third_party/campaigns/update_objective_yield/jobs",
    ),
    v2("campaign_import_jobs", "/api/v2/third_party/campaigns/import/jobs"),
];

/// `.tranquera-sync.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct State {
    /// Per resource, where the next run starts.
    resources: BTreeMap<String, ResourceState>,
    /// The change feed's cursor: every list was current up to it when the last whole run finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    feed_cursor: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct ResourceState {
    /// The next run asks for changes at or after this instant: this resource's last successful sync started then,
    /// less the overlap.
    since: DateTime<FixedOffset>,
    /// When that sync finished, for people reading the file.
    finished_at: DateTime<FixedOffset>,
}

impl State {
    fn load(path: &Path) -> Result<Self, Failure> {
        match std::fs::read(path) {
            Ok(bytes) => Ok(serde_json::from_slice(&bytes).map_err(|e| {
                format!(
                    "{}: not a sync state file ({e}); delete it to sync from scratch",
                    path.display()
                )
            })?),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(error) => Err(error.into()),
        }
    }

    fn save(&self, path: &Path) -> Result<(), Failure> {
        export::replace(path, &serde_json::to_vec_pretty(self)?)
    }
}

/// The machine-readable summary (`--summary-json`).
#[derive(Debug, Serialize)]
struct Summary {
    format: Format,
    out: PathBuf,
    started_at: DateTime<FixedOffset>,
    elapsed_ms: u128,
    /// Records received over all resources, changed and deleted.
    transferred: u64,
    resources: Vec<ResourceSummary>,
    /// How the change feed was used: `read` (only lists with events walked), `head` (no cursor yet: all walked),
    /// `expired` (the cursor was past the feed's retention: all walked), `absent`, or `off`.
    feed: &'static str,
    /// Events read from the feed, when it was read.
    feed_events: Option<u64>,
    /// Set when the run stopped early; every resource in `resources` was synced and recorded, or skipped.
    error: Option<String>,
}

#[derive(Debug, Serialize)]
struct ResourceSummary {
    name: &'static str,
    /// `full` (no earlier sync), `incremental`, or `skipped` (the account cannot read this list).
    mode: &'static str,
    /// The instant changes were asked from, on an incremental sync.
    since: Option<DateTime<FixedOffset>>,
    /// Live records received (all of them on a full sync, the changed ones on an incremental sync).
    updated: u64,
    /// Deleted records received.
    deleted: u64,
    /// Pages fetched over all passes.
    pages: u64,
    /// What the server announced (`total_items`) over all passes.
    total_items: u64,
    /// Live records in the mirror afterwards.
    live: u64,
    /// Whether the list was read; false when the feed showed no change of it.
    walked: bool,
    /// Milliseconds the resource took, from its first request to its files written and the mirror settled.
    elapsed_ms: u128,
    /// Why a skipped resource was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// Runs `tranquera sync`.
pub async fn run(args: SyncArgs) -> Result<(), Failure> {
    let started = Instant::now();
    let started_at = Utc::now().fixed_offset();
    let selected = select(&args.resources)?;
    std::fs::create_dir_all(&args.out)?;
    let api = args.login.client().await?;

    let state_path = args.out.join(STATE_FILE);
    let mut state = State::load(&state_path)?;
    let mirror = Mirror::open(&args.out.join(MIRROR_FILE)).await?;
    let reporter = Reporter::new(args.quiet);
    let overlap = chrono::Duration::seconds(i64::from(args.overlap));
    let plan = if args.no_feed || !args.resources.is_empty() {
        feed::FeedPlan::Off
    } else {
        feed::plan(&api, state.feed_cursor.as_deref()).await?
    };
    match &plan {
        // Each list is then walked from its own last sync, deleted records included: from scratch, the mirror
        // would keep as live the records deleted while the cursor aged.
        feed::FeedPlan::Expired { .. } => {
            reporter.note("the saved feed cursor is older than the feed keeps: resyncing every list by walking it")
        }
        feed::FeedPlan::Absent => state.feed_cursor = None,
        _ => {}
    }

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
                state.resources.insert(
                    resource.name.to_owned(),
                    ResourceState {
                        since: started_at - overlap,
                        finished_at: Utc::now().fixed_offset(),
                    },
                );
                // Saved after every resource: an interrupted run then resumes with the resource it was on.
                state.save(&state_path)?;
                summaries.push(summary);
            }
            Err(Skip::Unreadable(reason)) => {
                reporter.note(&format!("sync {}: skipped, {reason}", resource.name));
                summaries.push(ResourceSummary {
                    name: resource.name,
                    mode: "skipped",
                    since,
                    updated: 0,
                    deleted: 0,
                    pages: 0,
                    total_items: 0,
                    live: 0,
                    walked: false,
                    elapsed_ms: 0,
                    reason: Some(reason),
                });
            }
            Err(Skip::Failed(error)) => {
                eprintln!("tranquera: sync {}: {error}", resource.name);
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
    if let Some(path) = &args.summary_json {
        export::replace(path, &serde_json::to_vec_pretty(&summary)?)?;
    }
    println!("{}", final_line(&summary));
    match failure {
        Some(error) => Err(format!("sync stopped at {error}; run again to resume").into()),
        None => Ok(()),
    }
}

/// What every resource of a run shares.
struct Run<'a> {
    api: &'a Client,
    mirror: &'a Mirror,
    plan: &'a feed::FeedPlan,
    reporter: &'a Reporter,
    out: &'a Path,
    format: Format,
}

/// One resource's outcome, with what its state needs.
struct Done {
    resource: &'static Resource,
    since: Option<DateTime<FixedOffset>>,
    /// The instant before the resource's first request: anything written after it is seen by the next run.
    started_at: DateTime<FixedOffset>,
    outcome: Result<ResourceSummary, Skip>,
}

impl Run<'_> {
    /// Syncs one resource (or notes it unchanged), writes its files and makes the mirror durable.
    async fn resource(&self, resource: &'static Resource, since: Option<DateTime<FixedOffset>>) -> Done {
        let started_at = Utc::now().fixed_offset();
        let clock = Instant::now();
        let outcome = match since {
            Some(since) if self.plan.unchanged(resource.name) => unchanged(self.mirror, resource, since).await,
            _ => sync_resource(self.api, self.mirror, resource, since, self.reporter).await,
        };
        let outcome = match outcome {
            Ok(summary) => self.finish(resource, summary, clock).await.map_err(Skip::Failed),
            Err(skip) => Err(skip),
        };
        Done {
            resource,
            since,
            started_at,
            outcome,
        }
    }

    async fn finish(
        &self,
        resource: &Resource,
        mut summary: ResourceSummary,
        clock: Instant,
    ) -> Result<ResourceSummary, Failure> {
        if summary.walked {
            summary.live = write_files(self.mirror, self.out, self.format, resource.name).await?;
        }
        // The state about to say "synced" must not outlive, in a power loss, the records it vouches for.
        self.mirror.settle().await?;
        summary.elapsed_ms = clock.elapsed().as_millis();
        Ok(summary)
    }
}

/// The one line every run prints, `--quiet` included.
fn final_line(summary: &Summary) -> String {
    let synced = summary.resources.iter().filter(|r| r.mode != "skipped").count();
    let updated: u64 = summary.resources.iter().map(|r| r.updated).sum();
    let deleted: u64 = summary.resources.iter().map(|r| r.deleted).sum();
    format!(
        "synced {synced} resources into {}: {} records transferred ({updated} changed, {deleted} deleted) in {:.1}s",
        summary.out.display(),
        summary.transferred,
        summary.elapsed_ms as f64 / 1000.0
    )
}

/// The resources named with `--resource`, in table order, or all of them.
fn select(names: &[String]) -> Result<Vec<&'static Resource>, Failure> {
    if let Some(unknown) = names.iter().find(|n| !RESOURCES.iter().any(|r| r.name == n.as_str())) {
        let known: Vec<&str> = RESOURCES.iter().map(|r| r.name).collect();
        return Err(format!("unknown resource {unknown:?}; known: {}", known.join(", ")).into());
    }
    Ok(RESOURCES
        .iter()
        .filter(|r| names.is_empty() || names.iter().any(|n| n == r.name))
        .collect())
}

/// The order the lists of `selected` are started in: [`LARGEST_FIRST`], then the others in table order.
fn walk_order(mut selected: Vec<&'static Resource>) -> Vec<&'static Resource> {
    selected.sort_by_key(|resource| {
        LARGEST_FIRST
            .iter()
            .position(|name| *name == resource.name)
            .unwrap_or(LARGEST_FIRST.len())
    });
    selected
}

/// Why a resource was not synced.
enum Skip {
    /// The account cannot read the list (403, or 404 on a server that lacks it): the others still sync.
    Unreadable(String),
    /// Anything else stops the run.
    Failed(Failure),
}

/// A failure that stops the run.
fn failed(error: impl Into<Failure>) -> Skip {
    Skip::Failed(error.into())
}

/// Fetches one resource's records (all of them, or what changed since `since`) into the mirror.
async fn sync_resource(
    api: &Client,
    mirror: &Mirror,
    resource: &Resource,
    since: Option<DateTime<FixedOffset>>,
    reporter: &Reporter,
) -> Result<ResourceSummary, Skip> {
    mirror.prepare(resource.name).await.map_err(failed)?;
    let passes: Vec<(Filters, bool)> = match since {
        None => vec![(Filters::new().size(PAGE_SIZE), false)],
        Some(at) => vec![
            (Filters::new().updated_from(at).size(PAGE_SIZE), false),
            (Filters::new().deleted_from(at).size(PAGE_SIZE), true),
        ],
    };
    let mode = if since.is_some() { "incremental" } else { "full" };
    let mut task = reporter.start(resource.name, mode);
    let mut summary = ResourceSummary {
        name: resource.name,
        mode,
        since,
        updated: 0,
        deleted: 0,
        pages: 0,
        total_items: 0,
        live: 0,
        walked: true,
        elapsed_ms: 0,
        reason: None,
    };
    for (filters, deleted) in passes {
        let query = filters.query(resource.generation);
        let (mut walk, first) = match fetch::Walk::start(api, resource.name, resource.path, query, deleted).await {
            Ok(started) => started,
            Err(fetch::WalkError::Api(client::Error::Api { status, .. }))
                if status == StatusCode::FORBIDDEN || status == StatusCode::NOT_FOUND =>
            {
                task.abandon();
                return Err(Skip::Unreadable(format!("the server answered {status}")));
            }
            Err(fetch::WalkError::Api(error)) => {
                task.abandon();
                return Err(failed(error));
            }
            Err(fetch::WalkError::Failed(error)) => {
                task.abandon();
                return Err(Skip::Failed(error));
            }
        };
        task.expect(first.total_items);
        summary.total_items += first.total_items;
        let mut next = Some(first.rows);
        while let Some(rows) = next {
            mirror.upsert(resource.name, &rows).await.map_err(failed)?;
            let count = rows.len() as u64;
            if deleted {
                summary.deleted += count;
            } else {
                summary.updated += count;
            }
            summary.pages += 1;
            task.page(count);
            next = match walk.next().await {
                Ok(next) => next,
                Err(error) => {
                    task.abandon();
                    return Err(Skip::Failed(error));
                }
            };
        }
    }
    task.finish(&format!("{} changed, {} deleted", summary.updated, summary.deleted));
    Ok(summary)
}

/// A list the feed showed no change of since the last run: nothing is fetched, and its files stay as they are.
async fn unchanged(
    mirror: &Mirror,
    resource: &Resource,
    since: DateTime<FixedOffset>,
) -> Result<ResourceSummary, Skip> {
    mirror.prepare(resource.name).await.map_err(failed)?;
    Ok(ResourceSummary {
        name: resource.name,
        mode: "incremental",
        since: Some(since),
        updated: 0,
        deleted: 0,
        pages: 0,
        total_items: 0,
        live: mirror.live_count(resource.name).await.map_err(failed)?,
        walked: false,
        elapsed_ms: 0,
        reason: None,
    })
}

/// Renders the resource's files for `format`; answers how many live records the mirror holds. The SQLite format is
/// the mirror itself, so its records are only counted, not read (a million device events took seconds to read).
async fn write_files(mirror: &Mirror, out: &Path, format: Format, resource: &str) -> Result<u64, Failure> {
    let export = match format {
        Format::Jsonl => export::jsonl,
        Format::Csv => export::csv,
        Format::Sqlite => return mirror.live_count(resource).await,
    };
    let records = mirror.live(resource).await?;
    export(out, resource, &records)?;
    Ok(records.len() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resource_names_are_unique_and_plain() {
        let mut names: Vec<&str> = RESOURCES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RESOURCES.len());
        assert!(names
            .iter()
            .all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
    }

    #[test]
    fn the_largest_lists_start_first_and_the_others_keep_table_order() {
        let order: Vec<&str> = walk_order(select(&[]).expect("all")).iter().map(|r| r.name).collect();
        assert_eq!(order[..LARGEST_FIRST.len()], LARGEST_FIRST);
        let rest: Vec<&str> = RESOURCES
            .iter()
            .map(|r| r.name)
            .filter(|name| !LARGEST_FIRST.contains(name))
            .collect();
        assert_eq!(order[LARGEST_FIRST.len()..], rest[..]);
        let some = select(&["units".to_owned(), "plots".to_owned()]).expect("known");
        let names: Vec<&str> = walk_order(some).iter().map(|r| r.name).collect();
        assert_eq!(names, ["plots", "units"]);
    }

    #[test]
    fn unknown_resources_are_refused() {
        assert!(select(&["nope".to_owned()]).is_err());
        assert_eq!(select(&[]).expect("all").len(), RESOURCES.len());
    }
}
