//! The change feed's vocabulary: which resources have events and with which actions, how a client names the types
//! it wants, the cursor it resumes from, and the feed's page size and retention.

use std::fmt;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// How long the feed keeps an event; a cursor older than that is refused with a request to resync.
pub const RETENTION_DAYS: u64 = 30;

/// Events per page when the request does not say.
pub const DEFAULT_FEED_SIZE: u32 = 100;

/// The most events one page may hold.
pub const MAX_FEED_SIZE: u32 = 1000;

/// The most entries a feed's `types` filter may list, counted as sent, repeats included. Every type and every
/// `<resource>.*` together are far fewer, so only a list that repeats itself reaches it; the statement that reads the
/// feed passes the list as one parameter and does not grow with it either way.
pub const MAX_FEED_TYPES: usize = 1000;

/// What happened to a record.
pub const ACTIONS: &[&str] = &["created", "updated", "deleted"];

/// Every resource with events, and any actions it has besides created, updated and deleted.
pub const RESOURCES: &[(&str, &[&str])] = &[
    ("farmer", &[]),
    ("establishment", &[]),
    ("plot", &[]),
    ("tag", &[]),
    ("master_campaign", &[]),
    ("campaign", &[]),
    ("cultivation", &[]),
    ("contractor", &[]),
    ("machine", &[]),
    ("applicator", &[]),
    ("warehouse", &[]),
    ("work_order", &[]),
    ("scouting", &[]),
    ("scouting_measure", &[]),
    ("waypoint", &[]),
    ("progress", &[]),
    ("field_control", &[]),
    ("external_system", &[]),
    ("external_plot_association", &[]),
    ("silobag", &[]),
    ("silobag_campaign", &[]),
    ("weather_anomaly", &[]),
    ("device", &[]),
    ("device_event", &[]),
    ("job", &["finished", "failed"]),
    ("webhook_endpoint", &["disabled"]),
];

/// Every event type, `<resource>.<action>`, in [`RESOURCES`] order.
pub fn event_types() -> Vec<String> {
    RESOURCES
        .iter()
        .flat_map(|(resource, extra)| {
            ACTIONS
                .iter()
                .chain(extra.iter())
                .map(move |action| format!("{resource}.{action}"))
        })
        .collect()
}

/// One entry of a `types` filter: a resource, and one of its actions or all of them (`plot.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeFilter {
    /// The resource.
    pub resource: &'static str,
    /// The action; `None` for all.
    pub action: Option<&'static str>,
}

/// The types a reader asks for, each once; empty means every type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventTypes(pub Vec<TypeFilter>);

/// Why a feed's `types` filter is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypesRefusal {
    /// This entry names no type.
    Unknown(String),
    /// The list has more entries than [`MAX_FEED_TYPES`].
    TooMany(usize),
}

impl EventTypes {
    /// Reads the feed's `types` parameter: at most [`MAX_FEED_TYPES`] entries, then as [`EventTypes::parse`].
    pub fn parse_filter(list: &str) -> Result<Self, TypesRefusal> {
        let entries = list.split(',').filter(|entry| !entry.trim().is_empty()).count();
        if entries > MAX_FEED_TYPES {
            return Err(TypesRefusal::TooMany(MAX_FEED_TYPES));
        }
        Self::parse(list).map_err(TypesRefusal::Unknown)
    }

    /// Reads a comma-separated list of types (`work_order.created,plot.*`), keeping each entry once, in the order
    /// first named; the first unknown entry is the error.
    pub fn parse(list: &str) -> Result<Self, String> {
        let mut filters = Vec::new();
        for entry in list.split(',').map(str::trim).filter(|entry| !entry.is_empty()) {
            let (resource, action) = entry.split_once('.').ok_or_else(|| entry.to_owned())?;
            let (resource, extra) = RESOURCES
                .iter()
                .find(|(known, _)| *known == resource)
                .ok_or_else(|| entry.to_owned())?;
            let action = match action {
                "*" => None,
                action => Some(
                    *ACTIONS
                        .iter()
                        .chain(extra.iter())
                        .find(|known| **known == action)
                        .ok_or_else(|| entry.to_owned())?,
                ),
            };
            let filter = TypeFilter { resource, action };
            if !filters.contains(&filter) {
                filters.push(filter);
            }
        }
        Ok(Self(filters))
    }

    /// Every event type the filter asks for, each once (`plot.*` as each of the plot's types); empty for every type.
    pub fn names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for filter in &self.0 {
            let (_, extra) = RESOURCES
                .iter()
                .find(|(resource, _)| *resource == filter.resource)
                .copied()
                .unwrap_or((filter.resource, &[]));
            let actions = ACTIONS.iter().chain(extra.iter());
            for action in actions.filter(|action| filter.action.is_none_or(|wanted| wanted == **action)) {
                let name = format!("{}.{action}", filter.resource);
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Whether an event of `resource` with `action` is asked for.
    pub fn matches(&self, resource: &str, action: &str) -> bool {
        self.0.is_empty()
            || self
                .0
                .iter()
                .any(|filter| filter.resource == resource && filter.action.is_none_or(|wanted| wanted == action))
    }
}

/// A place in the feed: the events after it come next. Clients see it as an opaque string.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct EventCursor {
    /// The event's place in commit order (see the store's feed).
    pub position: i64,
    /// The event's id, which orders events of one place.
    pub id: i64,
}

impl fmt::Display for EventCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&URL_SAFE_NO_PAD.encode(format!("{}.{}", self.position, self.id)))
    }
}

