//! The change feed: events as `GET /api/v3/third_party/events` answers them and as webhook deliveries carry them.

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use utoipa::ToSchema;

use crate::Timestamp;

/// One committed change of one record.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct Event {
    /// The event's id: unique, and the same on every delivery of it (the `webhook-id` of a delivery is
    /// `evt_<id>`). Ids grow with time but the feed is ordered by its cursor, not by id.
    pub id: i64,
    /// `<resource>.<action>`, e.g. `work_order.updated`; the actions are `created`, `updated` and `deleted`, plus
    /// `job.finished` and `webhook_endpoint.disabled`.
    #[serde(rename = "type")]
    #[schema(example = "work_order.updated")]
    pub kind: String,
    /// The resource the record belongs to, e.g. `work_order`.
    #[schema(example = "work_order")]
    pub resource: String,
    /// The record's id in that resource (`local_id` of a work order, `id` elsewhere).
    pub resource_id: i64,
    /// When the change was made, in the society's offset.
    pub occurred_at: Timestamp,
    /// The record as its v3 read (or, where it has none, its v2 read) answered it just after this change; for a
    /// record that no longer exists, `{"id": …, "deleted_at": …}`.
    #[schema(schema_with = record)]
    pub data: Box<RawValue>,
}

/// The schema of an event's `data`: any record, so an object, with a plot as its example.
fn record() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::Object)
        .description(Some(
            "The record as its v3 read (or, where it has none, its v2 read) answered it just after this change; for \
             a record that no longer exists, `{\"id\": …, \"deleted_at\": …}`.",
        ))
        .examples([serde_json::json!({
            "id": 12, "name": "Lote 12", "establishment_id": 3, "area": 48.5, "external_code": "ERP-LOT-12",
            "active": true, "created_at": "2024-03-01T09:30:00-03:00", "updated_at": "2024-03-01T09:30:00-03:00",
            "deleted_at": null
        })])
        .build()
}

/// One page of the change feed.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema)]
pub struct EventPage {
    /// Events after the cursor asked for, in the order their changes committed.
    pub items: Vec<Event>,
    /// Where the next request continues: pass it as `after`. Present even when `items` is empty.
    #[schema(example = "MTIzNDU2LjQy")]
    pub next_cursor: String,
    /// Whether more events were already available when this page was read (ask again at once); when false, poll.
    pub has_more: bool,
}
