//! Work orders: read in v3 (the list, with state filters and nested lines, and one order by id), written on the v1
//! integration layer (create, replace the whole structure, delete). A write is parsed into a domain command, checked
//! against the command's own rules (refused before anything is written, naming with them the unknown records it
//! refers to, which the store only reads), then handed to the store, which looks up what the rules about stored
//! records need and has `domain::work_orders` judge it. Each write answers the order in its v3 read shape with an
//! `ETag` naming its version; a replacement sent with `If-Match` applies only to that version.

use std::collections::HashMap;

use axum::extract::{FromRef, FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use domain::filters::parse_active;
use domain::work_orders::{LabourLine, StateFlags, SupplyLine, WorkOrderCommand};
use domain::{Generation, Refusal};
use serde_json::json;
use store::resources::work_orders::{WorkOrderStateFilter, WriteMode};
use store::{Scope, Scoping};
use wire::work_orders::WorkOrderWrite;
use wire::work_orders::{LocalRef, WorkOrder, WorkOrderState};

use super::resources::with_references;
use super::table::{list_parameters, ApiTable, Custom};
use crate::body::{Hint, Problem, Segment};
use crate::conditional::Conditional;
use crate::error::ApiError;
use crate::extract::{parse_id, ApiJson, Caller, ListQuery, V3};
use crate::i18n::Msg;
use crate::AppState;

const NAME: &str = "work_orders";
const TAG: &str = "Work orders";

/// An example work-order write, as the docs show it.
fn example() -> serde_json::Value {
    let state = json!({ "pending": true, "executed": false, "confirmed": false });
    json!({
        "header": {
            "external_id": "ERP-OT-9001", "system_id": "third_party", "name": "Pulverización presiembra lote 4",
            "date": "2025-10-02T08:00:00-03:00", "voucher_date": "2025-10-01T00:00:00-03:00", "state": state,
            "extra_fields": { "company": { "local_id": 1 }, "voucher_type": { "local_id": 2 } }
        },
        "supplies": [{ "cultivation": { "local_id": 340 }, "formulated": { "local_id": 1 }, "area_applied": 42.5,
                       "total_applied": 85.0, "date": "2025-10-02T08:00:00-03:00", "state": state }],
        "labours": [{ "cultivation": { "local_id": 340 }, "labour_type": { "local_id": 1 }, "area_applied": 42.5,
                      "contractors": [{ "local_id": 3 }], "machines": [{ "local_id": 7 }], "applicators": [],
                      "date": "2025-10-02T08:00:00-03:00", "state": state }]
    })
}

/// Registers the work-order routes: reads in v3, writes on the v1 integration layer.
pub fn register(mut table: ApiTable) -> ApiTable {
    let write = table.schema::<WorkOrderWrite>();
    let order = table.schema::<WorkOrder>();
    let page = table.page_schema::<WorkOrder>();
    let list = Custom {
        parameters: list_parameters(Generation::V3, &["pending", "executed", "confirmed"]),
        ..Custom::read(
            "List work orders, each with its supply and labour lines, in the shape their writes take",
            TAG,
            page,
        )
    };
    table
        .custom(Method::GET, "/api/v3/third_party/work_orders", list_work_orders, list)
        .custom(
            Method::GET,
            "/api/v3/third_party/work_orders/{id}",
            detail,
            Custom::read(
                "Read one work order, with the ETag a replacement's If-Match may name",
                TAG,
                order.clone(),
            ),
        )
        .custom(
            Method::POST,
            "/integration/api/v1/workOrders",
            create,
            Custom::write(
                "Create a work order",
                TAG,
                (write.clone(), example()),
                (201, order.clone()),
            ),
        )
        .custom(
            Method::PATCH,
            "/integration/api/v1/workOrders/{localId}",
            replace,
            Custom {
                parameters: vec![crate::openapi::if_match()],
                ..Custom::write(
                    "Replace a work order's whole structure (If-Match optional)",
                    TAG,
                    (write, example()),
                    (200, order.clone()),
                )
            },
        )
        .custom(
            Method::DELETE,
            "/integration/api/v1/workOrders/{localId}",
            delete,
            Custom::read("Delete a work order (logically)", TAG, order),
        )
}

/// `GET /api/v3/third_party/work_orders`: full orders, filtered by audit filters, `active` and state flags.
async fn list_work_orders(
    State(state): State<AppState>,
    caller: Caller,
    query: ListQuery<V3>,
    StateQuery(states): StateQuery,
    conditional: Conditional,
) -> Result<Response, ApiError> {
    let page = Box::pin(async {
        let page = state.store.list_work_orders(
            &caller.scope,
            &query.filters,
            states,
            query.page,
            state.config.next_page,
        );
        Ok(page.await?)
    });
    conditional.answer(&caller.snapshot, Scoping::Society, page).await
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

/// A write body (`ApiJson`), with its refusals put more plainly for an ERP that takes the write for a merge: a body
/// without `supplies` or `labours` is told that a write carries the whole order and that an empty list removes every
/// line; a PATCH lacking any required part is also told to send the whole order, as a `GET` of it answers it.
struct WriteBody(WorkOrderWrite);

impl<S> FromRequest<S> for WriteBody
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        // A PATCH's path ends with the order's `localId`, as sent.
        let replaced = (request.method() == Method::PATCH)
            .then(|| request.uri().path().rsplit('/').next().unwrap_or_default().to_owned());
        let ApiJson(body) = ApiJson::from_request(request, state)
            .await
            .map_err(|error| error.map_msg(|msg| whole_order(msg, replaced)))?;
        Ok(Self(body))
    }
}

