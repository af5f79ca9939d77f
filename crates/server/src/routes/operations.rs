//! Routes of the operations group: contractors, machines, applicators, warehouses, voucher types, labour types,
//! work orders. Background jobs have their own module, [`super::jobs`].
//!
//! Hand-written handlers are for what differs from the generic list: the applicators list's out-of-range page
//! quirk, and work orders (state filters, nested lines).

use std::collections::HashMap;

use axum::extract::{FromRequestParts, Query, State};
use axum::http::request::Parts;
use axum::http::{Method, StatusCode};
use axum::response::Response;
use domain::filters::parse_active;
use domain::Generation;
use domain::PageError;
use store::list::ListError;
use store::resources::operations::{
    Applicators, Contractors, LabourTypeAttributes, LabourTypes, Machines, VoucherTypes, Warehouses,
    WorkOrderStateFilter,
};
use store::Scoping;
use wire::operations::{Applicator, WorkOrder};

use super::table::{list_parameters, ApiTable, Custom};
use crate::conditional::Conditional;
use crate::error::ApiError;
use crate::extract::{Caller, ListQuery, V3};
use crate::i18n::Msg;
use crate::openapi::Security;
use crate::AppState;

const TAG: &str = "Operations";

/// Registers the operations group's routes.
pub fn register(mut table: ApiTable) -> ApiTable {
    let applicators_page = table.page_schema::<Applicator>();
    let work_orders_page = table.page_schema::<WorkOrder>();
    table
        .custom(
            Method::GET,
            "/api/v3/third_party/applicators",
            applicators,
            Custom {
                summary: "List applicators (a page past the last answers error.code 0)",
                tag: TAG,
                parameters: list_parameters(Generation::V3, &[]),
                body: None,
                success: (200, applicators_page),
                security: Security::Caller,
            },
        )
        .custom(
            Method::GET,
            "/api/v3/third_party/work_orders",
            work_orders,
            Custom {
                summary: "List work orders, each with its supply and labour lines, in the shape their writes take",
                tag: "Work orders",
                parameters: list_parameters(Generation::V3, &["pending", "executed", "confirmed"]),
                body: None,
                success: (200, work_orders_page),
                security: Security::Caller,
            },
        )
        .detail::<Applicators>("/api/v3/third_party/applicators/{id}", TAG)
        .resource::<Machines, V3>("/api/v3/third_party/machines", TAG)
        .resource::<Contractors, V3>("/api/v3/third_party/contractors", TAG)
        .resource::<Warehouses, V3>("/api/v3/third_party/warehouses", TAG)
        .resource::<VoucherTypes, V3>("/api/v3/third_party/voucher_types", TAG)
        .resource::<LabourTypes, V3>("/api/v3/third_party/application_order_labour_types", TAG)
        .detail::<LabourTypeAttributes>("/api/v2/third_party/work_order_labour_type_attributes/{id}", TAG)
}

/// `GET /api/v3/third_party/applicators`: the generic list, except that a page past the last answers envelope code
/// 0 naming the page and the maximum, as the specification records for this list only.
async fn applicators(
    State(state): State<AppState>,
    caller: Caller,
    query: ListQuery<V3>,
    conditional: Conditional,
) -> Result<Response, ApiError> {
    let page = state
        .store
        .list::<Applicators>(&caller.scope, &query.filters, query.page, state.config.next_page);
    let page = async {
        page.await.map_err(|error| match error {
            ListError::Page(PageError::PastLastPage { requested, last }) => ApiError::new(
                StatusCode::NOT_FOUND,
                Msg::PageBeyondMaximum {
                    page: requested,
                    max: last,
                },
            )
            .with_code(0),
            other => other.into(),
        })
    };
    conditional.answer(&caller.snapshot, Scoping::Society, page).await
}

/// `GET /api/v3/third_party/work_orders`: full orders, filtered by audit filters, `active` and state flags.
async fn work_orders(
    State(state): State<AppState>,
    caller: Caller,
    query: ListQuery<V3>,
    StateQuery(states): StateQuery,
    conditional: Conditional,
) -> Result<Response, ApiError> {
    let page = state.store.list_work_orders(
        &caller.scope,
        &query.filters,
        states,
        query.page,
        state.config.next_page,
    );
    conditional
        .answer(&caller.snapshot, Scoping::Society, async { Ok(page.await?) })
        .await
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
