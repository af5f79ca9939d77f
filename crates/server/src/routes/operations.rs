//! Routes of the operations group. Operations: contractors, machines, applicators, warehouses, voucher types, labour types, work orders, background jobs.

use axum::Router;

use crate::AppState;

/// The operations group's routes.
pub fn routes() -> Router<AppState> {
    Router::new()
}
