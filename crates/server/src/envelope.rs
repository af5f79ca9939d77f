//! The middleware that makes every error answer the specification's envelope, in the caller's language, with its
//! machine-readable `reason` and, on 400 and 422, every problem of the request — errors of our handlers and of
//! everything around them alike (unknown paths, wrong methods, oversized bodies, panics, time-outs) — and the one
//! that requires the system-id header. [`hints`] finds where a method a path does not take is served instead.

pub mod hints;

use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::Lang;
use wire::ErrorBody;

use crate::error::{ApiError, ErrorReport};
use crate::i18n::Msg;
use crate::AppState;

/// The value of the system-id header that identifies the third-party integrator system.
pub const INTEGRATOR_SYSTEM_ID: &str = "8";

/// The language of the caller's society, which authentication fills in: a request without `Accept-Language`
/// gets its errors in the language of its society's country (Portuguese in Brazil, Spanish elsewhere).
#[derive(Debug, Clone, Default)]
pub struct SocietyLanguage(Arc<OnceLock<Lang>>);

impl SocietyLanguage {
    /// Records the caller's society's country, once its token is known.
    pub fn learn(&self, country_code: &str) {
        if let Some(country) = domain::country::country(country_code) {
            let _ = self.0.set(country.language);
        }
    }
}

/// Renders error responses as the envelope, in the language `Accept-Language` prefers, or else the society's.
pub async fn render_errors(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    let asked = request
        .headers()
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|v| v.to_str().ok())
        .map(|value| Lang::negotiate(Some(value)));
    // Only a request that names no language needs to hear which society it is for.
    let society = asked.is_none().then(SocietyLanguage::default);
    if let Some(society) = &society {
        request.extensions_mut().insert(society.clone());
    }
    let path = request.uri().path().to_owned();
    let method = request.method().clone();
    let mut response = next.run(request).await;
    let lang = asked
        .or_else(|| society.and_then(|society| society.0.get().copied()))
        .unwrap_or_default();
    let status = response.status();
    let report = match response.extensions_mut().remove::<ErrorReport>() {
        Some(report) => report,
        None if status.is_client_error() || status.is_server_error() => ErrorReport {
            code: i64::from(status.as_u16()),
            msg: match status {
                StatusCode::NOT_FOUND => Msg::RouteNotFound(path),
                StatusCode::METHOD_NOT_ALLOWED => Msg::MethodNotAllowed {
                    elsewhere: state.method_hints.elsewhere(&method, &path),
                },
                StatusCode::PAYLOAD_TOO_LARGE => Msg::PayloadTooLarge(state.config.body_limit),
                StatusCode::REQUEST_TIMEOUT => Msg::Timeout,
                StatusCode::INTERNAL_SERVER_ERROR => Msg::Internal,
                StatusCode::SERVICE_UNAVAILABLE => Msg::Unavailable,
                other => Msg::Status(other.as_u16()),
            },
        },
        None => return response,
    };
    let body = ErrorBody::new(report.code, report.msg.text(lang), report.msg.reason());
    // Every problem of the request as sent; other errors are not about one place of it.
    let body = match status {
        StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY => body.with_errors(report.msg.problems(lang)),
        _ => body,
    };
    let bytes = serde_json::to_vec(&body).unwrap_or_default();
    let (mut parts, _) = response.into_parts();
    parts
        .headers
        .insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    parts.headers.remove(header::CONTENT_LENGTH);
    // The database is away for the moment (an outage, a failover): a second is when trying again is worth it.
    if status == StatusCode::SERVICE_UNAVAILABLE && !parts.headers.contains_key(header::RETRY_AFTER) {
        parts.headers.insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    }
    Response::from_parts(parts, Body::from(bytes))
}

/// Refuses any API call without `X-SVC-SYSTEM-ID: 8` (the token configurable).
pub async fn require_system_id(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let header_name = &state.headers.system_id;
    match request.headers().get(header_name) {
        None => ApiError::unauthorized(Msg::MissingSystemId(state.headers.system_id_display.clone())).into_response(),
        Some(value) if value.as_bytes().trim_ascii() != INTEGRATOR_SYSTEM_ID.as_bytes() => {
            ApiError::unauthorized(Msg::WrongSystemId(state.headers.system_id_display.clone())).into_response()
        }
        Some(_) => next.run(request).await,
    }
}

/// The answer for paths no route has.
pub async fn route_not_found(request: Request) -> Response {
    ApiError::new(
        StatusCode::NOT_FOUND,
        Msg::RouteNotFound(request.uri().path().to_owned()),
    )
    .into_response()
}
