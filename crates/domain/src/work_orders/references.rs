//! The rules a work-order write meets against what is stored: the order a replacement names must be live, writable
//! and at the version `If-Match` names ([`replaceable`]); its external id must be free; and everything it refers to
//! must be a live record the caller may use ([`WorkOrderCommand::references_hold`]); a deletion needs a writable
//! order ([`deletable`]). The store looks each of these up in the write's transaction and hands over what it found
//! ([`Current`], [`Found`]); the decision is made here, so it is tested without a database.

use std::collections::BTreeSet;

use super::WorkOrderCommand;
use crate::refusal::{verdict, Refusal, Rule, Violation};

/// The order a replacement names, as the store found it (locked for the write).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Current {
    /// Its version (`updated_at` in epoch ms), which its `ETag` names.
    pub version: i64,
    /// Whether it is read-only.
    pub read_only: bool,
    /// Whether it is logically deleted.
    pub deleted: bool,
}

/// Whether the order found (`None`: no order of the society has the id) may be replaced by a write that read
/// `expected_version` (from `If-Match`; `None` when it named none): an unknown or deleted order is not found, a
/// read-only one is refused, and one changed since the version named is stale, in that order.
pub fn replaceable(current: Option<Current>, expected_version: Option<i64>) -> Result<(), Refusal> {
    match current {
        None | Some(Current { deleted: true, .. }) => Err(Refusal::NotFound),
        Some(Current { read_only: true, .. }) => Err(Refusal::ReadOnly),
        Some(current) if expected_version.is_some_and(|v| v != current.version) => Err(Refusal::Stale),
        Some(_) => Ok(()),
    }
}

/// Whether the order found may be deleted: `Ok(true)` when it is to be deleted, `Ok(false)` when it already is (a
/// retried delete succeeds and changes nothing); an unknown order is not found, a read-only one is refused.
pub fn deletable(current: Option<Current>) -> Result<bool, Refusal> {
    match current {
        None => Err(Refusal::NotFound),
        Some(Current { deleted: true, .. }) => Ok(false),
        Some(Current { read_only: true, .. }) => Err(Refusal::ReadOnly),
        Some(_) => Ok(true),
    }
}

/// What the store found about the references of one write: of the ids the body sends for each kind of record, those
/// that are live records the caller may refer to (its society's; its country's products; the global catalogues').
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// Voucher types (global).
    pub voucher_types: BTreeSet<i64>,
    /// The society's campaigns.
    pub campaigns: BTreeSet<i64>,
    /// Products of the society's country.
    pub formulateds: BTreeSet<i64>,
    /// Labour types (global).
    pub labour_types: BTreeSet<i64>,
    /// The society's contractors.
    pub contractors: BTreeSet<i64>,
    /// The society's machines.
    pub machines: BTreeSet<i64>,
    /// The society's applicators.
    pub applicators: BTreeSet<i64>,
    /// Supply lines of the order replaced (none for a new order).
    pub own_supplies: BTreeSet<i64>,
    /// Labour lines of the order replaced (none for a new order).
    pub own_labours: BTreeSet<i64>,
    /// Another live order of the society that holds the external id sent, if one does.
    pub external_id_holder: Option<i64>,
    /// Of the campaign ids not found, those that are crop species ([`WorkOrderCommand::homonyms_to_ask`]).
    pub species: BTreeSet<i64>,
    /// Of the campaign ids not found, those that are the society's v3 cultivation rows.
    pub cultivations: BTreeSet<i64>,
}

impl WorkOrderCommand {
    /// The lines' campaign ids that `found` did not find, each once: what the homonym rule must say each one is
    /// instead (a crop species, a cultivation row), so the store asks [`Found::species`] and [`Found::cultivations`]
    /// for them. None when the external id is taken, since that answer does not list violations.
    pub fn homonyms_to_ask(&self, found: &Found) -> BTreeSet<i64> {
        if found.external_id_holder.is_some() {
            return BTreeSet::new();
        }
        self.campaign_ids().filter(|id| !found.campaigns.contains(id)).collect()
    }

    /// The rules about what the body refers to, over what the store found: an external id another live order holds
    /// is refused first, naming that order; otherwise every reference not found, by the path of the field that makes
    /// it, in body order.
    pub fn references_hold(&self, found: &Found) -> Result<(), Refusal> {
        if let Some(holder) = found.external_id_holder {
            return Err(Refusal::DuplicateExternalId(holder));
        }
        verdict(reference_violations(self, found))
    }
}

