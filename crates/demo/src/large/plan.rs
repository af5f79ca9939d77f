//! The rows of the large society, each drawn from a generator seeded by the row's own number: what they point at
//! ([`References`]), where their ids start ([`Bases`]), and one generator per table ([`Plan`]).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use store::Arg;
use wire::planning::PlotTag;

use super::{LargeOptions, MARK};
use crate::people;

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

/// The demo society's catalogue ids the new rows point at.
pub(super) struct References {
    pub society_id: i64,
    /// The Argentine field user who "created" the plots.
    pub creator: Option<i64>,
    /// (master campaign id, name, species id).
    pub masters: Vec<(i64, String, i64)>,
    /// Seed varieties: (formulated id, species id).
    pub varieties: Vec<(i64, i64)>,
    /// Products that are not seeds, for supply lines.
    pub products: Vec<i64>,
    pub statuses: Vec<i64>,
    pub voucher_types: Vec<i64>,
    pub labour_types: Vec<i64>,
    /// (machine id, owning contractor).
    pub machines: Vec<(i64, Option<i64>)>,
    pub applicators: Vec<i64>,
    pub event_types: Vec<i64>,
    /// Live tag values grouped by their group.
    pub tags: Vec<TagGroup>,
}

/// A tag group of the society: (group id, group name, its live values as (id, name)).
pub(super) type TagGroup = (i64, String, Vec<(i64, String)>);

/// Appends the rows of one unit (a farmer, an order…) of a table.
pub(super) type RowsOf<'a> = Box<dyn Fn(usize, &mut Vec<Arg>) + 'a>;

/// One table's pass: its name, columns, how many units it has, and their rows.
pub(super) type Pass<'a> = (&'static str, Vec<&'static str>, usize, RowsOf<'a>);

/// The first free id of every table the module writes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Bases {
    pub farmer: i64,
    pub establishment: i64,
    pub plot: i64,
    pub campaign: i64,
    pub cultivation: i64,
    pub work_order: i64,
    pub supply: i64,
    pub labour: i64,
    pub device: i64,
    pub event: i64,
}

/// Everything a row's generator needs: options, references, id bases, and per-order line offsets.
pub(super) struct Plan {
    pub options: LargeOptions,
    pub refs: References,
    pub bases: Bases,
    pub origin: i64,
    /// Supply and labour line counts of each order, and the offsets of its first lines.
    pub lines: Vec<(usize, usize, i64, i64)>,
}

/// A supply line as drawn.
struct Supply {
    campaign: i64,
    product: i64,
    area: f64,
    total: f64,
}

/// A labour line as drawn.
pub(super) struct Labour {
    pub campaign: i64,
    pub labour_type: Option<i64>,
    pub area: f64,
    pub machine: Option<(i64, Option<i64>)>,
    pub applicator: Option<i64>,
}

/// A work order as drawn.
struct Order {
    name: String,
    date: i64,
    created: i64,
    updated: i64,
    voucher_type: i64,
    state: (bool, bool, bool),
    supplies: Vec<Supply>,
    labours: Vec<Labour>,
}

const FIRST_NAMES: &[&str] = &[
    "Martín",
    "Juan Pablo",
    "Gustavo",
    "Carlos",
    "Roberto",
    "María José",
    "Silvina",
    "Diego",
    "Hernán",
    "Agustina",
];
const LAST_NAMES: &[&str] = &[
    "Gómez",
    "Rodríguez",
    "Fernández",
    "López",
    "Martínez",
    "Pereyra",
    "Sosa",
    "Giménez",
    "Bianchi",
    "Etcheverry",
];
const ESTABLISHMENTS: &[&str] = &[
    "La Esperanza",
    "San José",
    "El Ombú",
    "Los Álamos",
    "La Carolina",
    "Santa Rosa",
    "El Recuerdo",
    "La Porteña",
];
const LABOURS: &[&str] = &[
    "Pulverización terrestre",
    "Siembra directa",
    "Fertilización al voleo",
    "Cosecha",
];
pub(super) const EVENT_CODES: &[&str] = &["temperature", "relative_humidity", "rain", "soil_moisture"];

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

