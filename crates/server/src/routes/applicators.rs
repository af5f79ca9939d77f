//! Applicator writes (v2); reads are the v3 list's, deletion the generic one.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::Json;
use wire::applicators::ApplicatorWrite;

use super::resources::created;
use crate::error::ApiError;
use crate::extract::{parse_id, ApiJson, Caller};
use crate::i18n::Msg;
use crate::AppState;

const NAME: &str = "applicators";

/// `POST /api/v2/third_party/applicators`: 201 with the applicator as the v3 list shows it.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<ApplicatorWrite>,
) -> Result<impl IntoResponse, ApiError> {
    let record = state
        .store
        .write_applicator(&caller.scope, None, &body)
        .await?
        .map_err(|r| ApiError::refusal(r, NAME, ""))?;
    Ok(created("/api/v3/third_party/applicators", record.id, record))
}

/// `PUT /api/v2/third_party/applicators`: updates the applicator the body's `id` names.
pub async fn update(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<ApplicatorWrite>,
) -> Result<impl IntoResponse, ApiError> {
    let id = body
        .id
        .ok_or(ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, Msg::Blank("id")))?;
    write(&state, &caller, id, &body).await
}

/// `PUT /api/v2/third_party/applicators/{id}`: updates the applicator the path names.
pub async fn update_by_path(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ApplicatorWrite>,
) -> Result<impl IntoResponse, ApiError> {
    let numeric = parse_id(&id, NAME)?;
    write(&state, &caller, numeric, &body).await
}

async fn write(
    state: &AppState,
    caller: &Caller,
    id: i64,
    body: &ApplicatorWrite,
) -> Result<Json<wire::operations::Applicator>, ApiError> {
    let updated = state
        .store
        .write_applicator(&caller.scope, Some(id), body)
        .await?
        .map_err(|r| ApiError::refusal(r, NAME, id))?;
    Ok(Json(updated))
}
