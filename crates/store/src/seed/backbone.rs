//! The backbone every other group refers to: the global catalogues (crop species, units, formulation types,
//! statuses and states), the per-country catalogues (cycles, planting times, formulated products with their real
//! active ingredients), and each society's planning: master campaigns per cycle, a campaign per plot and master
//! campaign, and the cultivation (sown variety) of each campaign.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::SocietySeed;
use crate::admin::AdminError;
use crate::db::{with_reader, with_writer, BeginWrite};
use crate::Store;

/// Species: (Spanish name, Portuguese name, scientific name).
const SPECIES: &[(&str, &str, &str)] = &[
    ("Soja", "Soja", "Glycine max"),
    ("Maíz", "Milho", "Zea mays"),
    ("Trigo", "Trigo", "Triticum aestivum"),
    ("Girasol", "Girassol", "Helianthus annuus"),
    ("Sorgo", "Sorgo", "Sorghum bicolor"),
    ("Cebada", "Cevada", "Hordeum vulgare"),
    ("Algodón", "Algodão", "Gossypium hirsutum"),
    ("Frijol", "Feijão", "Phaseolus vulgaris"),
    ("Maní", "Amendoim", "Arachis hypogaea"),
];

/// Units: (name, abbreviation, kind).
const UNITS: &[(&str, &str, &str)] = &[
    ("Litro", "l", "volume"),
    ("Kilogramo", "kg", "mass"),
    ("Tonelada", "t", "mass"),
    ("Hectárea", "ha", "area"),
    ("Unidad", "u", "count"),
    ("Bolsa de semillas", "bolsa", "count"),
    ("Litros por hectárea", "l/ha", "rate"),
    ("Kilogramos por hectárea", "kg/ha", "rate"),
    ("Semillas por metro lineal", "semillas/m", "rate"),
    ("Plantas por hectárea", "plantas/ha", "rate"),
    ("Grado Celsius", "°C", "temperature"),
    ("Porcentaje", "%", "percent"),
    ("Milímetro", "mm", "length"),
    ("Partes por millón", "ppm", "concentration"),
];

/// Formulation types: (code, name).
const FORMULATION_TYPES: &[(&str, &str)] = &[
    ("SL", "Concentrado soluble"),
    ("SC", "Suspensión concentrada"),
    ("EC", "Concentrado emulsionable"),
    ("WG", "Granulado dispersable"),
    ("SE", "Suspoemulsión"),
    ("ZC", "Mezcla de suspensión de cápsulas y suspensión concentrada"),
    ("FS", "Suspensión concentrada para tratamiento de semillas"),
    ("SEM", "Semilla"),
    ("FER", "Fertilizante sólido"),
    ("FEL", "Fertilizante líquido"),
];

/// A formulated product: (name, active ingredient, formulation code, unit abbreviation, species of a seed variety).
type Product = (
    &'static str,
    &'static str,
    &'static str,
    &'static str,
    Option<&'static str>,
);

const PRODUCTS_AR: &[Product] = &[
    ("Roundup Full II", "Glifosato (sal potásica) 66,2%", "SL", "l", None),
    ("Atrazina 90 WG", "Atrazina 90%", "WG", "kg", None),
    ("2,4-D Amina 60", "2,4-D (sal dimetilamina) 60,2%", "SL", "l", None),
    ("Banvel", "Dicamba 57,71%", "SL", "l", None),
    ("Cipermetrina 25", "Cipermetrina 25%", "EC", "l", None),
    ("Coragen", "Clorantraniliprole 20%", "SC", "l", None),
    ("Amistar Xtra", "Azoxistrobina 20% + Ciproconazole 8%", "SC", "l", None),
    ("Opera", "Piraclostrobin 13,3% + Epoxiconazole 5%", "SE", "l", None),
    (
        "Fosfato diamónico 18-46-0",
        "Nitrógeno 18% + Fósforo 46%",
        "FER",
        "kg",
        None,
    ),
    ("Urea granulada 46-0-0", "Nitrógeno 46%", "FER", "kg", None),
    ("UAN 32", "Nitrógeno 32% (urea + nitrato de amonio)", "FEL", "l", None),
    (
        "DM 46i20 STS",
        "Semilla de soja grupo IV largo",
        "SEM",
        "bolsa",
        Some("Soja"),
    ),
    (
        "DM 40R16 STS",
        "Semilla de soja grupo IV corto",
        "SEM",
        "bolsa",
        Some("Soja"),
    ),
    ("NS 7921 VIP3", "Semilla de maíz híbrido", "SEM", "bolsa", Some("Maíz")),
    ("DK 72-10 VT3P", "Semilla de maíz híbrido", "SEM", "bolsa", Some("Maíz")),
    (
        "ACA 360",
        "Semilla de trigo ciclo intermedio",
        "SEM",
        "kg",
        Some("Trigo"),
    ),
    (
        "Paraíso 1000 CL Plus",
        "Semilla de girasol híbrido",
        "SEM",
        "bolsa",
        Some("Girasol"),
    ),
];

