//! `Idempotency-Key` on every authenticated POST: an ERP that retries a create after a time-out gets the first
//! answer again instead of a duplicate. The key is bound to the request's method, path, query and body; reusing it
//! for a different request is refused with 422, and a retry that arrives while the first request is still being
//! answered gets 409 with `Retry-After`. Only successful answers are remembered: a refused request changed nothing,
//! so its retry may simply run again. Answers that carry fresh credentials are never remembered (see [`NeverReplay`]).
//!
//! A request that ends without an answer frees its key: at once when its future is dropped (the client left, or the
//! request timed out; see [`Release`]), within a lease ([`store::idempotency::LEASE_MS`]) when its process died, since
//! only a running request renews its claim. The store marks the key in the same transaction as the request's write
//! ([`store::idempotency`]), so freeing a key never lets a committed write run twice.

use std::convert::Infallible;

use axum::body::{to_bytes, Body};
use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use store::auth::TokenCheck;
use store::idempotency::{keyed, Claim, Claimed, Outcome, StoredAnswer, RENEW_EVERY};
use store::Store;

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

/// Marks an answer that is never stored nor replayed, as a response extension.
#[derive(Debug, Clone, Copy)]
pub enum NeverReplay {
    /// Fresh credentials (login, refresh), which the server keeps only as hashes: a retry runs anew, since a second
    /// login harms nothing and a replayed refresh would hand out its pair again instead of catching the reuse.
    Credentials,
    /// A secret shown once (a webhook endpoint's signing secret): the write runs once, and its retries are told it
    /// happened (409) rather than run it again.
    Secret,
}

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
        Ok(Claim::InProgress) => in_progress(),
        Ok(Claim::AnswerLost) => ApiError::new(StatusCode::CONFLICT, Msg::IdempotencyAnswerLost).into_response(),
        Ok(Claim::Fresh(claim)) => {
            let release = Release(Some((state.store.clone(), claim.clone())));
            let run = keyed(claim.clone(), next.run(Request::from_parts(parts, Body::from(bytes))));
            let response = tokio::select! {
                response = run => response,
                never = renew(&state.store, &claim) => match never {},
            };
            // From here the answer is recorded on a task of its own, which a client that leaves cannot stop.
            release.disarm();
            let store = state.store.clone();
            match tokio::spawn(async move { remember(&store, &claim, response).await }).await {
                Ok(response) => response,
                Err(_) => ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal).into_response(),
            }
        }
    }
}

/// 409 for a retry that arrived while the first request runs, with `Retry-After: 1`: most requests are answered
/// within a second, and a retry after its process died waits at most a lease ([`store::idempotency::LEASE_MS`]). The
/// header is what tells this 409 from a conflict that retrying cannot resolve.
fn in_progress() -> Response {
    let mut response = ApiError::new(StatusCode::CONFLICT, Msg::IdempotencyInProgress).into_response();
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

/// Renews the running request's lease until the request ends (the caller drops this future).
async fn renew(store: &Store, claim: &Claimed) -> Infallible {
    loop {
        tokio::time::sleep(RENEW_EVERY).await;
        if let Err(error) = store.renew_claim(claim).await {
            tracing::warn!(%error, "could not renew the lease of an idempotency key");
        }
    }
}

/// Frees a claimed key when the request's future is dropped before its answer (the client left, or the request
/// timed out): the store frees it only if the request's write did not commit.
struct Release(Option<(Store, Claimed)>);

impl Release {
    /// The request has its answer: [`remember`] takes over.
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        if let Some((store, claim)) = self.0.take() {
            tokio::spawn(async move {
                if let Err(error) = store.release_claim(&claim).await {
                    tracing::warn!(%error, "could not release an abandoned idempotency key");
                }
            });
        }
    }
}

/// Stores the answer for the key's retries and passes it on: a success, or a refusal of a request that wrote
/// something; releases the key otherwise.
async fn remember(store: &Store, claim: &Claimed, response: Response) -> Response {
    let never_replay = response.extensions().get::<NeverReplay>().copied();
    let (parts, body) = response.into_parts();
    let bytes = match to_bytes(body, usize::MAX).await {
        Ok(bytes) => bytes,
        Err(_) => {
            if let Err(error) = store.finish_claim(claim, &Outcome::NotKept).await {
                tracing::warn!(%error, "could not release an idempotency key");
            }
            return ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal).into_response();
        }
    };
    let text = |name: HeaderName| parts.headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let answer = StoredAnswer {
        status: i64::from(parts.status.as_u16()),
        content_type: text(header::CONTENT_TYPE),
        location: text(header::LOCATION),
        body: Some(String::from_utf8_lossy(&bytes).into_owned()),
    };
    let outcome = match never_replay {
        Some(NeverReplay::Credentials) => Outcome::RunAgain,
        Some(NeverReplay::Secret) => Outcome::NotKept,
        None if parts.status.is_success() => Outcome::Answered(answer),
        None => Outcome::Failed(answer),
    };
    if let Err(error) = store.finish_claim(claim, &outcome).await {
        tracing::warn!(%error, "could not record the answer to an idempotency key");
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
