//! Establishment writes (reads are the generic ones).

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;
use store::resources::establishments::Establishments;
use store::Resource;
use wire::establishments::NewEstablishment;

use crate::error::ApiError;
use crate::extract::{parse_id, ApiJson, Caller};
use crate::AppState;

const NAME: &str = Establishments::SPEC.name;

/// `POST /api/v3/third_party/establishments`: 201 with the stored establishment.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<NewEstablishment>,
) -> Result<impl IntoResponse, ApiError> {
    let created = state
        .store
        .create_establishment(&caller.scope, &body)
        .await?
        .map_err(|r| ApiError::refusal(r, NAME, ""))?;
    let location = format!("/api/v3/third_party/establishments/{}", created.id);
    Ok((StatusCode::CREATED, [(header::LOCATION, location)], Json(created)))
}

/// `DELETE /api/v3/third_party/establishments/{id}`: logical deletion, 200 with the deleted establishment.
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, ApiError> {
    let numeric = parse_id(&id, NAME)?;
    let deleted = state
        .store
        .delete_logically::<Establishments>(&caller.scope, numeric)
        .await?
        .map_err(|r| ApiError::refusal(r, NAME, &id))?;
    Ok(Json(deleted))
}
