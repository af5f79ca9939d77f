//! Work-order writes: the command a write body is parsed into, and every rule it must meet before anything is
//! stored. Its own rules ([`WorkOrderCommand::check`]) need no database, so a body that breaks one is refused before
//! anything is written (its refusal also names the records it refers to that do not exist, which the store only reads:
//! [`crate::Refusal::with_references`]). The rules about what it refers to ([`references`]) are decided here too, over what
//! the store found for them ([`Found`]), as is whether the order a replacement names may be replaced
//! ([`replaceable`]).

mod references;

pub use references::{deletable, replaceable, Current, Found};

use chrono::{DateTime, Utc};

use crate::refusal::{check_positive, verdict, Refusal, Rule, Violation};
use crate::text::{self, Text};

/// The only `system_id` a third party may write.
pub const THIRD_PARTY_SYSTEM: &str = "third_party";

/// The three independent state flags of an order and of each of its lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StateFlags {
    /// Pending execution.
    pub pending: bool,
    /// Executed in the field.
    pub executed: bool,
    /// Confirmed.
    pub confirmed: bool,
}

/// A whole work order as a write describes it: header and every line. Read-only fields are not part of it.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkOrderCommand {
    /// Id in the integrator's system.
    pub external_id: Option<String>,
    /// Must be [`THIRD_PARTY_SYSTEM`].
    pub system_id: String,
    /// Descriptive name.
    pub name: String,
    /// Date and time of the operation.
    pub date: DateTime<Utc>,
    /// Voucher date.
    pub voucher_date: DateTime<Utc>,
    /// Header state.
    pub state: StateFlags,
    /// `extra_fields.company.local_id`: must be the caller's society.
    pub company_id: i64,
    /// `extra_fields.voucher_type.local_id`.
    pub voucher_type_id: i64,
    /// Supply lines, in order.
    pub supplies: Vec<SupplyLine>,
    /// Labour lines, in order.
    pub labours: Vec<LabourLine>,
}

impl WorkOrderCommand {
    /// The body's keys, at every depth, in the order its schema lists them: the order its broken rules are named in.
    pub const FIELDS: &'static [&'static str] = &[
        "header",
        "supplies",
        "labours",
        "local_id",
        "external_id",
        "system_id",
        "name",
        "date",
        "voucher_date",
        "state",
        "extra_fields",
        "company",
        "voucher_type",
        "cultivation",
        "formulated",
        "labour_type",
        "area_applied",
        "total_applied",
        "contractors",
        "machines",
        "applicators",
    ];

    /// The campaign (`cultivation.local_id`) of every line, supplies first, in order.
    pub fn campaign_ids(&self) -> impl Iterator<Item = i64> + '_ {
        let supplies = self.supplies.iter().map(|s| s.campaign_id);
        supplies.chain(self.labours.iter().map(|l| l.campaign_id))
    }

    /// The rules that need no database, for a write by society `society_id`: every one the body breaks.
    pub fn check(&self, society_id: i64) -> Result<(), Refusal> {
        verdict(own_violations(self, society_id))
    }

    /// The external id as stored: trimmed, none when blank.
    pub fn stored_external_id(&self) -> Option<&str> {
        self.external_id.as_deref().map(str::trim).filter(|id| !id.is_empty())
    }
}

/// A supply (agrochemical application) line.
#[derive(Debug, Clone, PartialEq)]
pub struct SupplyLine {
    /// The line's id when it is an existing line of the order being replaced.
    pub local_id: Option<i64>,
    /// `cultivation.local_id`: a campaign id (the homonym rule).
    pub campaign_id: i64,
    /// `formulated.local_id`.
    pub formulated_id: i64,
    /// Hectares applied.
    pub area_applied: f64,
    /// Total quantity applied.
    pub total_applied: f64,
    /// Application date.
    pub date: DateTime<Utc>,
    /// Line state.
    pub state: StateFlags,
}

