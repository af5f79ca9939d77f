//! What a work-order write refers to: the lookups of every reference its body makes (campaigns, products,
//! contractors, machines, applicators, voucher and labour types, its own lines, another order's external id, ids for
//! its new rows), and the violations of the references not found.

use std::collections::BTreeSet;

use domain::work_orders::{check, WorkOrderCommand};
use domain::{Rule, Violation};

use super::WriteMode;
use crate::db::Arg;
use crate::lookups::{Found, Kind, Lookups, Owner, Reservation};
use crate::{Dialect, Scope};

/// Another live order of the society with the external id (`?`: the society, the external id, the order written,
/// which a replacement keeps): what a write looks for before it writes, and again if the database then refuses it.
pub(super) const EXTERNAL_ID_HOLDER: &str =
    "id FROM work_orders WHERE society_id = ? AND external_id = ? AND deleted_at IS NULL AND id <> ?";

/// The arguments of [`EXTERNAL_ID_HOLDER`].
pub(super) fn external_id_holder_args(society_id: i64, external_id: &str, own_id: i64) -> [Arg; 3] {
    [
        Arg::Int(society_id),
        Arg::Text(external_id.to_owned()),
        Arg::Int(own_id),
    ]
}

/// Everything one write asks the database before it writes, and what it answers.
pub(super) struct Plan<'a> {
    command: &'a WorkOrderCommand,
    society_id: i64,
    /// The order written: a replacement's own, 0 for a new one.
    pub own_id: i64,
    /// The external id as stored: trimmed, none when blank.
    pub external_id: Option<&'a str>,
    pub lookups: Lookups,
    kinds: ReferenceKinds,
    duplicate: Option<Kind>,
    pub new_order: Reservation,
    pub new_supplies: Reservation,
    pub new_labours: Reservation,
}

/// The kinds of reference a work order's body makes, as asked of [`Lookups`].
struct ReferenceKinds {
    vouchers: Kind,
    campaigns: Kind,
    formulateds: Kind,
    labour_types: Kind,
    contractors: Kind,
    machines: Kind,
    applicators: Kind,
    kept_supplies: Kind,
    kept_labours: Kind,
}

impl<'a> Plan<'a> {
    /// The lookups of every reference `command` makes, in the caller's society (and country, for products); lines
    /// sent with a `local_id` must be lines of the order replaced.
    pub fn new(dialect: Dialect, scope: &'a Scope, mode: WriteMode, command: &'a WorkOrderCommand) -> Self {
        let society_id = scope.society_id();
        let own_id = match mode {
            WriteMode::Create => 0,
            WriteMode::Replace { local_id, .. } => local_id,
        };
        let society = Owner::Society(society_id);
        let own_lines = [Arg::Int(society_id), Arg::Int(own_id)];
        let labours = &command.labours;
        let mut lookups = Lookups::new(dialect);
        let kinds = ReferenceKinds {
            vouchers: lookups.live("voucher_types", Owner::Everyone, [command.voucher_type_id]),
            campaigns: lookups.live("campaigns", society, command.campaign_ids()),
            formulateds: lookups.live(
                "formulateds",
                Owner::Country(scope.country()),
                command.supplies.iter().map(|s| s.formulated_id),
            ),
            labour_types: lookups.live("labour_types", Owner::Everyone, labours.iter().filter_map(|l| l.labour_type_id)),
            contractors: lookups.live("contractors", society, labours.iter().flat_map(|l| l.contractor_ids.iter().copied())),
            machines: lookups.live("machines", society, labours.iter().flat_map(|l| l.machine_ids.iter().copied())),
            applicators: lookups.live("applicators", society, labours.iter().flat_map(|l| l.applicator_ids.iter().copied())),
            kept_supplies: lookups.rows(
                "work_order_supplies",
                "society_id = ? AND work_order_id = ?",
                &own_lines,
                command.supplies.iter().filter_map(|s| s.local_id),
            ),
            kept_labours: lookups.rows(
                "work_order_labours",
                "society_id = ? AND work_order_id = ?",
                &own_lines,
                labours.iter().filter_map(|l| l.local_id),
            ),
        };
        let external_id = command.external_id.as_deref().map(str::trim).filter(|id| !id.is_empty());
        let duplicate = external_id.map(|external_id| {
            let args = external_id_holder_args(society_id, external_id, own_id);
            lookups.query(EXTERNAL_ID_HOLDER.to_owned(), &args)
        });
        let new_order = lookups.reserve("work_orders", usize::from(mode == WriteMode::Create));
        let new_supplies = lookups.reserve(
            "work_order_supplies",
            command.supplies.iter().filter(|s| s.local_id.is_none()).count(),
        );
        let new_labours = lookups.reserve(
            "work_order_labours",
            labours.iter().filter(|l| l.local_id.is_none()).count(),
        );
        Self {
            command,
            society_id,
            own_id,
            external_id,
            lookups,
            kinds,
            duplicate,
            new_order,
            new_supplies,
            new_labours,
        }
    }

