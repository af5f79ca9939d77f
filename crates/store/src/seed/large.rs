//! The large society of the benchmark: the demo's Argentine society grown to the size a big customer has
//! (hundreds of thousands of plots, a million work-order lines, a million device readings), so `bench/run` measures
//! paging, writes and sync where a count or an `OFFSET` would hurt.
//!
//! It is added to an already seeded demo (its accounts stay the way in). Every row is drawn from a generator seeded
//! by the row's own number, so the same options give the same rows and ids on either backend, and each table is
//! written by an independent pass. Ids are given explicitly (after the largest existing one), so children can be
//! written without reading their parents' ids back, many rows to an `INSERT` and one transaction per table.

use std::time::Instant;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use wire::planning::PlotTag;

use super::{people, DEMO_ACCOUNTS};
use crate::admin::AdminError;
use crate::db::{with_reader, with_writer, BeginWrite, Dialect};
use crate::Store;

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;
/// Bound parameters per statement: under SQLite's limit (32,766) and so under PostgreSQL's (65,535).
const MAX_PARAMETERS: usize = 30_000;
/// Rows per statement, at most: beyond this a statement only grows without getting faster.
const MAX_ROWS: usize = 1_000;
/// External codes of the farmers this module makes start with this, which tells a grown society from a demo one.
const MARK: &str = "BENCH-";

/// How large the society grows.
#[derive(Debug, Clone, Copy)]
pub struct LargeOptions {
    /// Farmers added.
    pub farmers: usize,
    /// Establishments of each farmer.
    pub establishments_per_farmer: usize,
    /// Plots of each establishment (each plot gets one campaign).
    pub plots_per_establishment: usize,
    /// Work orders added.
    pub work_orders: usize,
    /// Supply plus labour lines of a work order, on average (pairs of orders add up to twice this).
    pub lines_per_order: usize,
    /// Weather stations added.
    pub devices: usize,
    /// Readings of all of them together.
    pub device_events: usize,
    /// The random seed.
    pub seed: u64,
}

impl Default for LargeOptions {
    fn default() -> Self {
        Self {
            farmers: 2_000,
            establishments_per_farmer: 10,
            plots_per_establishment: 10,
            work_orders: 50_000,
            lines_per_order: 20,
            devices: 300,
            device_events: 1_000_000,
            seed: 20_260_601,
        }
    }
}

/// What was added, and how long each table took.
#[derive(Debug, Clone, Default)]
pub struct LargeSummary {
    /// The society that grew.
    pub society_id: i64,
    /// (table, rows, seconds), in the order written.
    pub tables: Vec<(&'static str, u64, f64)>,
}

/// One bound value of a multi-row `INSERT`.
#[derive(Debug, Clone)]
enum Val {
    Int(i64),
    OptInt(Option<i64>),
    Float(f64),
    Bool(bool),
    Text(String),
    OptText(Option<String>),
}

/// Executes one multi-row `INSERT` with `$values` bound in order.
macro_rules! execute_batch {
    ($tx:expr, $sql:expr, $values:expr) => {{
        let mut query = sqlx::query($sql);
        for value in $values {
            query = match value {
                Val::Int(v) => query.bind(*v),
                Val::OptInt(v) => query.bind(*v),
                Val::Float(v) => query.bind(*v),
                Val::Bool(v) => query.bind(*v),
                Val::Text(v) => query.bind(v.as_str()),
                Val::OptText(v) => query.bind(v.as_deref()),
            };
        }
        query.execute(&mut *$tx).await?;
    }};
}

/// `INSERT INTO table (columns) VALUES (…), …` for `rows` rows. SQLite gets anonymous `?` placeholders: it looks
/// numbered ones up by a linear search, which makes binding a statement of thousands of `$n` quadratic.
fn insert_sql(dialect: Dialect, table: &str, columns: &[&str], rows: usize) -> String {
    let mut sql = format!("INSERT INTO {table} ({}) VALUES ", columns.join(", "));
    let mut n = 0;
    for row in 0..rows {
        if row > 0 {
            sql.push_str(", ");
        }
        sql.push('(');
        for column in 0..columns.len() {
            if column > 0 {
                sql.push_str(", ");
            }
            n += 1;
            match dialect {
                Dialect::Sqlite => sql.push('?'),
                Dialect::Postgres => {
                    sql.push('$');
                    sql.push_str(&n.to_string());
                }
            }
        }
        sql.push(')');
    }
    sql
}

/// The demo society's catalogue ids the new rows point at.
struct References {
    society_id: i64,
    /// The Argentine field user who "created" the plots.
    creator: Option<i64>,
    /// (master campaign id, name, species id).
    masters: Vec<(i64, String, i64)>,
    /// Seed varieties: (formulated id, species id).
    varieties: Vec<(i64, i64)>,
    /// Products that are not seeds, for supply lines.
    products: Vec<i64>,
    statuses: Vec<i64>,
    voucher_types: Vec<i64>,
    labour_types: Vec<i64>,
    /// (machine id, owning contractor).
    machines: Vec<(i64, Option<i64>)>,
    applicators: Vec<i64>,
    event_types: Vec<i64>,
    /// Live tag values grouped by their group.
    tags: Vec<TagGroup>,
}

/// A tag group of the society: (group id, group name, its live values as (id, name)).
type TagGroup = (i64, String, Vec<(i64, String)>);

/// Appends the rows of one unit (a farmer, an order…) of a table.
type RowsOf<'a> = Box<dyn Fn(usize, &mut Vec<Val>) + 'a>;

/// One table's pass: its name, columns, how many units it has, and their rows.
type Pass<'a> = (&'static str, Vec<&'static str>, usize, RowsOf<'a>);

