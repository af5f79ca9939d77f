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

/// A place in one society's feed, in the feed's order: the events after it come next.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct FeedPlace {
    /// The event's place in its society's commit order (see the store's feed).
    pub position: i64,
    /// The event's id, which orders events of one position (those written before positions were per society).
    pub id: i64,
}

impl FeedPlace {
    /// The place after every event at or before `position`.
    pub fn after_position(position: i64) -> Self {
        Self { position, id: i64::MAX }
    }
}

/// The first field of a cursor that names its feed; a cursor written before cursors did is two numbers.
const FEED_CURSOR_TAG: &str = "f1";

/// A cursor as a client holds it, and sees it: an opaque string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventCursor {
    /// One handed out before cursors named their feed (`position.id`). It is taken as a place in the reader's feed,
    /// as it always was.
    Legacy(FeedPlace),
    /// A place in the feed of one society of one database.
    Feed {
        /// The feed identity of the database that answered it (made once by its schema, see the store's feed).
        database: String,
        /// The society whose feed it is.
        society_id: i64,
        /// Where in that feed.
        place: FeedPlace,
    },
}

impl fmt::Display for EventCursor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            Self::Legacy(FeedPlace { position, id }) => format!("{position}.{id}"),
            Self::Feed {
                database,
                society_id,
                place: FeedPlace { position, id },
            } => format!("{FEED_CURSOR_TAG}.{database}.{society_id}.{position}.{id}"),
        };
        f.write_str(&URL_SAFE_NO_PAD.encode(text))
    }
}

/// A cursor that is not one the feed handed out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadCursor;

/// A number of a cursor: digits only, so each text has one meaning.
fn cursor_number(text: &str) -> Result<i64, BadCursor> {
    if text.is_empty() || !text.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(BadCursor);
    }
    text.parse().map_err(|_| BadCursor)
}

impl std::str::FromStr for EventCursor {
    type Err = BadCursor;

    fn from_str(text: &str) -> Result<Self, BadCursor> {
        let decoded = URL_SAFE_NO_PAD.decode(text.trim()).map_err(|_| BadCursor)?;
        let decoded = String::from_utf8(decoded).map_err(|_| BadCursor)?;
        let fields: Vec<&str> = decoded.split('.').collect();
        match fields.as_slice() {
            [position, id] => Ok(Self::Legacy(FeedPlace {
                position: cursor_number(position)?,
                id: cursor_number(id)?,
            })),
            [FEED_CURSOR_TAG, database, society_id, position, id]
                if !database.is_empty() && database.bytes().all(|byte| byte.is_ascii_alphanumeric()) =>
            {
                Ok(Self::Feed {
                    database: (*database).to_owned(),
                    society_id: cursor_number(society_id)?,
                    place: FeedPlace {
                        position: cursor_number(position)?,
                        id: cursor_number(id)?,
                    },
                })
            }
            _ => Err(BadCursor),
        }
    }
}

/// Where a read of the feed starts.
#[derive(Debug, Clone, PartialEq, Eq)]
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

    /// Where in `feed` the read starts, or why it cannot.
    pub fn place(&self, feed: &Feed<'_>) -> Result<FeedPlace, FeedRefusal> {
        match self {
            Self::Beginning => Ok(feed.pruned),
            Self::Now => Ok(FeedPlace::after_position(feed.head).max(feed.pruned)),
            Self::After(cursor) => {
                let place = match cursor {
                    EventCursor::Legacy(place) => *place,
                    EventCursor::Feed {
                        database,
                        society_id,
                        place,
                    } if database == feed.database && *society_id == feed.society_id => *place,
                    EventCursor::Feed { .. } => return Err(FeedRefusal::Unknown),
                };
                if place.position > feed.head {
                    Err(FeedRefusal::Unknown)
                } else if place < feed.pruned {
                    Err(FeedRefusal::Expired)
                } else {
                    Ok(place)
                }
            }
        }
    }
}

/// One society's feed as a read finds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Feed<'a> {
    /// The database's feed identity.
    pub database: &'a str,
    /// The society.
    pub society_id: i64,
    /// The last position given to one of its events (0 before any).
    pub head: i64,
    /// The last event retention deleted (the start before any).
    pub pruned: FeedPlace,
}

impl Feed<'_> {
    /// The cursor a client is handed for `place` in this feed.
    pub fn cursor(&self, place: FeedPlace) -> EventCursor {
        EventCursor::Feed {
            database: self.database.to_owned(),
            society_id: self.society_id,
            place,
        }
    }
}