/// `msg`, with a missing `supplies` or `labours` saying what an empty list does, and, for a replacement of order
/// `replaced` that lacks a required part, the hint to send the whole order.
fn whole_order(msg: Msg, replaced: Option<String>) -> Msg {
    let Msg::Body(error) = msg else {
        return msg;
    };
    let error = error.map_problems(|path, problem| match problem {
        Problem::Missing if matches!(path, [Segment::Key(key)] if key == "supplies" || key == "labours") => {
            Problem::MissingLines
        }
        other => other,
    });
    let lacking = error
        .problems()
        .any(|(_, problem)| matches!(problem, Problem::Missing | Problem::MissingLines));
    Msg::Body(match replaced {
        Some(local_id) if lacking => error.with_hint(Hint::WholeOrder { local_id }),
        _ => error,
    })
}

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
        external_id: domain::text::sent_code(header.external_id),
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

fn refused(refusal: Refusal, local_id: &str) -> ApiError {
    ApiError::refusal(refusal, NAME, local_id)
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

/// The command's own rules; when it breaks any, the refusal names, with them, every reference the store does not
/// find (asked without writing), so one answer lists every broken rule.
async fn judge(state: &AppState, scope: &Scope, mode: WriteMode, command: &WorkOrderCommand) -> Result<(), Refusal> {
    let Err(broken) = command.check(scope.society_id()) else {
        return Ok(());
    };
    let references = state.store.work_order_references(scope, mode, command);
    Err(with_references(broken, references, WorkOrderCommand::FIELDS).await)
}

/// `POST /integration/api/v1/workOrders`: 201 with the stored order.
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    WriteBody(body): WriteBody,
) -> Result<Response, ApiError> {
    let command = command(body);
    judge(&state, &caller.scope, WriteMode::Create, &command)
        .await
        .map_err(|r| refused(r, ""))?;
    let written = state
        .store
        .write_work_order(&caller.scope, WriteMode::Create, &command)
        .await?
        .map_err(|r| refused(r, ""))?;
    Ok(respond(written.order, written.version, StatusCode::CREATED))
}

/// `PATCH /integration/api/v1/workOrders/{localId}`: replaces the whole order; 200 with it.
async fn replace(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    headers: HeaderMap,
    WriteBody(body): WriteBody,
) -> Result<Response, ApiError> {
    let local_id = parse_id(&id, NAME)?;
    let expected_version = match expected_version(&headers, local_id) {
        None => None,
        Some(Ok(version)) => Some(version),
        Some(Err(())) => return Err(refused(Refusal::Stale, &id)),
    };
    let command = command(body);
    let mode = WriteMode::Replace {
        local_id,
        expected_version,
    };
    judge(&state, &caller.scope, mode, &command)
        .await
        .map_err(|r| refused(r, &id))?;
    let written = state
        .store
        .write_work_order(&caller.scope, mode, &command)
        .await?
        .map_err(|r| refused(r, &id))?;
    Ok(respond(written.order, written.version, StatusCode::OK))
}

/// `DELETE /integration/api/v1/workOrders/{localId}`: logical deletion; 200 with the deleted order.
async fn delete(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    let local_id = parse_id(&id, NAME)?;
    state
        .store
        .delete_work_order(&caller.scope, local_id)
        .await?
        .map_err(|r| refused(r, &id))?;
    answer(&state, &caller.scope, local_id).await
}

/// `GET /api/v3/third_party/work_orders/{id}`: one order, with the `ETag` a replacement's `If-Match` may name.
async fn detail(State(state): State<AppState>, caller: Caller, Path(id): Path<String>) -> Result<Response, ApiError> {
    let local_id = parse_id(&id, NAME)?;
    answer(&state, &caller.scope, local_id).await
}
