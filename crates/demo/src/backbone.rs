//! The backbone every other group refers to: the global catalogues (crop species, units, formulation types,
//! statuses and states), the per-country catalogues (cycles, planting times, formulated products with their real
//! active ingredients), and each society's planning: master campaigns per cycle, a campaign per plot and master
//! campaign, and the cultivation (sown variety) of each campaign.

use std::collections::HashMap;

use store::admin::AdminError;
use store::Store;

use crate::rows::{Ids, Table};

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

/// Seeds the global and per-country catalogues.
pub(crate) async fn global(store: &Store, origin: i64) -> Result<(), AdminError> {
    let at = origin - 30 * 24 * 3_600_000;
    let mut species_ids = Ids::of(store, "species").await?;
    let mut species = HashMap::new();
    let mut species_rows = Table::new(
        "species",
        &["id", "name", "name_pt", "scientific_name", "created_at", "updated_at"],
    );
    for (name, name_pt, scientific) in SPECIES {
        let id = species_ids.next();
        species_rows.row([
            id.into(),
            (*name).into(),
            (*name_pt).into(),
            (*scientific).into(),
            at.into(),
            at.into(),
        ]);
        species.insert(*name, id);
    }
    let mut unit_ids = Ids::of(store, "units").await?;
    let mut units = HashMap::new();
    let mut unit_rows = Table::new(
        "units",
        &["id", "name", "abbreviation", "kind", "created_at", "updated_at"],
    );
    for (name, abbreviation, kind) in UNITS {
        let id = unit_ids.next();
        unit_rows.row([
            id.into(),
            (*name).into(),
            (*abbreviation).into(),
            (*kind).into(),
            at.into(),
            at.into(),
        ]);
        units.insert(*abbreviation, id);
    }
    let mut formulation_ids = Ids::of(store, "formulation_types").await?;
    let mut formulation_types = HashMap::new();
    let mut formulation_rows = Table::new("formulation_types", &["id", "code", "name", "created_at", "updated_at"]);
    for (code, name) in FORMULATION_TYPES {
        let id = formulation_ids.next();
        formulation_rows.row([id.into(), (*code).into(), (*name).into(), at.into(), at.into()]);
        formulation_types.insert(*code, id);
    }
    let mut products = Table::new(
        "formulateds",
        &[
            "country",
            "name",
            "external_code",
            "active_ingredient",
            "formulation_type_id",
            "unit_id",
            "species_id",
            "created_at",
            "updated_at",
        ],
    );
    for (country, list, registry) in [
        ("AR", PRODUCTS_AR, "SENASA"),
        ("BR", PRODUCTS_BR, "MAPA"),
        ("MX", PRODUCTS_MX, "RSCO"),
    ] {
        for (index, (name, ingredient, formulation, unit, variety_of)) in list.iter().enumerate() {
            products.row([
                country.into(),
                (*name).into(),
                format!("{registry}-{:05}", 31_400 + index * 37).into(),
                (*ingredient).into(),
                formulation_types.get(formulation).copied().into(),
                units.get(unit).copied().into(),
                variety_of.and_then(|s| species.get(s).copied()).into(),
                at.into(),
                at.into(),
            ]);
        }
    }
    let mut cycles = Table::new(
        "master_campaign_cycles",
        &["country", "name", "start_date", "end_date", "created_at", "updated_at"],
    );
    for (country, name, start, end) in CYCLES {
        cycles.row([
            (*country).into(),
            (*name).into(),
            (*start).into(),
            (*end).into(),
            at.into(),
            at.into(),
        ]);
    }
    let mut times = Table::new(
        "planting_times",
        &["country", "name", "description", "created_at", "updated_at"],
    );
    for (country, name, description) in PLANTING_TIMES {
        times.row([
            (*country).into(),
            (*name).into(),
            (*description).into(),
            at.into(),
            at.into(),
        ]);
    }
    let mut states = Vec::new();
    for (table, rows) in [
        ("activity_statuses", ACTIVITY_STATUSES),
        ("hydric_states", HYDRIC_STATES),
    ] {
        let mut state_rows = Table::new(table, &["name", "description", "created_at", "updated_at"]);
        for (name, description) in rows {
            state_rows.row([(*name).into(), (*description).into(), at.into(), at.into()]);
        }
        states.push(state_rows);
    }
    let mut phenology = Table::new(
        "phenological_states",
        &["species_id", "code", "name", "position", "created_at", "updated_at"],
    );
    for (species_name, stages) in PHENOLOGY {
        for (position, (code, name)) in stages.iter().enumerate() {
            phenology.row([
                species.get(species_name).copied().into(),
                (*code).into(),
                (*name).into(),
                (i64::try_from(position).unwrap_or_default() + 1).into(),
                at.into(),
                at.into(),
            ]);
        }
    }
    for table in [species_rows, unit_rows, formulation_rows, products, cycles, times]
        .into_iter()
        .chain(states)
        .chain([phenology])
    {
        table.write(store).await?;
    }
    Ok(())
}

mod campaigns;

pub(crate) use campaigns::society;