/// Every reference of `command` that `found` did not find.
fn reference_violations(command: &WorkOrderCommand, found: &Found) -> Vec<Violation> {
    let mut violations = Vec::new();
    if !found.voucher_types.contains(&command.voucher_type_id) {
        let path = "header.extra_fields.voucher_type.local_id";
        violations.push(Violation::new(path, Rule::Unknown(command.voucher_type_id)));
    }
    let lines = [
        (
            "supplies",
            command.supplies.iter().map(|s| s.campaign_id).collect::<Vec<_>>(),
        ),
        ("labours", command.labours.iter().map(|l| l.campaign_id).collect()),
    ];
    for (kind, campaigns) in lines {
        for (index, id) in campaigns
            .into_iter()
            .enumerate()
            .filter(|(_, id)| !found.campaigns.contains(id))
        {
            let rule = Rule::NotACampaign {
                id,
                species: found.species.contains(&id),
                cultivation: found.cultivations.contains(&id),
            };
            violations.push(Violation::new(format!("{kind}[{index}].cultivation.local_id"), rule));
        }
    }
    for (index, supply) in command.supplies.iter().enumerate() {
        if !found.formulateds.contains(&supply.formulated_id) {
            let path = format!("supplies[{index}].formulated.local_id");
            violations.push(Violation::new(path, Rule::Unknown(supply.formulated_id)));
        }
    }
    for (index, labour) in command.labours.iter().enumerate() {
        let unknown_type = labour.labour_type_id.filter(|id| !found.labour_types.contains(id));
        if let Some(labour_type) = unknown_type {
            let path = format!("labours[{index}].labour_type.local_id");
            violations.push(Violation::new(path, Rule::Unknown(labour_type)));
        }
        for (field, live, ids) in [
            ("contractors", &found.contractors, &labour.contractor_ids),
            ("machines", &found.machines, &labour.machine_ids),
            ("applicators", &found.applicators, &labour.applicator_ids),
        ] {
            for (position, id) in ids.iter().enumerate().filter(|(_, id)| !live.contains(id)) {
                let path = format!("labours[{index}].{field}[{position}].local_id");
                violations.push(Violation::new(path, Rule::Unknown(*id)));
            }
        }
    }
    let own_lines = [
        (
            "supplies",
            &found.own_supplies,
            command.supplies.iter().map(|s| s.local_id).collect::<Vec<_>>(),
        ),
        (
            "labours",
            &found.own_labours,
            command.labours.iter().map(|l| l.local_id).collect(),
        ),
    ];
    for (kind, own, ids) in own_lines {
        for (index, id) in ids.into_iter().enumerate() {
            if let Some(id) = id.filter(|id| !own.contains(id)) {
                violations.push(Violation::new(
                    format!("{kind}[{index}].local_id"),
                    Rule::UnknownLine(id),
                ));
            }
        }
    }
    violations
}

#[cfg(test)]
mod tests {
    use super::super::tests::order;
    use super::*;

    /// Everything `order()` refers to, found.
    fn all_found() -> Found {
        Found {
            voucher_types: [1].into(),
            campaigns: [10].into(),
            formulateds: [3].into(),
            labour_types: [2].into(),
            contractors: [1].into(),
            machines: [4, 5].into(),
            ..Found::default()
        }
    }

    fn invalid(violations: Vec<Violation>) -> Result<(), Refusal> {
        Err(Refusal::Invalid(violations))
    }

    #[test]
    fn an_order_whose_references_are_all_found_meets_them() {
        assert_eq!(order().references_hold(&all_found()), Ok(()));
        assert!(order().homonyms_to_ask(&all_found()).is_empty());
    }

    #[test]
    fn a_taken_external_id_is_refused_first_naming_its_holder() {
        let found = Found {
            external_id_holder: Some(42),
            ..Found::default()
        };
        assert_eq!(order().references_hold(&found), Err(Refusal::DuplicateExternalId(42)));
        assert!(
            order().homonyms_to_ask(&found).is_empty(),
            "no homonym is asked for a 409"
        );
    }

    #[test]
    fn an_unknown_voucher_type_is_refused() {
        let found = Found {
            voucher_types: [].into(),
            ..all_found()
        };
        let path = "header.extra_fields.voucher_type.local_id";
        assert_eq!(
            order().references_hold(&found),
            invalid(vec![Violation::new(path, Rule::Unknown(1))])
        );
    }

    #[test]
    fn a_campaign_not_found_is_explained_by_what_it_is_instead() {
        let mut command = order();
        command.labours[0].campaign_id = 11;
        command.supplies[0].campaign_id = 12;
        let mut found = all_found();
        assert_eq!(command.homonyms_to_ask(&found), BTreeSet::from([11, 12]));
        found.species = [12].into();
        found.cultivations = [11].into();
        let not_a_campaign = |id, species, cultivation| Rule::NotACampaign {
            id,
            species,
            cultivation,
        };
        assert_eq!(
            command.references_hold(&found),
            invalid(vec![
                Violation::new("supplies[0].cultivation.local_id", not_a_campaign(12, true, false)),
                Violation::new("labours[0].cultivation.local_id", not_a_campaign(11, false, true)),
            ])
        );
    }

