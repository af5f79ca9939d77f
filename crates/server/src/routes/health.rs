//! The health check load balancers poll: 200 while the database answers, 503 otherwise.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::AppState;

/// The health check's answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `ok`: any other state is an error answer (503).
    pub status: &'static str,
}

/// `GET /health`.
pub async fn health(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    state.store.ping().await?;
    Ok(Json(Health { status: "ok" }))
}