/// The first free id of every table the module writes.
#[derive(Debug, Clone, Copy)]
struct Bases {
    farmer: i64,
    establishment: i64,
    plot: i64,
    campaign: i64,
    cultivation: i64,
    work_order: i64,
    supply: i64,
    labour: i64,
    device: i64,
    event: i64,
}

/// Everything a row's generator needs: options, references, id bases, and per-order line offsets.
struct Plan {
    options: LargeOptions,
    refs: References,
    bases: Bases,
    origin: i64,
    /// Supply and labour line counts of each order, and the offsets of its first lines.
    lines: Vec<(usize, usize, i64, i64)>,
}

/// A supply line as drawn.
struct Supply {
    campaign: i64,
    product: i64,
    area: f64,
    total: f64,
}

/// A labour line as drawn.
struct Labour {
    campaign: i64,
    labour_type: Option<i64>,
    area: f64,
    machine: Option<(i64, Option<i64>)>,
    applicator: Option<i64>,
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
const EVENT_CODES: &[&str] = &["temperature", "relative_humidity", "rain", "soil_moisture"];

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

    fn establishments(&self) -> usize {
        self.options.farmers * self.options.establishments_per_farmer
    }

    fn plots(&self) -> usize {
        self.establishments() * self.options.plots_per_establishment
    }

    /// When plot `n` was created: plots arrive over the year before the demo's history.
    fn plot_created(&self, n: usize) -> i64 {
        let spread = 365 * DAY / id_of(self.plots().max(1));
        self.origin - 400 * DAY + id_of(n) * spread.max(1)
    }

