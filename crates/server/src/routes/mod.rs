//! The route table: every path of every generation, each mapped to a handler in a line.

mod applicators;
mod auth;
mod establishments;
mod field;
mod health;
mod jobs;
mod operations;
mod planning;
mod plots;
mod resources;
mod work_orders;

use axum::routing::{get, patch, post, put};
use axum::{middleware, Router};
use store::resources::establishments::Establishments;
use store::resources::farmers::{FarmersV2, FarmersV3};
use store::resources::operations::Applicators;
use store::resources::plots::PlotsV3;

use crate::envelope::require_system_id;
use crate::extract::{V2, V3};
use crate::idempotency::idempotent_posts;
use crate::AppState;
pub use resources::{detail, list, remove};

/// The routes that speak the integration API (all need the system-id header).
pub fn api(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/api/v2/login", post(auth::login))
        .route("/api/v2/login/refresh", post(auth::refresh))
        .route("/api/v2/third_party/farmers", get(list::<FarmersV2, V2>))
        .route("/api/v3/third_party/farmers", get(list::<FarmersV3, V3>))
        .route(
            "/api/v3/third_party/establishments",
            get(list::<Establishments, V3>).post(establishments::create),
        )
        .route(
            "/api/v3/third_party/establishments/{id}",
            get(detail::<Establishments>).delete(remove::<Establishments>),
        )
        .route("/api/v3/third_party/plots", post(plots::create))
        .route("/integration/api/v1/workOrders", post(work_orders::create))
        .route(
            "/integration/api/v1/workOrders/{local_id}",
            patch(work_orders::replace).delete(work_orders::delete),
        )
        .route(
            "/api/v2/third_party/applicators",
            post(applicators::create).put(applicators::update),
        )
        .route(
            "/api/v2/third_party/applicators/{id}",
            put(applicators::update_by_path).delete(remove::<Applicators>),
        )
        .route(
            "/api/v3/third_party/plots/{id}",
            get(detail::<PlotsV3>).delete(remove::<PlotsV3>),
        )
        .merge(planning::routes())
        .merge(operations::routes())
        .merge(field::routes())
        .merge(jobs::routes())
        .layer(middleware::from_fn_with_state(state.clone(), idempotent_posts))
        .layer(middleware::from_fn_with_state(state, require_system_id))
}

/// Routes outside the API: health checks for load balancers.
pub fn operational() -> Router<AppState> {
    Router::new().route("/health", get(health::health))
}
