//! Extractors: the authenticated caller, a list request's page and filters, and JSON bodies — each parsed at the
//! boundary, so handlers only ever see valid values.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRef, FromRequest, FromRequestParts, Query, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use domain::{AuditFilters, Generation, PageRequest};
use serde::de::DeserializeOwned;
use store::auth::TokenCheck;
use store::{Scope, Snapshot};
use tower_http::timeout::TimeoutError;
use utoipa::ToSchema;

use crate::envelope::SocietyLanguage;
use crate::error::ApiError;
use crate::i18n::Msg;
use crate::{AppState, ServerConfig};

/// An authenticated caller: the society every query of the request is scoped to.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The caller's society.
    pub scope: Scope,
    /// The caller's account.
    pub user_id: i64,
    /// The caller's society's data as the request found it.
    pub snapshot: Snapshot,
}

impl<S> FromRequestParts<S> for Caller
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let state = AppState::from_ref(state);
        let token = authorization(&parts.headers).map_err(ApiError::unauthorized)?;
        match state.store.authenticate(token).await? {
            TokenCheck::Valid(session) => {
                crate::ratelimit::charge_token(&parts.extensions, token)?;
                if let Some(language) = parts.extensions.get::<SocietyLanguage>() {
                    language.learn(session.scope.country());
                }
                if let Some(seen) = parts.extensions.get::<crate::console::SeenSociety>() {
                    seen.learn(&session.scope);
                }
                Ok(Caller {
                    scope: session.scope,
                    user_id: session.user_id,
                    snapshot: session.snapshot,
                })
            }
            TokenCheck::Invalid => Err(ApiError::unauthorized(Msg::InvalidToken)),
            TokenCheck::Forbidden => Err(ApiError::forbidden(Msg::Forbidden)),
        }
    }
}

/// The bearer token of a request's `Authorization` header, if it has a well-formed one.
pub fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    authorization(headers).ok()
}

/// The bearer token of a request's `Authorization` header, or why there is none: no header, or one with nothing
/// after `Bearer`, is a missing token; a value that is not `Bearer <token>` (the bare token, `Token x`, `Basic …`)
/// is told so, since its token may well be good; bytes that are not text cannot be a token.
fn authorization(headers: &HeaderMap) -> Result<&str, Msg> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(Msg::MissingToken);
    };
    let value = value.to_str().map_err(|_| Msg::InvalidToken)?;
    let token = match value.strip_prefix("Bearer").or_else(|| value.strip_prefix("bearer")) {
        Some(rest) if rest.is_empty() || rest.starts_with(' ') => rest.trim(),
        _ if value.trim().is_empty() => return Err(Msg::MissingToken),
        _ => return Err(Msg::TokenWithoutBearer),
    };
    if token.is_empty() {
        Err(Msg::MissingToken)
    } else {
        Ok(token)
    }
}

/// An API generation as a type, so a route states which filter names it speaks.
pub trait Gen: Send + Sync + 'static {
    /// The generation.
    const GENERATION: Generation;
}

/// `/api/v2/`: `updated_from`, `created_from`, `deleted_from`; fixed page size.
pub struct V2;
/// `/api/v3/`: `updated_at_from`, `created_at_from`, `deleted_at_from`; `size` accepted.
pub struct V3;

impl Gen for V2 {
    const GENERATION: Generation = Generation::V2;
}

impl Gen for V3 {
    const GENERATION: Generation = Generation::V3;
}

/// A list request's page and filters, named as generation `G` names them.
#[derive(Debug)]
pub struct ListQuery<G> {
    /// Which page, how big.
    pub page: PageRequest,
    /// Audit filters and `active`.
    pub filters: AuditFilters,
    generation: PhantomData<G>,
}

impl<S: Send + Sync, G: Gen> FromRequestParts<S> for ListQuery<G> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(params) = Query::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| ApiError::bad_request(Msg::MalformedQuery(rejection.body_text())))?;
        let get = |name: &str| params.get(name).map(String::as_str);
        let size = match G::GENERATION {
            Generation::V3 => get("size"),
            Generation::V2 => None,
        };
        let page = PageRequest::parse(get("page"), size)?;
        let filters = AuditFilters::parse(G::GENERATION, |name| params.get(name).map(String::as_str))?;
        Ok(Self {
            page,
            filters,
            generation: PhantomData,
        })
    }
}

