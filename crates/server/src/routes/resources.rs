//! The generic handlers that serve every declared resource: list, detail and logical delete, and the shape of a
//! created record's answer.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use store::resources::Deletable;
use store::Resource;

use crate::conditional::Conditional;
use crate::error::ApiError;
use crate::extract::{parse_id, Caller, Gen, ListQuery};
use crate::AppState;

/// `GET <list path>`: one page of `R`, filtered as generation `G` names its filters; 304 when the client's copy is
/// current.
pub async fn list<R: Resource, G: Gen>(
    State(state): State<AppState>,
    caller: Caller,
    query: ListQuery<G>,
    conditional: Conditional,
) -> Result<Response, ApiError> {
    let page = Box::pin(async {
        Ok(state
            .store
            .list::<R>(&caller.scope, &query.filters, query.page, state.config.next_page)
            .await?)
    });
    conditional.answer(&caller.snapshot, R::SPEC.scoping, page).await
}

/// `GET <list path>/{id}`: one record of `R`, 404 when the caller's society has none with that id.
pub async fn detail<R: Resource>(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<R::Item>, ApiError> {
    let numeric = parse_id(&id, R::SPEC.name)?;
    state
        .store
        .find::<R>(&caller.scope, numeric)
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found(R::SPEC.name, id))
}

/// `DELETE <list path>/{id}`: logical deletion of `R`; 200 with the record as it now is.
pub async fn remove<R: Deletable>(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Json<R::Item>, ApiError> {
    let numeric = parse_id(&id, R::SPEC.name)?;
    let deleted = state
        .store
        .delete_logically::<R>(&caller.scope, numeric)
        .await?
        .map_err(|refusal| ApiError::refusal(refusal, R::SPEC.name, &id))?;
    Ok(Json(deleted))
}

/// The answer to a create: 201, the record, and its `Location` under `path`.
pub fn created<T: Serialize>(path: &str, id: i64, record: T) -> impl IntoResponse {
    (
        StatusCode::CREATED,
        [(header::LOCATION, format!("{path}/{id}"))],
        Json(record),
    )
}
