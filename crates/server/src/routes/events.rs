//! The change feed: `GET /api/v3/third_party/events`, the caller's society's events in commit order after a cursor,
//! and one event by id.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{Method, StatusCode};
use axum::Json;
use domain::events::{
    EventTypes, FeedRefusal, FeedStart, TypesRefusal, DEFAULT_FEED_SIZE, MAX_FEED_SIZE, RETENTION_DAYS,
};
use serde_json::value::RawValue;
use store::events::StoredEvent;
use store::Render;
use wire::events::{Event, EventPage};

use super::table::{ApiTable, Custom};
use crate::error::ApiError;
use crate::extract::{parse_id, Caller};
use crate::i18n::Msg;
use crate::openapi::feed_parameters;
use crate::AppState;

const TAG: &str = "Events";

const FEED: &str = "/api/v3/third_party/events";

/// Registers the feed and its events' detail.
pub fn register(mut table: ApiTable) -> ApiTable {
    let page = table.schema::<EventPage>();
    let event = table.schema::<Event>();
    table
        .custom(
            Method::GET,
            FEED,
            feed,
            Custom {
                parameters: feed_parameters(),
                ..Custom::read(
                    "Changes of the society's records, in the order they committed, after a cursor",
                    TAG,
                    page,
                )
            },
        )
        .custom(
            Method::GET,
            "/api/v3/third_party/events/{id}",
            detail,
            Custom::read(
                "One event, while the feed keeps it (e.g. to check a webhook delivery)",
                TAG,
                event,
            ),
        )
}

/// `GET /api/v3/third_party/events/{id}`: 404 when the caller's society has no such event (or it was pruned).
async fn detail(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<Event>, ApiError> {
    let numeric = parse_id(&id, "events")?;
    let event = state
        .store
        .find_event(&caller.scope, numeric)
        .await?
        .ok_or_else(|| ApiError::not_found("events", id))?;
    Ok(Json(wire_event(event, &caller.scope.render())?))
}

/// `GET /api/v3/third_party/events`.
async fn feed(
    State(state): State<AppState>,
    caller: Caller,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<EventPage>, ApiError> {
    let get = |name: &str| params.get(name).map(String::as_str);
    let start = FeedStart::parse(get("after"))
        .map_err(|_| ApiError::bad_request(Msg::BadCursor(get("after").unwrap_or_default().to_owned())))?;
    let types = EventTypes::parse_filter(get("types").unwrap_or_default()).map_err(|refusal| {
        ApiError::bad_request(match refusal {
            TypesRefusal::Unknown(entry) => Msg::UnknownEventType(entry),
            TypesRefusal::TooMany(max) => Msg::TooManyEventTypes(max),
        })
    })?;
    let size = match get("size") {
        None => DEFAULT_FEED_SIZE,
        Some(text) => text
            .trim()
            .parse()
            .ok()
            .filter(|size| (1..=MAX_FEED_SIZE).contains(size))
            .ok_or_else(|| ApiError::bad_request(Msg::InvalidFeedSize(text.to_owned(), MAX_FEED_SIZE)))?,
    };
    let page = match state.store.event_feed(&caller.scope, start, &types, size).await? {
        Ok(page) => page,
        Err(FeedRefusal::Expired) => {
            return Err(ApiError::new(StatusCode::GONE, Msg::FeedExpired(RETENTION_DAYS)));
        }
        // Another database's cursor, another society's, or one past the head: not one this feed answered.
        Err(FeedRefusal::Unknown) => {
            return Err(ApiError::bad_request(Msg::BadCursor(
                get("after").unwrap_or_default().to_owned(),
            )));
        }
    };
    let render = caller.scope.render();
    let items = page
        .events
        .into_iter()
        .map(|event| wire_event(event, &render))
        .collect::<Result<_, _>>()?;
    Ok(Json(EventPage {
        items,
        next_cursor: page.next.to_string(),
        has_more: page.has_more,
    }))
}

/// An event as the feed and webhook deliveries carry it.
pub(crate) fn wire_event(event: StoredEvent, render: &Render) -> Result<Event, ApiError> {
    let data = RawValue::from_string(event.payload.unwrap_or_else(|| "{}".to_owned()))
        .map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal))?;
    Ok(Event {
        id: event.id,
        kind: format!("{}.{}", event.resource, event.action),
        resource: event.resource,
        resource_id: event.resource_id,
        occurred_at: render.at(event.occurred_at),
        data,
    })
}