fn id_of(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn pick<T: Copy>(rng: &mut StdRng, items: &[T]) -> Option<T> {
    (!items.is_empty()).then(|| items[rng.gen_range(0..items.len())])
}

impl Plan {
    fn rng(&self, salt: u64, n: usize) -> StdRng {
        StdRng::seed_from_u64(self.options.seed ^ salt ^ (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15))
    }

    pub(super) fn establishments(&self) -> usize {
        self.options.farmers * self.options.establishments_per_farmer
    }

    pub(super) fn plots(&self) -> usize {
        self.establishments() * self.options.plots_per_establishment
    }

    /// When plot `n` was created: plots arrive over the year before the demo's history.
    fn plot_created(&self, n: usize) -> i64 {
        let spread = 365 * DAY / id_of(self.plots().max(1));
        self.origin - 400 * DAY + id_of(n) * spread.max(1)
    }

    pub(super) fn farmer(&self, n: usize, out: &mut Vec<Arg>) {
        let mut rng = self.rng(0x4641_524d, n);
        let refs = &self.refs;
        let company = rng.gen_bool(0.3);
        let name = if company {
            format!("Agropecuaria {} S.A.", LAST_NAMES[n % LAST_NAMES.len()])
        } else {
            FIRST_NAMES[rng.gen_range(0..FIRST_NAMES.len())].to_owned()
        };
        let lastname = (!company).then(|| LAST_NAMES[rng.gen_range(0..LAST_NAMES.len())].to_owned());
        let created = self.origin - 420 * DAY + id_of(n) * HOUR;
        out.extend([
            Arg::Int(self.bases.farmer + id_of(n)),
            Arg::Int(refs.society_id),
            Arg::Text(name.clone()),
            Arg::OptionalText(lastname.clone()),
            Arg::Text(people::company_tax_id(&mut rng, "AR")),
            Arg::Text(format!("{MARK}{:05}", n + 1)),
            Arg::Text(format!(
                "{}.{}{}@campo.com.ar",
                people::slug(&name),
                people::slug(lastname.as_deref().unwrap_or("adm")),
                n + 1
            )),
            Arg::Text(format!(
                "+54 9 2954 {:02}-{:04}",
                rng.gen_range(40..80),
                rng.gen_range(0..10_000)
            )),
            Arg::Int(created),
            Arg::Int(created),
        ]);
    }

    pub(super) fn establishment(&self, n: usize, out: &mut Vec<Arg>) {
        let created = self.origin - 410 * DAY + id_of(n) * 60_000;
        out.extend([
            Arg::Int(self.bases.establishment + id_of(n)),
            Arg::Int(self.refs.society_id),
            Arg::Int(self.bases.farmer + id_of(n / self.options.establishments_per_farmer)),
            Arg::Text(ESTABLISHMENTS[n % ESTABLISHMENTS.len()].to_owned()),
            Arg::Text(format!("{MARK}EST-{:06}", n + 1)),
            Arg::Int(created),
            Arg::Int(created),
        ]);
    }

    /// Plot `n`'s tags: one value of every group (the third group only on some plots).
    fn plot_tags(&self, n: usize) -> Vec<PlotTag> {
        let mut rng = self.rng(0x5441_4753, n);
        let mut tags = Vec::new();
        for (index, (group_id, group_name, values)) in self.refs.tags.iter().enumerate() {
            if values.is_empty() || (index >= 2 && rng.gen_bool(0.4)) {
                continue;
            }
            let (tag_id, tag_name) = &values[rng.gen_range(0..values.len())];
            tags.push(PlotTag {
                tag_id: *tag_id,
                tag_name: tag_name.clone(),
                tag_parent_id: Some(*group_id),
                tag_parent_name: Some(group_name.clone()),
            });
        }
        tags
    }

    pub(super) fn plot(&self, n: usize, out: &mut Vec<Arg>) {
        let mut rng = self.rng(0x504c_4f54, n);
        let created = self.plot_created(n);
        out.extend([
            Arg::Int(self.bases.plot + id_of(n)),
            Arg::Int(self.refs.society_id),
            Arg::Int(self.bases.establishment + id_of(n / self.options.plots_per_establishment)),
            Arg::Text(format!("Lote {}", n % self.options.plots_per_establishment + 1)),
            Arg::Float(round2(rng.gen_range(25.0..160.0))),
            Arg::Text(format!("{MARK}LOT-{:07}", n + 1)),
            Arg::OptionalInt(self.refs.creator),
            Arg::Int(created),
            Arg::Int(created),
            Arg::Text(PlotTag::encode(&self.plot_tags(n))),
        ]);
    }

    pub(super) fn plot_tag_rows(&self, n: usize, out: &mut Vec<Arg>) {
        for tag in self.plot_tags(n) {
            out.extend([
                Arg::Int(self.refs.society_id),
                Arg::Int(self.bases.plot + id_of(n)),
                Arg::Int(tag.tag_id),
            ]);
        }
    }

    /// Campaign `n` is plot `n`'s, on one of the society's master campaigns: (master index, area, status).
    fn campaign_draw(&self, n: usize) -> (usize, f64, Option<i64>) {
        let mut rng = self.rng(0x4341_4d50, n);
        let master = rng.gen_range(0..self.refs.masters.len().max(1));
        let area = round2(rng.gen_range(25.0..160.0) * rng.gen_range(0.85..=1.0));
        (master, area, pick(&mut rng, &self.refs.statuses))
    }

    pub(super) fn campaign(&self, n: usize, out: &mut Vec<Arg>) {
        let (master, area, status) = self.campaign_draw(n);
        let Some((master_id, name, _)) = self.refs.masters.get(master) else {
            return;
        };
        let created = self.plot_created(n) + DAY;
        out.extend([
            Arg::Int(self.bases.campaign + id_of(n)),
            Arg::Int(self.refs.society_id),
            Arg::Int(*master_id),
            Arg::Int(self.bases.plot + id_of(n)),
            Arg::OptionalInt(status),
            Arg::Text(name.clone()),
            Arg::Text(format!("{MARK}CMP-{:07}", n + 1)),
            Arg::Float(area),
            Arg::Text("2025-10-15".to_owned()),
            Arg::Float(round2(3.0 + (n % 70) as f64 / 10.0)),
            Arg::Int(created),
            Arg::Int(created),
        ]);
    }

    /// Every campaign has its cultivation (its sown variety), when its species has a variety.
    pub(super) fn cultivation(&self, n: usize, out: &mut Vec<Arg>) {
        let (master, area, _) = self.campaign_draw(n);
        let Some((_, _, species)) = self.refs.masters.get(master) else {
            return;
        };
        let varieties: Vec<i64> = self
            .refs
            .varieties
            .iter()
            .filter(|(_, s)| s == species)
            .map(|(id, _)| *id)
            .collect();
        let Some(variety) = varieties.get(n % varieties.len().max(1)) else {
            return;
        };
        let created = self.plot_created(n) + 2 * DAY;
        out.extend([
            Arg::Int(self.bases.cultivation + id_of(n)),
            Arg::Int(self.refs.society_id),
            Arg::Int(self.bases.plot + id_of(n)),
            Arg::Int(self.bases.campaign + id_of(n)),
            Arg::Int(*variety),
            Arg::Float(area),
            Arg::Int(created),
            Arg::Int(created),
        ]);
    }

    /// Order `k`'s lines: pairs of orders add up to twice the average, so the total is exact.
    pub(super) fn line_counts(options: &LargeOptions, seed: u64) -> Vec<(usize, usize, i64, i64)> {
        let average = options.lines_per_order.max(2);
        let mut counts = Vec::with_capacity(options.work_orders);
        let (mut supplies, mut labours) = (0_i64, 0_i64);
        let mut rng = StdRng::seed_from_u64(seed ^ 0x4c49_4e45);
        let mut swing = 0;
        for k in 0..options.work_orders {
            let total = if k % 2 == 0 {
                swing = rng.gen_range(0..=average / 2);
                average + swing
            } else {
                average - swing
            };
            let supply_count = total / 2;
            let labour_count = total - supply_count;
            counts.push((supply_count, labour_count, supplies, labours));
            supplies += id_of(supply_count);
            labours += id_of(labour_count);
        }
        counts
    }

    fn order(&self, k: usize) -> Order {
        let mut rng = self.rng(0x574f_524b, k);
        let refs = &self.refs;
        let (supply_count, labour_count, _, _) = self.lines.get(k).copied().unwrap_or_default();
        // An order covers a few neighbouring campaigns, i.e. neighbouring plots of one farm.
        let plots = self.plots().max(1);
        let first = rng.gen_range(0..plots);
        let span = rng.gen_range(1..=3).min(plots - first);
        let campaign = |line: usize| self.bases.campaign + id_of(first + line % span);
        let area_of = |rng: &mut StdRng| round2(rng.gen_range(25.0..150.0));
        let date = self.origin + 20 * DAY + id_of(k) * (300 * DAY / id_of(self.options.work_orders.max(1)));
        let created = date - rng.gen_range(1..48) * HOUR;
        let state = match rng.gen_range(0..100) {
            0..=29 => (true, false, false),
            30..=59 => (false, true, false),
            _ => (false, true, true),
        };
        let updated = if state.1 {
            date + rng.gen_range(1..48) * HOUR
        } else {
            created
        };
        let labour_index = rng.gen_range(0..LABOURS.len());
        let spraying = labour_index == 0;
        let supplies = (0..supply_count)
            .map(|line| {
                let area = area_of(&mut rng);
                Supply {
                    campaign: campaign(line),
                    product: pick(&mut rng, &refs.products).unwrap_or_default(),
                    area,
                    total: round2(area * rng.gen_range(0.2..3.0)),
                }
            })
            .collect();
        let labours = (0..labour_count)
            .map(|line| Labour {
                campaign: campaign(line),
                labour_type: pick(&mut rng, &refs.labour_types),
                area: area_of(&mut rng),
                machine: pick(&mut rng, &refs.machines),
                applicator: if spraying {
                    pick(&mut rng, &refs.applicators)
                } else {
                    None
                },
            })
            .collect();
        Order {
            name: format!("{} - Lote {} - {MARK}{}", LABOURS[labour_index], first % 10 + 1, k + 1),
            date,
            created,
            updated,
            voucher_type: pick(&mut rng, &refs.voucher_types).unwrap_or_default(),
            state,
            supplies,
            labours,
        }
    }

    pub(super) fn work_order(&self, k: usize, out: &mut Vec<Arg>) {
        let order = self.order(k);
        out.extend([
            Arg::Int(self.bases.work_order + id_of(k)),
            Arg::Int(self.refs.society_id),
            Arg::Text(format!("{MARK}OT-{:06}", k + 1)),
            Arg::Text("third_party".to_owned()),
            Arg::Text(order.name),
            Arg::Int(order.date),
            Arg::Int(order.date - DAY),
            Arg::Int(order.voucher_type),
            Arg::Bool(order.state.0),
            Arg::Bool(order.state.1),
            Arg::Bool(order.state.2),
            Arg::Int(order.created),
            Arg::Int(order.updated),
        ]);
    }

    pub(super) fn supplies(&self, k: usize, out: &mut Vec<Arg>) {
        let order = self.order(k);
        let (_, _, first, _) = self.lines.get(k).copied().unwrap_or_default();
        for (position, supply) in order.supplies.iter().enumerate() {
            out.extend([
                Arg::Int(self.bases.supply + first + id_of(position)),
                Arg::Int(self.refs.society_id),
                Arg::Int(self.bases.work_order + id_of(k)),
                Arg::Int(id_of(position) + 1),
                Arg::Int(supply.campaign),
                Arg::Int(supply.product),
                Arg::Float(supply.area),
                Arg::Float(supply.total),
                Arg::Int(order.date),
                Arg::Bool(order.state.0),
                Arg::Bool(order.state.1),
                Arg::Bool(order.state.2),
                Arg::Int(order.created),
                Arg::Int(order.updated),
            ]);
        }
    }

    pub(super) fn labours(&self, k: usize, out: &mut Vec<Arg>) {
        let order = self.order(k);
        let (_, _, _, first) = self.lines.get(k).copied().unwrap_or_default();
        for (position, labour) in order.labours.iter().enumerate() {
            out.extend([
                Arg::Int(self.bases.labour + first + id_of(position)),
                Arg::Int(self.refs.society_id),
                Arg::Int(self.bases.work_order + id_of(k)),
                Arg::Int(id_of(position) + 1),
                Arg::Int(labour.campaign),
                Arg::OptionalInt(labour.labour_type),
                Arg::Float(labour.area),
                Arg::Int(order.date),
                Arg::Bool(order.state.0),
                Arg::Bool(order.state.1),
                Arg::Bool(order.state.2),
                Arg::Int(order.created),
                Arg::Int(order.updated),
            ]);
        }
    }

    /// The rows of one of the labour link tables: `pick` chooses what each labour line links to.
    pub(super) fn labour_links(&self, k: usize, out: &mut Vec<Arg>, pick: fn(&Labour) -> Option<i64>) {
        let order = self.order(k);
        let (_, _, _, first) = self.lines.get(k).copied().unwrap_or_default();
        for (position, labour) in order.labours.iter().enumerate() {
            if let Some(linked) = pick(labour) {
                out.extend([
                    Arg::Int(self.refs.society_id),
                    Arg::Int(self.bases.labour + first + id_of(position)),
                    Arg::Int(linked),
                ]);
            }
        }
    }

    pub(super) fn device(&self, n: usize, out: &mut Vec<Arg>) {
        let mut rng = self.rng(0x4445_5643, n);
        let establishment = rng.gen_range(0..self.establishments().max(1));
        let installed = self.origin + 150 * DAY;
        out.extend([
            Arg::Int(self.bases.device + id_of(n)),
            Arg::Int(self.refs.society_id),
            Arg::Int(self.bases.establishment + id_of(establishment)),
            Arg::Text(format!("Estación meteorológica {MARK}{}", n + 1)),
            Arg::Text("weather_station".to_owned()),
            Arg::Text(format!("{MARK}WS-{:05}", n + 1)),
            Arg::Float(round2(-36.6 + rng.gen_range(-0.6..0.6))),
            Arg::Float(round2(-64.3 + rng.gen_range(-0.6..0.6))),
            Arg::Int(installed),
            Arg::Int(installed),
        ]);
    }

    /// Device `n`'s readings: every event type each hour from its installation on, until its share is made.
    pub(super) fn device_events(&self, n: usize, out: &mut Vec<Arg>) {
        let devices = self.options.devices.max(1);
        let share = self.options.device_events / devices + usize::from(n < self.options.device_events % devices);
        let first = id_of(n * (self.options.device_events / devices) + n.min(self.options.device_events % devices));
        let mut rng = self.rng(0x4556_4e54, n);
        let start = self.origin + 151 * DAY;
        let types = self.refs.event_types.len().max(1);
        let mut soil: f64 = rng.gen_range(18.0..32.0);
        for reading in 0..share {
            let Some(type_id) = self.refs.event_types.get(reading % types) else {
                return;
            };
            let hour = id_of(reading / types);
            let at = start + hour * HOUR;
            let phase = ((hour % 24) as f64 - 9.0) / 24.0 * std::f64::consts::TAU;
            soil = (soil + rng.gen_range(-0.3..0.3)).clamp(8.0, 45.0);
            let value = match reading % types {
                0 => 20.0 + 8.0 * phase.sin() + rng.gen_range(-1.0..1.0),
                1 => (65.0 - 20.0 * phase.sin()).clamp(25.0, 100.0),
                2 => {
                    if rng.gen_bool(0.04) {
                        rng.gen_range(0.2..12.0)
                    } else {
                        0.0
                    }
                }
                _ => soil,
            };
            out.extend([
                Arg::Int(self.bases.event + first + id_of(reading)),
                Arg::Int(self.refs.society_id),
                Arg::Int(self.bases.device + id_of(n)),
                Arg::Int(*type_id),
                Arg::Int(at),
                Arg::Float(round2(value)),
                Arg::Int(at + 5 * 60_000),
                Arg::Int(at + 5 * 60_000),
            ]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_counts_add_up_to_the_average_exactly_and_number_lines_without_gaps() {
        let options = LargeOptions {
            work_orders: 1_000,
            ..LargeOptions::default()
        };
        let counts = Plan::line_counts(&options, 7);
        let supplies: usize = counts.iter().map(|c| c.0).sum();
        let labours: usize = counts.iter().map(|c| c.1).sum();
        assert_eq!(supplies + labours, 1_000 * options.lines_per_order);
        assert!(
            counts.iter().any(|c| c.0 + c.1 != options.lines_per_order),
            "orders vary in size"
        );
        for pair in counts.windows(2) {
            assert_eq!(pair[1].2, pair[0].2 + id_of(pair[0].0));
            assert_eq!(pair[1].3, pair[0].3 + id_of(pair[0].1));
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_line_counts() {
        let options = LargeOptions::default();
        assert_eq!(Plan::line_counts(&options, 1), Plan::line_counts(&options, 1));
        assert_ne!(Plan::line_counts(&options, 1), Plan::line_counts(&options, 2));
    }
}
