//! Demo data of the operations group: voucher and labour types (global), and per society the contractors, machines
//! of real brands, applicators with the machines they operate, warehouses, a season of work orders over the
//! society's campaigns with realistic doses, and a few finished objective-yield jobs.
//!
//! Work orders need the backbone's campaigns and products; a society without them gets no work orders rather than
//! a failed seed.

use domain::jobs::UPDATE_OBJECTIVE_YIELD;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::json;

use super::{people, SocietySeed};
use crate::admin::AdminError;
use crate::db::{with_reader, with_writer, BeginWrite};
use crate::Store;

const DAY: i64 = 24 * 3_600_000;

/// Labour types of a voucher type: (name, description).
type LabourTypes = &'static [(&'static str, &'static str)];

/// Voucher types: (code, name), and the labour types each one's orders use.
const VOUCHERS: &[(&str, &str, LabourTypes)] = &[
    (
        "OT",
        "Orden de trabajo",
        &[
            ("Labranza", "Labor de preparación de suelo"),
            ("Monitoreo", "Recorrida de monitoreo de plagas y malezas"),
            ("Desmalezado mecánico", ""),
            ("Rolado", "Rolado de cultivo de cobertura"),
        ],
    ),
    (
        "OA",
        "Orden de aplicación",
        &[
            (
                "Pulverización terrestre",
                "Aplicación con pulverizadora autopropulsada o de arrastre",
            ),
            ("Pulverización aérea", "Aplicación con avión o dron"),
            ("Pulverización selectiva", "Aplicación con sensores de malezas"),
        ],
    ),
    (
        "OS",
        "Orden de siembra",
        &[
            ("Siembra directa", "Siembra sin remoción de suelo"),
            ("Siembra convencional", ""),
        ],
    ),
    (
        "OF",
        "Orden de fertilización",
        &[
            ("Fertilización al voleo", "Distribución de fertilizante sólido"),
            (
                "Fertilización incorporada",
                "Fertilizante incorporado a la línea de siembra",
            ),
        ],
    ),
    (
        "OC",
        "Orden de cosecha",
        &[
            ("Cosecha", "Cosecha y trilla de grano"),
            ("Acarreo de granos", "Traslado de grano a silo bolsa o planta"),
        ],
    ),
];

/// Seeds voucher types and their labour types.
pub(crate) async fn global(store: &Store, origin: i64) -> Result<(), AdminError> {
    let at = origin - 30 * DAY;
    with_writer!(&store.db, pool => {
        let mut tx = pool.begin_write().await?;
        for (code, name, labours) in VOUCHERS {
            let voucher_id: i64 = sqlx::query_scalar(
                "INSERT INTO voucher_types (code, name, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING id",
            )
            .bind(*code)
            .bind(*name)
            .bind(at)
            .fetch_one(&mut *tx)
            .await?;
            for (labour, description) in *labours {
                sqlx::query(
                    "INSERT INTO labour_types (voucher_type_id, name, description, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $4)",
                )
                .bind(voucher_id)
                .bind(*labour)
                .bind(*description)
                .bind(at)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
    });
    Ok(())
}

/// A country's words for the operations seed.
struct Local {
    contractors: &'static [&'static str],
    operators: &'static [&'static str],
    streets: &'static [&'static str],
    /// Names of machine kinds: sprayer, planter, harvester, tractor, spreader, aircraft.
    kinds: [&'static str; 6],
    central: &'static str,
    store_prefix: &'static str,
    phone: &'static str,
    domain: &'static str,
    aircraft_prefix: &'static str,
}

