//! Operations: contractors, machines, applicators, warehouses, voucher types, labour types, background jobs. Work
//! orders are [`crate::work_orders`].

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// An applicator / operator as the v3 list returns it (`GET /api/v3/third_party/applicators`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Applicator {
    /// Internal id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Postal address.
    pub address: Option<String>,
    /// Phone number.
    pub phone_number: Option<String>,
    /// Email.
    pub email: Option<String>,
    /// Ids of the machines this applicator operates, ascending; may be empty.
    pub machines: Vec<i64>,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
    /// Active flag.
    pub active: bool,
}

/// A machine (`GET /api/v3/third_party/machines`); read-only for third parties.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Machine {
    /// Internal id.
    pub id: i64,
    /// The contractor that owns it; null when the society owns it.
    pub contractor_id: Option<i64>,
    /// Name, e.g. `Pulverizadora Metalfor 3200`.
    pub name: String,
    /// What it is: `sprayer`, `planter`, `harvester`, `tractor`, `spreader`, `aircraft`.
    pub kind: String,
    /// Brand, e.g. `John Deere`.
    pub brand: Option<String>,
    /// Model.
    pub model: Option<String>,
    /// Model year.
    pub year: Option<i64>,
    /// Licence plate or registration.
    pub license_plate: Option<String>,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A contractor (`GET /api/v3/third_party/contractors`); contractors appear inside work-order labours.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Contractor {
    /// Internal id.
    pub id: i64,
    /// Name or legal name.
    pub name: String,
    /// Tax identifier (CUIT, CNPJ/CPF, RFC).
    pub cuit: Option<String>,
    /// Email.
    pub email: Option<String>,
    /// Phone number.
    pub phone_number: Option<String>,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// An input store (`GET /api/v3/third_party/warehouses`); not a grain silobag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Warehouse {
    /// Internal id.
    pub id: i64,
    /// The establishment it stands in; null for a central store.
    pub establishment_id: Option<i64>,
    /// Name.
    pub name: String,
    /// Postal address.
    pub address: Option<String>,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A voucher type (`GET /api/v3/third_party/voucher_types`); a global catalogue. A work order's header names one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct VoucherType {
    /// Internal id.
    pub id: i64,
    /// Short code, e.g. `OA`.
    pub code: String,
    /// Name, e.g. `Orden de aplicación`.
    pub name: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A work order labour type (`GET /api/v3/third_party/application_order_labour_types`); a global catalogue that
/// classifies labour lines.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LabourType {
    /// Internal id.
    pub id: i64,
    /// The voucher type whose orders use it.
    pub voucher_type_id: i64,
    /// Name, e.g. `Pulverización terrestre`.
    pub name: String,
    /// Description; may be empty.
    pub description: String,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
}

/// A labour type as the v2 detail returns it (`GET /api/v2/third_party/work_order_labour_type_attributes/{id}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct LabourTypeAttribute {
    /// Internal id.
    pub id: i64,
    /// Name.
    pub name: String,
    /// Description; may be empty.
    pub description: String,
    /// The voucher type whose orders use it.
    pub voucher_type_id: i64,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification.
    pub modified_at: Timestamp,
    /// Logical deletion; null while live.
    pub deleted_at: Option<Timestamp>,
    /// Active flag.
    pub active: bool,
}

/// The status of a background job on campaigns, whichever its kind: an objective-yield update
/// (`GET /api/v2/third_party/campaigns/update_objective_yield/jobs[/{id}]`) or a campaign import
/// (`GET /api/v2/third_party/campaigns/import/jobs[/{id}]`). The path says the kind, so the item does not.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Job {
    /// Job id.
    pub id: i64,
    /// `pending`, `running`, `finished` or `failed`.
    pub status: String,
    /// Rows the job was given.
    pub total_items: i64,
    /// Rows handled so far, refused ones included.
    pub processed_items: i64,
    /// Rows refused.
    pub failed_items: i64,
    /// The per-row report, committed with each chunk so it grows while the job runs; null before the first chunk.
    /// An objective-yield update reports `{"updated": n, "refused": [...]}`, an import
    /// `{"created": [{"row", "campaign_id"}], "refused": [...]}`; each refusal is `{"row", "campaign_id", "reason"}`
    /// with 1-based row numbers.
    #[schema(schema_with = job_report)]
    pub result: Option<serde_json::Value>,
    /// Why the job failed as a whole; null otherwise.
    pub error: Option<String>,
    /// When the job was queued (status `pending`).
    pub created_at: Timestamp,
    /// When a worker started it; null while pending.
    pub started_at: Option<Timestamp>,
    /// When it finished or failed; null before.
    pub finished_at: Option<Timestamp>,
    /// Last change of its status or counters.
    pub updated_at: Timestamp,
}

/// The status of an objective-yield update job; the name the v2 list was first built under.
pub type ObjectiveYieldJob = Job;

/// Reads a stored JSON document; text that is not JSON (which only a broken writer could store) reads as null
/// rather than failing the whole list.
pub fn json_or_null(text: Option<&str>) -> Option<serde_json::Value> {
    text.and_then(|text| serde_json::from_str(text).ok())
}

/// The schema of a job's `result`: its report, or null before the first chunk.
fn job_report() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::SchemaType::from_iter([
            utoipa::openapi::Type::Object,
            utoipa::openapi::Type::Null,
        ]))
        .description(Some(
            "The per-row report, committed with each chunk so it grows while the job runs; null before the first \
             chunk. An objective-yield update reports `{\"updated\": n, \"refused\": [...]}`, an import \
             `{\"created\": [{\"row\", \"campaign_id\"}], \"refused\": [...]}`; each refusal is \
             `{\"row\", \"campaign_id\", \"reason\"}` with 1-based row numbers.",
        ))
        .examples([serde_json::json!({
            "updated": 2,
            "refused": [{"row": 3, "campaign_id": 999, "reason": "campaign_id: 999 no existe o no está disponible para su sociedad."}]
        })])
        .build()
}
