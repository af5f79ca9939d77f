//! Establishment creation (reads and deletion are the generic ones).

use axum::extract::State;
use axum::response::IntoResponse;
use store::resources::establishments::Establishments;
use store::Resource;
use wire::establishments::NewEstablishment;

use super::resources::created;
use crate::error::ApiError;
use crate::extract::{ApiJson, Caller};
use crate::AppState;

const NAME: &str = Establishments::SPEC.name;

/// `POST /api/v3/third_party/establishments`: 201 with the stored establishment.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<NewEstablishment>,
) -> Result<impl IntoResponse, ApiError> {
    let record = state
        .store
        .create_establishment(&caller.scope, &body)
        .await?
        .map_err(|r| ApiError::refusal(r, NAME, ""))?;
    Ok(created("/api/v3/third_party/establishments", record.id, record))
}
