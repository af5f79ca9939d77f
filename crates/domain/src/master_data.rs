//! Master-data writes: establishments and plots (v3) and applicators (v2), as commands with the rules each must
//! meet before anything is stored. Whether the records they name are live is the store's to find.

use crate::refusal::{check_hectares, check_required, verdict, Refusal};
use crate::text::{self, Text};

/// A new establishment of a farmer.
#[derive(Debug, Clone, PartialEq)]
pub struct NewEstablishment {
    /// Name; required.
    pub name: String,
    /// The farmer it belongs to.
    pub farmer_id: i64,
    /// Code in the integrator's ERP; blank means none.
    pub external_code: Option<String>,
    /// Active flag.
    pub active: bool,
}

impl NewEstablishment {
    /// The rules that need no database.
    pub fn check(&self) -> Result<(), Refusal> {
        let mut violations = Vec::new();
        check_required("name", &self.name, &mut violations);
        text::check("name", &self.name, Text::Name, &mut violations);
        let code = self.external_code.as_deref();
        text::check_optional("external_code", code, Text::Code, &mut violations);
        verdict(violations)
    }
}

/// A new plot of an establishment.
#[derive(Debug, Clone, PartialEq)]
pub struct NewPlot {
    /// Name; required.
    pub name: String,
    /// The establishment it divides.
    pub establishment_id: i64,
    /// Hectares.
    pub area: f64,
    /// Code in the integrator's ERP; blank means none.
    pub external_code: Option<String>,
    /// Active flag.
    pub active: bool,
}

impl NewPlot {
    /// The rules that need no database.
    pub fn check(&self) -> Result<(), Refusal> {
        let mut violations = Vec::new();
        check_required("name", &self.name, &mut violations);
        text::check("name", &self.name, Text::Name, &mut violations);
        check_hectares("area", self.area, &mut violations);
        let code = self.external_code.as_deref();
        text::check_optional("external_code", code, Text::Code, &mut violations);
        verdict(violations)
    }
}

/// An applicator as a create or a full update states it.
#[derive(Debug, Clone, PartialEq)]
pub struct ApplicatorCommand {
    /// Name; required.
    pub name: String,
    /// Code in the integrator's ERP.
    pub external_code: Option<String>,
    /// Active flag.
    pub active: bool,
    /// Postal address.
    pub address: Option<String>,
    /// Contact phone.
    pub phone_number: Option<String>,
    /// Contact email.
    pub email: Option<String>,
    /// Machines the applicator operates; an update replaces the list.
    pub machines: Vec<i64>,
}

impl ApplicatorCommand {
    /// The rules that need no database.
    pub fn check(&self) -> Result<(), Refusal> {
        let mut violations = Vec::new();
        check_required("name", &self.name, &mut violations);
        text::check("name", &self.name, Text::Name, &mut violations);
        for (path, value, kind) in [
            ("external_code", &self.external_code, Text::Code),
            ("address", &self.address, Text::Name),
            ("phone_number", &self.phone_number, Text::Name),
            ("email", &self.email, Text::Email),
        ] {
            text::check_optional(path, value.as_deref(), kind, &mut violations);
        }
        verdict(violations)
    }

    /// The machines, each once, in increasing order.
    pub fn distinct_machines(&self) -> Vec<i64> {
        let mut machines = self.machines.clone();
        machines.sort_unstable();
        machines.dedup();
        machines
    }
}

/// What a machine may be, as its `kind` says and as a rule lists them.
pub const MACHINE_KINDS: &str = "sprayer, planter, harvester, tractor, spreader, aircraft";

/// A text as stored: trimmed, and none when blank.
pub fn optional_text(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|text| !text.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refusal::{Rule, Violation};

    fn plot() -> NewPlot {
        NewPlot {
            name: "Lote 12".into(),
            establishment_id: 1,
            area: 48.5,
            external_code: None,
            active: true,
        }
    }

    #[test]
    fn a_plot_needs_a_name_and_a_positive_bounded_area() {
        assert_eq!(plot().check(), Ok(()));
        let blank = NewPlot {
            name: " ".into(),
            area: 0.0,
            ..plot()
        };
        assert_eq!(
            blank.check(),
            Err(Refusal::Invalid(vec![
                Violation::new("name", Rule::Blank),
                Violation::new("area", Rule::NotPositive(0.0)),
            ]))
        );
    }

    #[test]
    fn a_plot_area_kept_as_zero_hundredths_is_too_small() {
        for area in [1e-320, 0.004] {
            let tiny = NewPlot { area, ..plot() };
            let rule = Rule::TooSmall {
                sent: area,
                min: crate::MIN_HECTARES,
            };
            assert_eq!(tiny.check(), Err(Refusal::Invalid(vec![Violation::new("area", rule)])));
        }
        let smallest = NewPlot {
            area: crate::MIN_HECTARES,
            ..plot()
        };
        assert_eq!(smallest.check(), Ok(()));
    }

    #[test]
    fn an_applicators_machines_are_counted_once() {
        let applicator = ApplicatorCommand {
            name: "Jorge".into(),
            external_code: None,
            active: true,
            address: None,
            phone_number: None,
            email: None,
            machines: vec![5, 3, 5],
        };
        assert_eq!(applicator.distinct_machines(), [3, 5]);
        assert_eq!(applicator.check(), Ok(()));
    }

    #[test]
    fn blank_texts_are_stored_as_none() {
        assert_eq!(optional_text(Some("  ERP-1 ")), Some("ERP-1"));
        assert_eq!(optional_text(Some("  ")), None);
        assert_eq!(optional_text(None), None);
    }
}
