//! Demo data of the field group: the adversity, weather and IoT catalogues, and per society what the field teams
//! record over a season — scoutings with their measures and pictures, planting and harvest progress, controls,
//! silobags with the grain stored in them, weather samples with anomalies, and devices with a week of hourly readings.
//!
//! Everything is drawn from one seeded generator per society, so the same options give the same rows and ids.
//! Rows made only of numbers (measures, progress, readings) are inserted many to a statement, because they are most
//! of the volume and one round trip per row would make the PostgreSQL demo slow; rows with text are bound one by one.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::SocietySeed;
use crate::admin::AdminError;
use crate::db::{with_writer, BeginWrite};
use crate::Store;

/// This group's share of a society's seed, so its draws do not depend on other groups' ("FIEL").
const GROUP: u64 = 0x4649_454c;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

/// Rows per multi-row `INSERT`: far below either backend's limit on statement size.
const BATCH: usize = 400;

/// Inserts literal rows (`"(1, 2.5, NULL)"`) many to a statement. Only for values this module formats from numbers,
/// never for text that came from outside.
macro_rules! insert_rows {
    ($tx:expr, $head:expr, $rows:expr) => {
        for chunk in $rows.chunks(BATCH) {
            let sql = format!("INSERT INTO {} VALUES {}", $head, chunk.join(", "));
            sqlx::raw_sql(&sql).execute(&mut *$tx).await?;
        }
    };
}

/// A kind of adversity with its categories, each with its adversities (common name, scientific name).
type AdversityTree = &'static [(&'static str, &'static [Category])];

struct Category {
    name: &'static str,
    description: &'static str,
    adversities: &'static [(&'static str, &'static str)],
}

const ADVERSITIES: AdversityTree = &[
    (
        "Plaga",
        &[
            Category {
                name: "Insectos chupadores",
                description: "Chinches, pulgones y trips que se alimentan de savia y granos.",
                adversities: &[
                    ("Chinche verde", "Nezara viridula"),
                    ("Chinche de la alfalfa", "Piezodorus guildinii"),
                    ("Chinche marrón", "Euschistus heros"),
                    ("Pulgón verde de los cereales", "Schizaphis graminum"),
                    ("Trips", "Caliothrips phaseoli"),
                ],
            },
            Category {
                name: "Lepidópteros",
                description: "Orugas defoliadoras, cogolleras y barrenadoras.",
                adversities: &[
                    ("Oruga bolillera", "Helicoverpa gelotopoeon"),
                    ("Cogollero", "Spodoptera frugiperda"),
                    ("Oruga medidora", "Rachiplusia nu"),
                    ("Oruga de las leguminosas", "Anticarsia gemmatalis"),
                    ("Barrenador del tallo", "Diatraea saccharalis"),
                ],
            },
            Category {
                name: "Ácaros",
                description: "",
                adversities: &[("Arañuela roja", "Tetranychus urticae")],
            },
            Category {
                name: "Coleópteros",
                description: "Gusanos blancos y picudos.",
                adversities: &[
                    ("Picudo del algodonero", "Anthonomus grandis"),
                    ("Gusano blanco", "Diloboderus abderus"),
                ],
            },
        ],
    ),
    (
        "Enfermedad",
        &[
            Category {
                name: "Hongos foliares",
                description: "Royas y manchas foliares.",
                adversities: &[
                    ("Roya asiática", "Phakopsora pachyrhizi"),
                    ("Mancha ojo de rana", "Cercospora sojina"),
                    ("Tizón foliar", "Exserohilum turcicum"),
                    ("Roya común del maíz", "Puccinia sorghi"),
                    ("Mancha amarilla", "Drechslera tritici-repentis"),
                ],
            },
            Category {
                name: "Enfermedades de raíz y tallo",
                description: "Podredumbres que avanzan desde el suelo.",
                adversities: &[
                    ("Podredumbre carbonosa", "Macrophomina phaseolina"),
                    ("Podredumbre húmeda del tallo", "Sclerotinia sclerotiorum"),
                ],
            },
            Category {
                name: "Virus y bacterias",
                description: "",
                adversities: &[("Achaparramiento del maíz", "Spiroplasma kunkelii")],
            },
        ],
    ),
    (
        "Maleza",
        &[
            Category {
                name: "Malezas latifoliadas",
                description: "Malezas de hoja ancha.",
                adversities: &[
                    ("Yuyo colorado", "Amaranthus hybridus"),
                    ("Rama negra", "Conyza bonariensis"),
                    ("Chamico", "Datura ferox"),
                    ("Quinoa", "Chenopodium album"),
                ],
            },
            Category {
                name: "Gramíneas",
                description: "Malezas de hoja angosta.",
                adversities: &[
                    ("Sorgo de Alepo", "Sorghum halepense"),
                    ("Pasto cuaresma", "Digitaria sanguinalis"),
                    ("Capín", "Echinochloa colona"),
                ],
            },
            Category {
                name: "Ciperáceas",
                description: "",
                adversities: &[("Cebollín", "Cyperus rotundus")],
            },
        ],
    ),
];