const AR: Local = Local {
    contractors: &[
        "Servicios Agrícolas Don Pedro S.R.L.",
        "Aeroaplicaciones del Sur S.A.",
        "Contratistas Rurales Hnos. Ferraro",
        "Pulverizaciones Pampeanas S.R.L.",
        "Cosechas Integrales S.A.",
        "Siembras del Oeste S.R.L.",
    ],
    operators: &[
        "Walter Pereyra",
        "Sergio Bianchi",
        "Raúl Giménez",
        "Darío Sosa",
        "Marcelo Etcheverry",
        "Fabián López",
        "Cristian Ferrari",
        "Ezequiel Martínez",
    ],
    streets: &[
        "Ruta 5 km 612",
        "Av. San Martín 1450",
        "Calle 9 Nro 230",
        "Ruta 35 km 240",
    ],
    kinds: [
        "Pulverizadora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Fertilizadora",
        "Avión pulverizador",
    ],
    central: "Depósito central de agroquímicos",
    store_prefix: "Depósito",
    phone: "+54 9 2954",
    domain: "servicios.com.ar",
    aircraft_prefix: "LV",
};

const BR: Local = Local {
    contractors: &[
        "Agro Serviços Rio Verde Ltda.",
        "Aviação Agrícola Cerrado Ltda.",
        "Colheita Certa Serviços Agrícolas Ltda.",
        "Pulverização Goiás Ltda.",
        "Plantio Direto Serviços Ltda.",
    ],
    operators: &[
        "Edson Oliveira",
        "Marcos Pereira",
        "Valdir Schneider",
        "Cláudio Souza",
        "Rogério Almeida",
        "Anderson Costa",
        "Jair Ribeiro",
        "Leandro Carvalho",
    ],
    streets: &[
        "Rodovia GO-174 km 32",
        "Av. Presidente Vargas 980",
        "Rua Goiás 215",
        "BR-060 km 388",
    ],
    kinds: [
        "Pulverizador",
        "Plantadeira",
        "Colheitadeira",
        "Trator",
        "Distribuidor de fertilizantes",
        "Avião agrícola",
    ],
    central: "Armazém central de insumos",
    store_prefix: "Depósito",
    phone: "+55 64 9",
    domain: "servicos.com.br",
    aircraft_prefix: "PR",
};

const MX: Local = Local {
    contractors: &[
        "Servicios Agrícolas del Bajío S.A. de C.V.",
        "Aerofumigaciones Guanajuato S.A. de C.V.",
        "Maquiladora Agrícola Celaya S.P.R.",
        "Trilladoras Unidas S.P.R. de R.L.",
    ],
    operators: &[
        "Jesús Ramírez",
        "Juan Carlos Hernández",
        "Pedro Sánchez",
        "Ramón Flores",
        "Alfredo Cruz",
        "Efraín García",
        "Rubén Pérez",
        "Martín Villaseñor",
    ],
    streets: &[
        "Carretera Celaya-Salvatierra km 8",
        "Av. Juárez 312",
        "Camino a San Miguel s/n",
    ],
    kinds: [
        "Aspersora",
        "Sembradora",
        "Cosechadora",
        "Tractor",
        "Fertilizadora",
        "Avioneta fumigadora",
    ],
    central: "Almacén central de insumos",
    store_prefix: "Bodega",
    phone: "+52 461",
    domain: "servicios.com.mx",
    aircraft_prefix: "XB",
};

/// Machine models: (kind index into [`Local::kinds`], wire kind, brand, model).
const MODELS: &[(usize, &str, &str, &str)] = &[
    (0, "sprayer", "Metalfor", "Multiple 3200"),
    (0, "sprayer", "Pla", "MAP II 3250"),
    (0, "sprayer", "John Deere", "4730"),
    (0, "sprayer", "Jacto", "Uniport 3030"),
    (0, "sprayer", "Stara", "Imperador 3.0"),
    (1, "planter", "Agrometal", "TX Mega"),
    (1, "planter", "John Deere", "1113"),
    (1, "planter", "Stara", "Absoluta 34"),
    (2, "harvester", "John Deere", "S780"),
    (2, "harvester", "Case IH", "Axial-Flow 8250"),
    (3, "tractor", "John Deere", "8R 340"),
    (3, "tractor", "Case IH", "Magnum 340"),
    (3, "tractor", "Agrale", "BX 6180"),
    (3, "tractor", "Massey Ferguson", "7719"),
    (4, "spreader", "Fertec", "Fertil 4000"),
    (5, "aircraft", "Air Tractor", "AT-402B"),
];