/// A JSON body: 400 when absent or malformed (checked against the schema the document gives `T`, see
/// [`crate::body`]), 415 when not declared as JSON, 413 when too large.
#[derive(Debug)]
pub struct ApiJson<T>(pub T);

impl<S, T> FromRequest<S> for ApiJson<T>
where
    AppState: FromRef<S>,
    S: Send + Sync,
    T: DeserializeOwned + ToSchema,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let declared_json = request
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(';').next())
            .is_some_and(|mime| {
                let mime = mime.trim().to_ascii_lowercase();
                mime == "application/json" || mime.ends_with("+json")
            });
        let app = AppState::from_ref(state);
        let config = Arc::clone(&app.config);
        let bytes = Bytes::from_request(request, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, Msg::PayloadTooLarge(config.body_limit))
            } else if paused(&rejection) {
                slow_body(&config)
            } else {
                ApiError::bad_request(Msg::MalformedBody(rejection.body_text()))
            }
        })?;
        if bytes.trim_ascii().is_empty() {
            return Err(ApiError::bad_request(Msg::MissingBody));
        }
        if !declared_json {
            return Err(ApiError::new(
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                Msg::UnsupportedMediaType,
            ));
        }
        // A body with a schema has its texts checked for NUL where they are read (see `crate::body`); one without
        // is refused for any.
        if !app.bodies.knows::<T>() && has_nul_escape(&bytes) {
            return Err(ApiError::bad_request(Msg::NulInBody));
        }
        app.bodies
            .read(&bytes)
            .map(ApiJson)
            .map_err(|error| ApiError::bad_request(Msg::Body(error)))
    }
}

/// Whether reading a body failed because the client paused longer than the body read time-out.
pub fn paused(error: &(dyn std::error::Error + 'static)) -> bool {
    std::iter::successors(Some(error), |cause| cause.source()).any(|cause| cause.is::<TimeoutError>())
}

/// The answer to a body that paused longer than the body read time-out.
pub fn slow_body(config: &ServerConfig) -> ApiError {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        Msg::SlowBody(config.body_read_timeout.as_secs_f64().ceil() as u64),
    )
}

/// Whether a JSON text holds a `\u0000` escape. PostgreSQL cannot store NUL in text, so bodies with one are refused
/// alike on every backend; raw NUL bytes are not valid JSON and fail to parse anyway. Outside strings a valid JSON
/// text has no backslash, so walking escapes pairwise is enough.
fn has_nul_escape(json: &[u8]) -> bool {
    let mut bytes = json.iter();
    while let Some(&byte) = bytes.next() {
        if byte == b'\\' && bytes.next() == Some(&b'u') && bytes.by_ref().take(4).eq(b"0000") {
            return true;
        }
    }
    false
}

/// The client's address, for throttling failed logins: the one the rate limiter settled on (which may come from a
/// trusted proxy's `X-Forwarded-For`), else the peer's.
#[derive(Debug, Clone)]
pub struct ClientAddress(pub String);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddress {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        if let Some(address) = parts.extensions.get::<ClientAddress>() {
            return Ok(address.clone());
        }
        let address = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|ConnectInfo(address)| address.ip().to_string())
            .unwrap_or_else(|| "unknown".into());
        Ok(ClientAddress(address))
    }
}

/// A record id from the path; anything that is not an integer names no record, so it is a 404 of `resource`.
pub fn parse_id(raw: &str, resource: &'static str) -> Result<i64, ApiError> {
    raw.parse::<i64>().map_err(|_| ApiError::not_found(resource, raw))
}

#[cfg(test)]
mod tests {
    use super::has_nul_escape;

    #[test]
    fn nul_escapes_are_found_and_escaped_backslashes_are_not_mistaken_for_them() {
        assert!(has_nul_escape(br#"{"name":"a\u0000b"}"#));
        assert!(has_nul_escape(br#"["x", {"k\u0000": 1}]"#));
        assert!(!has_nul_escape(br#"{"name":"a\\u0000b"}"#));
        assert!(!has_nul_escape(br#"{"name":"\u00e9\"\\"}"#));
        assert!(!has_nul_escape(br#"{"name":"\u0001"}"#));
    }
}
