//! No write is acknowledged before it is on disk: a successful answer to any method but GET, HEAD or OPTIONS waits
//! until the store says everything committed so far is durable. Concurrent writers share the wait (group commit), and
//! a write counts as under way from the request's start, so the fsync of the writes before it can wait to cover it.

use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::ApiError;
use crate::AppState;

/// Middleware: holds a successful write's answer until its commit is durable.
pub async fn durable_writes(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let writes = !matches!(*request.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let started = writes.then(|| state.store.write_started());
    let response = next.run(request).await;
    if let Some(started) = started.filter(|_| response.status().is_success()) {
        if let Err(error) = started.durable().await {
            return ApiError::from(error).into_response();
        }
    }
    response
}