    fn farmer(&self, n: usize, out: &mut Vec<Val>) {
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
            Val::Int(self.bases.farmer + id_of(n)),
            Val::Int(refs.society_id),
            Val::Text(name.clone()),
            Val::OptText(lastname.clone()),
            Val::Text(people::company_tax_id(&mut rng, "AR")),
            Val::Text(format!("{MARK}{:05}", n + 1)),
            Val::Text(format!(
                "{}.{}{}@campo.com.ar",
                people::slug(&name),
                people::slug(lastname.as_deref().unwrap_or("adm")),
                n + 1
            )),
            Val::Text(format!(
                "+54 9 2954 {:02}-{:04}",
                rng.gen_range(40..80),
                rng.gen_range(0..10_000)
            )),
            Val::Int(created),
            Val::Int(created),
        ]);
    }

    fn establishment(&self, n: usize, out: &mut Vec<Val>) {
        let created = self.origin - 410 * DAY + id_of(n) * 60_000;
        out.extend([
            Val::Int(self.bases.establishment + id_of(n)),
            Val::Int(self.refs.society_id),
            Val::Int(self.bases.farmer + id_of(n / self.options.establishments_per_farmer)),
            Val::Text(ESTABLISHMENTS[n % ESTABLISHMENTS.len()].to_owned()),
            Val::Text(format!("{MARK}EST-{:06}", n + 1)),
            Val::Int(created),
            Val::Int(created),
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

    fn plot(&self, n: usize, out: &mut Vec<Val>) {
        let mut rng = self.rng(0x504c_4f54, n);
        let created = self.plot_created(n);
        out.extend([
            Val::Int(self.bases.plot + id_of(n)),
            Val::Int(self.refs.society_id),
            Val::Int(self.bases.establishment + id_of(n / self.options.plots_per_establishment)),
            Val::Text(format!("Lote {}", n % self.options.plots_per_establishment + 1)),
            Val::Float(round2(rng.gen_range(25.0..160.0))),
            Val::Text(format!("{MARK}LOT-{:07}", n + 1)),
            Val::OptInt(self.refs.creator),
            Val::Int(created),
            Val::Int(created),
            Val::Text(PlotTag::encode(&self.plot_tags(n))),
        ]);
    }

    fn plot_tag_rows(&self, n: usize, out: &mut Vec<Val>) {
        for tag in self.plot_tags(n) {
            out.extend([
                Val::Int(self.refs.society_id),
                Val::Int(self.bases.plot + id_of(n)),
                Val::Int(tag.tag_id),
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

    fn campaign(&self, n: usize, out: &mut Vec<Val>) {
        let (master, area, status) = self.campaign_draw(n);
        let Some((master_id, name, _)) = self.refs.masters.get(master) else {
            return;
        };
        let created = self.plot_created(n) + DAY;
        out.extend([
            Val::Int(self.bases.campaign + id_of(n)),
            Val::Int(self.refs.society_id),
            Val::Int(*master_id),
            Val::Int(self.bases.plot + id_of(n)),
            Val::OptInt(status),
            Val::Text(name.clone()),
            Val::Text(format!("{MARK}CMP-{:07}", n + 1)),
            Val::Float(area),
            Val::Text("2025-10-15".to_owned()),
            Val::Float(round2(3.0 + (n % 70) as f64 / 10.0)),
            Val::Int(created),
            Val::Int(created),
        ]);
    }

    /// Every campaign has its cultivation (its sown variety), when its species has a variety.
    fn cultivation(&self, n: usize, out: &mut Vec<Val>) {
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
            Val::Int(self.bases.cultivation + id_of(n)),
            Val::Int(self.refs.society_id),
            Val::Int(self.bases.plot + id_of(n)),
            Val::Int(self.bases.campaign + id_of(n)),
            Val::Int(*variety),
            Val::Float(area),
            Val::Int(created),
            Val::Int(created),
        ]);
    }

    /// Order `k`'s lines: pairs of orders add up to twice the average, so the total is exact.
    fn line_counts(options: &LargeOptions, seed: u64) -> Vec<(usize, usize, i64, i64)> {
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

    fn work_order(&self, k: usize, out: &mut Vec<Val>) {
        let order = self.order(k);
        out.extend([
            Val::Int(self.bases.work_order + id_of(k)),
            Val::Int(self.refs.society_id),
            Val::Text(format!("{MARK}OT-{:06}", k + 1)),
            Val::Text("third_party".to_owned()),
            Val::Text(order.name),
            Val::Int(order.date),
            Val::Int(order.date - DAY),
            Val::Int(order.voucher_type),
            Val::Bool(order.state.0),
            Val::Bool(order.state.1),
            Val::Bool(order.state.2),
            Val::Int(order.created),
            Val::Int(order.updated),
        ]);
    }

    fn supplies(&self, k: usize, out: &mut Vec<Val>) {
        let order = self.order(k);
        let (_, _, first, _) = self.lines.get(k).copied().unwrap_or_default();
        for (position, supply) in order.supplies.iter().enumerate() {
            out.extend([
                Val::Int(self.bases.supply + first + id_of(position)),
                Val::Int(self.refs.society_id),
                Val::Int(self.bases.work_order + id_of(k)),
                Val::Int(id_of(position) + 1),
                Val::Int(supply.campaign),
                Val::Int(supply.product),
                Val::Float(supply.area),
                Val::Float(supply.total),
                Val::Int(order.date),
                Val::Bool(order.state.0),
                Val::Bool(order.state.1),
                Val::Bool(order.state.2),
                Val::Int(order.created),
                Val::Int(order.updated),
            ]);
        }
    }

    fn labours(&self, k: usize, out: &mut Vec<Val>) {
        let order = self.order(k);
        let (_, _, _, first) = self.lines.get(k).copied().unwrap_or_default();
        for (position, labour) in order.labours.iter().enumerate() {
            out.extend([
                Val::Int(self.bases.labour + first + id_of(position)),
                Val::Int(self.refs.society_id),
                Val::Int(self.bases.work_order + id_of(k)),
                Val::Int(id_of(position) + 1),
                Val::Int(labour.campaign),
                Val::OptInt(labour.labour_type),
                Val::Float(labour.area),
                Val::Int(order.date),
                Val::Bool(order.state.0),
                Val::Bool(order.state.1),
                Val::Bool(order.state.2),
                Val::Int(order.created),
                Val::Int(order.updated),
            ]);
        }
    }

    /// The rows of one of the labour link tables: `pick` chooses what each labour line links to.
    fn labour_links(&self, k: usize, out: &mut Vec<Val>, pick: fn(&Labour) -> Option<i64>) {
        let order = self.order(k);
        let (_, _, _, first) = self.lines.get(k).copied().unwrap_or_default();
        for (position, labour) in order.labours.iter().enumerate() {
            if let Some(linked) = pick(labour) {
                out.extend([
                    Val::Int(self.refs.society_id),
                    Val::Int(self.bases.labour + first + id_of(position)),
                    Val::Int(linked),
                ]);
            }
        }
    }

    fn device(&self, n: usize, out: &mut Vec<Val>) {
        let mut rng = self.rng(0x4445_5643, n);
        let establishment = rng.gen_range(0..self.establishments().max(1));
        let installed = self.origin + 150 * DAY;
        out.extend([
            Val::Int(self.bases.device + id_of(n)),
            Val::Int(self.refs.society_id),
            Val::Int(self.bases.establishment + id_of(establishment)),
            Val::Text(format!("Estación meteorológica {MARK}{}", n + 1)),
            Val::Text("weather_station".to_owned()),
            Val::Text(format!("{MARK}WS-{:05}", n + 1)),
            Val::Float(round2(-36.6 + rng.gen_range(-0.6..0.6))),
            Val::Float(round2(-64.3 + rng.gen_range(-0.6..0.6))),
            Val::Int(installed),
            Val::Int(installed),
        ]);
    }

    /// Device `n`'s readings: every event type each hour from its installation on, until its share is made.
    fn device_events(&self, n: usize, out: &mut Vec<Val>) {
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
                Val::Int(self.bases.event + first + id_of(reading)),
                Val::Int(self.refs.society_id),
                Val::Int(self.bases.device + id_of(n)),
                Val::Int(*type_id),
                Val::Int(at),
                Val::Float(round2(value)),
                Val::Int(at + 5 * 60_000),
                Val::Int(at + 5 * 60_000),
            ]);
        }
    }
}

/// Reads what the new rows point at, from the demo society of the first demo account.
async fn references(store: &Store) -> Result<References, AdminError> {
    let integrator = DEMO_ACCOUNTS.first().map_or("", |a| a.email);
    let field_user = DEMO_ACCOUNTS
        .iter()
        .find(|a| a.country == "AR" && !a.api_role)
        .map_or("", |a| a.email);
    with_reader!(&store.db, pool => {
        let society_id: Option<i64> = sqlx::query_scalar("SELECT society_id FROM users WHERE email = $1")
            .bind(integrator)
            .fetch_optional(pool)
            .await?;
        let society_id = society_id.ok_or_else(|| {
            AdminError::Invalid(format!("no demo account {integrator}: seed the demo first"))
        })?;
        let creator: Option<i64> = sqlx::query_scalar("SELECT id FROM users WHERE email = $1")
            .bind(field_user)
            .fetch_optional(pool)
            .await?;
        let masters = sqlx::query_as(
            "SELECT id, name, species_id FROM master_campaigns WHERE society_id = $1 AND deleted_at IS NULL ORDER BY id",
        )
        .bind(society_id)
        .fetch_all(pool)
        .await?;
        let varieties = sqlx::query_as(
            "SELECT id, species_id FROM formulateds WHERE country = 'AR' AND species_id IS NOT NULL \
             AND deleted_at IS NULL ORDER BY id",
        )
        .fetch_all(pool)
        .await?;
        let products = sqlx::query_scalar(
            "SELECT id FROM formulateds WHERE country = 'AR' AND species_id IS NULL AND deleted_at IS NULL ORDER BY id",
        )
        .fetch_all(pool)
        .await?;
        let statuses = sqlx::query_scalar("SELECT id FROM activity_statuses WHERE deleted_at IS NULL ORDER BY id")
            .fetch_all(pool)
            .await?;
        let voucher_types = sqlx::query_scalar("SELECT id FROM voucher_types WHERE deleted_at IS NULL ORDER BY id")
            .fetch_all(pool)
            .await?;
        let labour_types = sqlx::query_scalar("SELECT id FROM labour_types WHERE deleted_at IS NULL ORDER BY id")
            .fetch_all(pool)
            .await?;
        let machines = sqlx::query_as(
            "SELECT id, contractor_id FROM machines WHERE society_id = $1 AND deleted_at IS NULL ORDER BY id",
        )
        .bind(society_id)
        .fetch_all(pool)
        .await?;
        let applicators = sqlx::query_scalar(
            "SELECT id FROM applicators WHERE society_id = $1 AND deleted_at IS NULL ORDER BY id",
        )
        .bind(society_id)
        .fetch_all(pool)
        .await?;
        let mut event_types = Vec::new();
        for code in EVENT_CODES {
            let id: Option<i64> = sqlx::query_scalar("SELECT MIN(id) FROM device_event_types WHERE code = $1")
                .bind(*code)
                .fetch_one(pool)
                .await?;
            event_types.extend(id);
        }
        let tag_rows: Vec<(i64, String, i64, String)> = sqlx::query_as(
            "SELECT g.id, g.name, v.id, v.name FROM tags v JOIN tags g ON g.society_id = v.society_id AND g.id = v.parent_id \
             WHERE v.society_id = $1 AND v.active AND v.deleted_at IS NULL ORDER BY g.id, v.id",
        )
        .bind(society_id)
        .fetch_all(pool)
        .await?;
        let mut tags: Vec<TagGroup> = Vec::new();
        for (group_id, group_name, value_id, value_name) in tag_rows {
            match tags.last_mut() {
                Some(last) if last.0 == group_id => last.2.push((value_id, value_name)),
                _ => tags.push((group_id, group_name, vec![(value_id, value_name)])),
            }
        }
        Ok::<_, AdminError>(References {
            society_id,
            creator,
            masters,
            varieties,
            products,
            statuses,
            voucher_types,
            labour_types,
            machines,
            applicators,
            event_types,
            tags,
        })
    })
}

/// The largest id of `table`, so new rows can be numbered after it.
async fn next_id(store: &Store, table: &str) -> Result<i64, AdminError> {
    let max: Option<i64> = with_reader!(&store.db, pool => {
        sqlx::query_scalar(&format!("SELECT MAX(id) FROM {table}")).fetch_one(pool).await?
    });
    Ok(max.unwrap_or(0) + 1)
}

/// Whether the demo society already grew (it grows once).
pub async fn is_large(store: &Store) -> Result<bool, AdminError> {
    let count: i64 = with_reader!(&store.db, pool => {
        sqlx::query_scalar("SELECT COUNT(*) FROM farmers WHERE external_code = $1")
            .bind(format!("{MARK}00001"))
            .fetch_one(pool)
            .await?
    });
    Ok(count > 0)
}

/// Writes one table: `units` units (a farmer, an order…), each adding its rows through `rows`, many rows to a
/// statement, in one transaction.
async fn write(
    store: &Store,
    table: &'static str,
    columns: &[&str],
    units: usize,
    rows: impl Fn(usize, &mut Vec<Val>),
) -> Result<u64, AdminError> {
    let per_statement = (MAX_PARAMETERS / columns.len()).min(MAX_ROWS);
    let dialect = store.dialect();
    let full = insert_sql(dialect, table, columns, per_statement);
    let width = columns.len() * per_statement;
    let mut written = 0_u64;
    with_writer!(&store.db, pool => {
        let mut tx = pool.begin().await?;
        let mut values: Vec<Val> = Vec::with_capacity(2 * width);
        for unit in 0..units {
            rows(unit, &mut values);
            while values.len() >= width {
                execute_batch!(tx, &full, &values[..width]);
                values.drain(..width);
                written += per_statement as u64;
            }
        }
        if !values.is_empty() {
            let rest = values.len() / columns.len();
            let last = insert_sql(dialect, table, columns, rest);
            execute_batch!(tx, &last, &values);
            written += rest as u64;
        }
        tx.commit().await?;
    });
    Ok(written)
}

/// Grows the demo's Argentine society (see the module's documentation); the demo must be seeded, and not yet grown.
/// `progress` is told each table as it is written.
pub async fn grow(
    store: &Store,
    options: &LargeOptions,
    progress: impl Fn(&str, u64, f64),
) -> Result<LargeSummary, AdminError> {
    if is_large(store).await? {
        return Err(AdminError::Invalid("the demo society has already grown".into()));
    }
    let refs = references(store).await?;
    if refs.masters.is_empty() || refs.event_types.is_empty() || refs.voucher_types.is_empty() {
        return Err(AdminError::Invalid(
            "the demo's catalogues are missing: seed the demo first".into(),
        ));
    }
    let bases = Bases {
        farmer: next_id(store, "farmers").await?,
        establishment: next_id(store, "establishments").await?,
        plot: next_id(store, "plots").await?,
        campaign: next_id(store, "campaigns").await?,
        cultivation: next_id(store, "cultivations").await?,
        work_order: next_id(store, "work_orders").await?,
        supply: next_id(store, "work_order_supplies").await?,
        labour: next_id(store, "work_order_labours").await?,
        device: next_id(store, "devices").await?,
        event: next_id(store, "device_events").await?,
    };
    let origin = chrono::NaiveDate::from_ymd_opt(2025, 6, 2)
        .and_then(|d| d.and_hms_opt(11, 0, 0))
        .map_or(0, |t| t.and_utc().timestamp_millis());
    let plan = Plan {
        lines: Plan::line_counts(options, options.seed),
        options: *options,
        refs,
        bases,
        origin,
    };
    let society_id = plan.refs.society_id;
    let mut summary = LargeSummary {
        society_id,
        tables: Vec::new(),
    };
    let audit = ["created_at", "updated_at"];
    let with_audit =
        |columns: &[&'static str]| -> Vec<&'static str> { columns.iter().chain(&audit).copied().collect() };
    let plots = plan.plots();
    let orders = options.work_orders;
    let passes: Vec<Pass<'_>> = vec![
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
    ];
    for (table, columns, units, rows) in &passes {
        let table: &'static str = table;
        let started = Instant::now();
        let written = write(store, table, columns, *units, rows).await?;
        let seconds = started.elapsed().as_secs_f64();
        progress(table, written, seconds);
        summary.tables.push((table, written, seconds));
    }
    finish(store).await?;
    Ok(summary)
}

/// Tables whose ids were given explicitly: PostgreSQL's identity sequences must continue after them.
const NUMBERED: &[&str] = &[
    "farmers",
    "establishments",
    "plots",
    "campaigns",
    "cultivations",
    "work_orders",
    "work_order_supplies",
    "work_order_labours",
    "devices",
    "device_events",
];

/// Moves PostgreSQL's sequences past the explicit ids, then vacuums and analyzes the database: autovacuum would
/// otherwise do it in the minutes after the load, on the benchmark's core while it measures. The triggers of
/// `table_versions` have already marked the society changed.
async fn finish(store: &Store) -> Result<(), AdminError> {
    let postgres = store.dialect() == Dialect::Postgres;
    with_writer!(&store.db, pool => {
        let mut tx = pool.begin_write().await?;
        if postgres {
            for table in NUMBERED {
                sqlx::query(&format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))"
                ))
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
        if postgres {
            sqlx::query("VACUUM (ANALYZE)").execute(pool).await?;
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_statements_use_anonymous_placeholders_and_postgres_numbered_ones() {
        let sqlite = insert_sql(Dialect::Sqlite, "t", &["a", "b"], 3);
        assert_eq!(sqlite, "INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?)");
        let postgres = insert_sql(Dialect::Postgres, "t", &["a", "b"], 2);
        assert_eq!(postgres, "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4)");
    }

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