const PRODUCTS_BR: &[Product] = &[
    ("Roundup WG", "Glifosato 72% (equivalente ácido)", "WG", "kg", None),
    ("Heat", "Saflufenacil 70%", "WG", "kg", None),
    (
        "Fox Xpro",
        "Bixafem 12,5% + Protioconazol 17,5% + Trifloxistrobina 15%",
        "SC",
        "l",
        None,
    ),
    ("Elatus", "Azoxistrobina 30% + Benzovindiflupir 15%", "WG", "kg", None),
    (
        "Engeo Pleno S",
        "Tiametoxam 14,1% + Lambda-cialotrina 10,6%",
        "ZC",
        "l",
        None,
    ),
    ("Premio", "Clorantraniliprole 20%", "SC", "l", None),
    ("Cloreto de potássio 60%", "Potássio (K2O) 60%", "FER", "kg", None),
    ("MAP 11-52-00", "Nitrogênio 11% + Fósforo 52%", "FER", "kg", None),
    (
        "Brasmax Olimpo IPRO",
        "Semente de soja grupo 8.0",
        "SEM",
        "bolsa",
        Some("Soja"),
    ),
    (
        "NEO 790 IPRO",
        "Semente de soja grupo 7.9",
        "SEM",
        "bolsa",
        Some("Soja"),
    ),
    ("AG 8701 PRO4", "Semente de milho híbrido", "SEM", "bolsa", Some("Maíz")),
    ("DKB 360 PRO3", "Semente de milho híbrido", "SEM", "bolsa", Some("Maíz")),
    ("TMG 47 B2RF", "Semente de algodão", "SEM", "bolsa", Some("Algodón")),
];

const PRODUCTS_MX: &[Product] = &[
    (
        "Faena Fuerte 360",
        "Glifosato 35,6% (equivalente ácido)",
        "SL",
        "l",
        None,
    ),
    ("Gesaprim Calibre 90", "Atrazina 88,4%", "WG", "kg", None),
    ("Hierbamina", "2,4-D (sal dimetilamina) 49,4%", "SL", "l", None),
    (
        "Ampligo 150 ZC",
        "Clorantraniliprol 9,26% + Lambda-cihalotrina 4,63%",
        "ZC",
        "l",
        None,
    ),
    ("Tilt 250 CE", "Propiconazol 25%", "EC", "l", None),
    (
        "Sulfato de amonio 20.5-0-0",
        "Nitrógeno 20,5% + Azufre 24%",
        "FER",
        "kg",
        None,
    ),
    ("Urea 46%", "Nitrógeno 46%", "FER", "kg", None),
    (
        "DK-4050",
        "Semilla de maíz híbrido blanco",
        "SEM",
        "bolsa",
        Some("Maíz"),
    ),
    ("P3258W", "Semilla de maíz híbrido blanco", "SEM", "bolsa", Some("Maíz")),
    ("DK-53", "Semilla de sorgo granífero", "SEM", "bolsa", Some("Sorgo")),
    ("Pinto Saltillo", "Semilla de frijol pinto", "SEM", "kg", Some("Frijol")),
    (
        "Borlaug 100 F2014",
        "Semilla de trigo harinero",
        "SEM",
        "kg",
        Some("Trigo"),
    ),
];

