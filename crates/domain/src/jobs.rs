//! Background jobs: their kinds and states, and the rules each row of a job's input must meet before it is applied.

use thiserror::Error;

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
    #[error("area must be greater than 0 and at most {max} hectares, got {0}", max = crate::MAX_HECTARES)]
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
    if value.is_finite() && value > 0.0 && value <= MAX_OBJECTIVE_YIELD {
        Ok(value)
    } else {
        Err(RowRefusal::ObjectiveYield(value))
    }
}

/// Checks an area (ha).
pub fn check_area(value: f64) -> Result<f64, RowRefusal> {
    if value.is_finite() && value > 0.0 && value <= crate::MAX_HECTARES {
        Ok(value)
    } else {
        Err(RowRefusal::Area(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objective_yields_are_positive_tonnes_per_hectare() {
        assert_eq!(check_objective_yield(3.5), Ok(3.5));
        assert_eq!(check_objective_yield(30.0), Ok(30.0));
        for bad in [0.0, -1.0, 3500.0, f64::NAN, f64::INFINITY] {
            assert!(check_objective_yield(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn areas_are_positive_and_bounded() {
        assert_eq!(check_area(12.5), Ok(12.5));
        assert_eq!(check_area(crate::MAX_HECTARES), Ok(crate::MAX_HECTARES));
        assert!(check_area(0.0).is_err());
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