    #[test]
    fn a_product_outside_the_countrys_catalogue_is_refused() {
        let found = Found {
            formulateds: [].into(),
            ..all_found()
        };
        assert_eq!(
            order().references_hold(&found),
            invalid(vec![Violation::new(
                "supplies[0].formulated.local_id",
                Rule::Unknown(3)
            )])
        );
    }

    #[test]
    fn an_unknown_labour_type_is_refused_and_none_sent_is_not_asked() {
        let found = Found {
            labour_types: [].into(),
            ..all_found()
        };
        assert_eq!(
            order().references_hold(&found),
            invalid(vec![Violation::new(
                "labours[0].labour_type.local_id",
                Rule::Unknown(2)
            )])
        );
        let mut without = order();
        without.labours[0].labour_type_id = None;
        assert_eq!(without.references_hold(&found), Ok(()));
    }

    #[test]
    fn contractors_machines_and_applicators_not_the_societys_are_refused_by_position() {
        let mut command = order();
        command.labours[0].applicator_ids = vec![8];
        let found = Found {
            contractors: [].into(),
            machines: [5].into(),
            ..all_found()
        };
        assert_eq!(
            command.references_hold(&found),
            invalid(vec![
                Violation::new("labours[0].contractors[0].local_id", Rule::Unknown(1)),
                Violation::new("labours[0].machines[0].local_id", Rule::Unknown(4)),
                Violation::new("labours[0].applicators[0].local_id", Rule::Unknown(8)),
            ])
        );
    }

    #[test]
    fn a_line_id_must_be_a_line_of_the_order_replaced() {
        let mut command = order();
        command.supplies[0].local_id = Some(20);
        command.labours[0].local_id = Some(21);
        let found = Found {
            own_supplies: [20].into(),
            ..all_found()
        };
        assert_eq!(
            command.references_hold(&found),
            invalid(vec![Violation::new("labours[0].local_id", Rule::UnknownLine(21))])
        );
    }

    #[test]
    fn every_reference_not_found_is_listed_in_body_order() {
        let found = Found::default();
        let refusal = order().references_hold(&found);
        let Err(Refusal::Invalid(violations)) = refusal else {
            panic!("refused as invalid: {refusal:?}");
        };
        let paths: Vec<&str> = violations.iter().map(|v| v.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "header.extra_fields.voucher_type.local_id",
                "supplies[0].cultivation.local_id",
                "labours[0].cultivation.local_id",
                "supplies[0].formulated.local_id",
                "labours[0].labour_type.local_id",
                "labours[0].contractors[0].local_id",
                "labours[0].machines[0].local_id",
                "labours[0].machines[1].local_id",
            ]
        );
    }

    #[test]
    fn a_replacement_needs_a_live_writable_order_at_the_version_named() {
        let live = Current {
            version: 100,
            read_only: false,
            deleted: false,
        };
        assert_eq!(replaceable(None, None), Err(Refusal::NotFound));
        let deleted = Current {
            deleted: true,
            read_only: true,
            ..live
        };
        assert_eq!(replaceable(Some(deleted), Some(1)), Err(Refusal::NotFound));
        let read_only = Current {
            read_only: true,
            ..live
        };
        assert_eq!(
            replaceable(Some(read_only), Some(1)),
            Err(Refusal::ReadOnly),
            "read-only before stale"
        );
        assert_eq!(replaceable(Some(live), Some(99)), Err(Refusal::Stale));
        assert_eq!(replaceable(Some(live), Some(100)), Ok(()));
        assert_eq!(
            replaceable(Some(live), None),
            Ok(()),
            "without If-Match the later write wins"
        );
    }

    #[test]
    fn a_delete_needs_a_writable_order_and_a_deleted_one_stays_deleted() {
        let live = Current {
            version: 100,
            read_only: false,
            deleted: false,
        };
        assert_eq!(deletable(None), Err(Refusal::NotFound));
        assert_eq!(deletable(Some(live)), Ok(true));
        assert_eq!(
            deletable(Some(Current {
                read_only: true,
                ..live
            })),
            Err(Refusal::ReadOnly)
        );
        let gone = Current {
            deleted: true,
            read_only: true,
            ..live
        };
        assert_eq!(
            deletable(Some(gone)),
            Ok(false),
            "a retried delete succeeds, read-only or not"
        );
    }
}