/// Cycles per country: (country, name, start, end).
const CYCLES: &[(&str, &str, &str, &str)] = &[
    ("AR", "2023/2024", "2023-07-01", "2024-06-30"),
    ("AR", "2024/2025", "2024-07-01", "2025-06-30"),
    ("AR", "2025/2026", "2025-07-01", "2026-06-30"),
    ("BR", "Safra 2024/25", "2024-09-01", "2025-08-31"),
    ("BR", "Safrinha 2025", "2025-01-15", "2025-08-31"),
    ("BR", "Safra 2025/26", "2025-09-01", "2026-08-31"),
    ("MX", "OI 2024-2025", "2024-10-01", "2025-05-31"),
    ("MX", "PV 2025", "2025-04-01", "2025-11-30"),
    ("MX", "OI 2025-2026", "2025-10-01", "2026-05-31"),
];

/// Planting times per country: (country, name, description).
const PLANTING_TIMES: &[(&str, &str, &str)] = &[
    ("AR", "Primera", "Siembra de primera, sobre barbecho"),
    ("AR", "Segunda", "Siembra de segunda, después de un cultivo de invierno"),
    ("AR", "Temprana", "Siembra temprana de primavera"),
    ("AR", "Tardía", "Siembra tardía de diciembre o enero"),
    ("AR", "Invierno", "Cultivo de invierno"),
    ("BR", "Safra", "Primeira safra, semeadura de setembro a dezembro"),
    ("BR", "Safrinha", "Segunda safra, após a soja"),
    ("MX", "Temporal", "Siembra de temporal, dependiente de lluvias"),
    ("MX", "Riego", "Siembra con riego"),
];

/// Master campaigns per country: (country, name, species, planting time, cycle, objective yield t/ha).
const MASTER_CAMPAIGNS: &[(&str, &str, &str, &str, &str, f64)] = &[
    ("AR", "Soja 1ra 24/25", "Soja", "Primera", "2024/2025", 3.3),
    ("AR", "Soja 2da 24/25", "Soja", "Segunda", "2024/2025", 2.4),
    ("AR", "Maíz temprano 24/25", "Maíz", "Temprana", "2024/2025", 9.5),
    ("AR", "Maíz tardío 24/25", "Maíz", "Tardía", "2024/2025", 7.8),
    ("AR", "Girasol 24/25", "Girasol", "Primera", "2024/2025", 2.3),
    ("AR", "Trigo 2025", "Trigo", "Invierno", "2025/2026", 3.6),
    ("AR", "Soja 1ra 25/26", "Soja", "Primera", "2025/2026", 3.3),
    ("AR", "Maíz temprano 25/26", "Maíz", "Temprana", "2025/2026", 9.5),
    ("BR", "Soja safra 24/25", "Soja", "Safra", "Safra 2024/25", 3.7),
    ("BR", "Milho safrinha 2025", "Maíz", "Safrinha", "Safrinha 2025", 6.0),
    ("BR", "Algodão safra 24/25", "Algodón", "Safra", "Safra 2024/25", 4.6),
    ("BR", "Soja safra 25/26", "Soja", "Safra", "Safra 2025/26", 3.7),
    ("MX", "Maíz PV 2025 temporal", "Maíz", "Temporal", "PV 2025", 3.2),
    ("MX", "Maíz OI 2024-2025 riego", "Maíz", "Riego", "OI 2024-2025", 9.8),
    ("MX", "Sorgo PV 2025", "Sorgo", "Temporal", "PV 2025", 5.2),
    ("MX", "Frijol PV 2025", "Frijol", "Temporal", "PV 2025", 1.1),
    ("MX", "Trigo OI 2024-2025", "Trigo", "Riego", "OI 2024-2025", 6.1),
];

