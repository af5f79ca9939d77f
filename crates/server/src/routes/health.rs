//! The health check load balancers poll: 200 while the database answers, 503 otherwise, at once.

use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::i18n::Msg;
use crate::AppState;

/// The longest the check waits for the database. A server known to be down fails at once (the store's pools know it);
/// one that hangs without refusing (a network partition, a stopped process) would otherwise hold the poll until the
/// acquire time-out, longer than a load balancer waits.
const HEALTH_WAIT: Duration = Duration::from_secs(1);

/// The health check's answer.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `ok`: any other state is an error answer (503).
    pub status: &'static str,
}

/// `GET /health`.
pub async fn health(State(state): State<AppState>) -> Result<Json<Health>, ApiError> {
    match tokio::time::timeout(HEALTH_WAIT, state.store.ping()).await {
        Ok(answered) => answered?,
        Err(_) => return Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, Msg::Unavailable)),
    }
    Ok(Json(Health { status: "ok" }))
}
