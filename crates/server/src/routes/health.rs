//! The health check load balancers poll: 200 while the database answers, 503 otherwise.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use crate::error::ApiError;
use crate::AppState;

/// `GET /health`.
pub async fn health(State(state): State<AppState>) -> Result<Json<Value>, ApiError> {
    state.store.ping().await?;
    Ok(Json(json!({ "status": "ok" })))
}
