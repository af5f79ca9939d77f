//! `Idempotency-Key` on every authenticated POST: an ERP that retries a create after a time-out gets the first
//! answer again instead of a duplicate. The key is bound to the request's method, path, query and body; reusing it
//! for a different request is refused with 422, and a retry that arrives while the first request is still being
//! answered gets 409. Only successful answers are remembered: a refused request changed nothing, so its retry may
//! simply run again. Answers that carry fresh credentials are never remembered (see [`NeverReplay`]).

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use store::auth::TokenCheck;
use store::idempotency::{Claim, StoredAnswer};
use store::Scope;

use crate::error::ApiError;
use crate::extract::{bearer_token, paused, slow_body};
use crate::i18n::Msg;
use crate::AppState;

/// The request header.
pub const IDEMPOTENCY_KEY: &str = "idempotency-key";
/// The header a replayed answer carries.
pub const REPLAYED: &str = "idempotent-replayed";

/// Longest key accepted.
const MAX_KEY_LEN: usize = 255;

/// Marks an answer that is never stored nor replayed: it holds fresh credentials (login, refresh), which the server
/// keeps only as hashes, and a replayed refresh would hand out its pair again instead of catching the reuse.
#[derive(Debug, Clone, Copy)]
pub struct NeverReplay;

/// Answers retried POSTs from the stored first answer.
pub async fn idempotent_posts(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let Some(raw_key) = request.headers().get(IDEMPOTENCY_KEY) else {
        return next.run(request).await;
    };
    let key = match raw_key.to_str() {
        Ok(key) if !key.is_empty() && key.len() <= MAX_KEY_LEN && key.bytes().all(|b| b.is_ascii_graphic()) => {
            key.to_owned()
        }
        _ => return ApiError::bad_request(Msg::InvalidIdempotencyKey).into_response(),
    };
    // Without a valid token the handler answers 401 itself; there is no society to remember the key for.
    let scope = match bearer_token(request.headers()) {
        Some(token) => match state.store.authenticate(token).await {
            Ok(TokenCheck::Valid(session)) => session.scope,
            Ok(_) => return next.run(request).await,
            Err(error) => return ApiError::from(error).into_response(),
        },
        None => return next.run(request).await,
    };
    let (parts, body) = request.into_parts();
    let bytes = match to_bytes(body, state.config.body_limit).await {
        Ok(bytes) => bytes,
        Err(error) if paused(&error) => return slow_body(&state.config).into_response(),
        Err(_) => {
            return ApiError::new(
                StatusCode::PAYLOAD_TOO_LARGE,
                Msg::PayloadTooLarge(state.config.body_limit),
            )
            .into_response()
        }
    };
    let mut hasher = Sha256::new();
    hasher.update(parts.method.as_str());
    hasher.update([0]);
    hasher.update(parts.uri.path_and_query().map_or("", |pq| pq.as_str()));
    hasher.update([0]);
    hasher.update(&bytes);
    let request_hash = store::hex(&hasher.finalize());
    match state.store.claim_key(&scope, &key, &request_hash).await {
        Err(error) => ApiError::from(error).into_response(),
        Ok(Claim::Replay(answer)) => replay(answer),
        Ok(Claim::Mismatch) => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, Msg::IdempotencyMismatch).into_response()
        }
        Ok(Claim::InProgress) => ApiError::new(StatusCode::CONFLICT, Msg::IdempotencyInProgress).into_response(),
        Ok(Claim::Fresh) => {
            let response = next.run(Request::from_parts(parts, Body::from(bytes))).await;
            remember(&state, &scope, &key, response).await
        }
    }
}

/// Stores a successful answer for the key's retries and passes it on; releases the key otherwise.
async fn remember(state: &AppState, scope: &Scope, key: &str, response: Response) -> Response {
    if !response.status().is_success() || response.extensions().get::<NeverReplay>().is_some() {
        if let Err(error) = state.store.forget_key(scope, key).await {
            tracing::warn!(%error, "could not release an idempotency key");
        }
        return response;
    }
    let (parts, body) = response.into_parts();
    let Ok(bytes) = to_bytes(body, usize::MAX).await else {
        return ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal).into_response();
    };
    let text = |name: HeaderName| parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let answer = StoredAnswer {
        status: i64::from(parts.status.as_u16()),
        content_type: text(header::CONTENT_TYPE),
        location: text(header::LOCATION),
        body: Some(String::from_utf8_lossy(&bytes).into_owned()),
    };
    if let Err(error) = state.store.remember_answer(scope, key, &answer).await {
        tracing::warn!(%error, "could not remember an idempotent answer");
    }
    Response::from_parts(parts, Body::from(bytes))
}

fn replay(answer: StoredAnswer) -> Response {
    let status = u16::try_from(answer.status)
        .ok()
        .and_then(|s| StatusCode::from_u16(s).ok())
        .unwrap_or(StatusCode::OK);
    let mut response = (status, answer.body.unwrap_or_default()).into_response();
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, answer.content_type),
        (header::LOCATION, answer.location),
    ] {
        if let Some(value) = value.and_then(|v| HeaderValue::from_str(&v).ok()) {
            headers.insert(name, value);
        }
    }
    headers.insert(HeaderName::from_static(REPLAYED), HeaderValue::from_static("true"));
    response
}
