//! The console's page, its script and stylesheet (served from the binary), and the JSON it reads. The JSON routes
//! take the API's bearer token and read only the token's society's ring: the society is never a parameter.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use serde_json::Value;
use store::console::{ConsoleFilter, ConsoleRequest};
use wire::Timestamp;

use super::resend::{self, Resend};
use super::Console;
use crate::error::ApiError;
use crate::extract::{parse_id, Caller};
use crate::i18n::Msg;
use crate::AppState;

const PAGE: &str = include_str!("../../assets/console/index.html");
const SCRIPT: &str = include_str!("../../assets/console/console.js");
const STYLESHEET: &str = include_str!("../../assets/console/console.css");

/// The page loads its script, its stylesheet and its data from this server, and nothing from anywhere else.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
     img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'self'; frame-ancestors 'self'";

/// The resource name errors give a recorded request.
const NAME: &str = "console_requests";

/// Requests a list answers unless asked for fewer.
const DEFAULT_LIMIT: u32 = 100;

/// The page with the system-id header's name (it depends on the configured header token) filled in.
pub fn page(system_id_header: &str) -> String {
    PAGE.replace("{system_id_header}", system_id_header)
}

/// Where each operation of the OpenAPI document is in the reference, found by method and path.
pub struct Operations(matchit::Router<Vec<(String, Reference)>>);

/// A link to an operation's reference: Swagger UI's deep link, `/docs#/{tag}/{operationId}`.
#[derive(Debug, Clone, Serialize)]
pub struct Reference {
    /// The operation's tag.
    pub tag: String,
    /// Its `operationId`.
    pub operation_id: String,
    /// The link.
    pub url: String,
}

/// Swagger UI's spelling of a tag or an operation id in a deep link: blanks as `%20`.
fn deep_link_part(text: &str) -> String {
    text.trim().replace(char::is_whitespace, "%20")
}

impl Operations {
    /// Indexes every operation of `document` by its path template and method.
    pub fn new(document: &Value) -> Self {
        let mut router = matchit::Router::new();
        for (path, item) in document["paths"].as_object().into_iter().flatten() {
            let operations: Vec<(String, Reference)> = item
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(|(method, operation)| {
                    let operation_id = operation["operationId"].as_str()?;
                    let tag = operation["tags"][0].as_str().unwrap_or_default();
                    let reference = Reference {
                        tag: tag.to_owned(),
                        operation_id: operation_id.to_owned(),
                        url: format!("/docs#/{}/{}", deep_link_part(tag), deep_link_part(operation_id)),
                    };
                    Some((method.to_ascii_uppercase(), reference))
                })
                .collect();
            if let Err(error) = router.insert(path.as_str(), operations) {
                tracing::warn!(%path, %error, "the console cannot link this path to its reference");
            }
        }
        Self(router)
    }

    /// The reference of the operation that serves `method path`, if one does.
    pub fn find(&self, method: &str, path: &str) -> Option<Reference> {
        let matched = self.0.at(path).ok()?;
        matched
            .value
            .iter()
            .find(|(operation_method, _)| operation_method == method)
            .map(|(_, reference)| reference.clone())
    }
}

fn console(state: &AppState) -> Result<&Console, ApiError> {
    state
        .console
        .as_deref()
        .ok_or_else(|| ApiError::new(axum::http::StatusCode::NOT_FOUND, Msg::RouteNotFound("/console".into())))
}

/// `GET /console`.
pub async fn page_html(State(state): State<AppState>) -> Result<Response, ApiError> {
    let page = console(&state)?.page.clone();
    Ok((
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (
                header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CONTENT_SECURITY_POLICY),
            ),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (header::REFERRER_POLICY, HeaderValue::from_static("no-referrer")),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        page,
    )
        .into_response())
}

fn asset(content_type: &'static str, text: &'static str) -> Response {
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static(content_type)),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-cache")),
        ],
        text,
    )
        .into_response()
}

/// `GET /console/console.js`.
pub async fn script() -> Response {
    asset("text/javascript; charset=utf-8", SCRIPT)
}

/// `GET /console/console.css`.
pub async fn stylesheet() -> Response {
    asset("text/css; charset=utf-8", STYLESHEET)
}

/// A recorded request as the console's JSON shows it.
#[derive(Debug, Serialize)]
pub struct RecordedRequest {
    /// Its id in the ring.
    pub id: i64,
    /// When it was answered, in the society's offset.
    pub at: Timestamp,
    /// The method.
    pub method: String,
    /// The path.
    pub path: String,
    /// The query string (secret parameters redacted).
    pub query: Option<String>,
    /// The answer's status.
    pub status: i64,
    /// Milliseconds until the answer's head.
    pub latency_ms: i64,
    /// The request id (`x-request-id`).
    pub request_id: Option<String>,
    /// The error's message, for an error answer.
    pub error_message: Option<String>,
    /// Where its operation is in the reference.
    pub reference: Option<Reference>,
    /// Its headers (a detail read only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_headers: Option<Value>,
    /// Its body: JSON, or a note of what it was (a detail read only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<Value>,
    /// The answer's body, likewise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<Value>,
    /// Whether the page can send it again as it was recorded, and why not (a detail read only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resend: Option<Resend>,
}