/// A labour line.
#[derive(Debug, Clone, PartialEq)]
pub struct LabourLine {
    /// The line's id when it is an existing line of the order being replaced.
    pub local_id: Option<i64>,
    /// `cultivation.local_id`: a campaign id (the homonym rule).
    pub campaign_id: i64,
    /// `labour_type.local_id`, when given.
    pub labour_type_id: Option<i64>,
    /// Hectares.
    pub area_applied: f64,
    /// `contractors[].local_id`.
    pub contractor_ids: Vec<i64>,
    /// `machines[].local_id`.
    pub machine_ids: Vec<i64>,
    /// `applicators[].local_id`.
    pub applicator_ids: Vec<i64>,
    /// Labour date.
    pub date: DateTime<Utc>,
    /// Line state.
    pub state: StateFlags,
}

/// The rules that need no database: system id, company, names, quantities, repeated ids.
fn own_violations(command: &WorkOrderCommand, society_id: i64) -> Vec<Violation> {
    let mut violations = Vec::new();
    if command.system_id != THIRD_PARTY_SYSTEM {
        violations.push(Violation::new(
            "header.system_id",
            Rule::SystemId(command.system_id.clone()),
        ));
    }
    if command.company_id != society_id {
        let rule = Rule::Company {
            sent: command.company_id,
            expected: society_id,
        };
        violations.push(Violation::new("header.extra_fields.company.local_id", rule));
    }
    if command.name.trim().is_empty() {
        violations.push(Violation::new("header.name", Rule::Blank));
    }
    text::check("header.name", &command.name, Text::Name, &mut violations);
    let external_id = command.external_id.as_deref();
    text::check_optional("header.external_id", external_id, Text::Code, &mut violations);
    let mut line_ids = Vec::new();
    for (index, supply) in command.supplies.iter().enumerate() {
        for (field, value) in [
            ("area_applied", supply.area_applied),
            ("total_applied", supply.total_applied),
        ] {
            check_positive(&format!("supplies[{index}].{field}"), value, &mut violations);
        }
        if let Some(id) = supply.local_id {
            if line_ids.contains(&("supplies", id)) {
                violations.push(Violation::new(
                    format!("supplies[{index}].local_id"),
                    Rule::DuplicateLine(id),
                ));
            }
            line_ids.push(("supplies", id));
        }
    }
    for (index, labour) in command.labours.iter().enumerate() {
        check_positive(
            &format!("labours[{index}].area_applied"),
            labour.area_applied,
            &mut violations,
        );
        if let Some(id) = labour.local_id {
            if line_ids.contains(&("labours", id)) {
                violations.push(Violation::new(
                    format!("labours[{index}].local_id"),
                    Rule::DuplicateLine(id),
                ));
            }
            line_ids.push(("labours", id));
        }
        for (field, ids) in [
            ("contractors", &labour.contractor_ids),
            ("machines", &labour.machine_ids),
            ("applicators", &labour.applicator_ids),
        ] {
            for (position, id) in ids.iter().enumerate() {
                if ids[..position].contains(id) {
                    let path = format!("labours[{index}].{field}[{position}].local_id");
                    violations.push(Violation::new(path, Rule::Repeated(*id)));
                }
            }
        }
    }
    violations
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn when() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2025, 10, 1, 12, 0, 0).single().unwrap_or_default()
    }

    /// A valid order of society 7.
    pub(super) fn order() -> WorkOrderCommand {
        WorkOrderCommand {
            external_id: Some("ERP-1".into()),
            system_id: THIRD_PARTY_SYSTEM.into(),
            name: "Pulverización presiembra".into(),
            date: when(),
            voucher_date: when(),
            state: StateFlags {
                pending: true,
                ..StateFlags::default()
            },
            company_id: 7,
            voucher_type_id: 1,
            supplies: vec![SupplyLine {
                local_id: None,
                campaign_id: 10,
                formulated_id: 3,
                area_applied: 40.0,
                total_applied: 80.0,
                date: when(),
                state: StateFlags::default(),
            }],
            labours: vec![LabourLine {
                local_id: None,
                campaign_id: 10,
                labour_type_id: Some(2),
                area_applied: 40.0,
                contractor_ids: vec![1],
                machine_ids: vec![4, 5],
                applicator_ids: vec![],
                date: when(),
                state: StateFlags::default(),
            }],
        }
    }

    fn paths(violations: &[Violation]) -> Vec<&str> {
        violations.iter().map(|v| v.path.as_str()).collect()
    }

    #[test]
    fn campaign_ids_are_every_lines_supplies_first() {
        let mut command = order();
        command.labours[0].campaign_id = 11;
        assert_eq!(command.campaign_ids().collect::<Vec<_>>(), [10, 11]);
    }

    #[test]
    fn a_well_formed_order_breaks_no_rule() {
        assert_eq!(own_violations(&order(), 7), vec![]);
        assert_eq!(order().check(7), Ok(()));
    }

    #[test]
    fn check_refuses_with_every_rule_broken() {
        let mut command = order();
        command.system_id = "erp".into();
        command.supplies[0].area_applied = 0.0;
        let Err(Refusal::Invalid(violations)) = command.check(7) else {
            panic!("refused as invalid");
        };
        assert_eq!(paths(&violations), ["header.system_id", "supplies[0].area_applied"]);
    }

    #[test]
    fn the_external_id_is_stored_trimmed_and_none_when_blank() {
        let mut command = order();
        command.external_id = Some("  ERP-1 ".into());
        assert_eq!(command.stored_external_id(), Some("ERP-1"));
        command.external_id = Some("   ".into());
        assert_eq!(command.stored_external_id(), None);
        command.external_id = None;
        assert_eq!(command.stored_external_id(), None);
    }

    #[test]
    fn the_system_id_must_be_third_party() {
        let mut command = order();
        command.system_id = "erp".into();
        assert_eq!(
            own_violations(&command, 7),
            vec![Violation::new("header.system_id", Rule::SystemId("erp".into()))]
        );
    }

    #[test]
    fn the_company_must_be_the_callers_society() {
        let violations = own_violations(&order(), 8);
        assert_eq!(
            violations,
            vec![Violation::new(
                "header.extra_fields.company.local_id",
                Rule::Company { sent: 7, expected: 8 }
            )]
        );
    }

    #[test]
    fn quantities_must_be_positive_and_every_violation_is_reported() {
        let mut command = order();
        command.name = "  ".into();
        command.supplies[0].area_applied = 0.0;
        command.supplies[0].total_applied = -1.0;
        command.labours[0].area_applied = f64::NAN;
        assert_eq!(
            paths(&own_violations(&command, 7)),
            [
                "header.name",
                "supplies[0].area_applied",
                "supplies[0].total_applied",
                "labours[0].area_applied"
            ]
        );
    }

    #[test]
    fn a_quantity_too_small_to_be_stored_as_sent_is_refused() {
        let mut command = order();
        command.supplies[0].area_applied = 1e-320;
        command.supplies[0].total_applied = 5e-324;
        command.labours[0].area_applied = 1e-310;
        let min = crate::refusal::MIN_QUANTITY;
        assert_eq!(
            own_violations(&command, 7),
            vec![
                Violation::new("supplies[0].area_applied", Rule::TooSmall { sent: 1e-320, min }),
                Violation::new("supplies[0].total_applied", Rule::TooSmall { sent: 5e-324, min }),
                Violation::new("labours[0].area_applied", Rule::TooSmall { sent: 1e-310, min }),
            ]
        );
        command.supplies[0].area_applied = min;
        command.supplies[0].total_applied = 1e-300;
        command.labours[0].area_applied = 0.001;
        assert_eq!(own_violations(&command, 7), vec![]);
    }

    #[test]
    fn a_line_id_may_appear_once_and_a_resource_once_per_line() {
        let mut command = order();
        command.supplies.push(command.supplies[0].clone());
        command.supplies[0].local_id = Some(5);
        command.supplies[1].local_id = Some(5);
        command.labours[0].machine_ids = vec![4, 4];
        assert_eq!(
            own_violations(&command, 7),
            vec![
                Violation::new("supplies[1].local_id", Rule::DuplicateLine(5)),
                Violation::new("labours[0].machines[1].local_id", Rule::Repeated(4)),
            ]
        );
    }

    #[test]
    fn the_same_id_in_a_supply_and_a_labour_is_not_a_duplicate() {
        let mut command = order();
        command.supplies[0].local_id = Some(5);
        command.labours[0].local_id = Some(5);
        assert_eq!(own_violations(&command, 7), vec![]);
    }
}
