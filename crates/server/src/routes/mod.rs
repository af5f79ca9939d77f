//! The route table of every generation: each operation registered once, routed and documented together (see
//! [`table`]). Groups register their own resources; what is left is here.

mod applicators;
mod auth;
pub mod docs;
mod establishments;
mod field;
mod health;
mod jobs;
mod operations;
mod planning;
mod plots;
mod resources;
pub mod table;
mod work_orders;

use axum::http::Method;
use serde_json::json;
use store::resources::establishments::Establishments;
use store::resources::farmers::{FarmersV2, FarmersV3};
use store::resources::operations::Applicators;
use store::resources::plots::PlotsV3;
use wire::applicators::ApplicatorWrite;
use wire::auth::{LoginRequest, LoginResponse, RefreshRequest};
use wire::establishments::{Establishment, NewEstablishment};
use wire::operations::{Applicator, WorkOrder};
use wire::plots::{NewPlot, PlotV3};
use wire::work_orders::WorkOrderWrite;

use crate::extract::{V2, V3};
use crate::openapi::Security;
pub use resources::{detail, list, remove};
use table::{ApiTable, Custom};

/// An example work-order write, as the docs show it.
fn work_order_example() -> serde_json::Value {
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

/// Every operation of the API and of the server around it.
pub fn table() -> ApiTable {
    let mut table = ApiTable::default();
    let login_request = table.schema::<LoginRequest>();
    let refresh_request = table.schema::<RefreshRequest>();
    let login_response = table.schema::<LoginResponse>();
    let new_establishment = table.schema::<NewEstablishment>();
    let establishment = table.schema::<Establishment>();
    let new_plot = table.schema::<NewPlot>();
    let plot = table.schema::<PlotV3>();
    let work_order_write = table.schema::<WorkOrderWrite>();
    let work_order = table.schema::<WorkOrder>();
    let applicator_write = table.schema::<ApplicatorWrite>();
    let applicator = table.schema::<Applicator>();
    let write = |summary, tag, body, example, status, answer| Custom {
        summary,
        tag,
        parameters: vec![],
        body: Some((body, Some(example))),
        success: (status, answer),
        security: Security::Caller,
    };
    let read = |summary, tag, answer| Custom {
        summary,
        tag,
        parameters: vec![],
        body: None,
        success: (200, answer),
        security: Security::Caller,
    };
    let credentials = json!({ "email": "integrador@lapampa.com.ar", "password": "LaPampa-2026" });
    let table = table
        .custom(
            Method::POST,
            "/api/v2/login",
            auth::login,
            Custom {
                security: Security::SystemId,
                ..write(
                    "Log in",
                    "Auth",
                    login_request,
                    credentials,
                    200,
                    login_response.clone(),
                )
            },
        )
        .custom(
            Method::POST,
            "/api/v2/login/refresh",
            auth::refresh,
            Custom {
                security: Security::SystemId,
                ..write(
                    "Trade a refresh token for a new pair",
                    "Auth",
                    refresh_request,
                    json!({ "refresh_token": "1.…" }),
                    200,
                    login_response,
                )
            },
        )
        .list::<FarmersV2, V2>("/api/v2/third_party/farmers", "Master data")
        .resource::<FarmersV3, V3>("/api/v3/third_party/farmers", "Master data")
        .resource::<Establishments, V3>("/api/v3/third_party/establishments", "Master data")
        .custom(
            Method::POST,
            "/api/v3/third_party/establishments",
            establishments::create,
            write(
                "Create an establishment",
                "Master data",
                new_establishment,
                json!({ "name": "La Esperanza", "farmer_id": 1, "external_code": "ERP-EST-001" }),
                201,
                establishment,
            ),
        )
        .delete::<Establishments>("/api/v3/third_party/establishments/{id}", "Master data")
        .custom(
            Method::POST,
            "/api/v3/third_party/plots",
            plots::create,
            write(
                "Create a plot",
                "Master data",
                new_plot,
                json!({ "name": "Lote 12", "establishment_id": 1, "area": 48.5, "external_code": "ERP-LOT-12" }),
                201,
                plot,
            ),
        )
        .detail::<PlotsV3>("/api/v3/third_party/plots/{id}", "Master data")
        .delete::<PlotsV3>("/api/v3/third_party/plots/{id}", "Master data")
        .custom(
            Method::GET,
            "/api/v3/third_party/work_orders/{id}",
            work_orders::detail,
            read(
                "Read one work order, with the ETag a replacement's If-Match may name",
                "Work orders",
                work_order.clone(),
            ),
        )
        .custom(
            Method::POST,
            "/integration/api/v1/workOrders",
            work_orders::create,
            write(
                "Create a work order",
                "Work orders",
                work_order_write.clone(),
                work_order_example(),
                201,
                work_order.clone(),
            ),
        )
        .custom(
            Method::PATCH,
            "/integration/api/v1/workOrders/{localId}",
            work_orders::replace,
            write(
                "Replace a work order's whole structure (If-Match optional)",
                "Work orders",
                work_order_write,
                work_order_example(),
                200,
                work_order.clone(),
            ),
        )
        .custom(
            Method::DELETE,
            "/integration/api/v1/workOrders/{localId}",
            work_orders::delete,
            read("Delete a work order (logically)", "Work orders", work_order),
        )
        .custom(
            Method::POST,
            "/api/v2/third_party/applicators",
            applicators::create,
            write(
                "Create an applicator",
                "Operations",
                applicator_write.clone(),
                json!({ "name": "Jorge Almada", "phone_number": "+54 9 2954 55-1234", "machines": [3] }),
                201,
                applicator.clone(),
            ),
        )
        .custom(
            Method::PUT,
            "/api/v2/third_party/applicators",
            applicators::update,
            write(
                "Replace the applicator the body's id names",
                "Operations",
                applicator_write.clone(),
                json!({ "id": 4, "name": "Jorge Almada", "machines": [3, 5] }),
                200,
                applicator.clone(),
            ),
        )
        .custom(
            Method::PUT,
            "/api/v2/third_party/applicators/{id}",
            applicators::update_by_path,
            write(
                "Replace the applicator the path names",
                "Operations",
                applicator_write,
                json!({ "name": "Jorge Almada", "machines": [3, 5] }),
                200,
                applicator,
            ),
        )
        .delete::<Applicators>("/api/v2/third_party/applicators/{id}", "Operations");
    let table = jobs::register(field::register(operations::register(planning::register(table))));
    operational(table)
}

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
                parameters: vec![],
                body: None,
                success: (200, document),
                security: Security::None,
            },
        )
        .page(
            "/docs",
            docs::page,
            "Operations of the server",
            "The API's documentation, for people",
        )
}
