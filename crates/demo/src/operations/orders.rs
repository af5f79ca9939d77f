//! The season's work orders and objective-yield jobs of a society, as drawn: which campaigns, products, machines
//! and people each order involves, with realistic doses and states.

use rand::rngs::StdRng;
use rand::Rng;
use serde_json::json;

use std::collections::HashMap;

use store::admin::AdminError;
use store::bulk::Kind;
use store::{Arg, Store};

use super::Catalogue;
use super::DAY;
use crate::rows::{float, int, live, opt_int, read, text, Ids, Table};
use crate::words::{Labour, Words};
use crate::SocietySeed;

pub(super) fn pick<'a, T>(rng: &mut StdRng, items: &'a [T]) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.gen_range(0..items.len())])
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

/// A campaign a work order may point at.
pub(super) struct Target {
    pub id: i64,
    pub area: f64,
    pub name: String,
    pub plot: String,
    pub species: String,
}

/// A product of the society's country, classified for doses.
pub(super) struct Product {
    pub id: i64,
    pub unit: String,
    pub formulation: String,
    pub species: Option<String>,
}

/// What an order does, which decides its voucher, labour, machines and products.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Task {
    Spray,
    Sow,
    Fertilise,
    Harvest,
    Field,
}

impl Product {
    fn is_seed(&self) -> bool {
        self.species.is_some()
    }

    fn is_fertiliser(&self) -> bool {
        matches!(self.formulation.as_str(), "FER" | "FEL")
    }

    /// A dose per hectare in the product's unit.
    fn dose(&self, rng: &mut StdRng) -> f64 {
        let range = match (self.is_seed(), self.is_fertiliser(), self.unit.as_str()) {
            (true, _, "bolsa") => 0.6..1.4,
            (true, _, _) => 18.0..80.0,
            (_, true, "l") => 40.0..120.0,
            (_, true, _) => 60.0..220.0,
            (_, _, "kg") => 0.02..0.4,
            _ => 0.15..3.0,
        };
        let dose: f64 = rng.gen_range(range);
        if dose < 1.0 {
            (dose * 1000.0).round() / 1000.0
        } else {
            round2(dose)
        }
    }
}

/// What every order of a society draws from.
pub(super) struct OrderContext<'a> {
    pub targets: &'a [Target],
    pub products: &'a [Product],
    /// (kind index, id, owning contractor).
    pub machines: &'a [(usize, i64, Option<i64>)],
    /// (id, machines it operates).
    pub applicators: &'a [(i64, Vec<i64>)],
    pub start: i64,
}

/// State flags: (pending, executed, confirmed).
type Flags = (bool, bool, bool);

struct PlannedSupply {
    campaign_id: i64,
    formulated_id: i64,
    area: f64,
    total: f64,
    state: Flags,
}

struct PlannedLabour {
    campaign_id: i64,
    labour_type_id: Option<i64>,
    area: f64,
    state: Flags,
    machines: Vec<i64>,
    contractors: Vec<i64>,
    applicators: Vec<i64>,
}

pub(super) struct PlannedOrder {
    external_id: Option<String>,
    name: String,
    date: i64,
    voucher_date: i64,
    voucher_type_id: i64,
    state: Flags,
    read_only: bool,
    active: bool,
    created: i64,
    updated: i64,
    deleted: Option<i64>,
    supplies: Vec<PlannedSupply>,
    labours: Vec<PlannedLabour>,
}

