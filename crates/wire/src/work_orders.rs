//! The body of work-order writes (`POST` and `PATCH /integration/api/v1/workOrders`): the read shape of
//! [`crate::operations::WorkOrder`] with its read-only fields optional and ignored, so an order taken from the v3
//! list can be modified and sent back as it is.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::operations::{LocalRef, WorkOrderExtraFields, WorkOrderState};
use crate::Timestamp;

/// A whole work order to create, or to replace an existing one with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderWrite {
    /// The order itself.
    pub header: WorkOrderHeaderWrite,
    /// Supply lines; lines of the order that are not sent are removed.
    #[serde(default)]
    pub supplies: Vec<WorkOrderSupplyWrite>,
    /// Labour lines; lines of the order that are not sent are removed.
    #[serde(default)]
    pub labours: Vec<WorkOrderLabourWrite>,
}

/// The header of a write. `local_id`, `is_read_only` and audit fields may be sent (as a GET returns them) and are
/// ignored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WorkOrderHeaderWrite {
    /// Id in the integrator's system; unique among the society's live orders when given.
    #[serde(default)]
    pub external_id: Option<String>,
    /// Always `third_party`.
    pub system_id: String,
    /// Descriptive name; not blank.
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
    /// Hectares applied; positive.
    pub area_applied: f64,
    /// Total quantity applied; positive.
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
    /// Hectares; positive.
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