/// Why the feed cannot be read from where the caller asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedRefusal {
    /// The cursor is not one this feed answered: another database's, another society's, or past the head.
    Unknown,
    /// Events after the cursor have been pruned: the client must resync.
    Expired,
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATABASE: &str = "3f9a0c1d2e4b5a69";

    fn feed(society_id: i64, head: i64, pruned: FeedPlace) -> Feed<'static> {
        Feed {
            database: DATABASE,
            society_id,
            head,
            pruned,
        }
    }

    fn after(cursor: &EventCursor) -> FeedStart {
        FeedStart::parse(Some(&cursor.to_string())).expect("a cursor the feed made")
    }

    #[test]
    fn cursors_round_trip_and_order_by_position_then_id() {
        let place = FeedPlace {
            position: 812_345,
            id: 42,
        };
        let cursor = feed(7, 900_000, FeedPlace::default()).cursor(place);
        assert_eq!(cursor.to_string().parse::<EventCursor>(), Ok(cursor.clone()));
        assert!(
            !cursor.to_string().contains(['.', '~', '+', '/', '=']),
            "URL-safe and opaque"
        );
        assert!(FeedPlace { position: 1, id: 900 } < FeedPlace { position: 2, id: 1 });
        assert!(FeedPlace { position: 2, id: 1 } < FeedPlace::after_position(2));
        for bad in [
            "",
            "x",
            "MTIz",
            "LTEuMg",
            "!!",
            "KzEuMg",
            "ZjEuLjcuMS4y",
            "ZjEuYWIuNy4x",
            "ZjIuYWIuNy4xLjI",
        ] {
            assert_eq!(bad.parse::<EventCursor>(), Err(BadCursor), "{bad}");
        }
    }

    #[test]
    fn a_cursor_written_before_cursors_named_their_feed_still_reads_as_its_place() {
        // `position.id`, as every cursor was: one of an `after=now` head is the position with id 0.
        let legacy = URL_SAFE_NO_PAD.encode("123456.0");
        let place = FeedPlace {
            position: 123_456,
            id: 0,
        };
        assert_eq!(legacy.parse::<EventCursor>(), Ok(EventCursor::Legacy(place)));
        assert_eq!(EventCursor::Legacy(place).to_string(), legacy);
        // Any society's feed of any database takes it, up to the head, and refuses it before the pruning mark.
        let start = FeedStart::parse(Some(&legacy)).expect("legacy");
        assert_eq!(start.place(&feed(1, 123_456, FeedPlace::default())), Ok(place));
        assert_eq!(
            start.place(&feed(2, 200_000, FeedPlace { position: 5, id: 9 })),
            Ok(place)
        );
        assert_eq!(
            start.place(&feed(1, 123_455, FeedPlace::default())),
            Err(FeedRefusal::Unknown)
        );
        let pruned = FeedPlace {
            position: 123_456,
            id: 1,
        };
        assert_eq!(start.place(&feed(1, 200_000, pruned)), Err(FeedRefusal::Expired));
    }

    #[test]
    fn a_cursor_this_feed_never_answered_is_refused() {
        let ours = feed(7, 50, FeedPlace::default());
        let cursor = ours.cursor(FeedPlace { position: 50, id: 3 });
        assert_eq!(after(&cursor).place(&ours), Ok(FeedPlace { position: 50, id: 3 }));
        let another_database = Feed {
            database: "0000aaaa1111bbbb",
            ..ours
        };
        assert_eq!(after(&cursor).place(&another_database), Err(FeedRefusal::Unknown));
        assert_eq!(
            after(&cursor).place(&feed(8, 50, FeedPlace::default())),
            Err(FeedRefusal::Unknown)
        );
        let beyond = ours.cursor(FeedPlace { position: 51, id: 0 });
        assert_eq!(after(&beyond).place(&ours), Err(FeedRefusal::Unknown));
        let pruned = feed(7, 60, FeedPlace { position: 50, id: 4 });
        assert_eq!(after(&cursor).place(&pruned), Err(FeedRefusal::Expired));
        assert_eq!(
            after(&pruned.cursor(FeedPlace { position: 50, id: 4 })).place(&pruned),
            Ok(FeedPlace { position: 50, id: 4 })
        );
    }

    #[test]
    fn feed_starts_at_the_beginning_now_or_a_cursor() {
        assert_eq!(FeedStart::parse(None), Ok(FeedStart::Beginning));
        assert_eq!(FeedStart::parse(Some("now")), Ok(FeedStart::Now));
        assert_eq!(FeedStart::parse(Some("nope")), Err(BadCursor));
        let pruned = FeedPlace { position: 4, id: 17 };
        let ours = feed(7, 12, pruned);
        assert_eq!(FeedStart::Beginning.place(&ours), Ok(pruned));
        // The head is after every event of its position, so nothing already written is read again.
        assert_eq!(FeedStart::Now.place(&ours), Ok(FeedPlace::after_position(12)));
        let now = ours.cursor(FeedPlace::after_position(12));
        assert_eq!(after(&now).place(&ours), Ok(FeedPlace::after_position(12)));
        let emptied = feed(7, 12, FeedPlace { position: 12, id: 90 });
        assert_eq!(FeedStart::Now.place(&emptied), Ok(FeedPlace::after_position(12)));
        assert_eq!(
            FeedStart::Now.place(&feed(9, 0, FeedPlace::default())),
            Ok(FeedPlace::after_position(0))
        );
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
