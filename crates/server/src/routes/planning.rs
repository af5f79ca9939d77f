//! Routes of the planning group: plots (v2), tags, species, cycles, planting times, master campaigns, campaigns,
//! cultivations, products (formulateds, formulation types, units), statuses and states, external systems.

use axum::routing::get;
use axum::Router;
use store::resources::planning::Units;

use super::{detail, list};
use crate::extract::V3;
use crate::AppState;

/// The planning group's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/v3/third_party/units", get(list::<Units, V3>))
        .route("/api/v3/third_party/units/{id}", get(detail::<Units>))
}
