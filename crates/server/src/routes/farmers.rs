//! Farmers: read-only for third parties, listed in v2 and v3, and read by id in v3.

use store::resources::farmers::{FarmersV2, FarmersV3};

use super::table::ApiTable;
use crate::extract::{V2, V3};

/// Registers the farmer lists and the v3 detail.
pub fn register(table: ApiTable) -> ApiTable {
    table
        .list::<FarmersV2, V2>("/api/v2/third_party/farmers", super::MASTER_DATA)
        .resource::<FarmersV3, V3>("/api/v3/third_party/farmers", super::MASTER_DATA)
}
