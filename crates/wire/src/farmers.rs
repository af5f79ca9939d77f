//! Farmers (producers): read-only for third parties.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// A farmer in the v2 listing, field for field as the specification names them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FarmerV2 {
    /// Farmer id.
    pub id: i64,
    /// Owning society.
    pub society_id: i64,
    /// Name (a company name, or a person's first name).
    pub name: String,
    /// A person's last name.
    pub lastname: Option<String>,
    /// Tax identifier (CUIT in Argentina, CNPJ/CPF in Brazil, RFC in Mexico).
    pub cuit: Option<String>,
    /// Free text.
    pub observations: Option<String>,
    /// Logical deletion; null while the farmer is live.
    pub deleted_at: Option<Timestamp>,
    /// Creation.
    pub date_created: Timestamp,
    /// Last modification.
    pub date_modified: Timestamp,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Contact email.
    pub email: Option<String>,
    /// Contact phone.
    pub phone_number: Option<String>,
    /// Hectares: the sum of the live plots of the farmer's live establishments.
    pub area: f64,
}

/// A farmer in the v3 listing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FarmerV3 {
    /// Farmer id.
    pub id: i64,
    /// Name (a company name, or a person's first name).
    pub name: String,
    /// A person's last name.
    pub lastname: Option<String>,
    /// Tax identifier.
    pub cuit: Option<String>,
    /// Free text.
    pub observations: Option<String>,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Contact email.
    pub email: Option<String>,
    /// Contact phone.
    pub phone_number: Option<String>,
    /// Hectares: the sum of the live plots of the farmer's live establishments.
    pub area: f64,
    /// Active flag.
    pub active: bool,
    /// Creation.
    pub created_at: Timestamp,
    /// Last modification; used for incremental sync.
    pub updated_at: Timestamp,
    /// Logical deletion; null while the farmer is live.
    pub deleted_at: Option<Timestamp>,
}
