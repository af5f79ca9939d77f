//! Plot creation, in v3 (reads of plot lists are v2, in [`super::master_data`]; deletion is the generic one).

use axum::extract::State;
use axum::http::Method;
use axum::response::IntoResponse;
use domain::master_data::NewPlot;
use serde_json::json;
use store::resources::plots::PlotsV3;
use store::Resource;
use wire::plots::PlotV3;

use super::resources::{created, with_references};
use super::table::{ApiTable, Custom};
use crate::error::ApiError;
use crate::extract::{ApiJson, Caller};
use crate::AppState;

const NAME: &str = PlotsV3::SPEC.name;
const PLOTS: &str = "/api/v3/third_party/plots";

/// Registers the plot writes and the v3 plot detail.
pub fn register(mut table: ApiTable) -> ApiTable {
    let body = table.schema::<wire::plots::NewPlot>();
    let example = json!({ "name": "Lote 12", "establishment_id": 1, "area": 48.5, "external_code": "ERP-LOT-12" });
    let answer = table.schema::<PlotV3>();
    table
        .custom(
            Method::POST,
            PLOTS,
            create,
            Custom::write("Create a plot", super::MASTER_DATA, (body, example), (201, answer)),
        )
        .detail::<PlotsV3>("/api/v3/third_party/plots/{id}", super::MASTER_DATA)
        .delete::<PlotsV3>("/api/v3/third_party/plots/{id}", super::MASTER_DATA)
}

/// The body as a command.
fn command(body: wire::plots::NewPlot) -> NewPlot {
    NewPlot {
        name: body.name,
        establishment_id: body.establishment_id,
        area: body.area,
        external_code: domain::text::sent_code(body.external_code),
        active: body.active.unwrap_or(true),
    }
}

/// `POST /api/v3/third_party/plots`: 201 with the stored plot.
async fn create(
    State(state): State<AppState>,
    caller: Caller,
    ApiJson(body): ApiJson<wire::plots::NewPlot>,
) -> Result<impl IntoResponse, ApiError> {
    let command = command(body);
    let refused = |r| ApiError::refusal(r, NAME, "");
    if let Err(broken) = command.check() {
        let references = state.store.plot_references(&caller.scope, &command);
        return Err(refused(with_references(broken, references, NewPlot::FIELDS).await));
    }
    let record = state
        .store
        .create_plot(&caller.scope, caller.user_id, &command)
        .await?
        .map_err(refused)?;
    Ok(created(PLOTS, record.id, record))
}