fn local(country: &str) -> &'static Local {
    match country {
        "BR" => &BR,
        "MX" => &MX,
        _ => &AR,
    }
}

fn pick<'a, T>(rng: &mut StdRng, items: &'a [T]) -> Option<&'a T> {
    (!items.is_empty()).then(|| &items[rng.gen_range(0..items.len())])
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

fn email_of(name: &str, domain: &str) -> String {
    format!("{}@{domain}", people::slug(name))
}

/// (id, name) rows.
type Named = Vec<(i64, String)>;

/// A campaign a work order may point at.
#[derive(sqlx::FromRow)]
struct Target {
    id: i64,
    area: f64,
    name: String,
    plot: String,
    species: String,
}

/// A product of the society's country, classified for doses.
#[derive(sqlx::FromRow)]
struct Product {
    id: i64,
    unit: String,
    formulation: String,
    species: Option<String>,
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

/// Seeds a society's contractors, machines, applicators, warehouses, work orders and objective-yield jobs.
pub(crate) async fn society(store: &Store, society: &SocietySeed) -> Result<(), AdminError> {
    let mut rng = StdRng::seed_from_u64(society.seed ^ 0x4f50_4552);
    let words = local(society.country);
    let society_id = society.society_id;
    let scale = usize::try_from(society.scale.max(1)).unwrap_or(1);
    let (targets, products, establishments, labour_types): (Vec<Target>, Vec<Product>, Named, Named) = with_reader!(&store.db, pool => {
        let targets = sqlx::query_as(
            "SELECT c.id, c.area, c.name, p.name AS plot, s.name AS species FROM campaigns c \
             JOIN plots p ON p.society_id = c.society_id AND p.id = c.plot_id \
             JOIN master_campaigns m ON m.society_id = c.society_id AND m.id = c.master_campaign_id \
             JOIN species s ON s.id = m.species_id \
             WHERE c.society_id = $1 AND c.deleted_at IS NULL ORDER BY c.id",
        )
        .bind(society_id)
        .fetch_all(pool)
        .await?;
        let products = sqlx::query_as(
            "SELECT f.id, u.abbreviation AS unit, ft.code AS formulation, s.name AS species FROM formulateds f \
             JOIN units u ON u.id = f.unit_id JOIN formulation_types ft ON ft.id = f.formulation_type_id \
             LEFT JOIN species s ON s.id = f.species_id WHERE f.country = $1 ORDER BY f.id",
        )
        .bind(society.country)
        .fetch_all(pool)
        .await?;
        let establishments = sqlx::query_as("SELECT id, name FROM establishments WHERE society_id = $1 ORDER BY id")
            .bind(society_id)
            .fetch_all(pool)
            .await?;
        let labour_types = sqlx::query_as("SELECT id, name FROM labour_types ORDER BY id").fetch_all(pool).await?;
        (targets, products, establishments, labour_types)
    });
    let labour_type = |name: &str| labour_types.iter().find(|(_, n)| n == name).map(|(id, _)| *id);
    let voucher_type: Vec<(i64, String)> = with_reader!(&store.db, pool => {
        sqlx::query_as("SELECT id, code FROM voucher_types ORDER BY id").fetch_all(pool).await?
    });
    let voucher = |code: &str| voucher_type.iter().find(|(_, c)| c == code).map(|(id, _)| *id);
    let start = society.origin + 20 * DAY;
    with_writer!(&store.db, pool => {
        let mut tx = pool.begin_write().await?;
        let mut contractors = Vec::new();
        for n in 0..words.contractors.len() * scale {
            let name = words.contractors[n % words.contractors.len()];
            let name = if n < words.contractors.len() { name.to_owned() } else { format!("{name} ({})", n / words.contractors.len() + 1) };
            let at = start + i64::try_from(n).unwrap_or(0) * 3_600_000;
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO contractors (society_id, name, cuit, email, phone_number, external_code, created_at, \
                 updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7) RETURNING id",
            )
            .bind(society_id)
            .bind(&name)
            .bind(people::company_tax_id(&mut rng, society.country))
            .bind(email_of(name.split_whitespace().take(2).collect::<Vec<_>>().join(" ").as_str(), words.domain))
            .bind(format!("{} {:03}-{:04}", words.phone, rng.gen_range(100..1000), rng.gen_range(0..10_000)))
            .bind(format!("CTR-{:04}", n + 1))
            .bind(at)
            .fetch_one(&mut *tx)
            .await?;
            contractors.push(id);
        }
        // Machines by kind index, with their owning contractor when they have one.
        let mut machines: Vec<(usize, i64, Option<i64>)> = Vec::new();
        for round in 0..scale {
            for (n, (kind, wire_kind, brand, model)) in MODELS.iter().enumerate() {
                let owner = if *kind == 5 || rng.gen_bool(0.3) { pick(&mut rng, &contractors).copied() } else { None };
                let plate = if *kind == 5 {
                    format!("{}-{}", words.aircraft_prefix, (0..3).map(|_| char::from(b'A' + rng.gen_range(0..26u8))).collect::<String>())
                } else {
                    format!("{}{:03}{}", char::from(b'A' + rng.gen_range(0..26u8)), rng.gen_range(0..1000), char::from(b'A' + rng.gen_range(0..26u8)))
                };
                let at = start + i64::try_from(round * MODELS.len() + n).unwrap_or(0) * 3_600_000 + DAY;
                let id: i64 = sqlx::query_scalar(
                    "INSERT INTO machines (society_id, contractor_id, name, kind, brand, model, year, license_plate, \
                     external_code, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id",
                )
                .bind(society_id)
                .bind(owner)
                .bind(format!("{} {brand} {model}", words.kinds[*kind]))
                .bind(*wire_kind)
                .bind(*brand)
                .bind(*model)
                .bind(rng.gen_range(2008_i64..2025))
                .bind(plate)
                .bind(format!("MAQ-{:04}", machines.len() + 1))
                .bind(at)
                .fetch_one(&mut *tx)
                .await?;
                machines.push((*kind, id, owner));
            }
        }
        let sprayers: Vec<i64> = machines.iter().filter(|m| m.0 == 0 || m.0 == 5).map(|m| m.1).collect();
        let mut applicators = Vec::new();
        for n in 0..words.operators.len() * scale {
            let name = words.operators[n % words.operators.len()];
            let at = start + i64::try_from(n).unwrap_or(0) * 3_600_000 + 2 * DAY;
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO applicators (society_id, name, address, phone_number, email, external_code, active, \
                 created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8) RETURNING id",
            )
            .bind(society_id)
            .bind(name)
            .bind(rng.gen_bool(0.7).then(|| pick(&mut rng, words.streets).copied()).flatten())
            .bind(rng.gen_bool(0.8).then(|| format!("{} {:03}-{:04}", words.phone, rng.gen_range(100..1000), rng.gen_range(0..10_000))))
            .bind(rng.gen_bool(0.6).then(|| email_of(name, words.domain)))
            .bind(format!("APL-{:04}", n + 1))
            // One operator retired: inactive, so the `active` filter has something to tell apart.
            .bind(n != 3)
            .bind(at)
            .fetch_one(&mut *tx)
            .await?;
            // Most operators run one or two sprayers; a few (new hires) none yet.
            let count = if n % 5 == 4 { 0 } else { rng.gen_range(1..=2) };
            let mut own: Vec<i64> = (0..count).filter_map(|_| pick(&mut rng, &sprayers).copied()).collect();
            own.sort_unstable();
            own.dedup();
            for machine in &own {
                sqlx::query("INSERT INTO applicator_machines (society_id, applicator_id, machine_id) VALUES ($1, $2, $3)")
                    .bind(society_id)
                    .bind(id)
                    .bind(*machine)
                    .execute(&mut *tx)
                    .await?;
            }
            applicators.push((id, own));
        }
        let stores = std::iter::once((None, words.central.to_owned()))
            .chain(establishments.iter().take(4 * scale).map(|(id, name)| (Some(*id), format!("{} {name}", words.store_prefix))));
        for (n, (establishment, name)) in stores.enumerate() {
            sqlx::query(
                "INSERT INTO warehouses (society_id, establishment_id, name, address, external_code, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $6)",
            )
            .bind(society_id)
            .bind(establishment)
            .bind(name)
            .bind(establishment.is_none().then(|| words.streets[0]))
            .bind(format!("DEP-{:03}", n + 1))
            .bind(start + i64::try_from(n).unwrap_or(0) * 3_600_000)
            .execute(&mut *tx)
            .await?;
        }
        let ctx = OrderContext {
            targets: &targets,
            products: &products,
            machines: &machines,
            applicators: &applicators,
            start,
        };
        let orders = if targets.is_empty() || products.is_empty() {
            Vec::new()
        } else {
            (0..250 * scale).filter_map(|n| plan_order(&mut rng, &ctx, n, &voucher, &labour_type)).collect()
        };
        for order in &orders {
            let order_id: i64 = sqlx::query_scalar(
                "INSERT INTO work_orders (society_id, external_id, system_id, name, date, voucher_date, voucher_type_id, \
                 pending, executed, confirmed, is_read_only, active, created_at, updated_at, deleted_at) \
                 VALUES ($1, $2, 'third_party', $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id",
            )
            .bind(society_id)
            .bind(&order.external_id)
            .bind(&order.name)
            .bind(order.date)
            .bind(order.voucher_date)
            .bind(order.voucher_type_id)
            .bind(order.state.0)
            .bind(order.state.1)
            .bind(order.state.2)
            .bind(order.read_only)
            .bind(order.active)
            .bind(order.created)
            .bind(order.updated)
            .bind(order.deleted)
            .fetch_one(&mut *tx)
            .await?;
            for (position, supply) in order.supplies.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO work_order_supplies (society_id, work_order_id, position, campaign_id, formulated_id, \
                     area_applied, total_applied, date, pending, executed, confirmed, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
                )
                .bind(society_id)
                .bind(order_id)
                .bind(i64::try_from(position).unwrap_or(0) + 1)
                .bind(supply.campaign_id)
                .bind(supply.formulated_id)
                .bind(supply.area)
                .bind(supply.total)
                .bind(order.date)
                .bind(supply.state.0)
                .bind(supply.state.1)
                .bind(supply.state.2)
                .bind(order.created)
                .bind(order.updated)
                .execute(&mut *tx)
                .await?;
            }
            for (position, labour) in order.labours.iter().enumerate() {
                let line: i64 = sqlx::query_scalar(
                    "INSERT INTO work_order_labours (society_id, work_order_id, position, campaign_id, labour_type_id, \
                     area_applied, date, pending, executed, confirmed, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) RETURNING id",
                )
                .bind(society_id)
                .bind(order_id)
                .bind(i64::try_from(position).unwrap_or(0) + 1)
                .bind(labour.campaign_id)
                .bind(labour.labour_type_id)
                .bind(labour.area)
                .bind(order.date)
                .bind(labour.state.0)
                .bind(labour.state.1)
                .bind(labour.state.2)
                .bind(order.created)
                .bind(order.updated)
                .fetch_one(&mut *tx)
                .await?;
                for (table, column, ids) in [
                    ("work_order_labour_machines", "machine_id", &labour.machines),
                    ("work_order_labour_contractors", "contractor_id", &labour.contractors),
                    ("work_order_labour_applicators", "applicator_id", &labour.applicators),
                ] {
                    for id in ids {
                        sqlx::query(&format!(
                            "INSERT INTO {table} (society_id, labour_id, {column}) VALUES ($1, $2, $3)"
                        ))
                        .bind(society_id)
                        .bind(line)
                        .bind(*id)
                        .execute(&mut *tx)
                        .await?;
                    }
                }
            }
        }
        if !targets.is_empty() {
            for job in plan_jobs(&mut rng, &targets, start) {
                sqlx::query(
                    "INSERT INTO jobs (society_id, kind, status, input, total_items, processed_items, failed_items, \
                     result, attempts, started_at, finished_at, created_at, updated_at) \
                     VALUES ($1, $2, 'finished', $3, $4, $4, $5, $6, 1, $7, $8, $9, $8)",
                )
                .bind(society_id)
                .bind(UPDATE_OBJECTIVE_YIELD)
                .bind(job.input)
                .bind(job.total)
                .bind(job.failed)
                .bind(job.result)
                .bind(job.created + 2_000)
                .bind(job.finished)
                .bind(job.created)
                .execute(&mut *tx)
                .await?;
                // The job's effect, as the worker would have left it.
                for (campaign_id, objective_yield) in job.applied {
                    sqlx::query(
                        "UPDATE campaigns SET objective_yield = $3, updated_at = $4 WHERE society_id = $1 AND id = $2",
                    )
                    .bind(society_id)
                    .bind(campaign_id)
                    .bind(objective_yield)
                    .bind(job.finished)
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }
        tx.commit().await?;
    });
    Ok(())
}

