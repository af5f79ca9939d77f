//! Master-data writes: establishments and plots (v3) and applicators (v2), as commands with the rules each must
//! meet before anything is stored: their own (`check`), which need no database, and those about the records they name
//! (`references_hold`), judged here over what the store found in the write's transaction.

use std::collections::BTreeSet;

use crate::refusal::{check_hectares, check_required, verdict, Refusal, Rule, Violation};
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
    /// The body's keys in the order its schema lists them: the order its broken rules are named in.
    pub const FIELDS: &'static [&'static str] = &["name", "farmer_id", "external_code", "active"];

    /// The rules that need no database.
    pub fn check(&self) -> Result<(), Refusal> {
        let mut violations = Vec::new();
        check_required("name", &self.name, &mut violations);
        text::check("name", &self.name, Text::Name, &mut violations);
        let code = self.external_code.as_deref();
        text::check_optional("external_code", code, Text::Code, &mut violations);
        verdict(violations)
    }

    /// The rule about its farmer, given whether the store found it live in the caller's society.
    pub fn references_hold(&self, farmer_found: bool) -> Result<(), Refusal> {
        found_or_unknown(farmer_found, "farmer_id", self.farmer_id)
    }
}

/// `Ok` when the record `id` at `path` was found, else a refusal naming it.
fn found_or_unknown(found: bool, path: &str, id: i64) -> Result<(), Refusal> {
    if found {
        Ok(())
    } else {
        Err(Refusal::Invalid(vec![Violation::new(path, Rule::Unknown(id))]))
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
    /// The body's keys in the order its schema lists them: the order its broken rules are named in.
    pub const FIELDS: &'static [&'static str] = &["name", "establishment_id", "area", "external_code", "active"];

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

    /// The rule about its establishment, given whether the store found it live in the caller's society.
    pub fn references_hold(&self, establishment_found: bool) -> Result<(), Refusal> {
        found_or_unknown(establishment_found, "establishment_id", self.establishment_id)
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
    /// The body's keys in the order its schema lists them: the order its broken rules are named in.
    pub const FIELDS: &'static [&'static str] = &[
        "id",
        "name",
        "external_code",
        "active",
        "address",
        "phone_number",
        "email",
        "machines",
    ];

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

    /// The rule about its machines, given those of [`Self::distinct_machines`] the store found live in the caller's
    /// society: each one not found is named by its position.
    pub fn references_hold(&self, machines_found: &BTreeSet<i64>) -> Result<(), Refusal> {
        let unknown = self
            .machines
            .iter()
            .enumerate()
            .filter(|(_, machine)| !machines_found.contains(machine))
            .map(|(index, machine)| Violation::new(format!("machines[{index}]"), Rule::Unknown(*machine)))
            .collect();
        verdict(unknown)
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
        assert_eq!(applicator.references_hold(&BTreeSet::from([3, 5])), Ok(()));
        assert_eq!(
            applicator.references_hold(&BTreeSet::from([3])),
            Err(Refusal::Invalid(vec![
                Violation::new("machines[0]", Rule::Unknown(5)),
                Violation::new("machines[2]", Rule::Unknown(5)),
            ]))
        );
    }

    #[test]
    fn an_establishments_farmer_and_a_plots_establishment_must_be_found() {
        let establishment = NewEstablishment {
            name: "La Esperanza".into(),
            farmer_id: 4,
            external_code: None,
            active: true,
        };
        assert_eq!(establishment.references_hold(true), Ok(()));
        let unknown = |path, id| Err(Refusal::Invalid(vec![Violation::new(path, Rule::Unknown(id))]));
        assert_eq!(establishment.references_hold(false), unknown("farmer_id", 4));
        assert_eq!(plot().references_hold(true), Ok(()));
        assert_eq!(plot().references_hold(false), unknown("establishment_id", 1));
    }

    #[test]
    fn blank_texts_are_stored_as_none() {
        assert_eq!(optional_text(Some("  ERP-1 ")), Some("ERP-1"));
        assert_eq!(optional_text(Some("  ")), None);
        assert_eq!(optional_text(None), None);
    }
}
