//! The passes a grown society is written in, in order: each table with its columns, how many units it is drawn in
//! (a farmer, a plot, a work order, a device) and the rows each unit gives.

use super::plan::{Pass, Plan};
use super::LargeOptions;

/// The audit columns most tables end with.
const AUDIT: [&str; 2] = ["created_at", "updated_at"];

/// `columns`, then the audit columns.
fn with_audit(columns: &[&'static str]) -> Vec<&'static str> {
    columns.iter().chain(&AUDIT).copied().collect()
}

/// Every pass, in the order written: the land (farmers to cultivations of its `plots` plots), then the work on it.
pub(super) fn all<'p>(plan: &'p Plan, options: &LargeOptions, plots: usize) -> Vec<Pass<'p>> {
    debug_assert_eq!(plots, plan.plots());
    let mut passes = land(plan, options, plots);
    passes.extend(work_orders(plan, options));
    passes.extend(devices(plan, options));
    passes
}

/// The farmers, their establishments and plots, and each plot's tags, campaign and cultivation.
fn land<'p>(plan: &'p Plan, options: &LargeOptions, plots: usize) -> Vec<Pass<'p>> {
    vec![
        (
            "farmers",
            with_audit(&[
                "id",
                "society_id",
                "name",
                "lastname",
                "cuit",
                "external_code",
                "email",
                "phone_number",
            ]),
            options.farmers,
            Box::new(|n, out| plan.farmer(n, out)),
        ),
        (
            "establishments",
            with_audit(&["id", "society_id", "farmer_id", "name", "external_code"]),
            plan.establishments(),
            Box::new(|n, out| plan.establishment(n, out)),
        ),
        (
            "plots",
            vec![
                "id",
                "society_id",
                "establishment_id",
                "name",
                "area",
                "external_code",
                "created_by",
                "created_at",
                "updated_at",
                "tags_json",
            ],
            plots,
            Box::new(|n, out| plan.plot(n, out)),
        ),
        (
            "plot_tags",
            vec!["society_id", "plot_id", "tag_id"],
            plots,
            Box::new(|n, out| plan.plot_tag_rows(n, out)),
        ),
        (
            "campaigns",
            with_audit(&[
                "id",
                "society_id",
                "master_campaign_id",
                "plot_id",
                "activity_status_id",
                "name",
                "external_code",
                "area",
                "planting_date",
                "objective_yield",
            ]),
            plots,
            Box::new(|n, out| plan.campaign(n, out)),
        ),
        (
            "cultivations",
            with_audit(&["id", "society_id", "plot_id", "campaign_id", "formulated_id", "area"]),
            plots,
            Box::new(|n, out| plan.cultivation(n, out)),
        ),
    ]
}

/// The work orders with their lines and each labour's links.
fn work_orders<'p>(plan: &'p Plan, options: &LargeOptions) -> Vec<Pass<'p>> {
    let orders = options.work_orders;
    vec![
        (
            "work_orders",
            with_audit(&[
                "id",
                "society_id",
                "external_id",
                "system_id",
                "name",
                "date",
                "voucher_date",
                "voucher_type_id",
                "pending",
                "executed",
                "confirmed",
            ]),
            orders,
            Box::new(|k, out| plan.work_order(k, out)),
        ),
        (
            "work_order_supplies",
            with_audit(&[
                "id",
                "society_id",
                "work_order_id",
                "position",
                "campaign_id",
                "formulated_id",
                "area_applied",
                "total_applied",
                "date",
                "pending",
                "executed",
                "confirmed",
            ]),
            orders,
            Box::new(|k, out| plan.supplies(k, out)),
        ),
        (
            "work_order_labours",
            with_audit(&[
                "id",
                "society_id",
                "work_order_id",
                "position",
                "campaign_id",
                "labour_type_id",
                "area_applied",
                "date",
                "pending",
                "executed",
                "confirmed",
            ]),
            orders,
            Box::new(|k, out| plan.labours(k, out)),
        ),
        (
            "work_order_labour_machines",
            vec!["society_id", "labour_id", "machine_id"],
            orders,
            Box::new(|k, out| plan.labour_links(k, out, |l| l.machine.map(|m| m.0))),
        ),
        (
            "work_order_labour_contractors",
            vec!["society_id", "labour_id", "contractor_id"],
            orders,
            Box::new(|k, out| plan.labour_links(k, out, |l| l.machine.and_then(|m| m.1))),
        ),
        (
            "work_order_labour_applicators",
            vec!["society_id", "labour_id", "applicator_id"],
            orders,
            Box::new(|k, out| plan.labour_links(k, out, |l| l.applicator)),
        ),
    ]
}

/// The weather stations, and their readings.
fn devices<'p>(plan: &'p Plan, options: &LargeOptions) -> Vec<Pass<'p>> {
    vec![
        (
            "devices",
            with_audit(&[
                "id",
                "society_id",
                "establishment_id",
                "name",
                "kind",
                "serial_number",
                "latitude",
                "longitude",
            ]),
            options.devices,
            Box::new(|n, out| plan.device(n, out)),
        ),
        (
            "device_events",
            vec![
                "id",
                "society_id",
                "device_id",
                "device_event_type_id",
                "recorded_at",
                "value",
                "created_at",
                "updated_at",
            ],
            options.devices,
            Box::new(|n, out| plan.device_events(n, out)),
        ),
    ]
}
