//! Work-order writes on the v1 integration layer: create, replace the whole structure, delete. Each answers the
//! order in its v3 read shape with an `ETag` naming its version; a replacement sent with `If-Match` applies only to
//! that version.

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use domain::work_orders::{LabourLine, StateFlags, SupplyLine, WorkOrderCommand};
use store::resources::work_orders::{WorkOrderRefusal, WriteMode};
use store::Scope;
use wire::operations::{LocalRef, WorkOrder, WorkOrderState};
use wire::work_orders::WorkOrderWrite;

use crate::error::ApiError;
use crate::extract::{parse_id, ApiJson, Caller};
use crate::i18n::Msg;
use crate::AppState;

const NAME: &str = "work_orders";

fn flags(state: &WorkOrderState) -> StateFlags {
    StateFlags {
        pending: state.pending,
        executed: state.executed,
        confirmed: state.confirmed,
    }
}

fn ids(refs: &[LocalRef]) -> Vec<i64> {
    refs.iter().map(|r| r.local_id).collect()
}

/// The write body as a domain command.
fn command(body: WorkOrderWrite) -> WorkOrderCommand {
    let header = body.header;
    WorkOrderCommand {
        external_id: header.external_id,
        system_id: header.system_id,
        name: header.name,
        date: header.date.0.to_utc(),
        voucher_date: header.voucher_date.0.to_utc(),
        state: flags(&header.state),
        company_id: header.extra_fields.company.local_id,
        voucher_type_id: header.extra_fields.voucher_type.local_id,
        supplies: body
            .supplies
            .iter()
            .map(|s| SupplyLine {
                local_id: s.local_id,
                campaign_id: s.cultivation.local_id,
                formulated_id: s.formulated.local_id,
                area_applied: s.area_applied,
                total_applied: s.total_applied,
                date: s.date.0.to_utc(),
                state: flags(&s.state),
            })
            .collect(),
        labours: body
            .labours
            .iter()
            .map(|l| LabourLine {
                local_id: l.local_id,
                campaign_id: l.cultivation.local_id,
                labour_type_id: l.labour_type.as_ref().map(|t| t.local_id),
                area_applied: l.area_applied,
                contractor_ids: ids(&l.contractors),
                machine_ids: ids(&l.machines),
                applicator_ids: ids(&l.applicators),
                date: l.date.0.to_utc(),
                state: flags(&l.state),
            })
            .collect(),
    }
}

fn etag(local_id: i64, version: i64) -> String {
    format!("\"{local_id}-{version}\"")
}

/// The version an `If-Match` header names for this order, if it names one; a value that names another order or is
/// malformed can match no version.
fn expected_version(headers: &HeaderMap, local_id: i64) -> Option<Result<i64, ()>> {
    let value = headers.get(header::IF_MATCH)?.to_str().unwrap_or_default().trim();
    if value == "*" {
        return None;
    }
    let parsed = value
        .trim_matches('"')
        .split_once('-')
        .filter(|(id, _)| id.parse::<i64>().ok() == Some(local_id))
        .and_then(|(_, version)| version.parse::<i64>().ok());
    Some(parsed.ok_or(()))
}

fn refused(refusal: WorkOrderRefusal, local_id: &str) -> ApiError {
    let id = local_id.parse::<i64>().unwrap_or_default();
    match refusal {
        WorkOrderRefusal::Invalid(violations) => {
            ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, Msg::InvalidWorkOrder(violations))
        }
        WorkOrderRefusal::NotFound => ApiError::not_found(NAME, local_id),
        WorkOrderRefusal::ReadOnly => ApiError::new(StatusCode::CONFLICT, Msg::WorkOrderReadOnly(id)),
        WorkOrderRefusal::Stale => ApiError::new(StatusCode::PRECONDITION_FAILED, Msg::WorkOrderStale(id)),
        WorkOrderRefusal::DuplicateExternalId(other) => {
            ApiError::new(StatusCode::CONFLICT, Msg::DuplicateExternalId(other))
        }
    }
}

/// The stored order in its read shape, with the `ETag` of its version.
async fn answer(state: &AppState, scope: &Scope, local_id: i64) -> Result<Response, ApiError> {
    let order = state
        .store
        .find_work_order(scope, local_id)
        .await?
        .ok_or_else(|| ApiError::not_found(NAME, local_id))?;
    let version = state
        .store
        .work_order_version(scope, local_id)
        .await?
        .unwrap_or_default();
    Ok(respond(order, version, StatusCode::OK))
}

/// `order` with the `ETag` of `version`, and where to read it when it was created.
fn respond(order: WorkOrder, version: i64, status: StatusCode) -> Response {
    let local_id = order.header.local_id;
    let mut response = (status, Json(order)).into_response();
    if let Ok(value) = HeaderValue::from_str(&etag(local_id, version)) {
        response.headers_mut().insert(header::ETAG, value);
    }
    if status == StatusCode::CREATED {
        if let Ok(value) = HeaderValue::from_str(&format!("/api/v3/third_party/work_orders/{local_id}")) {
            response.headers_mut().insert(header::LOCATION, value);
        }
    }
    response
}

/// `POST /integration/api/v1/workOrders`: 201 with the stored order.
pub async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<WorkOrderWrite>,
) -> Result<Response, ApiError> {
    let written = state
        .store
        .write_work_order(&caller.scope, WriteMode::Create, &command(body))
        .await?
        .map_err(|r| refused(r, ""))?;
    Ok(respond(written.order, written.version, StatusCode::CREATED))
}

/// `PATCH /integration/api/v1/workOrders/{localId}`: replaces the whole order; 200 with it.
pub async fn replace(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    ApiJson(body): ApiJson<WorkOrderWrite>,
) -> Result<Response, ApiError> {
    let local_id = parse_id(&id, NAME)?;
    let expected_version = match expected_version(&headers, local_id) {
        None => None,
        Some(Ok(version)) => Some(version),
        Some(Err(())) => return Err(refused(WorkOrderRefusal::Stale, &id)),
    };
    let mode = WriteMode::Replace {
        local_id,
        expected_version,
    };
    let written = state
        .store
        .write_work_order(&caller.scope, mode, &command(body))
        .await?
        .map_err(|r| refused(r, &id))?;
    Ok(respond(written.order, written.version, StatusCode::OK))
}

/// `DELETE /integration/api/v1/workOrders/{localId}`: logical deletion; 200 with the deleted order.
pub async fn delete(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let local_id = parse_id(&id, NAME)?;
    state
        .store
        .delete_work_order(&caller.scope, local_id)
        .await?
        .map_err(|r| refused(r, &id))?;
    answer(&state, &caller.scope, local_id).await
}

/// `GET /api/v3/third_party/work_orders/{id}`: one order, with the `ETag` a replacement's `If-Match` may name.
pub async fn detail(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
) -> Result<Response, ApiError> {
    let local_id = parse_id(&id, NAME)?;
    answer(&state, &caller.scope, local_id).await
}
