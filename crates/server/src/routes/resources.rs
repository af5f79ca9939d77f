//! The generic handlers that serve every declared resource: list, detail and logical delete, the shape of a
//! created record's answer, and the refusal of a write body that breaks its own rules ([`with_references`]).

use std::future::Future;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use domain::Refusal;
use serde::Serialize;
use store::resources::Deletable;
use store::{Resource, StoreError};

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

/// The refusal of a write body that broke its own rules (`broken`), with what the rules about the records it names
/// found (`references`: the store's lookups, read without writing), every violation in body order (`fields`, the
/// command's). Were the lookups not answered, the body's own rules still say why: the failure is logged, and the
/// refusal answered without them.
pub async fn with_references(
    broken: Refusal,
    references: impl Future<Output = Result<Result<(), Refusal>, StoreError>>,
    fields: &[&str],
) -> Refusal {
    match references.await {
        Ok(references) => broken.with_references(references, fields),
        Err(error) => {
            tracing::warn!(%error, "the references of a refused body could not be read");
            broken
        }
    }
}

/// The answer to a create: 201, the record, and its `Location` under `path`.
pub fn created<T: Serialize>(path: &str, id: i64, record: T) -> impl IntoResponse {
    (
        StatusCode::CREATED,
        [(header::LOCATION, format!("{path}/{id}"))],
        Json(record),
    )
}
