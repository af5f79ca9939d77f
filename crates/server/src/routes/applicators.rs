//! Applicators: the v3 list (with its out-of-range page quirk) and detail, and the v2 writes (create, full update,
//! logical delete).

use axum::extract::{Path, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use domain::master_data::ApplicatorCommand;
use domain::{Generation, PageError, Refusal, Rule, Violation};
use serde_json::json;
use store::list::ListError;
use store::resources::operations::Applicators;
use store::Scoping;
use wire::applicators::ApplicatorWrite;
use wire::operations::Applicator;

use super::resources::{created, with_references};
use super::table::{list_parameters, ApiTable, Custom};
use crate::conditional::Conditional;
use crate::error::ApiError;
use crate::extract::{parse_id, ApiJson, Caller, ListQuery, V3};
use crate::i18n::Msg;
use crate::AppState;

const NAME: &str = "applicators";
const TAG: &str = "Operations";
const LIST: &str = "/api/v3/third_party/applicators";
const WRITE: &str = "/api/v2/third_party/applicators";

/// Registers the applicator routes.
pub fn register(mut table: ApiTable) -> ApiTable {
    let answer = table.schema::<Applicator>();
    let page = table.page_schema::<Applicator>();
    let body = table.schema::<ApplicatorWrite>();
    let list_doc = Custom {
        parameters: list_parameters(Generation::V3, &[]),
        ..Custom::read(
            "List applicators (a page past the last answers error.code 0)",
            TAG,
            page,
        )
    };
    let new = json!({ "name": "Jorge Almada", "phone_number": "+54 9 2954 55-1234", "machines": [3] });
    table
        .custom(Method::GET, LIST, list, list_doc)
        .detail::<Applicators>("/api/v3/third_party/applicators/{id}", TAG)
        .custom(
            Method::POST,
            WRITE,
            create,
            Custom::write("Create an applicator", TAG, (body.clone(), new), (201, answer.clone())),
        )
        .custom(
            Method::PUT,
            WRITE,
            update,
            Custom::write(
                "Replace the applicator the body's id names",
                TAG,
                (
                    body.clone(),
                    json!({ "id": 4, "name": "Jorge Almada", "machines": [3, 5] }),
                ),
                (200, answer.clone()),
            ),
        )
        .custom(
            Method::PUT,
            "/api/v2/third_party/applicators/{id}",
            update_by_path,
            Custom::write(
                "Replace the applicator the path names",
                TAG,
                (body, json!({ "name": "Jorge Almada", "machines": [3, 5] })),
                (200, answer),
            ),
        )
        .delete::<Applicators>("/api/v2/third_party/applicators/{id}", TAG)
}

/// `GET /api/v3/third_party/applicators`: the generic list, except that a page past the last answers envelope code
/// 0 naming the page and the maximum, as the specification records for this list only.
async fn list(
    State(state): State<AppState>,
    caller: Caller,
    query: ListQuery<V3>,
    conditional: Conditional,
) -> Result<Response, ApiError> {
    let page = Box::pin(async {
        let page = state
            .store
            .list::<Applicators>(&caller.scope, &query.filters, query.page, state.config.next_page);
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
    });
    conditional.answer(&caller.snapshot, Scoping::Society, page).await
}

/// The body as a command.
fn command(body: ApplicatorWrite) -> ApplicatorCommand {
    ApplicatorCommand {
        name: body.name,
        external_code: domain::text::sent_code(body.external_code),
        active: body.active.unwrap_or(true),
        address: body.address,
        phone_number: body.phone_number,
        email: body.email,
        machines: body.machines,
    }
}

/// `POST /api/v2/third_party/applicators`: 201 with the applicator as the v3 list shows it.
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<ApplicatorWrite>,
) -> Result<impl IntoResponse, ApiError> {
    let command = command(body);
    let refused = |r| ApiError::refusal(r, NAME, "");
    if let Err(broken) = command.check() {
        let references = state.store.applicator_references(&caller.scope, &command);
        return Err(refused(
            with_references(broken, references, ApplicatorCommand::FIELDS).await,
        ));
    }
    let record = state
        .store
        .write_applicator(&caller.scope, None, &command)
        .await?
        .map_err(refused)?;
    Ok(created(LIST, record.id, record))
}

/// `PUT /api/v2/third_party/applicators`: updates the applicator the body's `id` names.
async fn update(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<ApplicatorWrite>,
) -> Result<Json<Applicator>, ApiError> {
    let Some(id) = body.id else {
        let missing = Refusal::Invalid(vec![Violation::new("id", Rule::Blank)]);
        return Err(ApiError::refusal(missing, NAME, ""));
    };
    write(&state, &caller, id, body).await
}

/// `PUT /api/v2/third_party/applicators/{id}`: updates the applicator the path names.
async fn update_by_path(
    State(state): State<AppState>,
    caller: Caller,
    Path(id): Path<String>,
    ApiJson(body): ApiJson<ApplicatorWrite>,
) -> Result<Json<Applicator>, ApiError> {
    let numeric = parse_id(&id, NAME)?;
    write(&state, &caller, numeric, body).await
}

async fn write(
    state: &AppState,
    caller: &Caller,
    id: i64,
    body: ApplicatorWrite,
) -> Result<Json<Applicator>, ApiError> {
    let command = command(body);
    let refused = |r| ApiError::refusal(r, NAME, id);
    if let Err(broken) = command.check() {
        let references = state.store.applicator_references(&caller.scope, &command);
        return Err(refused(
            with_references(broken, references, ApplicatorCommand::FIELDS).await,
        ));
    }
    let updated = state
        .store
        .write_applicator(&caller.scope, Some(id), &command)
        .await?
        .map_err(refused)?;
    Ok(Json(updated))
}
