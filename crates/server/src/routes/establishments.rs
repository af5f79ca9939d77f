//! Establishments in v3: listed, read by id, created and logically deleted.

use axum::extract::State;
use axum::http::Method;
use axum::response::IntoResponse;
use domain::master_data::NewEstablishment;
use serde_json::json;
use store::resources::establishments::Establishments;
use store::Resource;
use wire::establishments::Establishment;

use super::resources::{created, with_references};
use super::table::{ApiTable, Custom};
use crate::error::ApiError;
use crate::extract::{ApiJson, Caller, V3};
use crate::AppState;

const NAME: &str = Establishments::SPEC.name;
const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";

/// Registers the establishment routes.
pub fn register(mut table: ApiTable) -> ApiTable {
    let body = table.schema::<wire::establishments::NewEstablishment>();
    let example = json!({ "name": "La Esperanza", "farmer_id": 1, "external_code": "ERP-EST-001" });
    let answer = table.schema::<Establishment>();
    table
        .resource::<Establishments, V3>(ESTABLISHMENTS, super::MASTER_DATA)
        .custom(
            Method::POST,
            ESTABLISHMENTS,
            create,
            Custom::write(
                "Create an establishment",
                super::MASTER_DATA,
                (body, example),
                (201, answer),
            ),
        )
        .delete::<Establishments>("/api/v3/third_party/establishments/{id}", super::MASTER_DATA)
}

/// The body as a command.
fn command(body: wire::establishments::NewEstablishment) -> NewEstablishment {
    NewEstablishment {
        name: body.name,
        farmer_id: body.farmer_id,
        external_code: domain::text::sent_code(body.external_code),
        active: body.active.unwrap_or(true),
    }
}

/// `POST /api/v3/third_party/establishments`: 201 with the stored establishment.
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<wire::establishments::NewEstablishment>,
) -> Result<impl IntoResponse, ApiError> {
    let command = command(body);
    let refused = |r| ApiError::refusal(r, NAME, "");
    if let Err(broken) = command.check() {
        let references = state.store.establishment_references(&caller.scope, &command);
        return Err(refused(
            with_references(broken, references, NewEstablishment::FIELDS).await,
        ));
    }
    let record = state
        .store
        .create_establishment(&caller.scope, &command)
        .await?
        .map_err(refused)?;
    Ok(created(ESTABLISHMENTS, record.id, record))
}
