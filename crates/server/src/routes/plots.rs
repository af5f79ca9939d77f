//! Plot creation, in v3 (reads of plot lists are v2; deletion is the generic one).

use axum::extract::State;
use axum::response::IntoResponse;
use store::resources::plots::PlotsV3;
use store::Resource;
use wire::plots::NewPlot;

use super::resources::created;
use crate::error::ApiError;
use crate::extract::{ApiJson, Caller};
use crate::AppState;

const NAME: &str = PlotsV3::SPEC.name;

/// `POST /api/v3/third_party/plots`: 201 with the stored plot.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<NewPlot>,
) -> Result<impl IntoResponse, ApiError> {
    let record = state
        .store
        .create_plot(&caller.scope, caller.user_id, &body)
        .await?
        .map_err(|r| ApiError::refusal(r, NAME, ""))?;
    Ok(created("/api/v3/third_party/plots", record.id, record))
}
