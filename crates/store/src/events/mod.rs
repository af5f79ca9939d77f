//! The change feed: events written by triggers in the same transaction as their change ([`sources`]), each given
//! its record's read shape just before that transaction commits ([`payload`]), read back in commit order after a
//! cursor ([`feed`]) and pruned after the retention period.

mod feed;
mod payload;
mod sources;

pub use feed::{FeedPage, FeedRefusal, StoredEvent};
pub(crate) use payload::{
    postgres_own_creation_last, render_pending_postgres, render_pending_sqlite, OwnEvent, WrittenEvents,
    POSTGRES_BEGIN_OWN_EVENTS, SQLITE_BEGIN_OWN_EVENTS,
};
#[cfg(test)]
pub(crate) use sources::EVENT_SOURCES;
pub(crate) use sources::{own_resource, pause_capture, track_events, track_events_again};
