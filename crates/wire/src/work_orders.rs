//! Work orders as reads answer them ([`WorkOrder`]) and as writes send them ([`WorkOrderWrite`]).
//!
//! A work order is read (v3) in the same nested shape the v1 integration layer writes (`header`, `supplies`,
//! `labours`), so an integrator can GET an order, change it and PATCH the whole structure back. The write body is
//! the read shape with its read-only fields (`local_id`s, `is_read_only`, the audit timestamps) optional and
//! ignored, so an order taken from the v3 list can be modified and sent back as it is. Its `supplies` and `labours`
//! are required, as the whole structure is.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

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
    /// Always `third_party`: declared as the write's one value, so that a read can be sent back as a write.
    #[schema(schema_with = third_party)]
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

/// A whole work order to create, or to replace an existing one with. All three parts are required: a write is the
/// complete structure, never a merge, so a body without `supplies` or `labours` is refused rather than read as
/// "no lines".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderWrite {
    /// The order itself.
    pub header: WorkOrderHeaderWrite,
    /// Every supply line the order is to have; required. Lines of the order that are not sent are removed, so an
    /// empty list (`[]`) removes them all.
    pub supplies: Vec<WorkOrderSupplyWrite>,
    /// Every labour line the order is to have; required. Lines of the order that are not sent are removed, so an
    /// empty list (`[]`) removes them all.
    pub labours: Vec<WorkOrderLabourWrite>,
}

/// The header of a write. `local_id`, `is_read_only` and audit fields may be sent (as a GET returns them) and are
/// ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderHeaderWrite {
    /// Id in the integrator's system; unique among the society's live orders when given. At most 100 characters, none of
    /// them invisible (control and format characters such as zero-width spaces are refused); stored trimmed and in
    /// Unicode normalisation form NFKC, so that composed and decomposed accents and fullwidth forms are one code.
    #[serde(default)]
    #[schema(
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]*$"
    )]
    pub external_id: Option<String>,
    /// Always `third_party`.
    #[schema(schema_with = third_party)]
    pub system_id: String,
    /// Descriptive name; not blank, at most 200 characters.
    #[schema(
        pattern = r"^[^\u0000]*[^\u0000\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000][^\u0000]*$",
        max_length = 200,
        example = "Pulverización lote 12"
    )]
    pub name: String,
    /// Date and time of the operation.
    pub date: Timestamp,
    /// Voucher date.
    pub voucher_date: Timestamp,
    /// Header state flags.
    pub state: WorkOrderState,
    /// Company (the caller's society) and voucher type.
    pub extra_fields: WorkOrderExtraFields,
}

/// A supply line of a write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderSupplyWrite {
    /// The line's id, to keep an existing line; omit it for a new line.
    #[serde(default)]
    pub local_id: Option<i64>,
    /// The target campaign: `cultivation.local_id` is a campaign id (`campaigns.id`), not a species id.
    pub cultivation: LocalRef,
    /// The product applied, from the society's country's catalogue.
    pub formulated: LocalRef,
    /// Hectares applied; positive, and at least 2.2250738585072014e-308 (a smaller, subnormal number is not stored
    /// as sent).
    #[schema(minimum = 2.2250738585072014e-308, example = 42.5)]
    pub area_applied: f64,
    /// Total quantity applied; positive, and at least 2.2250738585072014e-308 (a smaller, subnormal number is not
    /// stored as sent).
    #[schema(minimum = 2.2250738585072014e-308, example = 85.0)]
    pub total_applied: f64,
    /// Application date.
    pub date: Timestamp,
    /// Line state flags.
    pub state: WorkOrderState,
}

/// A labour line of a write.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderLabourWrite {
    /// The line's id, to keep an existing line; omit it for a new line.
    #[serde(default)]
    pub local_id: Option<i64>,
    /// The target campaign: `cultivation.local_id` is a campaign id (`campaigns.id`).
    pub cultivation: LocalRef,
    /// The kind of labour, when known.
    #[serde(default)]
    pub labour_type: Option<LocalRef>,
    /// Hectares; positive, and at least 2.2250738585072014e-308 (a smaller, subnormal number is not stored as
    /// sent).
    #[schema(minimum = 2.2250738585072014e-308, example = 42.5)]
    pub area_applied: f64,
    /// Contractors doing it.
    #[serde(default)]
    pub contractors: Vec<LocalRef>,
    /// Machines used.
    #[serde(default)]
    pub machines: Vec<LocalRef>,
    /// Applicators.
    #[serde(default)]
    pub applicators: Vec<LocalRef>,
    /// Labour date.
    pub date: Timestamp,
    /// Line state flags.
    pub state: WorkOrderState,
}

/// The schema of `system_id` in reads and writes: the one value the server takes, and so the one it stores.
fn third_party() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::Type::String)
        .enum_values(Some(["third_party"]))
        .description(Some("Always `third_party`."))
        .examples(["third_party"])
        .build()
}
