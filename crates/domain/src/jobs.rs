//! Background jobs: their kinds and states, the language a job reports in, and how each row of a job's input is read
//! and the rules it must meet before it is applied. A refused row is a [`Refusal`] like a refused write, so the job's
//! report says why in the words every other refusal uses.

use crate::import::Cell;
use crate::refusal::{check_hectares, check_required, verdict, Expected, Refusal, Rule, Violation, MIN_QUANTITY};
use crate::text::{self, Text};
use crate::Lang;

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

/// The code a job records the language of its report by (`es`, `pt` or `en`): the language the request that
/// started it had its errors in.
pub fn lang_code(lang: Lang) -> &'static str {
    match lang {
        Lang::Es => "es",
        Lang::Pt => "pt",
        Lang::En => "en",
    }
}

/// The language a job recorded with [`lang_code`]; Spanish, the platform's language, for a job that recorded none.
pub fn report_lang(code: Option<&str>) -> Lang {
    code.and_then(Lang::from_locale).unwrap_or_default()
}

/// Checks an objective yield (t/ha): a positive quantity stored as sent, and at most [`MAX_OBJECTIVE_YIELD`].
pub fn check_objective_yield(value: f64) -> Result<f64, Rule> {
    if !(value.is_finite() && value > 0.0) {
        Err(Rule::NotPositive(value))
    } else if value < MIN_QUANTITY {
        Err(Rule::TooSmall {
            sent: value,
            min: MIN_QUANTITY,
        })
    } else if value > MAX_OBJECTIVE_YIELD {
        Err(Rule::OutOfRange {
            min: 0.0,
            max: MAX_OBJECTIVE_YIELD,
        })
    } else {
        Ok(value)
    }
}

/// The refusal of a job whose kind no worker knows; only a job queued by something other than this server has one.
pub fn unknown_kind() -> Refusal {
    let kinds = "update_objective_yield, campaign_import";
    Refusal::Invalid(vec![Violation::new("kind", Rule::NotOneOf(kinds))])
}

/// Reads a row's fields from their cells (a JSON value each, or [`Cell::Empty`] where the row has none), collecting
/// every field that does not hold what it should, named by the field.
struct Reader<F> {
    field: F,
    violations: Vec<Violation>,
}

impl<'a, F: Fn(&str) -> Cell<'a>> Reader<F> {
    fn new(field: F) -> Self {
        Self {
            field,
            violations: Vec::new(),
        }
    }

    /// A record's id: a whole number, required.
    fn id(&mut self, name: &str) -> Option<i64> {
        match (self.field)(name) {
            Cell::Integer(id) => Some(id),
            cell => self.wrong(name, cell, Expected::Integer),
        }
    }

    /// A number, required or not.
    fn number(&mut self, name: &str, required: bool) -> Option<f64> {
        match (self.field)(name) {
            Cell::Integer(whole) => Some(whole as f64),
            Cell::Number(number) if number.is_finite() => Some(number),
            Cell::Empty if !required => None,
            cell => self.wrong(name, cell, Expected::Number),
        }
    }

    /// A text, required or not; a required one must not be blank.
    fn text(&mut self, name: &str, required: bool) -> Option<&'a str> {
        match (self.field)(name) {
            Cell::Text(text) => {
                if required {
                    check_required(name, text, &mut self.violations);
                }
                Some(text)
            }
            Cell::Empty if !required => None,
            cell => self.wrong(name, cell, Expected::Text),
        }
    }

    /// Refuses a field that is absent (when required) or holds something else than `expected`.
    fn wrong<T>(&mut self, name: &str, cell: Cell<'_>, expected: Expected) -> Option<T> {
        let sent = match cell {
            Cell::Empty => {
                self.violations.push(Violation::new(name, Rule::Blank));
                return None;
            }
            Cell::Text(text) => text.to_owned(),
            Cell::Integer(whole) => whole.to_string(),
            Cell::Number(number) => number.to_string(),
            Cell::Bool(flag) => flag.to_string(),
            Cell::Nested => "[…]".to_owned(),
        };
        self.violations
            .push(Violation::new(name, Rule::WrongType { expected, sent }));
        None
    }

    /// Checks a rule on a value read, keeping the value only if it holds.
    fn rule(&mut self, name: &str, checked: Result<f64, Rule>) -> Option<f64> {
        checked
            .map_err(|rule| self.violations.push(Violation::new(name, rule)))
            .ok()
    }
}

/// One row of an objective-yield update, read and checked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct YieldUpdate {
    /// The campaign; whether it is a live one of the society is the store's to find.
    pub campaign_id: i64,
    /// Its new objective yield (t/ha).
    pub objective_yield: f64,
}