const ACTIVITY_STATUSES: &[(&str, &str)] = &[
    ("Planificada", "Planificada, sin labores iniciadas"),
    ("En curso", "Con labores en ejecución"),
    ("Finalizada", "Cosechada o cerrada"),
    ("Cancelada", "No se realizará"),
];

const HYDRIC_STATES: &[(&str, &str)] = &[
    ("Seco", "Sin agua útil en el perfil"),
    ("Deficitario", "Agua útil por debajo del 40%"),
    ("Óptimo", "Agua útil entre 40% y 80%"),
    ("Excesivo", "Perfil saturado"),
    ("Anegado", "Agua en superficie"),
];

/// Phenological scales: (species, [(code, name)]).
const PHENOLOGY: &[(&str, &[(&str, &str)])] = &[
    (
        "Soja",
        &[
            ("VE", "Emergencia"),
            ("VC", "Cotiledonar"),
            ("V1", "Primer nudo"),
            ("V3", "Tercer nudo"),
            ("V6", "Sexto nudo"),
            ("R1", "Inicio de floración"),
            ("R3", "Inicio de formación de vainas"),
            ("R5", "Inicio de llenado de granos"),
            ("R7", "Madurez fisiológica"),
            ("R8", "Madurez de cosecha"),
        ],
    ),
    (
        "Maíz",
        &[
            ("VE", "Emergencia"),
            ("V4", "Cuarta hoja"),
            ("V8", "Octava hoja"),
            ("V12", "Duodécima hoja"),
            ("VT", "Panojamiento"),
            ("R1", "Emisión de estigmas"),
            ("R3", "Grano lechoso"),
            ("R5", "Grano dentado"),
            ("R6", "Madurez fisiológica"),
        ],
    ),
    (
        "Trigo",
        &[
            ("Z10", "Emergencia"),
            ("Z21", "Inicio de macollaje"),
            ("Z31", "Primer nudo visible"),
            ("Z39", "Hoja bandera"),
            ("Z65", "Antesis"),
            ("Z87", "Grano pastoso duro"),
            ("Z92", "Madurez de cosecha"),
        ],
    ),
    (
        "Girasol",
        &[
            ("VE", "Emergencia"),
            ("V4", "Cuarta hoja"),
            ("R1", "Botón floral"),
            ("R5", "Floración"),
            ("R9", "Madurez"),
        ],
    ),
];

/// Inserts a catalogue row and answers its id; `$sql` must end in `RETURNING id`.
macro_rules! insert_id {
    ($tx:expr, $sql:expr $(, $arg:expr)*) => {{
        let id: i64 = sqlx::query_scalar($sql)$(.bind($arg))*.fetch_one(&mut *$tx).await?;
        id
    }};
}

