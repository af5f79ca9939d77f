//! What a run reports: the machine-readable summary (`--summary-json`), per resource and in all, and the one line every
//! run prints.

use std::path::PathBuf;

use chrono::{DateTime, FixedOffset};
use serde::Serialize;

use super::Format;
use crate::say::{say, Say};

/// The machine-readable summary (`--summary-json`).
#[derive(Debug, Serialize)]
pub(super) struct Summary {
    pub(super) format: Format,
    pub(super) out: PathBuf,
    pub(super) started_at: DateTime<FixedOffset>,
    pub(super) elapsed_ms: u128,
    /// Records received over all resources, changed and deleted.
    pub(super) transferred: u64,
    pub(super) resources: Vec<ResourceSummary>,
    /// How the change feed was used: `read` (only lists with events walked), `head` (no cursor yet: all walked),
    /// `expired` (the cursor was past the feed's retention: all walked), `absent`, or `off`.
    pub(super) feed: &'static str,
    /// Events read from the feed, when it was read.
    pub(super) feed_events: Option<u64>,
    /// Set when the run stopped early; every resource in `resources` was synced and recorded, or skipped.
    pub(super) error: Option<String>,
}

#[derive(Debug, Serialize)]
pub(super) struct ResourceSummary {
    pub(super) name: &'static str,
    /// `full` (no earlier sync), `incremental`, or `skipped` (the account cannot read this list).
    pub(super) mode: &'static str,
    /// The instant changes were asked from, on an incremental sync.
    pub(super) since: Option<DateTime<FixedOffset>>,
    /// Live records received (all of them on a full sync, the changed ones on an incremental sync).
    pub(super) updated: u64,
    /// Deleted records received.
    pub(super) deleted: u64,
    /// Pages fetched over all passes.
    pub(super) pages: u64,
    /// What the server announced (`total_items`) over all passes.
    pub(super) total_items: u64,
    /// Live records in the mirror afterwards.
    pub(super) live: u64,
    /// Whether the list was read; false when the feed showed no change of it.
    pub(super) walked: bool,
    /// Milliseconds the resource took, from its first request to its files written and the mirror settled.
    pub(super) elapsed_ms: u128,
    /// Why a skipped resource was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) reason: Option<String>,
}

impl ResourceSummary {
    /// A resource the account cannot read, skipped for `reason`.
    pub(super) fn skipped(name: &'static str, since: Option<DateTime<FixedOffset>>, reason: String) -> Self {
        Self {
            name,
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
        }
    }
}

/// The one line every run prints, `--quiet` included, in the command's language (the JSON summary keeps its
/// words in every language).
pub(super) fn final_line(summary: &Summary) -> String {
    let synced = summary.resources.iter().filter(|r| r.mode != "skipped").count();
    let updated: u64 = summary.resources.iter().map(|r| r.updated).sum();
    let deleted: u64 = summary.resources.iter().map(|r| r.deleted).sum();
    say(Say::Synced {
        resources: synced,
        out: &summary.out.display().to_string(),
        transferred: summary.transferred,
        changed: updated,
        deleted,
        seconds: summary.elapsed_ms as f64 / 1000.0,
    })
}