/// Draws the `n`th order of the season: what it does, on which campaigns, with which products and machines, named in
/// `words`' language.
pub(super) fn plan_order(
    rng: &mut StdRng,
    ctx: &OrderContext<'_>,
    n: usize,
    words: &Words,
    catalogue: &Catalogue,
) -> Option<PlannedOrder> {
    let (task, labour) = match rng.gen_range(0..100) {
        0..=44 if rng.gen_bool(0.85) => (Task::Spray, Labour::GroundSpraying),
        0..=44 => (Task::Spray, Labour::AerialSpraying),
        45..=59 => (Task::Sow, Labour::Sowing),
        60..=71 => (Task::Fertilise, Labour::Fertilising),
        72..=84 => (Task::Harvest, Labour::Harvesting),
        _ if rng.gen_bool(0.5) => (Task::Field, Labour::Scouting),
        _ => (Task::Field, Labour::Tillage),
    };
    let (voucher_type_id, labour_type_id, labour_name) = catalogue.labour(words.labour(labour))?;
    // Neighbouring campaign ids are neighbouring plots, so an order covers one to three plots of a farm.
    let first = rng.gen_range(0..ctx.targets.len());
    let count = rng.gen_range(1..=3).min(ctx.targets.len() - first);
    let targets = &ctx.targets[first..first + count];
    // About 300 days of orders, in order of their number.
    let date = ctx.start + i64::try_from(n % 250).unwrap_or(0) * DAY * 6 / 5 + rng.gen_range(0..DAY);
    let voucher_date = date - rng.gen_range(0..3) * DAY;
    let created = voucher_date - rng.gen_range(1..5) * 3_600_000;
    // Pending, executed, or confirmed (which implies executed and not pending); some confirmed orders are locked.
    let state = match rng.gen_range(0..100) {
        0..=29 => (true, false, false),
        30..=59 => (false, true, false),
        _ => (false, true, true),
    };
    let read_only = state.2 && rng.gen_bool(0.3);
    let updated = if state.1 {
        date + rng.gen_range(1..48) * 3_600_000
    } else {
        created
    };
    // A pending order may already be partly done in the field.
    let line_state = |rng: &mut StdRng| {
        if state.0 && rng.gen_bool(0.2) {
            (false, true, false)
        } else {
            state
        }
    };
    let mut supplies = Vec::new();
    let mut labours = Vec::new();
    let kind = machine_kind(task, labour);
    let fitting: Vec<&(usize, i64, Option<i64>)> = ctx.machines.iter().filter(|m| m.0 == kind).collect();
    for target in targets {
        let area = round2(target.area * rng.gen_range(0.9..=1.0));
        let chosen = products_for(rng, ctx, task, target);
        for product in chosen {
            supplies.push(PlannedSupply {
                campaign_id: target.id,
                formulated_id: product.id,
                area,
                total: round2(product.dose(rng) * area),
                state: line_state(rng),
            });
        }
        let machine = pick(rng, &fitting).map(|m| (m.1, m.2));
        let applicators = operators(ctx, task, machine);
        labours.push(PlannedLabour {
            campaign_id: target.id,
            labour_type_id: Some(labour_type_id),
            area,
            state: line_state(rng),
            machines: machine.map(|m| m.0).into_iter().collect(),
            contractors: machine.and_then(|m| m.1).into_iter().collect(),
            applicators,
        });
    }
    let first_target = &targets[0];
    Some(PlannedOrder {
        external_id: rng
            .gen_bool(0.7)
            .then(|| format!("ERP-{}-{:06}", words.order_code, n + 1)),
        name: format!("{labour_name} - {} - {}", first_target.name, first_target.plot),
        date,
        voucher_date,
        voucher_type_id,
        state,
        read_only,
        active: rng.gen_range(0..100) >= 3,
        created,
        updated,
        deleted: (rng.gen_range(0..100) < 3).then_some(updated),
        supplies,
        labours,
    })
}

/// The kind index (into `Local::kinds`) of the machines that do `task` as `labour`.
fn machine_kind(task: Task, labour: Labour) -> usize {
    match (task, labour) {
        (Task::Spray, Labour::AerialSpraying) => 5,
        (Task::Spray, _) => 0,
        (Task::Sow, _) => 1,
        (Task::Harvest, _) => 2,
        (Task::Fertilise, _) => 4,
        (Task::Field, _) => 3,
    }
}

/// The products an order doing `task` applies on `target`: one to three distinct ones for a spraying, one otherwise,
/// none for a harvest or field work.
fn products_for<'a>(rng: &mut StdRng, ctx: &OrderContext<'a>, task: Task, target: &Target) -> Vec<&'a Product> {
    let candidates: Vec<&Product> = ctx
        .products
        .iter()
        .filter(|p| match task {
            Task::Spray => !p.is_seed() && !p.is_fertiliser(),
            Task::Sow => p.species.as_deref() == Some(target.species.as_str()),
            Task::Fertilise => p.is_fertiliser(),
            Task::Harvest | Task::Field => false,
        })
        .collect();
    let wanted = if task == Task::Spray { rng.gen_range(1..=3) } else { 1 };
    let mut chosen: Vec<&Product> = Vec::new();
    for _ in 0..wanted {
        if let Some(product) = pick(rng, &candidates) {
            if !chosen.iter().any(|c| c.id == product.id) {
                chosen.push(product);
            }
        }
    }
    chosen
}

