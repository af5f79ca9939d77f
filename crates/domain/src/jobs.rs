//! Background jobs: their kinds and states, and the rules each row of a job's input must meet before it is applied.

use thiserror::Error;

use crate::refusal::Refusal;
use crate::text::{self, Text};

/// Updating campaigns' objective yields.
pub const UPDATE_OBJECTIVE_YIELD: &str = "update_objective_yield";
/// Creating campaigns from imported rows.
pub const CAMPAIGN_IMPORT: &str = "campaign_import";

/// Highest objective yield accepted, in tonnes per hectare: well above any crop's record yield, so a value past
/// it is a unit mistake (kg/ha sent as t/ha), not an ambition.
pub const MAX_OBJECTIVE_YIELD: f64 = 30.0;

/// Most rows one job may carry.
pub const MAX_JOB_ROWS: usize = 10_000;

/// Where a job is in its life.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JobStatus {
    /// Waiting for a worker.
    Pending,
    /// A worker holds it (until its lease runs out).
    Running,
    /// Every row was handled; the result says which were refused.
    Finished,
    /// Gave up after repeated failures of the worker itself.
    Failed,
}

impl JobStatus {
    /// The stored and rendered name.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Pending => "pending",
            JobStatus::Running => "running",
            JobStatus::Finished => "finished",
            JobStatus::Failed => "failed",
        }
    }
}

/// Why a row of a job was refused.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum RowRefusal {
    /// The objective yield is not a positive number of tonnes per hectare within bounds.
    #[error("objective_yield must be greater than 0 and at most {MAX_OBJECTIVE_YIELD} t/ha, got {0}")]
    ObjectiveYield(f64),
    /// The area is not a positive number of hectares within bounds.
    #[error(
        "area must be at least {min} and at most {max} hectares, got {0}",
        min = crate::MIN_HECTARES,
        max = crate::MAX_HECTARES
    )]
    Area(f64),
    /// A required text is blank.
    #[error("{0} must not be blank")]
    Blank(&'static str),
    /// A referenced record is not one of the society's live records.
    #[error("{field} {id} is not a live record of your society")]
    Unknown {
        /// The field.
        field: &'static str,
        /// The id sent.
        id: i64,
    },
    /// The external code is already used by another campaign of the society.
    #[error("external_code {0:?} is already used by another campaign")]
    DuplicateExternalCode(String),
}

/// Checks an objective yield (t/ha).
pub fn check_objective_yield(value: f64) -> Result<f64, RowRefusal> {
    if crate::refusal::positive(value) && value <= MAX_OBJECTIVE_YIELD {
        Ok(value)
    } else {
        Err(RowRefusal::ObjectiveYield(value))
    }
}

/// Checks an area (ha).
pub fn check_area(value: f64) -> Result<f64, RowRefusal> {
    // Areas are kept to hundredths: a smaller one would be stored as none.
    if value.is_finite() && (crate::MIN_HECTARES..=crate::MAX_HECTARES).contains(&value) {
        Ok(value)
    } else {
        Err(RowRefusal::Area(value))
    }
}

/// The texts of one row of a campaign import, as sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CampaignTexts<'a> {
    /// The campaign's name.
    pub name: &'a str,
    /// Its code in the integrator's ERP.
    pub external_code: Option<&'a str>,
    /// Its sowing date, as text.
    pub planting_date: Option<&'a str>,
}

/// Bounds the texts of a campaign import's rows before the job is queued (`campaigns[3].name`): a row's other rules
/// need the database and are the job's, but a text past its bound is refused with the request, as the document's
/// `maxLength` says.
pub fn check_campaign_texts<'a>(rows: impl IntoIterator<Item = CampaignTexts<'a>>) -> Result<(), Refusal> {
    let mut violations = Vec::new();
    for (index, row) in rows.into_iter().enumerate() {
        let name = format!("campaigns[{index}].name");
        text::check(&name, row.name, Text::Name, &mut violations);
        let code = format!("campaigns[{index}].external_code");
        text::check_optional(&code, row.external_code, Text::Code, &mut violations);
        let date = format!("campaigns[{index}].planting_date");
        text::check_optional(&date, row.planting_date, Text::Key, &mut violations);
    }
    crate::refusal::verdict(violations)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_imported_campaigns_texts_are_bounded_before_the_job_is_queued() {
        let long = "x".repeat(crate::text::MAX_NAME + 1);
        let row = |name| CampaignTexts {
            name,
            external_code: Some("ERP\u{200B}1"),
            planting_date: None,
        };
        let ok = CampaignTexts {
            name: "Soja",
            external_code: Some("ERP-1"),
            planting_date: Some("2025-10-20"),
        };
        assert_eq!(check_campaign_texts([ok]), Ok(()));
        let refused = check_campaign_texts([ok, row(&long)]).expect_err("refused");
        let crate::Refusal::Invalid(violations) = refused else {
            panic!("{refused:?}");
        };
        let found: Vec<_> = violations.iter().map(|v| v.path.as_str()).collect();
        assert_eq!(found, ["campaigns[1].name", "campaigns[1].external_code"]);
    }

    #[test]
    fn objective_yields_are_positive_tonnes_per_hectare() {
        assert_eq!(check_objective_yield(3.5), Ok(3.5));
        assert_eq!(check_objective_yield(30.0), Ok(30.0));
        for bad in [0.0, -1.0, 3500.0, f64::NAN, f64::INFINITY, 1e-320] {
            assert!(check_objective_yield(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn areas_are_positive_and_bounded() {
        assert_eq!(check_area(12.5), Ok(12.5));
        assert_eq!(check_area(crate::MAX_HECTARES), Ok(crate::MAX_HECTARES));
        assert!(check_area(0.0).is_err());
        assert!(check_area(0.004).is_err());
        assert!(check_area(1e-320).is_err());
        assert_eq!(check_area(crate::MIN_HECTARES), Ok(crate::MIN_HECTARES));
        assert!(check_area(f64::NAN).is_err());
        assert!(check_area(1.797_693_134_862_315_5e308).is_err());
    }

    #[test]
    fn statuses_have_stable_names() {
        let names: Vec<_> = [
            JobStatus::Pending,
            JobStatus::Running,
            JobStatus::Finished,
            JobStatus::Failed,
        ]
        .map(JobStatus::as_str)
        .into();
        assert_eq!(names, ["pending", "running", "finished", "failed"]);
    }
}
