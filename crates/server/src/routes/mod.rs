//! The route table of every generation: each operation registered once, routed and documented together (see
//! [`table`]). Every group registers its own routes in its own module, with a `register` function; [`table`] lists
//! the groups.

mod applicators;
mod auth;
pub mod docs;
mod establishments;
mod events;
mod farmers;
mod field;
mod guides;
mod health;
mod jobs;
mod operations;
mod planning;
mod plots;
mod resources;
pub mod table;
mod webhooks;
mod work_orders;

use axum::http::Method;

use crate::openapi::Security;
pub use resources::{detail, list, remove};
use table::{ApiTable, Custom};

/// The tag of the master data's routes: farmers, establishments, plots.
const MASTER_DATA: &str = "Master data";

/// Every operation of the API and of the server around it, group by group.
pub fn table() -> ApiTable {
    let groups = [
        auth::register,
        farmers::register,
        establishments::register,
        plots::register,
        work_orders::register,
        applicators::register,
        operations::register,
        planning::register,
        field::register,
        jobs::register,
        events::register,
        webhooks::register,
        operational,
        guides::register,
    ];
    groups
        .into_iter()
        .fold(ApiTable::default(), |table, register| register(table))
}

/// The server's own routes: health, this document, the docs page.
fn operational(mut table: ApiTable) -> ApiTable {
    let status = table.schema::<health::Health>();
    let document = utoipa::openapi::schema::ObjectBuilder::new()
        .description(Some("This OpenAPI 3.1 document."))
        .into();
    table
        .custom(
            Method::GET,
            "/health",
            health::health,
            Custom {
                summary: "Health check for load balancers: 200 while the database answers",
                tag: "Operations of the server",
                parameters: vec![],
                body: None,
                success: (200, status),
                security: Security::None,
            },
        )
        .custom(
            Method::GET,
            "/openapi.json",
            docs::document,
            Custom {
                summary: "This OpenAPI document",
                tag: "Operations of the server",
                parameters: vec![docs::lang_parameter()],
                body: None,
                success: (200, document),
                security: Security::None,
            },
        )
        .page(
            "/docs",
            docs::page,
            "Operations of the server",
            "The API's interactive reference, for people: every operation, with try-it-out and code samples",
        )
        .files(docs::ASSETS, docs::asset)
}
