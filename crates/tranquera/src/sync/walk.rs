//! One resource's turn in a run: its records fetched into the mirror (all of them, or what changed since its last
//! sync), or noted unchanged when the feed showed no change of it; then its files written and the mirror made durable.

use std::path::Path;
use std::time::Instant;

use chrono::{DateTime, FixedOffset, Utc};
use client::{Client, Filters, StatusCode};

use super::mirror::Mirror;
use super::progress::Reporter;
use super::resources::Resource;
use super::summary::ResourceSummary;
use super::{export, feed, fetch, Format};
use crate::say::{say, Say};
use crate::settings::Failure;

/// Page size asked of v3 lists: the largest the API allows, so a sync makes the fewest requests (v2 pages by 100).
pub(super) const PAGE_SIZE: u32 = 500;

/// What every resource of a run shares.
pub(super) struct Run<'a> {
    pub(super) api: &'a Client,
    pub(super) mirror: &'a Mirror,
    pub(super) plan: &'a feed::FeedPlan,
    pub(super) reporter: &'a Reporter,
    pub(super) out: &'a Path,
    pub(super) format: Format,
}

/// One resource's outcome, with what its state needs.
pub(super) struct Done {
    pub(super) resource: &'static Resource,
    pub(super) since: Option<DateTime<FixedOffset>>,
    /// The instant before the resource's first request: anything written after it is seen by the next run.
    pub(super) started_at: DateTime<FixedOffset>,
    pub(super) outcome: Result<ResourceSummary, Skip>,
}

impl Run<'_> {
    /// Syncs one resource (or notes it unchanged), writes its files and makes the mirror durable.
    pub(super) async fn resource(&self, resource: &'static Resource, since: Option<DateTime<FixedOffset>>) -> Done {
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

    pub(super) async fn finish(
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

/// Why a resource was not synced.
pub(super) enum Skip {
    /// The account cannot read the list (403, or 404 on a server that lacks it): the others still sync.
    Unreadable(String),
    /// Anything else stops the run.
    Failed(Failure),
}

/// A failure that stops the run.
pub(super) fn failed(error: impl Into<Failure>) -> Skip {
    Skip::Failed(error.into())
}

/// Fetches one resource's records (all of them, or what changed since `since`) into the mirror.
pub(super) async fn sync_resource(
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
    let (mode, shown) = match since {
        Some(_) => ("incremental", say(Say::Incremental)),
        None => ("full", say(Say::Full)),
    };
    let mut task = reporter.start(resource.name, &shown);
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
                return Err(Skip::Unreadable(say(Say::ServerAnswered(&status.to_string()))));
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
    task.finish(&say(Say::Changes {
        changed: summary.updated,
        deleted: summary.deleted,
    }));
    Ok(summary)
}

/// A list the feed showed no change of since the last run: nothing is fetched, and its files stay as they are.
pub(super) async fn unchanged(
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
pub(super) async fn write_files(mirror: &Mirror, out: &Path, format: Format, resource: &str) -> Result<u64, Failure> {
    let export = match format {
        Format::Jsonl => export::jsonl,
        Format::Csv => export::csv,
        Format::Sqlite => return mirror.live_count(resource).await,
    };
    let records = mirror.live(resource).await?;
    export(out, resource, &records)?;
    Ok(records.len() as u64)
}