/// A cursor that is not one the feed handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadCursor;

impl std::str::FromStr for EventCursor {
    type Err = BadCursor;

    fn from_str(text: &str) -> Result<Self, BadCursor> {
        let decoded = URL_SAFE_NO_PAD.decode(text.trim()).map_err(|_| BadCursor)?;
        let decoded = String::from_utf8(decoded).map_err(|_| BadCursor)?;
        let (position, id) = decoded.split_once('.').ok_or(BadCursor)?;
        let cursor = Self {
            position: position.parse().map_err(|_| BadCursor)?,
            id: id.parse().map_err(|_| BadCursor)?,
        };
        (cursor.position >= 0 && cursor.id >= 0)
            .then_some(cursor)
            .ok_or(BadCursor)
    }
}

/// Where a read of the feed starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedStart {
    /// Just after the last event pruned: the oldest event the feed serves.
    Beginning,
    /// The head: only events committed from now on (`after=now`).
    Now,
    /// After this cursor.
    After(EventCursor),
}

impl FeedStart {
    /// Reads the `after` parameter: absent, `now`, or a cursor.
    pub fn parse(after: Option<&str>) -> Result<Self, BadCursor> {
        match after.map(str::trim) {
            None | Some("") => Ok(Self::Beginning),
            Some("now") => Ok(Self::Now),
            Some(cursor) => cursor.parse().map(Self::After),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_order_by_position_then_id() {
        let cursor = EventCursor {
            position: 812_345,
            id: 42,
        };
        assert_eq!(cursor.to_string().parse::<EventCursor>(), Ok(cursor));
        assert!(EventCursor { position: 1, id: 900 } < EventCursor { position: 2, id: 1 });
        for bad in ["", "x", "MTIz", "LTEuMg", "!!"] {
            assert_eq!(bad.parse::<EventCursor>(), Err(BadCursor), "{bad}");
        }
    }

    #[test]
    fn feed_starts_at_the_beginning_now_or_a_cursor() {
        assert_eq!(FeedStart::parse(None), Ok(FeedStart::Beginning));
        assert_eq!(FeedStart::parse(Some("now")), Ok(FeedStart::Now));
        let cursor = EventCursor { position: 3, id: 4 };
        assert_eq!(
            FeedStart::parse(Some(&cursor.to_string())),
            Ok(FeedStart::After(cursor))
        );
        assert_eq!(FeedStart::parse(Some("nope")), Err(BadCursor));
    }

    #[test]
    fn types_name_known_resources_and_actions() {
        let types = EventTypes::parse("work_order.created, plot.*,job.finished").expect("known");
        assert!(types.matches("work_order", "created"));
        assert!(!types.matches("work_order", "updated"));
        assert!(types.matches("plot", "deleted"));
        assert!(types.matches("job", "finished"));
        assert_eq!(EventTypes::parse("plot.finished"), Err("plot.finished".to_owned()));
        assert_eq!(EventTypes::parse("crop.created"), Err("crop.created".to_owned()));
        assert_eq!(EventTypes::parse("plot"), Err("plot".to_owned()));
        assert!(EventTypes::parse("").expect("empty").matches("device", "created"));
    }

    #[test]
    fn a_filter_keeps_each_type_once_and_is_capped_as_sent() {
        let types = EventTypes::parse("plot.*, plot.*,plot.created,job.finished,job.finished").expect("known");
        assert_eq!(types.0.len(), 3, "{types:?}");
        assert_eq!(
            types.names(),
            ["plot.created", "plot.updated", "plot.deleted", "job.finished"]
        );
        assert_eq!(
            EventTypes::parse("job.*").expect("known").names(),
            [
                "job.created",
                "job.updated",
                "job.deleted",
                "job.finished",
                "job.failed"
            ]
        );
        let all = event_types();
        let at_the_cap: Vec<&str> = all.iter().map(String::as_str).cycle().take(MAX_FEED_TYPES).collect();
        let parsed = EventTypes::parse_filter(&at_the_cap.join(",")).expect("at the cap");
        assert_eq!(parsed.names(), all, "every type once, in order");
        let over: Vec<&str> = all
            .iter()
            .map(String::as_str)
            .cycle()
            .take(MAX_FEED_TYPES + 1)
            .collect();
        assert_eq!(
            EventTypes::parse_filter(&over.join(",")),
            Err(TypesRefusal::TooMany(MAX_FEED_TYPES))
        );
        assert_eq!(
            EventTypes::parse_filter("plot.*,crop.*"),
            Err(TypesRefusal::Unknown("crop.*".to_owned()))
        );
    }

    #[test]
    fn every_resource_has_the_three_actions() {
        let types = event_types();
        assert_eq!(types.len(), RESOURCES.len() * 3 + 3);
        assert!(types.contains(&"webhook_endpoint.disabled".to_owned()));
    }
}
