//! Demo data of the field group: the adversity, weather and IoT catalogues, and per society what the field teams
//! record over a season — scoutings with their measures and pictures, planting and harvest progress, controls,
//! silobags with the grain stored in them, weather samples with anomalies, and devices with a week of hourly readings.
//!
//! Everything is drawn from one seeded generator per society, so the same options give the same rows and ids.

use store::admin::AdminError;
use store::bulk::Kind;
use store::Store;

use crate::rows::{int, read, text, Ids, Table};

/// This group's share of a society's seed, so its draws do not depend on other groups' ("FIEL").
const GROUP: u64 = 0x4649_454c;
const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

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
    let mut kind_ids = Ids::of(store, "adversity_kinds").await?;
    let mut category_ids = Ids::of(store, "adversity_categories").await?;
    let mut kinds = Table::new("adversity_kinds", &["id", "name", "created_at", "updated_at"]);
    let mut categories_written = Table::new(
        "adversity_categories",
        &["id", "adv_kind_id", "name", "description", "created_at", "updated_at"],
    );
    let mut adversities = Table::new(
        "adversities",
        &[
            "adv_kind_id",
            "adv_category_id",
            "name",
            "scientific_name",
            "created_at",
            "updated_at",
        ],
    );
    for (kind, categories) in ADVERSITIES {
        let kind_id = kind_ids.next();
        kinds.row([kind_id.into(), (*kind).into(), at.into(), at.into()]);
        for category in *categories {
            let category_id = category_ids.next();
            categories_written.row([
                category_id.into(),
                kind_id.into(),
                category.name.into(),
                category.description.into(),
                at.into(),
                at.into(),
            ]);
            for (name, scientific) in category.adversities {
                adversities.row([
                    kind_id.into(),
                    category_id.into(),
                    (*name).into(),
                    (*scientific).into(),
                    at.into(),
                    at.into(),
                ]);
            }
        }
    }
    let mut factor_ids = Ids::of(store, "climatic_factors").await?;
    let mut factors = Table::new("climatic_factors", &["id", "name", "created_at", "updated_at"]);
    let mut anomaly_types = Table::new(
        "weather_anomaly_types",
        &["climatic_factor_id", "name", "created_at", "updated_at"],
    );
    for (factor, types) in WEATHER {
        let factor_id = factor_ids.next();
        factors.row([factor_id.into(), (*factor).into(), at.into(), at.into()]);
        for name in *types {
            anomaly_types.row([factor_id.into(), (*name).into(), at.into(), at.into()]);
        }
    }
    // A type whose unit the backbone does not have is left out rather than pointed at a wrong unit.
    let units = read(store, "units", &[("id", Kind::Int), ("abbreviation", Kind::Text)], &[]).await?;
    let mut event_types = Table::new(
        "device_event_types",
        &["code", "name", "unit_id", "created_at", "updated_at"],
    );
    for (code, name, unit) in EVENT_TYPES {
        if let Some(unit_id) = units.iter().find(|row| text(row, 1) == *unit).map(|row| int(row, 0)) {
            event_types.row([(*code).into(), (*name).into(), unit_id.into(), at.into(), at.into()]);
        }
    }
    for table in [
        kinds,
        categories_written,
        adversities,
        factors,
        anomaly_types,
        event_types,
    ] {
        table.write(store).await?;
    }
    Ok(())
}

mod harvest;
mod places;
mod season;
mod tables;

pub(crate) use season::society;