    /// Another live order holding the external id, if the lookups found one.
    pub fn duplicate(&self, found: &Found) -> Option<i64> {
        self.duplicate.and_then(|kind| found.of(kind).first().copied())
    }

    /// Lines' campaigns that are not live campaigns of the society, each once.
    pub fn missing_campaigns(&self, found: &Found) -> BTreeSet<i64> {
        self.command.campaign_ids().filter(|id| !found.has(self.kinds.campaigns, *id)).collect()
    }

    /// The lookups that tell what each missing campaign id is instead, the usual confusions of the homonym rule: a
    /// crop species, or one of the society's v3 cultivation rows. Asked only when a campaign is missing.
    pub fn homonym_lookups(&self, dialect: Dialect, missing: &BTreeSet<i64>) -> (Lookups, Kind, Kind) {
        let mut lookups = Lookups::new(dialect);
        let species = lookups.rows("species", "TRUE", &[], missing.iter().copied());
        let society = [Arg::Int(self.society_id)];
        let cultivations = lookups.rows("cultivations", "society_id = ?", &society, missing.iter().copied());
        (lookups, species, cultivations)
    }

    /// Every rule the body breaks: its own, and every reference that `found` did not find, by the path of the field
    /// that makes it. `homonyms` says what each missing campaign is instead: (is a species, is a cultivation).
    pub fn violations(&self, found: &Found, homonyms: impl Fn(i64) -> (bool, bool)) -> Vec<Violation> {
        let command = self.command;
        let kinds = &self.kinds;
        let mut violations = check(command, self.society_id);
        if !found.has(kinds.vouchers, command.voucher_type_id) {
            let path = "header.extra_fields.voucher_type.local_id";
            violations.push(Violation::new(path, Rule::Unknown(command.voucher_type_id)));
        }
        let lines = [
            ("supplies", command.supplies.iter().map(|s| s.campaign_id).collect::<Vec<_>>()),
            ("labours", command.labours.iter().map(|l| l.campaign_id).collect()),
        ];
        for (kind, campaigns) in lines {
            for (index, id) in campaigns.into_iter().enumerate().filter(|(_, id)| !found.has(kinds.campaigns, *id)) {
                let (species, cultivation) = homonyms(id);
                let rule = Rule::NotACampaign { id, species, cultivation };
                violations.push(Violation::new(format!("{kind}[{index}].cultivation.local_id"), rule));
            }
        }
        for (index, supply) in command.supplies.iter().enumerate() {
            if !found.has(kinds.formulateds, supply.formulated_id) {
                let path = format!("supplies[{index}].formulated.local_id");
                violations.push(Violation::new(path, Rule::Unknown(supply.formulated_id)));
            }
        }
        for (index, labour) in command.labours.iter().enumerate() {
            if let Some(labour_type) = labour.labour_type_id.filter(|id| !found.has(kinds.labour_types, *id)) {
                let path = format!("labours[{index}].labour_type.local_id");
                violations.push(Violation::new(path, Rule::Unknown(labour_type)));
            }
            for (field, kind, ids) in [
                ("contractors", kinds.contractors, &labour.contractor_ids),
                ("machines", kinds.machines, &labour.machine_ids),
                ("applicators", kinds.applicators, &labour.applicator_ids),
            ] {
                for (position, id) in ids.iter().enumerate().filter(|(_, id)| !found.has(kind, **id)) {
                    let path = format!("labours[{index}].{field}[{position}].local_id");
                    violations.push(Violation::new(path, Rule::Unknown(*id)));
                }
            }
        }
        let own_lines = [
            ("supplies", kinds.kept_supplies, command.supplies.iter().map(|s| s.local_id).collect::<Vec<_>>()),
            ("labours", kinds.kept_labours, command.labours.iter().map(|l| l.local_id).collect()),
        ];
        for (kind, lookup, ids) in own_lines {
            for (index, id) in ids.into_iter().enumerate() {
                if let Some(id) = id.filter(|id| !found.has(lookup, *id)) {
                    violations.push(Violation::new(format!("{kind}[{index}].local_id"), Rule::UnknownLine(id)));
                }
            }
        }
        violations
    }
}