/// Seeds the global and per-country catalogues.
pub(crate) async fn global(store: &Store, origin: i64) -> Result<(), AdminError> {
    let at = origin - 30 * 24 * 3_600_000;
    with_writer!(&store.db, pool => {
        let mut tx = pool.begin_write().await?;
        let mut species = HashMap::new();
        for (name, name_pt, scientific) in SPECIES {
            let id = insert_id!(tx, "INSERT INTO species (name, name_pt, scientific_name, created_at, updated_at) \
                VALUES ($1, $2, $3, $4, $4) RETURNING id", *name, *name_pt, *scientific, at);
            species.insert(*name, id);
        }
        let mut units = HashMap::new();
        for (name, abbreviation, kind) in UNITS {
            let id = insert_id!(tx, "INSERT INTO units (name, abbreviation, kind, created_at, updated_at) \
                VALUES ($1, $2, $3, $4, $4) RETURNING id", *name, *abbreviation, *kind, at);
            units.insert(*abbreviation, id);
        }
        let mut formulation_types = HashMap::new();
        for (code, name) in FORMULATION_TYPES {
            let id = insert_id!(tx, "INSERT INTO formulation_types (code, name, created_at, updated_at) \
                VALUES ($1, $2, $3, $3) RETURNING id", *code, *name, at);
            formulation_types.insert(*code, id);
        }
        for (country, products, registry) in [("AR", PRODUCTS_AR, "SENASA"), ("BR", PRODUCTS_BR, "MAPA"), ("MX", PRODUCTS_MX, "RSCO")] {
            for (index, (name, ingredient, formulation, unit, variety_of)) in products.iter().enumerate() {
                let code = format!("{registry}-{:05}", 31_400 + index * 37);
                sqlx::query(
                    "INSERT INTO formulateds (country, name, external_code, active_ingredient, formulation_type_id, \
                     unit_id, species_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
                )
                .bind(country)
                .bind(*name)
                .bind(code)
                .bind(*ingredient)
                .bind(formulation_types.get(formulation).copied())
                .bind(units.get(unit).copied())
                .bind(variety_of.and_then(|s| species.get(s).copied()))
                .bind(at)
                .execute(&mut *tx)
                .await?;
            }
        }
        for (country, name, start, end) in CYCLES {
            sqlx::query(
                "INSERT INTO master_campaign_cycles (country, name, start_date, end_date, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $5)",
            )
            .bind(*country).bind(*name).bind(*start).bind(*end).bind(at)
            .execute(&mut *tx)
            .await?;
        }
        for (country, name, description) in PLANTING_TIMES {
            sqlx::query(
                "INSERT INTO planting_times (country, name, description, created_at, updated_at) VALUES ($1, $2, $3, $4, $4)",
            )
            .bind(*country).bind(*name).bind(*description).bind(at)
            .execute(&mut *tx)
            .await?;
        }
        for (table, rows) in [("activity_statuses", ACTIVITY_STATUSES), ("hydric_states", HYDRIC_STATES)] {
            for (name, description) in rows {
                sqlx::query(&format!(
                    "INSERT INTO {table} (name, description, created_at, updated_at) VALUES ($1, $2, $3, $3)"
                ))
                .bind(*name).bind(*description).bind(at)
                .execute(&mut *tx)
                .await?;
            }
        }
        for (species_name, stages) in PHENOLOGY {
            for (position, (code, name)) in stages.iter().enumerate() {
                sqlx::query(
                    "INSERT INTO phenological_states (species_id, code, name, position, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $5)",
                )
                .bind(species.get(species_name).copied())
                .bind(*code)
                .bind(*name)
                .bind(i64::try_from(position).unwrap_or_default() + 1)
                .bind(at)
                .execute(&mut *tx)
                .await?;
            }
        }
        tx.commit().await?;
    });
    Ok(())
}

#[derive(sqlx::FromRow)]
struct PlotRow {
    id: i64,
    area: f64,
    created_at: i64,
}

/// Ids by name.
type Ids = HashMap<String, i64>;

/// A master campaign of the society and what its campaigns need.
struct Planning {
    id: i64,
    name: &'static str,
    objective_yield: f64,
    varieties: Vec<i64>,
    planting_date: String,
}

