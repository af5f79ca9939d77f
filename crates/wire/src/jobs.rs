//! Bodies that start background jobs on campaigns: objective-yield updates and campaign imports.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// `POST /api/v2/third_party/campaigns/update_objective_yield` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ObjectiveYieldUpdate {
    /// The campaigns to update, each with its new objective yield; 1 to 10,000 (an empty list is 422).
    #[schema(max_items = 10_000)]
    pub campaigns: Vec<ObjectiveYieldRow>,
}

/// One campaign's new objective yield.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ObjectiveYieldRow {
    /// The campaign (`campaigns.id`).
    pub campaign_id: i64,
    /// Expected yield in tonnes per hectare, greater than 0 and at most 30.
    pub objective_yield: f64,
}

/// `POST /api/v2/third_party/campaigns/import` body.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CampaignImport {
    /// The campaigns to create; 1 to 10,000 (an empty list is 422).
    #[schema(max_items = 10_000)]
    pub campaigns: Vec<CampaignImportRow>,
}

/// One campaign to create.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct CampaignImportRow {
    /// The plot it is sown in: a live plot of the caller's society.
    pub plot_id: i64,
    /// Its planning: a live master campaign of the caller's society.
    pub master_campaign_id: i64,
    /// Name; not blank, at most 200 characters.
    #[schema(max_length = 200)]
    pub name: String,
    /// Code in the integrator's ERP; unique among the society's campaigns when given. At most 100 characters, none of
    /// them invisible (control and format characters such as zero-width spaces are refused); stored trimmed and in
    /// Unicode normalisation form NFKC, so that composed and decomposed accents and fullwidth forms are one code.
    #[serde(default)]
    #[schema(
        max_length = 100,
        pattern = r"^[^\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufffb]*$"
    )]
    pub external_code: Option<String>,
    /// Hectares; greater than 0 and at most 1,000,000 (a row outside is refused inside the job).
    pub area: f64,
    /// Sowing date, `YYYY-MM-DD`; at most 100 characters.
    #[serde(default)]
    #[schema(max_length = 100)]
    pub planting_date: Option<String>,
    /// Expected yield in tonnes per hectare.
    #[serde(default)]
    pub objective_yield: Option<f64>,
}