/// What every order of a society draws from.
struct OrderContext<'a> {
    targets: &'a [Target],
    products: &'a [Product],
    /// (kind index, id, owning contractor).
    machines: &'a [(usize, i64, Option<i64>)],
    /// (id, machines it operates).
    applicators: &'a [(i64, Vec<i64>)],
    start: i64,
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

struct PlannedOrder {
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

/// Draws the `n`th order of the season: what it does, on which campaigns, with which products and machines.
fn plan_order(
    rng: &mut StdRng,
    ctx: &OrderContext<'_>,
    n: usize,
    voucher: &impl Fn(&str) -> Option<i64>,
    labour_type: &impl Fn(&str) -> Option<i64>,
) -> Option<PlannedOrder> {
    let (task, code, labour) = match rng.gen_range(0..100) {
        0..=44 if rng.gen_bool(0.85) => (Task::Spray, "OA", "Pulverización terrestre"),
        0..=44 => (Task::Spray, "OA", "Pulverización aérea"),
        45..=59 => (Task::Sow, "OS", "Siembra directa"),
        60..=71 => (Task::Fertilise, "OF", "Fertilización al voleo"),
        72..=84 => (Task::Harvest, "OC", "Cosecha"),
        _ if rng.gen_bool(0.5) => (Task::Field, "OT", "Monitoreo"),
        _ => (Task::Field, "OT", "Labranza"),
    };
    let voucher_type_id = voucher(code)?;
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
    let kind = match (task, labour) {
        (Task::Spray, "Pulverización aérea") => 5,
        (Task::Spray, _) => 0,
        (Task::Sow, _) => 1,
        (Task::Harvest, _) => 2,
        (Task::Fertilise, _) => 4,
        (Task::Field, _) => 3,
    };
    let fitting: Vec<&(usize, i64, Option<i64>)> = ctx.machines.iter().filter(|m| m.0 == kind).collect();
    for target in targets {
        let area = round2(target.area * rng.gen_range(0.9..=1.0));
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
        let applicators = match (task, machine) {
            // The operator who runs this sprayer, when one does.
            (Task::Spray, Some((id, _))) => ctx
                .applicators
                .iter()
                .find(|(_, own)| own.contains(&id))
                .map(|(applicator, _)| *applicator)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        labours.push(PlannedLabour {
            campaign_id: target.id,
            labour_type_id: labour_type(labour),
            area,
            state: line_state(rng),
            machines: machine.map(|m| m.0).into_iter().collect(),
            contractors: machine.and_then(|m| m.1).into_iter().collect(),
            applicators,
        });
    }
    let first_target = &targets[0];
    Some(PlannedOrder {
        external_id: rng.gen_bool(0.7).then(|| format!("ERP-OT-{:06}", n + 1)),
        name: format!("{labour} - {} - {}", first_target.name, first_target.plot),
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

struct PlannedJob {
    input: String,
    result: String,
    total: i64,
    failed: i64,
    created: i64,
    finished: i64,
    /// (campaign, new objective yield) of the rows applied.
    applied: Vec<(i64, f64)>,
}

/// A few objective-yield updates an integrator ran during the season, one with a refused row.
fn plan_jobs(rng: &mut StdRng, targets: &[Target], start: i64) -> Vec<PlannedJob> {
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
