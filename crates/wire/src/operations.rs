//! Operations: contractors, machines, applicators, warehouses, voucher types, labour types, work orders, background jobs.
//!
//! A work order is read (v3) in the same nested shape the v1 integration layer writes (`header`, `supplies`,
//! `labours`), so an integrator can GET an order, change it and PATCH the whole structure back. The read-only
//! fields a write ignores (`local_id`s, `is_read_only`, the audit timestamps) are the only additions.

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

/// A reference to another record by its internal id, as work orders write them (`{"local_id": 12}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct LocalRef {
    /// The referenced record's internal id.
    pub local_id: i64,
}

/// The three independent state flags of a work order and of each of its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderState {
    /// Pending execution.
    pub pending: bool,
    /// Executed in the field.
    pub executed: bool,
    /// Confirmed.
    pub confirmed: bool,
}

/// A work order header's references that the platform keeps outside the header proper.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderExtraFields {
    /// The society (company) the order belongs to.
    pub company: LocalRef,
    /// The order's voucher type.
    pub voucher_type: LocalRef,
}

/// A work order's header.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderHeader {
    /// Internal id; read-only.
    pub local_id: i64,
    /// Id in the integrator's system.
    pub external_id: Option<String>,
    /// Always the literal `third_party`.
    pub system_id: String,
    /// Descriptive name.
    pub name: String,
    /// Date and time of the operation.
    pub date: Timestamp,
    /// Voucher date.
    pub voucher_date: Timestamp,
    /// State flags.
    pub state: WorkOrderState,
    /// Company (society) and voucher type.
    pub extra_fields: WorkOrderExtraFields,
    /// When true the order cannot be modified; read-only.
    pub is_read_only: bool,
    /// Active flag; read-only.
    pub active: bool,
    /// Creation; read-only.
    pub created_at: Timestamp,
    /// Last modification of the order or any of its lines; read-only, used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while live; read-only.
    pub deleted_at: Option<Timestamp>,
}

/// A supply line of a work order: a product applied to a campaign.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderSupply {
    /// Internal id of the line; read-only.
    pub local_id: i64,
    /// The target campaign: `local_id` is a `campaigns.id` (homonym rule), not a species.
    pub cultivation: LocalRef,
    /// The product (`formulateds.id`).
    pub formulated: LocalRef,
    /// Hectares applied.
    pub area_applied: f64,
    /// Total quantity applied, in the product's unit.
    pub total_applied: f64,
    /// Application date.
    pub date: Timestamp,
    /// Line state flags.
    pub state: WorkOrderState,
}

/// A labour line of a work order: work done on a campaign, by whom and with what.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderLabour {
    /// Internal id of the line; read-only.
    pub local_id: i64,
    /// The target campaign: `local_id` is a `campaigns.id` (homonym rule), not a species.
    pub cultivation: LocalRef,
    /// The labour type (`application_order_labour_types`); null when unclassified.
    pub labour_type: Option<LocalRef>,
    /// Hectares.
    pub area_applied: f64,
    /// Contractors who did the work.
    pub contractors: Vec<LocalRef>,
    /// Machines used.
    pub machines: Vec<LocalRef>,
    /// Applicators who operated.
    pub applicators: Vec<LocalRef>,
    /// Labour date.
    pub date: Timestamp,
    /// Line state flags.
    pub state: WorkOrderState,
}

/// A work order as `GET /api/v3/third_party/work_orders` returns it: the complete structure the v1 write
/// endpoints accept, lines in their stored order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrder {
    /// The header.
    pub header: WorkOrderHeader,
    /// Supply lines (agrochemical and input applications).
    pub supplies: Vec<WorkOrderSupply>,
    /// Labour lines.
    pub labours: Vec<WorkOrderLabour>,
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
    #[schema(value_type = Option<Object>)]
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
