//! Routes of the operations group: contractors, machines, applicators, warehouses, voucher types, labour types,
//! work orders. Background jobs have their own module, [`super::jobs`].
//!
//! Hand-written handlers are for what differs from the generic list: the applicators list's out-of-range page
//! quirk, and work orders (state filters, nested lines).

use std::collections::HashMap;

use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::StatusCode;
use axum::routing::get;
use axum::{Json, Router};
use domain::filters::parse_active;
use domain::PageError;
use store::list::ListError;
use store::resources::operations::{
    Applicators, Contractors, LabourTypeAttributes, LabourTypes, Machines, VoucherTypes, Warehouses,
    WorkOrderStateFilter,
};
use wire::operations::{Applicator, WorkOrder};
use wire::Page;

use super::{detail, list};
use crate::error::ApiError;
use crate::extract::{Caller, ListQuery, V3};
use crate::i18n::Msg;
use crate::AppState;

/// The operations group's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v3/third_party/applicators", get(applicators))
        .route("/api/v3/third_party/applicators/{id}", get(detail::<Applicators>))
        .route("/api/v3/third_party/machines", get(list::<Machines, V3>))
        .route("/api/v3/third_party/machines/{id}", get(detail::<Machines>))
        .route("/api/v3/third_party/contractors", get(list::<Contractors, V3>))
        .route("/api/v3/third_party/contractors/{id}", get(detail::<Contractors>))
        .route("/api/v3/third_party/warehouses", get(list::<Warehouses, V3>))
        .route("/api/v3/third_party/warehouses/{id}", get(detail::<Warehouses>))
        .route("/api/v3/third_party/voucher_types", get(list::<VoucherTypes, V3>))
        .route("/api/v3/third_party/voucher_types/{id}", get(detail::<VoucherTypes>))
        .route(
            "/api/v3/third_party/application_order_labour_types",
            get(list::<LabourTypes, V3>),
        )
        .route(
            "/api/v3/third_party/application_order_labour_types/{id}",
            get(detail::<LabourTypes>),
        )
        .route(
            "/api/v2/third_party/work_order_labour_type_attributes/{id}",
            get(detail::<LabourTypeAttributes>),
        )
        .route("/api/v3/third_party/work_orders", get(work_orders))
        .route("/api/v3/third_party/work_orders/{id}", get(super::work_orders::detail))
}

/// `GET /api/v3/third_party/applicators`: the generic list, except that a page past the last answers envelope code
/// 0 naming the page and the maximum, as the specification records for this list only.
async fn applicators(
    State(state): State<AppState>,
    caller: Caller,
    query: ListQuery<V3>,
) -> Result<Json<Page<Applicator>>, ApiError> {
    let page = state
        .store
        .list::<Applicators>(&caller.scope, &query.filters, query.page, state.config.next_page)
        .await
        .map_err(|error| match error {
            ListError::Page(PageError::PastLastPage { requested, last }) => ApiError::new(
                StatusCode::NOT_FOUND,
                Msg::PageBeyondMaximum {
                    page: requested,
                    max: last,
                },
            )
            .with_code(0),
            other => other.into(),
        })?;
    Ok(Json(page))
}

/// `GET /api/v3/third_party/work_orders`: full orders, filtered by audit filters, `active` and state flags.
async fn work_orders(
    State(state): State<AppState>,
    caller: Caller,
    query: ListQuery<V3>,
    StateQuery(states): StateQuery,
) -> Result<Json<Page<WorkOrder>>, ApiError> {
    let page = state
        .store
        .list_work_orders(
            &caller.scope,
            &query.filters,
            states,
            query.page,
            state.config.next_page,
        )
        .await?;
    Ok(Json(page))
}

/// The work-order list's `pending`, `executed` and `confirmed` filters, each spelled like `active`.
struct StateQuery(WorkOrderStateFilter);

impl<S: Send + Sync> FromRequestParts<S> for StateQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        let Query(params) = Query::<HashMap<String, String>>::from_request_parts(parts, state)
            .await
            .map_err(|rejection| ApiError::bad_request(Msg::MalformedQuery(rejection.body_text())))?;
        let flag = |param: &'static str| {
            params
                .get(param)
                .map(|value| {
                    parse_active(value).map_err(|_| {
                        ApiError::bad_request(Msg::InvalidFlag {
                            param,
                            value: value.clone(),
                        })
                    })
                })
                .transpose()
        };
        Ok(Self(WorkOrderStateFilter {
            pending: flag("pending")?,
            executed: flag("executed")?,
            confirmed: flag("confirmed")?,
        }))
    }
}