/// Seeds a society's master campaigns, a campaign per plot for one or two of them, and each campaign's cultivation.
pub(crate) async fn society(store: &Store, society: &SocietySeed) -> Result<(), AdminError> {
    let mut rng = StdRng::seed_from_u64(society.seed ^ 0x4241_434b);
    let society_id = society.society_id;
    let plots: Vec<PlotRow> = with_reader!(&store.db, pool => {
        sqlx::query_as("SELECT id, area, created_at FROM plots WHERE society_id = $1 ORDER BY id")
            .bind(society_id)
            .fetch_all(pool)
            .await?
    });
    let lookup = |rows: Vec<(i64, String)>| rows.into_iter().map(|(id, name)| (name, id)).collect::<HashMap<_, _>>();
    let (species, cycles, times, statuses): (Ids, Ids, Ids, Vec<i64>) = with_reader!(&store.db, pool => {
        let species = sqlx::query_as("SELECT id, name FROM species").fetch_all(pool).await?;
        let cycles = sqlx::query_as("SELECT id, name FROM master_campaign_cycles WHERE country = $1")
            .bind(society.country).fetch_all(pool).await?;
        let times = sqlx::query_as("SELECT id, name FROM planting_times WHERE country = $1")
            .bind(society.country).fetch_all(pool).await?;
        let statuses = sqlx::query_scalar("SELECT id FROM activity_statuses ORDER BY id").fetch_all(pool).await?;
        (lookup(species), lookup(cycles), lookup(times), statuses)
    });
    let varieties: Vec<(i64, i64)> = with_reader!(&store.db, pool => {
        sqlx::query_as("SELECT id, species_id FROM formulateds WHERE country = $1 AND species_id IS NOT NULL ORDER BY id")
            .bind(society.country)
            .fetch_all(pool)
            .await?
    });
    let created = society.origin + 45 * 24 * 3_600_000;
    with_writer!(&store.db, pool => {
        let mut tx = pool.begin_write().await?;
        let mut plans = Vec::new();
        for (_, name, species_name, time, cycle, objective) in MASTER_CAMPAIGNS.iter().filter(|m| m.0 == society.country) {
            let (Some(species_id), Some(time_id), Some(cycle_id)) =
                (species.get(*species_name), times.get(*time), cycles.get(*cycle))
            else {
                continue;
            };
            let id = insert_id!(tx, "INSERT INTO master_campaigns (society_id, name, species_id, planting_time_id, \
                cycle_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6) RETURNING id",
                society_id, *name, *species_id, *time_id, *cycle_id, created);
            let cycle_start = CYCLES.iter().find(|c| c.0 == society.country && c.1 == *cycle).map_or("2025-01-01", |c| c.2);
            plans.push(Planning {
                id,
                name,
                objective_yield: *objective,
                varieties: varieties.iter().filter(|(_, s)| s == species_id).map(|(id, _)| *id).collect(),
                planting_date: planting_date(cycle_start, society.country),
            });
        }
        let mut campaign_number = 0;
        for plot in &plots {
            // A plot carries one or two campaigns: a summer crop, sometimes preceded by a winter one.
            let count = if rng.gen_bool(0.35) { 2 } else { 1 };
            let first = rng.gen_range(0..plans.len().max(1));
            for offset in 0..count {
                let Some(plan) = plans.get((first + offset * 3) % plans.len().max(1)) else { continue };
                campaign_number += 1;
                let area = (plot.area * rng.gen_range(0.85..=1.0) * 100.0).round() / 100.0;
                let at = plot.created_at.max(created) + i64::from(campaign_number) * 60_000;
                let status = statuses.get(rng.gen_range(0..statuses.len().max(1))).copied();
                let campaign_id = insert_id!(tx, "INSERT INTO campaigns (society_id, master_campaign_id, plot_id, \
                    activity_status_id, name, external_code, area, planting_date, objective_yield, created_at, updated_at) \
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id",
                    society_id, plan.id, plot.id, status, plan.name, format!("CMP-{campaign_number:06}"), area,
                    plan.planting_date.clone(), (plan.objective_yield * rng.gen_range(0.9..1.1) * 100.0).round() / 100.0, at);
                // A campaign still being planned has nothing sown yet, so no cultivation row.
                let sown = status != statuses.first().copied();
                if let Some(variety) = plan.varieties.get(rng.gen_range(0..plan.varieties.len().max(1))).filter(|_| sown) {
                    sqlx::query(
                        "INSERT INTO cultivations (society_id, plot_id, campaign_id, formulated_id, area, created_at, \
                         updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)",
                    )
                    .bind(society_id).bind(plot.id).bind(campaign_id).bind(*variety).bind(area).bind(at)
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }
        tx.commit().await?;
    });
    Ok(())
}

/// A sowing date typical of the cycle: spring sowing in the southern countries, the cycle's start in Mexico.
fn planting_date(cycle_start: &str, country: &str) -> String {
    let year = cycle_start.get(..4).unwrap_or("2025");
    match country {
        "AR" => format!("{year}-10-15"),
        "BR" => format!("{year}-10-01"),
        _ => format!("{}-15", cycle_start.get(..7).unwrap_or("2025-04")),
    }
}
