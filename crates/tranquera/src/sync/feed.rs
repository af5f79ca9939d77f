//! The change feed as the sync's trigger: which lists changed since the cursor the folder saved, so an incremental
//! run walks only those. The walk of a list (`updated_at` and deleted reads) stays the truth; the feed only says
//! which lists to walk.
//!
//! The cursor the folder saves is read at the start of a run and saved only when the whole run succeeded, so
//! a change committed during a run is read again by the next one, and an interrupted run loses nothing.

use std::collections::BTreeMap;

use client::{Client, StatusCode};

use crate::settings::Failure;

/// Events read per request: the most the feed gives.
const FEED_PAGE: u32 = 1000;

/// Each synced list whose records are events of a feed resource, by the feed's resource name. Lists not here
/// (catalogues, whose rows change only through releases and operators' reference imports) have no events and are
/// walked on every run.
const EVENT_RESOURCES: &[(&str, &str)] = &[
    ("farmers", "farmer"),
    ("establishments", "establishment"),
    ("plots", "plot"),
    ("tags", "tag"),
    ("master_campaigns", "master_campaign"),
    ("campaigns", "campaign"),
    ("cultivations", "cultivation"),
    ("external_systems", "external_system"),
    ("external_plot_associations", "external_plot_association"),
    ("applicators", "applicator"),
    ("machines", "machine"),
    ("contractors", "contractor"),
    ("warehouses", "warehouse"),
    ("work_orders", "work_order"),
    ("scouting", "scouting"),
    ("scouting_measures", "scouting_measure"),
    ("waypoints", "waypoint"),
    ("progress_report", "progress"),
    ("planting_progress", "progress"),
    ("harvest_progress", "progress"),
    ("fertilization_control", "field_control"),
    ("planting_control", "field_control"),
    ("plant_stand_control", "field_control"),
    ("silobags", "silobag"),
    ("silobag_campaigns", "silobag_campaign"),
    ("weather_anomaly", "weather_anomaly"),
    ("devices", "device"),
    ("device_events", "device_event"),
    ("campaigns_update_objective_yield_jobs", "job"),
    ("campaigns_import_jobs", "job"),
];

/// What the feed says about this run.
#[derive(Debug)]
pub enum FeedPlan {
    /// Not asked: `--no-feed`, or `--resource` (a cursor saved for some lists would say nothing of the others).
    Off,
    /// The server has no feed (404) or the account may not read it (403): every list is walked.
    Absent,
    /// No cursor saved yet: every list is walked, and `head`, read before the walk, is saved after it.
    Head { head: String },
    /// The saved cursor is older than the feed keeps (410): every list is walked since its own last sync (its
    /// updated and its deleted records), then `head` saved.
    Expired { head: String },
    /// Events after the saved cursor, counted by resource; `next` is saved after the lists that had them are walked.
    Changes {
        next: String,
        events: u64,
        by_resource: BTreeMap<String, u64>,
    },
}

impl FeedPlan {
    /// Whether `list` can be left alone: the feed was read and had no event of it. Lists without events are never
    /// left alone.
    pub fn unchanged(&self, list: &str) -> bool {
        let FeedPlan::Changes { by_resource, .. } = self else {
            return false;
        };
        match event_resource(list) {
            Some(resource) => !by_resource.contains_key(resource),
            None => false,
        }
    }

    /// The cursor to save once the run succeeded; `None` keeps the saved one as it is.
    pub fn cursor_to_save(&self) -> Option<&str> {
        match self {
            FeedPlan::Head { head } | FeedPlan::Expired { head } => Some(head),
            FeedPlan::Changes { next, .. } => Some(next),
            FeedPlan::Off | FeedPlan::Absent => None,
        }
    }

    /// The summary's word for it.
    pub fn label(&self) -> &'static str {
        match self {
            FeedPlan::Off => "off",
            FeedPlan::Absent => "absent",
            FeedPlan::Head { .. } => "head",
            FeedPlan::Expired { .. } => "expired",
            FeedPlan::Changes { .. } => "read",
        }
    }

    /// Events read, when the feed was read.
    pub fn events(&self) -> Option<u64> {
        match self {
            FeedPlan::Changes { events, .. } => Some(*events),
            _ => None,
        }
    }
}

/// The feed resource whose events are changes of the synced list `list`.
fn event_resource(list: &str) -> Option<&'static str> {
    EVENT_RESOURCES
        .iter()
        .find(|(name, _)| *name == list)
        .map(|(_, resource)| *resource)
}

/// Asks the feed what changed after `saved` (or, with none saved, where its head is).
pub async fn plan(api: &Client, saved: Option<&str>) -> Result<FeedPlan, Failure> {
    let Some(saved) = saved else {
        return Ok(match head(api).await? {
            Some(head) => FeedPlan::Head { head },
            None => FeedPlan::Absent,
        });
    };
    let mut after = saved.to_owned();
    let mut events = 0;
    let mut by_resource = BTreeMap::new();
    loop {
        let page = match api.event_page(Some(&after), &[], FEED_PAGE).await {
            Ok(page) => page,
            Err(error) if error.status() == Some(StatusCode::GONE) => {
                return Ok(match head(api).await? {
                    Some(head) => FeedPlan::Expired { head },
                    None => FeedPlan::Absent,
                });
            }
            Err(error) if unreadable(&error) => return Ok(FeedPlan::Absent),
            Err(error) => return Err(error.into()),
        };
        for event in &page.items {
            *by_resource.entry(event.resource.clone()).or_insert(0u64) += 1;
        }
        events += page.items.len() as u64;
        after = page.next_cursor;
        if !page.has_more {
            return Ok(FeedPlan::Changes {
                next: after,
                events,
                by_resource,
            });
        }
    }
}

/// The feed's present head, or `None` when the server offers no feed to this account.
async fn head(api: &Client) -> Result<Option<String>, Failure> {
    match api.event_page(Some(client::NOW), &[], 1).await {
        Ok(page) => Ok(Some(page.next_cursor)),
        Err(error) if unreadable(&error) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// A server without the feed answers 404; an account without the right to read it, 403.
fn unreadable(error: &client::Error) -> bool {
    matches!(error.status(), Some(StatusCode::NOT_FOUND | StatusCode::FORBIDDEN))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mapped_list_is_a_synced_list() {
        for (list, _) in EVENT_RESOURCES {
            assert!(super::super::RESOURCES.iter().any(|r| r.name == *list), "{list}");
        }
    }

    #[test]
    fn only_lists_with_events_and_none_read_are_left_alone() {
        let plan = FeedPlan::Changes {
            next: "c".to_owned(),
            events: 2,
            by_resource: BTreeMap::from([("work_order".to_owned(), 1), ("progress".to_owned(), 1)]),
        };
        assert!(!plan.unchanged("work_orders"));
        assert!(!plan.unchanged("harvest_progress"));
        assert!(plan.unchanged("plots"));
        assert!(
            !plan.unchanged("units"),
            "a catalogue has no events, so it is always walked"
        );
        assert!(!FeedPlan::Head { head: "h".to_owned() }.unchanged("plots"));
    }
}
