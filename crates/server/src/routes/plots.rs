//! Plot writes, in v3 (reads of plot lists are v2).

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use store::resources::plots::PlotsV3;
use store::Resource;
use wire::plots::NewPlot;

use crate::error::ApiError;
use crate::extract::{parse_id, ApiJson, Caller};
use crate::AppState;

const NAME: &str = PlotsV3::SPEC.name;

/// `POST /api/v3/third_party/plots`: 201 with the stored plot.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<NewPlot>,
) -> Result<impl IntoResponse, ApiError> {
    let created = state
        .store
        .create_plot(&caller.scope, caller.user_id, &body)
        .await?
        .map_err(|r| ApiError::refusal(r, NAME, ""))?;
    let location = format!("/api/v3/third_party/plots/{}", created.id);
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(created)))
}

/// `DELETE /api/v3/third_party/plots/{id}`: logical deletion, 200 with the deleted plot.
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    let numeric = parse_id(&id, NAME)?;
    let deleted = state
        .store
        .delete_logically::<PlotsV3>(&caller.scope, numeric)
        .await?
        .map_err(|r| ApiError::refusal(r, NAME, &id))?;
    Ok(Json(deleted))
}
