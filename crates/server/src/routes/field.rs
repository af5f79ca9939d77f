//! Routes of the field group. The field: scouting, scouting measures, waypoints, adversities, progress, field controls, silobags, weather, IoT devices and events.

use axum::Router;

use crate::AppState;

/// The field group's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
}