impl YieldUpdate {
    /// Reads a row from its fields' cells, refusing it for every rule it breaks by itself.
    pub fn read<'a>(field: impl Fn(&str) -> Cell<'a>) -> Result<Self, Refusal> {
        let mut row = Reader::new(field);
        let campaign_id = row.id("campaign_id");
        let objective_yield = row.number("objective_yield", true);
        let objective_yield =
            objective_yield.and_then(|value| row.rule("objective_yield", check_objective_yield(value)));
        match (campaign_id, objective_yield) {
            (Some(campaign_id), Some(objective_yield)) if row.violations.is_empty() => Ok(Self {
                campaign_id,
                objective_yield,
            }),
            // Each `None` pushed its violation.
            _ => Err(Refusal::Invalid(row.violations)),
        }
    }

    /// The refusal of a row whose campaign is not a live one of the society.
    pub fn not_found(&self) -> Refusal {
        Refusal::Invalid(vec![Violation::new("campaign_id", Rule::Unknown(self.campaign_id))])
    }
}

/// One row of a campaign import, read and checked: the campaign the store creates once its references are found.
#[derive(Debug, Clone, PartialEq)]
pub struct NewCampaign {
    /// The plot it is sown in.
    pub plot_id: i64,
    /// Its planning.
    pub master_campaign_id: i64,
    /// Its name, trimmed.
    pub name: String,
    /// Its code, in the form codes are stored and compared in ([`text::code`]); none when blank.
    pub external_code: Option<String>,
    /// Hectares.
    pub area: f64,
    /// Sowing date, as sent.
    pub planting_date: Option<String>,
    /// Objective yield (t/ha).
    pub objective_yield: Option<f64>,
}

/// What the store found for an import row's references.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// The plot is a live plot of the society.
    pub plot: bool,
    /// The master campaign is a live one of the society.
    pub master_campaign: bool,
    /// The live campaign of the society that already has the row's external code.
    pub code_holder: Option<i64>,
}

