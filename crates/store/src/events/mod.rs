//! The change feed: what a write transaction changed ([`changes`]), written as events with their payloads by that
//! transaction's commit ([`commit`], [`payload`]), read back in commit order after a cursor ([`feed`]) and pruned
//! after the retention period. Each resource with events declares its [`EventResource`] beside its read.

mod changes;
pub(crate) mod commit;
mod feed;
mod payload;

pub(crate) use changes::{Changes, Listed};
pub use feed::{FeedPage, StoredEvent};
pub use payload::EventResource;
pub(crate) use payload::{encode, records, Rendering};