/// The applicators of a labour doing `task` with `machine` (id, owning contractor).
fn operators(ctx: &OrderContext<'_>, task: Task, machine: Option<(i64, Option<i64>)>) -> Vec<i64> {
    match (task, machine) {
        // The operator who runs this sprayer, when one does.
        (Task::Spray, Some((id, _))) => ctx
            .applicators
            .iter()
            .find(|(_, own)| own.contains(&id))
            .map(|(applicator, _)| *applicator)
            .into_iter()
            .collect(),
        _ => Vec::new(),
    }
}

pub(super) struct PlannedJob {
    pub input: String,
    pub result: String,
    pub total: i64,
    pub failed: i64,
    pub created: i64,
    pub finished: i64,
    /// (campaign, new objective yield) of the rows applied.
    pub applied: Vec<(i64, f64)>,
}

/// A few objective-yield updates an integrator ran during the season, one with a refused row.
pub(super) fn plan_jobs(rng: &mut StdRng, targets: &[Target], start: i64) -> Vec<PlannedJob> {
    (0..3_i64)
        .map(|n| {
            let count = rng.gen_range(5..=20).min(targets.len());
            let first = rng.gen_range(0..=targets.len() - count);
            let mut rows: Vec<(i64, f64)> = targets[first..first + count]
                .iter()
                .map(|t| (t.id, round2(rng.gen_range(2.5..11.0))))
                .collect();
            // The second job carries a typo: a yield in kg/ha instead of t/ha.
            let refused = (n == 1).then(|| {
                let campaign = targets[first].id;
                rows.push((campaign, 3500.0));
                json!([{ "row": rows.len(), "campaign_id": campaign,
                         "reason": "objective_yield must be greater than 0 and at most 30 t/ha, got 3500" }])
            });
            let applied: Vec<(i64, f64)> = rows.iter().copied().filter(|(_, y)| *y <= 30.0).collect();
            let input = json!({ "campaigns": rows.iter().map(|(id, y)| json!({ "campaign_id": id, "objective_yield": y })).collect::<Vec<_>>() });
            let created = start + (90 + n * 45) * DAY + rng.gen_range(0..DAY);
            PlannedJob {
                input: input.to_string(),
                result: json!({ "updated": applied.len(), "refused": refused.unwrap_or_else(|| json!([])) }).to_string(),
                total: i64::try_from(rows.len()).unwrap_or(0),
                failed: i64::from(n == 1),
                created,
                finished: created + rng.gen_range(3_000..20_000),
                applied,
            }
        })
        .collect()
}

/// The rows of a society's work orders and their lines, numbered here so that lines can point at their order.
pub(super) struct OrderTables {
    order_ids: Ids,
    labour_ids: Ids,
    orders: Table,
    supplies: Table,
    labours: Table,
    /// Machines, contractors and applicators of labour lines.
    links: [Table; 3],
}

impl OrderTables {
    pub async fn new(store: &Store) -> Result<Self, AdminError> {
        Ok(Self {
            order_ids: Ids::of(store, "work_orders").await?,
            labour_ids: Ids::of(store, "work_order_labours").await?,
            orders: Table::new(
                "work_orders",
                &[
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
                    "is_read_only",
                    "active",
                    "created_at",
                    "updated_at",
                    "deleted_at",
                ],
            ),
            supplies: Table::new(
                "work_order_supplies",
                &[
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
                    "created_at",
                    "updated_at",
                ],
            ),
            labours: Table::new(
                "work_order_labours",
                &[
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
                    "created_at",
                    "updated_at",
                ],
            ),
            links: [
                Table::new("work_order_labour_machines", &["society_id", "labour_id", "machine_id"]),
                Table::new(
                    "work_order_labour_contractors",
                    &["society_id", "labour_id", "contractor_id"],
                ),
                Table::new(
                    "work_order_labour_applicators",
                    &["society_id", "labour_id", "applicator_id"],
                ),
            ],
        })
    }

