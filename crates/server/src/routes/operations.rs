//! Routes of the operations group's catalogues and master data: contractors, machines, warehouses, voucher types,
//! labour types and their attributes, all generic. Applicators, work orders and background jobs have their own
//! modules.

use store::resources::operations::{
    Contractors, LabourTypeAttributes, LabourTypes, Machines, VoucherTypes, Warehouses,
};

use super::table::ApiTable;
use crate::extract::V3;

const TAG: &str = "Operations";

/// Registers the operations group's routes.
pub fn register(table: ApiTable) -> ApiTable {
    table
        .resource::<Machines, V3>("/api/v3/third_party/machines", TAG)
        .resource::<Contractors, V3>("/api/v3/third_party/contractors", TAG)
        .resource::<Warehouses, V3>("/api/v3/third_party/warehouses", TAG)
        .resource::<VoucherTypes, V3>("/api/v3/third_party/voucher_types", TAG)
        .resource::<LabourTypes, V3>("/api/v3/third_party/application_order_labour_types", TAG)
        .detail::<LabourTypeAttributes>("/api/v2/third_party/work_order_labour_type_attributes/{id}", TAG)
}
