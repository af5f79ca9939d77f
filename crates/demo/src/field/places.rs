//! What the field records of a country and a crop look like: where the farms are, who scouts them, what they note,
//! and how each species grows.

/// What a country's field records look like.
pub(super) struct Place {
    /// Centre of the demo's farms (decimal degrees).
    pub centre: (f64, f64),
    pub scouts: &'static [&'static str],
    pub notes: &'static [&'static str],
    pub silo_word: &'static str,
}

pub(super) fn place(country: &str) -> Place {
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
        "PY" => Place {
            centre: (-25.80, -55.09),
            scouts: &[
                "Ing. Agr. Hugo Benítez",
                "Téc. Liz Ayala",
                "Ing. Agr. Marcos Wiebe",
                "Téc. Éver Cáceres",
            ],
            notes: &[
                "Parcela pareja, sin problemas relevantes.",
                "Focos de roya asiática en la parte baja de la parcela.",
                "Chinches por encima del umbral de daño.",
                "Capim amargoso resistente en las cabeceras.",
                "Buena humedad en el suelo después de la lluvia.",
            ],
            silo_word: "Silobolsa",
        },
        "BO" => Place {
            centre: (-17.45, -62.43),
            scouts: &[
                "Ing. Agr. Rodrigo Suárez",
                "Téc. Mariela Rojas",
                "Ing. Agr. Kenta Higa",
                "Téc. Freddy Añez",
            ],
            notes: &[
                "Lote parejo, sin problemas.",
                "Presencia de gusano cogollero en los bordes.",
                "Mancha anillada incipiente en el tercio inferior.",
                "Malezas escapadas después de la aplicación.",
                "Poca humedad en el perfil, se espera lluvia.",
            ],
            silo_word: "Silo bolsa",
        },
        "CO" => Place {
            centre: (4.09, -72.96),
            scouts: &[
                "Ing. Agr. Andrés Pinzón",
                "Téc. Leidy Rincón",
                "Ing. Agr. Camilo Vargas",
                "Téc. Yeison Parra",
            ],
            notes: &[
                "Lote uniforme, sin novedad.",
                "Piricularia en hoja en el sector bajo del lote.",
                "Sogata por encima del nivel de daño.",
                "Arroz rojo en los bordes del lote.",
                "Buena lámina de agua después del riego.",
            ],
            silo_word: "Silo bolsa",
        },
        "UY" => Place {
            centre: (-32.70, -57.63),
            scouts: &[
                "Ing. Agr. Joaquín Techera",
                "Téc. Valentina Olivera",
                "Ing. Agr. Martín Arocena",
                "Téc. Bruno Silveira",
            ],
            notes: &[
                "Chacra pareja, sin problemas.",
                "Chinches por encima del umbral en el borde.",
                "Mancha amarilla en las hojas de abajo.",
                "Rama negra resistente en las cabeceras.",
                "Buena humedad después de la lluvia.",
            ],
            silo_word: "Silobolsa",
        },
        "VE" => Place {
            centre: (9.40, -69.25),
            scouts: &[
                "Ing. Agr. Luis Colmenares",
                "Téc. Yusmary Rivas",
                "Ing. Agr. Rafael Linares",
                "Téc. Jhonny Escalona",
            ],
            notes: &[
                "Lote parejo, sin problemas.",
                "Gusano cogollero en las orillas del lote.",
                "Piricularia en el arroz del sector bajo.",
                "Malezas de hoja ancha después de las lluvias.",
                "Buena humedad tras las lluvias de mayo.",
            ],
            silo_word: "Silo bolsa",
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
pub(super) struct Crop {
    pub days: i64,
    pub yield_kg_ha: (f64, f64),
    pub humidity: (f64, f64),
    pub seeds_per_m: f64,
    pub plants_per_ha: f64,
}

pub(super) fn crop(scientific_name: &str, name: &str) -> Crop {
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
    } else if is(&["oryza", "arroz"]) {
        Crop {
            days: 130,
            yield_kg_ha: (5500.0, 9500.0),
            humidity: (18.0, 23.0),
            seeds_per_m: 60.0,
            plants_per_ha: 2_000_000.0,
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