    /// Adds an order and its lines.
    pub fn add(&mut self, society_id: i64, order: &PlannedOrder) {
        let order_id = self.order_ids.next();
        self.orders.row([
            order_id.into(),
            society_id.into(),
            order.external_id.clone().into(),
            "third_party".into(),
            order.name.clone().into(),
            order.date.into(),
            order.voucher_date.into(),
            order.voucher_type_id.into(),
            order.state.0.into(),
            order.state.1.into(),
            order.state.2.into(),
            order.read_only.into(),
            order.active.into(),
            order.created.into(),
            order.updated.into(),
            order.deleted.into(),
        ]);
        for (position, supply) in order.supplies.iter().enumerate() {
            self.supplies.row([
                society_id.into(),
                order_id.into(),
                (i64::try_from(position).unwrap_or(0) + 1).into(),
                supply.campaign_id.into(),
                supply.formulated_id.into(),
                supply.area.into(),
                supply.total.into(),
                order.date.into(),
                supply.state.0.into(),
                supply.state.1.into(),
                supply.state.2.into(),
                order.created.into(),
                order.updated.into(),
            ]);
        }
        for (position, labour) in order.labours.iter().enumerate() {
            let line = self.labour_ids.next();
            self.labours.row([
                line.into(),
                society_id.into(),
                order_id.into(),
                (i64::try_from(position).unwrap_or(0) + 1).into(),
                labour.campaign_id.into(),
                labour.labour_type_id.into(),
                labour.area.into(),
                order.date.into(),
                labour.state.0.into(),
                labour.state.1.into(),
                labour.state.2.into(),
                order.created.into(),
                order.updated.into(),
            ]);
            for (table, ids) in self
                .links
                .iter_mut()
                .zip([&labour.machines, &labour.contractors, &labour.applicators])
            {
                for id in ids {
                    table.row([society_id.into(), line.into(), (*id).into()]);
                }
            }
        }
    }

    /// Writes the orders, then their lines.
    pub async fn write(self, store: &Store) -> Result<(), AdminError> {
        self.orders.write(store).await?;
        self.supplies.write(store).await?;
        self.labours.write(store).await?;
        for table in self.links {
            table.write(store).await?;
        }
        Ok(())
    }
}

/// The society's live campaigns with their plot's and species' names, and its country's products with their unit,
/// formulation and (for seeds) species.
pub(super) async fn targets_and_products(
    store: &Store,
    society: &SocietySeed,
) -> Result<(Vec<Target>, Vec<Product>), AdminError> {
    let society_filter = [("society_id", Arg::from(society.society_id))];
    let id_and_name = [("id", Kind::Int), ("name", Kind::Text)];
    let names =
        |rows: Vec<Vec<Arg>>| -> HashMap<i64, String> { rows.iter().map(|row| (int(row, 0), text(row, 1))).collect() };
    let plots = names(read(store, "plots", &id_and_name, &society_filter).await?);
    let species = names(read(store, "species", &id_and_name, &[]).await?);
    let masters: HashMap<i64, i64> = read(
        store,
        "master_campaigns",
        &[("id", Kind::Int), ("species_id", Kind::Int)],
        &society_filter,
    )
    .await?
    .iter()
    .map(|row| (int(row, 0), int(row, 1)))
    .collect();
    let campaigns = read(
        store,
        "campaigns",
        &[
            ("id", Kind::Int),
            ("area", Kind::Float),
            ("name", Kind::Text),
            ("plot_id", Kind::Int),
            ("master_campaign_id", Kind::Int),
            ("deleted_at", Kind::Int),
        ],
        &society_filter,
    )
    .await?;
    let targets = campaigns
        .iter()
        .filter(|row| live(row, 5))
        .filter_map(|row| {
            let plot = plots.get(&int(row, 3))?;
            let species = masters.get(&int(row, 4)).and_then(|id| species.get(id))?;
            Some(Target {
                id: int(row, 0),
                area: float(row, 1),
                name: text(row, 2),
                plot: plot.clone(),
                species: species.clone(),
            })
        })
        .collect();
    let units = names(read(store, "units", &[("id", Kind::Int), ("abbreviation", Kind::Text)], &[]).await?);
    let formulations = names(
        read(
            store,
            "formulation_types",
            &[("id", Kind::Int), ("code", Kind::Text)],
            &[],
        )
        .await?,
    );
    let products = read(
        store,
        "formulateds",
        &[
            ("id", Kind::Int),
            ("unit_id", Kind::Int),
            ("formulation_type_id", Kind::Int),
            ("species_id", Kind::Int),
        ],
        &[("country", society.country.into())],
    )
    .await?
    .iter()
    .filter_map(|row| {
        Some(Product {
            id: int(row, 0),
            unit: units.get(&opt_int(row, 1)?)?.clone(),
            formulation: formulations.get(&opt_int(row, 2)?)?.clone(),
            species: opt_int(row, 3).and_then(|id| species.get(&id).cloned()),
        })
    })
    .collect();
    Ok((targets, products))
}