/// A stored body: the JSON it holds, or the note kept instead of it, as text.
fn stored_body(text: Option<String>) -> Value {
    match text {
        Some(text) => serde_json::from_str(&text).unwrap_or(Value::String(text)),
        None => Value::Null,
    }
}

fn shown(console: &Console, caller: &Caller, request: ConsoleRequest) -> RecordedRequest {
    let reference = console.operations.find(&request.method, &request.path);
    let detail = request.detail.map(|detail| {
        let headers = serde_json::from_str(&detail.request_headers).unwrap_or(Value::Null);
        let resend = resend::judge(request.query.as_deref(), &headers, detail.request_body.as_deref());
        (
            headers,
            stored_body(detail.request_body),
            stored_body(detail.response_body),
            resend,
        )
    });
    let (request_headers, request_body, response_body, resend) = match detail {
        Some((headers, request_body, response_body, resend)) => {
            (Some(headers), Some(request_body), Some(response_body), Some(resend))
        }
        None => (None, None, None, None),
    };
    RecordedRequest {
        id: request.id,
        at: caller.scope.render().at(request.recorded_at),
        method: request.method,
        path: request.path,
        query: request.query,
        status: request.status,
        latency_ms: request.latency_ms,
        request_id: request.request_id,
        error_message: request.error_message,
        reference,
        request_headers,
        request_body,
        response_body,
        resend,
    }
}

/// The answer of `GET /console/api/requests`.
#[derive(Debug, Serialize)]
pub struct RecordedRequests {
    /// Requests kept per society.
    pub ring_size: u32,
    /// Requests this process could not record since it started (its writer behind, or the database away).
    pub dropped: u64,
    /// The society's requests that pass the filters, newest first.
    pub items: Vec<RecordedRequest>,
}

/// Reads `status` (`4xx` or `422`), `path` (a part of the path) and `limit` into a filter.
fn filter(params: &HashMap<String, String>, ring_size: u32) -> Result<ConsoleFilter, ApiError> {
    let malformed = |detail: &str| ApiError::bad_request(Msg::MalformedQuery(detail.to_owned()));
    let mut filter = ConsoleFilter {
        limit: DEFAULT_LIMIT.min(ring_size),
        ..ConsoleFilter::default()
    };
    if let Some(status) = params.get("status").map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let class = status
            .strip_suffix("xx")
            .or_else(|| status.strip_suffix("XX"))
            .and_then(|digit| digit.parse::<u16>().ok())
            .filter(|digit| (1..=5).contains(digit));
        match (class, status.parse::<u16>()) {
            (Some(class), _) => filter.status_class = Some(class),
            (None, Ok(exact)) if (100..=599).contains(&exact) => filter.status = Some(exact),
            _ => return Err(malformed("status: 1xx … 5xx, or a status such as 422")),
        }
    }
    filter.path = params
        .get("path")
        .map(|p| p.trim().to_owned())
        .filter(|p| !p.is_empty());
    if let Some(limit) = params.get("limit") {
        let limit = limit
            .parse::<u32>()
            .ok()
            .filter(|limit| (1..=ring_size).contains(limit))
            .ok_or_else(|| malformed(&format!("limit: 1 … {ring_size}")))?;
        filter.limit = limit;
    }
    Ok(filter)
}

/// `GET /console/api/requests`: the caller's society's recent requests, newest first, without bodies.
pub async fn requests(
    State(state): State<AppState>,
    caller: Caller,
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<RecordedRequests>, ApiError> {
    let console = console(&state)?;
    let filter = filter(&params, console.ring_size)?;
    let found = state.store.console_requests(&caller.scope, &filter).await?;
    Ok(Json(RecordedRequests {
        ring_size: console.ring_size,
        dropped: console.dropped(),
        items: found
            .into_iter()
            .map(|request| shown(console, &caller, request))
            .collect(),
    }))
}

/// `GET /console/api/requests/{id}`: one of the caller's society's requests, with its headers and bodies.
pub async fn request(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<RecordedRequest>, ApiError> {
    let console = console(&state)?;
    let numeric = parse_id(&id, NAME)?;
    let found = state
        .store
        .console_request(&caller.scope, numeric)
        .await?
        .ok_or_else(|| ApiError::not_found(NAME, &id))?;
    Ok(Json(shown(console, &caller, found)))
}