/// Climatic factors and the anomaly types of each.
const WEATHER: &[(&str, &[&str])] = &[
    ("Granizo", &["Granizo leve", "Granizo severo"]),
    ("Helada", &["Helada temprana", "Helada tardía"]),
    ("Precipitación", &["Sequía", "Anegamiento", "Lluvia intensa"]),
    ("Viento", &["Viento fuerte", "Voladura de suelo"]),
    ("Temperatura", &["Golpe de calor"]),
];

/// Device event types: code, name, unit abbreviation (a backbone unit).
const EVENT_TYPES: &[(&str, &str, &str)] = &[
    ("temperature", "Temperatura", "°C"),
    ("relative_humidity", "Humedad relativa", "%"),
    ("co2", "Dióxido de carbono", "ppm"),
    ("rain", "Lluvia", "mm"),
    ("soil_moisture", "Humedad de suelo", "%"),
];

/// Seeds the field group's global catalogues.
pub(crate) async fn global(store: &Store, origin: i64) -> Result<(), AdminError> {
    // Catalogues predate the history the societies' records are spread over.
    let at = origin - 90 * DAY;
    with_writer!(&store.db, pool => {
        let mut tx = pool.begin_write().await?;
        for (kind, categories) in ADVERSITIES {
            let kind_id: i64 = sqlx::query_scalar(
                "INSERT INTO adversity_kinds (name, created_at, updated_at) VALUES ($1, $2, $2) RETURNING id",
            )
            .bind(*kind)
            .bind(at)
            .fetch_one(&mut *tx)
            .await?;
            for category in *categories {
                let category_id: i64 = sqlx::query_scalar(
                    "INSERT INTO adversity_categories (adv_kind_id, name, description, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $4) RETURNING id",
                )
                .bind(kind_id)
                .bind(category.name)
                .bind(category.description)
                .bind(at)
                .fetch_one(&mut *tx)
                .await?;
                for (name, scientific) in category.adversities {
                    sqlx::query(
                        "INSERT INTO adversities (adv_kind_id, adv_category_id, name, scientific_name, created_at, \
                         updated_at) VALUES ($1, $2, $3, $4, $5, $5)",
                    )
                    .bind(kind_id)
                    .bind(category_id)
                    .bind(*name)
                    .bind(*scientific)
                    .bind(at)
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }
        for (factor, types) in WEATHER {
            let factor_id: i64 = sqlx::query_scalar(
                "INSERT INTO climatic_factors (name, created_at, updated_at) VALUES ($1, $2, $2) RETURNING id",
            )
            .bind(*factor)
            .bind(at)
            .fetch_one(&mut *tx)
            .await?;
            for name in *types {
                sqlx::query(
                    "INSERT INTO weather_anomaly_types (climatic_factor_id, name, created_at, updated_at) \
                     VALUES ($1, $2, $3, $3)",
                )
                .bind(factor_id)
                .bind(*name)
                .bind(at)
                .execute(&mut *tx)
                .await?;
            }
        }
        for (code, name, unit) in EVENT_TYPES {
            // A type whose unit the backbone does not have is left out rather than pointed at a wrong unit.
            sqlx::query(
                "INSERT INTO device_event_types (code, name, unit_id, created_at, updated_at) \
                 SELECT $1, $2, u.id, $4, $4 FROM units u WHERE u.abbreviation = $3 ORDER BY u.id LIMIT 1",
            )
            .bind(*code)
            .bind(*name)
            .bind(*unit)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
    });
    Ok(())
}

/// What a country's field records look like.
struct Place {
    /// Centre of the demo's farms (decimal degrees).
    centre: (f64, f64),
    scouts: &'static [&'static str],
    notes: &'static [&'static str],
    silo_word: &'static str,
}

fn place(country: &str) -> Place {
    match country {
        "BR" => Place {
            centre: (-17.80, -50.93),
            scouts: &[
                "Eng. Agr. Ricardo Moura",
                "Téc. Camila Borges",
                "Eng. Agr. Tiago Lemos",
                "Téc. Bruno Farias",
            ],
            notes: &[
                "Lavoura uniforme, sem problemas relevantes.",
                "Reboleiras de ferrugem na borda do talhão.",
                "Pressão de percevejos acima do nível de ação.",
                "Plantas daninhas escapando na entrelinha.",
                "Solo com boa umidade após a chuva.",
            ],
            silo_word: "Silo bolsa",
        },
        "MX" => Place {
            centre: (20.52, -100.81),
            scouts: &[
                "Ing. Jorge Salinas",
                "Ing. Paola Medina",
                "Téc. Ramón Aguilar",
                "Ing. Diana Cervantes",
            ],
            notes: &[
                "Cultivo parejo, sin problemas.",
                "Gusano cogollero en las orillas de la parcela.",
                "Malezas de hoja ancha después del riego.",
                "Se recomienda aplicar en los próximos días.",
                "Humedad adecuada tras el riego de auxilio.",
            ],
            silo_word: "Silobolsa",
        },
        _ => Place {
            centre: (-36.62, -64.29),
            scouts: &[
                "Ing. Agr. Pablo Ruiz",
                "Ing. Agr. Carolina Díaz",
                "Téc. Matías Acosta",
                "Ing. Agr. Sofía Herrera",
            ],
            notes: &[
                "Lote parejo, sin problemas relevantes.",
                "Manchones de yuyo colorado resistente en cabeceras.",
                "Chinches por encima del umbral en el sector bajo.",
                "Roya asiática incipiente en el tercio inferior.",
                "Buena humedad en el perfil después de la lluvia.",
            ],
            silo_word: "Silobolsa",
        },
    }
}

/// How a species behaves in the demo: days from planting to harvest, yield (kg/ha), harvest humidity (%), planting
/// density (seeds per metre) and plant stand (plants per hectare).
struct Crop {
    days: i64,
    yield_kg_ha: (f64, f64),
    humidity: (f64, f64),
    seeds_per_m: f64,
    plants_per_ha: f64,
}

fn crop(scientific_name: &str, name: &str) -> Crop {
    let key = format!("{} {}", scientific_name, name).to_lowercase();
    let is = |words: &[&str]| words.iter().any(|w| key.contains(w));
    if is(&["glycine", "soja", "soya"]) {
        Crop {
            days: 150,
            yield_kg_ha: (2600.0, 4000.0),
            humidity: (12.5, 15.0),
            seeds_per_m: 18.0,
            plants_per_ha: 300_000.0,
        }
    } else if is(&["zea", "maíz", "maiz", "milho"]) {
        Crop {
            days: 165,
            yield_kg_ha: (7000.0, 11_500.0),
            humidity: (14.0, 18.0),
            seeds_per_m: 3.8,
            plants_per_ha: 75_000.0,
        }
    } else if is(&["triticum", "trigo"]) {
        Crop {
            days: 180,
            yield_kg_ha: (2800.0, 4800.0),
            humidity: (12.0, 14.0),
            seeds_per_m: 55.0,
            plants_per_ha: 2_500_000.0,
        }
    } else if is(&["helianthus", "girasol"]) {
        Crop {
            days: 140,
            yield_kg_ha: (1900.0, 2900.0),
            humidity: (9.0, 12.0),
            seeds_per_m: 3.5,
            plants_per_ha: 50_000.0,
        }
    } else if is(&["sorghum", "sorgo"]) {
        Crop {
            days: 150,
            yield_kg_ha: (4500.0, 7000.0),
            humidity: (13.0, 16.0),
            seeds_per_m: 12.0,
            plants_per_ha: 180_000.0,
        }
    } else if is(&["hordeum", "cebada", "cevada"]) {
        Crop {
            days: 170,
            yield_kg_ha: (3200.0, 5200.0),
            humidity: (12.0, 14.0),
            seeds_per_m: 50.0,
            plants_per_ha: 2_300_000.0,
        }
    } else if is(&["gossypium", "algod"]) {
        Crop {
            days: 180,
            yield_kg_ha: (3500.0, 4800.0),
            humidity: (8.0, 11.0),
            seeds_per_m: 9.0,
            plants_per_ha: 100_000.0,
        }
    } else if is(&["phaseolus", "frijol", "feij"]) {
        Crop {
            days: 100,
            yield_kg_ha: (1200.0, 2200.0),
            humidity: (13.0, 16.0),
            seeds_per_m: 12.0,
            plants_per_ha: 220_000.0,
        }
    } else {
        Crop {
            days: 150,
            yield_kg_ha: (2500.0, 5000.0),
            humidity: (12.0, 15.0),
            seeds_per_m: 15.0,
            plants_per_ha: 250_000.0,
        }
    }
}

#[derive(sqlx::FromRow)]
struct PlotRow {
    id: i64,
    establishment_id: i64,
}

#[derive(sqlx::FromRow)]
struct CampaignRow {
    id: i64,
    plot_id: i64,
    establishment_id: i64,
    area: f64,
    planting_date: Option<String>,
    species_id: i64,
    species_name: String,
    scientific_name: String,
}

/// When a campaign's planting starts: its `planting_date` (else four months into the demo's history), a few days
/// later for some campaigns, as no farm plants every plot on one day.
fn planting_start(campaign: &CampaignRow, origin: i64) -> i64 {
    let stagger = campaign.id.rem_euclid(21) * DAY;
    stagger
        + campaign
            .planting_date
            .as_deref()
            .and_then(|d| chrono::NaiveDate::parse_from_str(d.get(..10).unwrap_or(d), "%Y-%m-%d").ok())
            .and_then(|d| d.and_hms_opt(12, 0, 0))
            .map_or(origin + 120 * DAY, |d| d.and_utc().timestamp_millis())
}

fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

fn opt_int(value: Option<i64>) -> String {
    value.map_or_else(|| "NULL".to_owned(), |v| v.to_string())
}

fn opt_float(value: Option<f64>) -> String {
    value.map_or_else(|| "NULL".to_owned(), |v| format!("{v:.2}"))
}

/// A record's audit: created a little after `date`; a few are inactive, and fewer logically deleted later.
/// Returns (created_at, updated_at, deleted_at, active).
fn audit(rng: &mut StdRng, date: i64) -> (i64, i64, Option<i64>, bool) {
    let created = date + rng.gen_range(HOUR..(30 * HOUR));
    if rng.gen_bool(0.02) {
        let deleted = created + rng.gen_range(DAY..(20 * DAY));
        (created, deleted, Some(deleted), true)
    } else if rng.gen_bool(0.04) {
        let updated = created + rng.gen_range(HOUR..(10 * DAY));
        (created, updated, None, false)
    } else {
        (created, created, None, true)
    }
}

/// Seeds the field group's data of one society.
pub(crate) async fn society(store: &Store, society: &SocietySeed) -> Result<(), AdminError> {
    let mut rng = StdRng::seed_from_u64(society.seed ^ GROUP);
    let society_id = society.society_id;
    let origin = society.origin;
    let place = place(society.country);
    with_writer!(&store.db, pool => {
        let mut tx = pool.begin_write().await?;
        let plots: Vec<PlotRow> = sqlx::query_as(
            "SELECT p.id, p.establishment_id FROM plots p WHERE p.society_id = $1 AND p.deleted_at IS NULL ORDER BY p.id",
        )
        .bind(society_id)
        .fetch_all(&mut *tx)
        .await?;
        let campaigns: Vec<CampaignRow> = sqlx::query_as(
            "SELECT c.id, c.plot_id, p.establishment_id, c.area, c.planting_date, m.species_id, \
             s.name AS species_name, s.scientific_name \
             FROM campaigns c \
             JOIN plots p ON p.society_id = c.society_id AND p.id = c.plot_id \
             JOIN master_campaigns m ON m.society_id = c.society_id AND m.id = c.master_campaign_id \
             JOIN species s ON s.id = m.species_id \
             WHERE c.society_id = $1 AND c.deleted_at IS NULL ORDER BY c.id",
        )
        .bind(society_id)
        .fetch_all(&mut *tx)
        .await?;
        let adversities: Vec<(i64, String)> = sqlx::query_as(
            "SELECT a.id, k.name FROM adversities a JOIN adversity_kinds k ON k.id = a.adv_kind_id \
             WHERE a.deleted_at IS NULL ORDER BY a.id",
        )
        .fetch_all(&mut *tx)
        .await?;
        let hydric: Vec<i64> = sqlx::query_scalar("SELECT id FROM hydric_states WHERE deleted_at IS NULL ORDER BY id")
            .fetch_all(&mut *tx)
            .await?;
        let phenological: Vec<(i64, i64)> = sqlx::query_as(
            "SELECT species_id, id FROM phenological_states WHERE deleted_at IS NULL ORDER BY species_id, position, id",
        )
        .fetch_all(&mut *tx)
        .await?;
        let units: Vec<(String, i64)> = sqlx::query_as(
            "SELECT abbreviation, MIN(id) FROM units WHERE deleted_at IS NULL GROUP BY abbreviation",
        )
        .fetch_all(&mut *tx)
        .await?;
        let products: Vec<(i64, Option<i64>, String)> = sqlx::query_as(
            "SELECT f.id, f.species_id, ft.code FROM formulateds f JOIN formulation_types ft ON ft.id = f.formulation_type_id \
             WHERE f.country = $1 AND f.deleted_at IS NULL ORDER BY f.id",
        )
        .bind(society.country)
        .fetch_all(&mut *tx)
        .await?;
        let species: Vec<i64> = sqlx::query_scalar("SELECT id FROM species WHERE deleted_at IS NULL ORDER BY id")
            .fetch_all(&mut *tx)
            .await?;
        let anomaly_types: Vec<i64> =
            sqlx::query_scalar("SELECT id FROM weather_anomaly_types WHERE deleted_at IS NULL ORDER BY id")
                .fetch_all(&mut *tx)
                .await?;
        let event_types: Vec<(String, i64)> =
            sqlx::query_as("SELECT code, id FROM device_event_types WHERE deleted_at IS NULL ORDER BY id")
                .fetch_all(&mut *tx)
                .await?;

        let mut states_of: HashMap<i64, Vec<i64>> = HashMap::new();
        for (species_id, id) in phenological {
            states_of.entry(species_id).or_default().push(id);
        }
        let unit = |abbreviation: &str| units.iter().find(|(a, _)| a == abbreviation).map(|(_, id)| *id);
        let event_type = |code: &str| event_types.iter().find(|(c, _)| c == code).map(|(_, id)| *id);
        let of_kind = |kind: &str| -> Vec<i64> {
            adversities.iter().filter(|(_, k)| k == kind).map(|(id, _)| *id).collect()
        };
        let (pests, diseases, weeds) = (of_kind("Plaga"), of_kind("Enfermedad"), of_kind("Maleza"));
        let mut campaigns_of: HashMap<i64, Vec<&CampaignRow>> = HashMap::new();
        for campaign in &campaigns {
            campaigns_of.entry(campaign.plot_id).or_default().push(campaign);
        }
        // Each establishment sits somewhere around the country's centre; its plots within a few kilometres.
        let mut farm_at: HashMap<i64, (f64, f64)> = HashMap::new();
        let mut plot_at: HashMap<i64, (f64, f64)> = HashMap::new();
        for plot in &plots {
            let centre = place.centre;
            let farm = *farm_at
                .entry(plot.establishment_id)
                .or_insert_with(|| (centre.0 + rng.gen_range(-0.6..0.6), centre.1 + rng.gen_range(-0.6..0.6)));
            plot_at.insert(plot.id, (farm.0 + rng.gen_range(-0.03..0.03), farm.1 + rng.gen_range(-0.03..0.03)));
        }
        let any_adversity: Vec<i64> = adversities.iter().map(|(id, _)| *id).collect();

        // Scoutings, their measures and their pictures.
        let mut measures = Vec::new();
        let mut trap_scouting = 1000;
        for plot in &plots {
            let visits: Vec<(Option<&CampaignRow>, i64, f64)> = match campaigns_of.get(&plot.id) {
                Some(list) => list
                    .iter()
                    .flat_map(|c| {
                        let start = planting_start(c, origin);
                        let days = crop(&c.scientific_name, &c.species_name).days;
                        (0..3).map(move |v| (Some(*c), start + (15 + v * days / 3) * DAY, v as f64 / 3.0))
                    })
                    .collect(),
                None => (0..2).map(|v| (None, origin + (30 + v * 90) * DAY, 0.0)).collect(),
            };
            for (campaign, day, season) in visits {
                let date = day + rng.gen_range(8..18) * HOUR + rng.gen_range(0..60) * 60_000;
                let kind = *[ "pests", "pests", "diseases", "weeds", "general"]
                    .get(rng.gen_range(0..5))
                    .unwrap_or(&"general");
                let phenological_state = campaign
                    .and_then(|c| states_of.get(&c.species_id))
                    .filter(|states| !states.is_empty())
                    .and_then(|states| {
                        let index = ((season * states.len() as f64) as usize).min(states.len() - 1);
                        states.get(index).copied()
                    });
                let hydric_state = (!hydric.is_empty() && rng.gen_bool(0.9))
                    .then(|| hydric.get(rng.gen_range(0..hydric.len())).copied())
                    .flatten();
                let note = rng
                    .gen_bool(0.6)
                    .then(|| place.notes.get(rng.gen_range(0..place.notes.len())).copied())
                    .flatten();
                let scout = place.scouts.get(rng.gen_range(0..place.scouts.len())).copied().unwrap_or("Agrónomo");
                let (created, updated, deleted, active) = audit(&mut rng, date);
                let scouting_id: i64 = sqlx::query_scalar(
                    "INSERT INTO scoutings (society_id, plot_id, campaign_id, kind, date, scout_name, \
                     phenological_state_id, hydric_state_id, observations, active, created_at, updated_at, deleted_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
                )
                .bind(society_id)
                .bind(plot.id)
                .bind(campaign.map(|c| c.id))
                .bind(kind)
                .bind(date)
                .bind(scout)
                .bind(phenological_state)
                .bind(hydric_state)
                .bind(note)
                .bind(active)
                .bind(created)
                .bind(updated)
                .bind(deleted)
                .fetch_one(&mut *tx)
                .await?;
                let samples = rng.gen_range(1..=3);
                for sample in 1..=samples {
                    let pool_of = match kind {
                        "pests" => &pests,
                        "diseases" => &diseases,
                        "weeds" => &weeds,
                        _ => &any_adversity,
                    };
                    if pool_of.is_empty() {
                        continue;
                    }
                    for _ in 0..rng.gen_range(1..=2) {
                        let adversity = pool_of[rng.gen_range(0..pool_of.len())];
                        let is_pest = pests.contains(&adversity);
                        let is_disease = diseases.contains(&adversity);
                        let incidence = round2(rng.gen_range(0.0..45.0));
                        let severity = is_disease.then(|| round2(incidence * rng.gen_range(0.05..0.6)));
                        let individuals = is_pest.then(|| rng.gen_range(0..25));
                        measures.push(format!(
                            "({society_id}, {scouting_id}, {adversity}, {sample}, {incidence:.2}, {}, {}, {}, {created}, \
                             {updated}, {})",
                            opt_float(severity),
                            opt_int(individuals),
                            if active { "TRUE" } else { "FALSE" },
                            opt_int(deleted),
                        ));
                    }
                }
                // Pictures of some samples, and now and then of a pheromone trap read in the same visit.
                for sample in 1..=samples {
                    if !rng.gen_bool(0.45) {
                        continue;
                    }
                    let (parent_type, parent_id) = if rng.gen_bool(0.25) {
                        trap_scouting += 1;
                        ("trap_scoutings", trap_scouting)
                    } else {
                        ("scoutings", scouting_id)
                    };
                    let at = date + i64::from(sample) * rng.gen_range(2..15) * 60_000;
                    let (lat, lon) = plot_at.get(&plot.id).copied().unwrap_or(place.centre);
                    let fix = rng.gen_bool(0.95);
                    let stamp = chrono::DateTime::from_timestamp_millis(at).unwrap_or_default();
                    let file_name = format!("IMG_{}.jpg", stamp.format("%Y%m%d_%H%M%S"));
                    let (wp_created, wp_updated, wp_deleted, wp_active) = audit(&mut rng, at);
                    sqlx::query(
                        "INSERT INTO waypoints (society_id, parent_id, parent_type, sample_number, waypoint_kind, lat, \
                         lon, accuracy, observations, file_name, file_storage_url, date, active, created_at, updated_at, \
                         deleted_at) VALUES ($1, $2, $3, $4, 'picture', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
                    )
                    .bind(society_id)
                    .bind(parent_id)
                    .bind(parent_type)
                    .bind(i64::from(sample))
                    .bind(fix.then(|| format!("{:.6}", lat + rng.gen_range(-0.002..0.002))))
                    .bind(fix.then(|| format!("{:.6}", lon + rng.gen_range(-0.002..0.002))))
                    .bind(format!("{:.1}", rng.gen_range(2.0..15.0)))
                    .bind(rng.gen_bool(0.3).then(|| place.notes.get(rng.gen_range(0..place.notes.len())).copied()).flatten())
                    .bind(&file_name)
                    .bind(format!(
                        "https://storage.tranquera.invalid/societies/{society_id}/{parent_type}/{parent_id}/{file_name}"
                    ))
                    .bind(at)
                    .bind(wp_active)
                    .bind(wp_created)
                    .bind(wp_updated)
                    .bind(wp_deleted)
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }
        insert_rows!(
            tx,
            "scouting_measures (society_id, scouting_id, adversity_id, sample_number, incidence_percent, \
             severity_percent, individuals, active, created_at, updated_at, deleted_at)",
            measures
        );

        // Planting and harvest progress, and the controls of each campaign.
        let mut progress = Vec::new();
        let mut controls = Vec::new();
        for campaign in &campaigns {
            let profile = crop(&campaign.scientific_name, &campaign.species_name);
            let start = planting_start(campaign, origin);
            let mut day = start;
            let mut percent: f64 = 0.0;
            while percent < 100.0 {
                percent = (percent + rng.gen_range(20.0..55.0)).min(100.0);
                let at = day + rng.gen_range(16..20) * HOUR;
                progress.push(format!(
                    "({society_id}, 'planting', {}, {}, {at}, {:.2}, {percent:.2}, NULL, NULL, {at}, {at})",
                    campaign.id,
                    campaign.plot_id,
                    campaign.area * percent / 100.0,
                ));
                day += rng.gen_range(2..6) * DAY;
            }
            // Most campaigns of the demo's season are harvested; the rest are still in the field.
            if rng.gen_bool(0.8) {
                let mut day = start + profile.days * DAY;
                let mut percent: f64 = 0.0;
                let expected = rng.gen_range(profile.yield_kg_ha.0..profile.yield_kg_ha.1);
                while percent < 100.0 {
                    percent = (percent + rng.gen_range(15.0..45.0)).min(100.0);
                    let at = day + rng.gen_range(17..21) * HOUR;
                    progress.push(format!(
                        "({society_id}, 'harvest', {}, {}, {at}, {:.2}, {percent:.2}, {:.0}, {:.1}, {at}, {at})",
                        campaign.id,
                        campaign.plot_id,
                        campaign.area * percent / 100.0,
                        expected * rng.gen_range(0.92..1.08),
                        rng.gen_range(profile.humidity.0..profile.humidity.1),
                    ));
                    day += rng.gen_range(1..5) * DAY;
                }
            }
            let seed_product = products
                .iter()
                .filter(|(_, s, _)| *s == Some(campaign.species_id))
                .map(|(id, _, _)| *id)
                .next();
            let fertiliser = {
                let fertilisers: Vec<i64> = products
                    .iter()
                    .filter(|(_, _, code)| code == "FER" || code == "FEL")
                    .map(|(id, _, _)| *id)
                    .collect();
                (!fertilisers.is_empty()).then(|| fertilisers[rng.gen_range(0..fertilisers.len())])
            };
            let planned = [
                ("fertilization", unit("kg/ha"), fertiliser, rng.gen_range(80.0..220.0_f64).round(), start - 2 * DAY),
                ("planting", unit("semillas/m"), seed_product, profile.seeds_per_m, start + DAY),
                ("plant_stand", unit("plantas/ha"), None, profile.plants_per_ha, start + 25 * DAY),
            ];
            for (kind, unit_id, product, target, day) in planned {
                let Some(unit_id) = unit_id else { continue };
                if !rng.gen_bool(0.75) {
                    continue;
                }
                let measured = target * rng.gen_range(0.85..1.06);
                // Plants are counted: a stand is a whole number per hectare.
                let measured = if target >= 1000.0 { measured.round() } else { measured };
                let at = day + rng.gen_range(9..18) * HOUR;
                controls.push(format!(
                    "({society_id}, '{kind}', {}, {}, {at}, {}, {unit_id}, {target:.2}, {measured:.2}, {at}, {at})",
                    campaign.id,
                    campaign.plot_id,
                    opt_int(product),
                ));
            }
        }
        insert_rows!(
            tx,
            "progress (society_id, kind, campaign_id, plot_id, date, area_done, percent, yield_kg_ha, \
             humidity_percent, created_at, updated_at)",
            progress
        );
        insert_rows!(
            tx,
            "field_controls (society_id, kind, campaign_id, plot_id, date, formulated_id, unit_id, target_value, \
             measured_value, created_at, updated_at)",
            controls
        );

        // Silobags on some establishments, holding the grain of their campaigns.
        let mut establishments: Vec<i64> = plots.iter().map(|p| p.establishment_id).collect();
        establishments.sort_unstable();
        establishments.dedup();
        let mut silobags: Vec<(i64, i64, (f64, f64))> = Vec::new();
        if !species.is_empty() {
            for &establishment in establishments.iter().step_by(3).take(12) {
                let here: Vec<&CampaignRow> = campaigns.iter().filter(|c| c.establishment_id == establishment).collect();
                for n in 0..rng.gen_range(1..=3) {
                    let (species_id, harvested) = match here.get(rng.gen_range(0..here.len().max(1))) {
                        Some(c) => (c.species_id, Some(*c)),
                        None => (species[rng.gen_range(0..species.len())], None),
                    };
                    let farm = farm_at.get(&establishment).copied().unwrap_or(place.centre);
                    let position = (farm.0 + rng.gen_range(-0.01..0.01), farm.1 + rng.gen_range(-0.01..0.01));
                    let filled = harvested.map_or(origin + 300 * DAY, |c| {
                        planting_start(c, origin) + crop(&c.scientific_name, &c.species_name).days * DAY
                    }) + rng.gen_range(0..10) * DAY;
                    let capacity = if rng.gen_bool(0.7) { 200.0 } else { 250.0 };
                    let species_name = harvested.map_or("Grano", |c| c.species_name.as_str());
                    let silobag_id: i64 = sqlx::query_scalar(
                        "INSERT INTO silobags (society_id, establishment_id, species_id, name, external_code, \
                         capacity_tn, length_m, latitude, longitude, closed_at, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING id",
                    )
                    .bind(society_id)
                    .bind(establishment)
                    .bind(species_id)
                    .bind(format!("{} {} - {}", place.silo_word, n + 1, species_name))
                    .bind(rng.gen_bool(0.5).then(|| format!("SB-{establishment}-{}", n + 1)))
                    .bind(capacity)
                    .bind(if capacity > 200.0 { 75.0 } else { 60.0 })
                    .bind(round_degrees(position.0))
                    .bind(round_degrees(position.1))
                    .bind(rng.gen_bool(0.8).then_some(filled + 3 * DAY))
                    .bind(filled)
                    .fetch_one(&mut *tx)
                    .await?;
                    silobags.push((silobag_id, establishment, position));
                    let Some(campaign) = harvested else { continue };
                    let mut left = capacity * rng.gen_range(0.85..0.99);
                    for row in 0..rng.gen_range(1..=2) {
                        let quantity = if row == 0 { left * rng.gen_range(0.5..1.0) } else { left };
                        left -= quantity;
                        let humidity = rng.gen_range(12.0..15.5);
                        let semaphore: i64 = if humidity > 14.5 { 3 } else if humidity > 13.5 { 2 } else { 1 };
                        sqlx::query(
                            "INSERT INTO silobag_campaigns (society_id, silobag_id, campaign_id, quantity_tn, \
                             grain_humidity_percent, grain_quality_semaphore, observations, created_at, updated_at) \
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)",
                        )
                        .bind(society_id)
                        .bind(silobag_id)
                        .bind(campaign.id)
                        .bind(round2(quantity))
                        .bind(round2(humidity))
                        .bind(semaphore)
                        .bind(if semaphore == 3 { "Controlar temperatura y CO2 semanalmente." } else { "" })
                        .bind(filled + i64::from(row) * DAY)
                        .execute(&mut *tx)
                        .await?;
                    }
                }
            }
        }

        // Weather samples with the anomalies seen in them.
        if !anomaly_types.is_empty() {
            for plot in plots.iter().step_by(5).take(30) {
                let date = origin + rng.gen_range(10..330) * DAY + rng.gen_range(8..19) * HOUR;
                let (created, updated, deleted, active) = audit(&mut rng, date);
                let sample_id: i64 = sqlx::query_scalar(
                    "INSERT INTO weather_samples (society_id, plot_id, date, observations, active, created_at, \
                     updated_at, deleted_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                )
                .bind(society_id)
                .bind(plot.id)
                .bind(date)
                .bind(rng.gen_bool(0.4).then(|| place.notes.get(rng.gen_range(0..place.notes.len())).copied()).flatten())
                .bind(active)
                .bind(created)
                .bind(updated)
                .bind(deleted)
                .fetch_one(&mut *tx)
                .await?;
                for _ in 0..rng.gen_range(1..=2) {
                    let (created, updated, deleted, active) = audit(&mut rng, date);
                    sqlx::query(
                        "INSERT INTO weather_anomalies (society_id, weather_anomaly_type_id, weather_scouting_sample_id, \
                         active, created_at, updated_at, deleted_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    )
                    .bind(society_id)
                    .bind(anomaly_types[rng.gen_range(0..anomaly_types.len())])
                    .bind(sample_id)
                    .bind(active)
                    .bind(created)
                    .bind(updated)
                    .bind(deleted)
                    .execute(&mut *tx)
                    .await?;
                }
            }
        }

        // Weather stations on a few establishments and sensors in a few silobags, each with a week of hourly
        // readings.
        let installed = origin + 150 * DAY;
        let mut devices: Vec<(i64, &str)> = Vec::new();
        for (n, &establishment) in establishments.iter().take(3).enumerate() {
            let farm = farm_at.get(&establishment).copied().unwrap_or(place.centre);
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO devices (society_id, establishment_id, name, kind, serial_number, latitude, longitude, \
                 created_at, updated_at) VALUES ($1, $2, $3, 'weather_station', $4, $5, $6, $7, $7) RETURNING id",
            )
            .bind(society_id)
            .bind(establishment)
            .bind(format!("Estación meteorológica {}", n + 1))
            .bind(format!("WS-{society_id:02}-{:05}", rng.gen_range(10_000..100_000)))
            .bind(round_degrees(farm.0))
            .bind(round_degrees(farm.1))
            .bind(installed)
            .fetch_one(&mut *tx)
            .await?;
            devices.push((id, "weather_station"));
        }
        for (n, &(silobag_id, establishment, position)) in silobags.iter().take(3).enumerate() {
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO devices (society_id, establishment_id, silobag_id, name, kind, serial_number, latitude, \
                 longitude, created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, 'silobag_sensor', $5, $6, $7, $8, $8) RETURNING id",
            )
            .bind(society_id)
            .bind(establishment)
            .bind(silobag_id)
            .bind(format!("Sensor de silobolsa {}", n + 1))
            .bind(format!("SBS-{society_id:02}-{:05}", rng.gen_range(10_000..100_000)))
            .bind(round_degrees(position.0))
            .bind(round_degrees(position.1))
            .bind(installed)
            .fetch_one(&mut *tx)
            .await?;
            devices.push((id, "silobag_sensor"));
        }
        let mut readings = Vec::new();
        let start = installed + DAY;
        for (device_id, kind) in &devices {
            let codes: &[&str] = if *kind == "weather_station" {
                &["temperature", "relative_humidity", "rain", "soil_moisture"]
            } else {
                &["temperature", "relative_humidity", "co2"]
            };
            let mut soil: f64 = rng.gen_range(18.0..32.0);
            let mut co2: f64 = rng.gen_range(600.0..1200.0);
            for hour in 0..(7 * 24) {
                let at = start + hour * HOUR;
                // Air temperature peaks mid-afternoon; inside a silobag it barely follows it.
                let phase = ((hour % 24) as f64 - 9.0) / 24.0 * std::f64::consts::TAU;
                let outside = 20.0 + 8.0 * phase.sin() + rng.gen_range(-1.0..1.0);
                let raining = rng.gen_bool(0.04);
                soil = (soil + if raining { rng.gen_range(1.0..4.0) } else { -0.05 }).clamp(8.0, 45.0);
                co2 = (co2 + rng.gen_range(-15.0..20.0)).clamp(400.0, 5000.0);
                for code in codes {
                    let Some(type_id) = event_type(code) else { continue };
                    let value = match (*code, *kind) {
                        ("temperature", "weather_station") => outside,
                        ("temperature", _) => 18.0 + (outside - 20.0) * 0.15,
                        ("relative_humidity", "weather_station") => (85.0 - (outside - 12.0) * 2.5).clamp(25.0, 100.0),
                        ("relative_humidity", _) => rng.gen_range(60.0..70.0),
                        ("rain", _) => if raining { rng.gen_range(0.2..12.0) } else { 0.0 },
                        ("soil_moisture", _) => soil,
                        _ => co2,
                    };
                    readings.push(format!(
                        "({society_id}, {device_id}, {type_id}, {at}, {value:.2}, {created}, {created})",
                        created = at + 5 * 60_000
                    ));
                }
            }
        }
        insert_rows!(
            tx,
            "device_events (society_id, device_id, device_event_type_id, recorded_at, value, created_at, updated_at)",
            readings
        );
        tx.commit().await?;
    });
    Ok(())
}

fn round_degrees(value: f64) -> f64 {
    (value * 1_000_000.0).round() / 1_000_000.0
}