impl NewCampaign {
    /// Reads a row from its fields' cells, refusing it for every rule it breaks by itself, in field order.
    pub fn read<'a>(field: impl Fn(&str) -> Cell<'a>) -> Result<Self, Refusal> {
        let mut row = Reader::new(field);
        let plot_id = row.id("plot_id");
        let master_campaign_id = row.id("master_campaign_id");
        let name = row.text("name", true);
        text::check_optional("name", name, Text::Name, &mut row.violations);
        let external_code = row.text("external_code", false);
        text::check_optional("external_code", external_code, Text::Code, &mut row.violations);
        let area = row.number("area", true);
        if let Some(area) = area {
            check_hectares("area", area, &mut row.violations);
        }
        let planting_date = row.text("planting_date", false);
        text::check_optional("planting_date", planting_date, Text::Key, &mut row.violations);
        let objective_yield = row.number("objective_yield", false);
        let objective_yield =
            objective_yield.and_then(|value| row.rule("objective_yield", check_objective_yield(value)));
        match (plot_id, master_campaign_id, name, area) {
            (Some(plot_id), Some(master_campaign_id), Some(name), Some(area)) if row.violations.is_empty() => {
                Ok(Self {
                    plot_id,
                    master_campaign_id,
                    name: name.trim().to_owned(),
                    external_code: text::code(external_code),
                    area,
                    planting_date: planting_date.map(str::to_owned),
                    objective_yield,
                })
            }
            // Each `None` pushed its violation.
            _ => Err(Refusal::Invalid(row.violations)),
        }
    }

    /// The rules about the row's references, given what the store found: its plot and master campaign are live
    /// records of the society, and no live campaign has its code (one an earlier row of the import created
    /// included).
    pub fn check_references(&self, found: Found) -> Result<(), Refusal> {
        let mut violations = Vec::new();
        if !found.plot {
            violations.push(Violation::new("plot_id", Rule::Unknown(self.plot_id)));
        }
        if !found.master_campaign {
            let rule = Rule::Unknown(self.master_campaign_id);
            violations.push(Violation::new("master_campaign_id", rule));
        }
        verdict(violations)?;
        match found.code_holder {
            Some(holder) => Err(Refusal::DuplicateExternalCode(holder)),
            None => Ok(()),
        }
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
        assert_eq!(check_objective_yield(MIN_QUANTITY), Ok(MIN_QUANTITY));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
            assert_eq!(
                check_objective_yield(bad).map_err(|r| matches!(r, Rule::NotPositive(_))),
                Err(true),
                "{bad}"
            );
        }
        let small = Rule::TooSmall {
            sent: 1e-320,
            min: MIN_QUANTITY,
        };
        assert_eq!(check_objective_yield(1e-320), Err(small));
        let range = Rule::OutOfRange {
            min: 0.0,
            max: MAX_OBJECTIVE_YIELD,
        };
        assert_eq!(check_objective_yield(3500.0), Err(range));
    }

    /// The cells of a row given as `(field, cell)` pairs; a field not listed is absent.
    fn cells<'a>(row: &'a [(&'a str, Cell<'a>)]) -> impl Fn(&str) -> Cell<'a> + 'a {
        move |name| {
            row.iter()
                .find(|(field, _)| *field == name)
                .map_or(Cell::Empty, |(_, cell)| *cell)
        }
    }

    fn invalid(refusal: Refusal) -> Vec<Violation> {
        match refusal {
            Refusal::Invalid(violations) => violations,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_update_row_names_each_field_that_does_not_hold_what_it_should() {
        let good = [("campaign_id", Cell::Integer(7)), ("objective_yield", Cell::Integer(4))];
        let update = YieldUpdate::read(cells(&good)).expect("a good row");
        assert_eq!(
            update,
            YieldUpdate {
                campaign_id: 7,
                objective_yield: 4.0
            }
        );
        assert_eq!(
            invalid(update.not_found()),
            [Violation::new("campaign_id", Rule::Unknown(7))]
        );

        let wrong = [
            ("campaign_id", Cell::Number(7.5)),
            ("objective_yield", Cell::Text("cuatro")),
        ];
        let wrong_type = |expected, sent: &str| Rule::WrongType {
            expected,
            sent: sent.to_owned(),
        };
        assert_eq!(
            invalid(YieldUpdate::read(cells(&wrong)).expect_err("refused")),
            [
                Violation::new("campaign_id", wrong_type(Expected::Integer, "7.5")),
                Violation::new("objective_yield", wrong_type(Expected::Number, "cuatro")),
            ]
        );
        let absent = invalid(YieldUpdate::read(cells(&[("campaign_id", Cell::Nested)])).expect_err("refused"));
        assert_eq!(
            absent,
            [
                Violation::new("campaign_id", wrong_type(Expected::Integer, "[…]")),
                Violation::new("objective_yield", Rule::Blank),
            ]
        );
        let zero = [
            ("campaign_id", Cell::Integer(7)),
            ("objective_yield", Cell::Number(0.0)),
        ];
        let refused = invalid(YieldUpdate::read(cells(&zero)).expect_err("refused"));
        assert_eq!(refused, [Violation::new("objective_yield", Rule::NotPositive(0.0))]);
    }

    #[test]
    fn an_import_row_is_read_and_checked_then_its_references_are() {
        let mut row = vec![
            ("plot_id", Cell::Integer(27)),
            ("master_campaign_id", Cell::Integer(2)),
            ("name", Cell::Text(" Soja 1ra ")),
            ("external_code", Cell::Text(" ERP-1 ")),
            ("area", Cell::Number(48.5)),
            ("planting_date", Cell::Empty),
        ];
        let campaign = NewCampaign::read(cells(&row)).expect("a good row");
        assert_eq!(
            (campaign.name.as_str(), campaign.external_code.as_deref()),
            ("Soja 1ra", Some("ERP-1"))
        );
        assert_eq!(
            (campaign.area, campaign.planting_date.clone(), campaign.objective_yield),
            (48.5, None, None)
        );
        let live = Found {
            plot: true,
            master_campaign: true,
            code_holder: None,
        };
        assert_eq!(campaign.check_references(live), Ok(()));
        let gone = Found {
            plot: false,
            master_campaign: false,
            ..live
        };
        assert_eq!(
            invalid(campaign.check_references(gone).expect_err("refused")),
            [
                Violation::new("plot_id", Rule::Unknown(27)),
                Violation::new("master_campaign_id", Rule::Unknown(2)),
            ]
        );
        let taken = Found {
            code_holder: Some(340),
            ..live
        };
        assert_eq!(
            campaign.check_references(taken),
            Err(Refusal::DuplicateExternalCode(340))
        );

        row[2].1 = Cell::Text("   ");
        row[4].1 = Cell::Number(0.004);
        row.push(("objective_yield", Cell::Integer(31)));
        let paths: Vec<String> = invalid(NewCampaign::read(cells(&row)).expect_err("refused"))
            .into_iter()
            .map(|violation| violation.path)
            .collect();
        assert_eq!(paths, ["name", "area", "objective_yield"]);
        assert_eq!(
            invalid(NewCampaign::read(cells(&[])).expect_err("refused")).len(),
            4,
            "each required field is named"
        );
    }

    #[test]
    fn a_job_reports_in_the_language_it_recorded() {
        for lang in [Lang::Es, Lang::Pt, Lang::En] {
            assert_eq!(report_lang(Some(lang_code(lang))), lang);
        }
        assert_eq!(report_lang(None), Lang::Es);
        assert_eq!(invalid(unknown_kind())[0].path, "kind");
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
