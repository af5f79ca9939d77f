//! Each country's plot tags (a two-level hierarchy of groups and values, in the country's language) and how the
//! ERPs its society's plots are mapped to spell a plot's id.

use super::{CountryPlanning, Status, System, TagGroup};

/// The planning data of every demo society's country.
pub(super) const COUNTRIES: &[CountryPlanning] = &[
    CountryPlanning {
        code: "AR",
        tags: &[
            TagGroup {
                name: "Zona",
                values: &[
                    ("Norte", Status::Live),
                    ("Sur", Status::Live),
                    ("Oeste", Status::Inactive),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Tenencia",
                values: &[
                    ("Propio", Status::Live),
                    ("Arrendado", Status::Live),
                    ("Aparcería", Status::Deleted),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Aptitud",
                values: &[
                    ("Agrícola", Status::Live),
                    ("Ganadera", Status::Live),
                    ("Mixta", Status::Live),
                ],
                every_plot: false,
            },
        ],
        systems: &[
            System {
                name: "Tango Gestión",
                code_prefix: "TG-LOTE-",
            },
            System {
                name: "SAP Business One",
                code_prefix: "SAPB1-",
            },
        ],
    },
    CountryPlanning {
        code: "BR",
        tags: &[
            TagGroup {
                name: "Região",
                values: &[
                    ("Norte", Status::Live),
                    ("Sul", Status::Live),
                    ("Leste", Status::Inactive),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Posse",
                values: &[
                    ("Próprio", Status::Live),
                    ("Arrendado", Status::Live),
                    ("Parceria", Status::Deleted),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Aptidão",
                values: &[
                    ("Agrícola", Status::Live),
                    ("Pecuária", Status::Live),
                    ("Integração lavoura-pecuária", Status::Live),
                ],
                every_plot: false,
            },
        ],
        systems: &[
            System {
                name: "TOTVS Protheus",
                code_prefix: "PRT-TALHAO-",
            },
            System {
                name: "Senior",
                code_prefix: "SNR-",
            },
        ],
    },
    CountryPlanning {
        code: "MX",
        tags: &[
            TagGroup {
                name: "Región",
                values: &[
                    ("Bajío Norte", Status::Live),
                    ("Bajío Sur", Status::Live),
                    ("Altos", Status::Inactive),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Tenencia",
                values: &[
                    ("Propiedad", Status::Live),
                    ("Rentada", Status::Live),
                    ("Ejidal", Status::Deleted),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Riego",
                values: &[
                    ("Temporal", Status::Live),
                    ("Riego por goteo", Status::Live),
                    ("Rodado", Status::Live),
                ],
                every_plot: false,
            },
        ],
        systems: &[
            System {
                name: "Aspel SAE",
                code_prefix: "SAE-PARC-",
            },
            System {
                name: "CONTPAQi",
                code_prefix: "CPQ-",
            },
        ],
    },
    CountryPlanning {
        code: "PY",
        tags: &[
            TagGroup {
                name: "Zona",
                values: &[
                    ("Alto Paraná", Status::Live),
                    ("Itapúa", Status::Live),
                    ("Canindeyú", Status::Inactive),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Tenencia",
                values: &[
                    ("Propio", Status::Live),
                    ("Arrendado", Status::Live),
                    ("Aparcería", Status::Deleted),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Aptitud",
                values: &[
                    ("Agrícola", Status::Live),
                    ("Ganadera", Status::Live),
                    ("Mixta", Status::Live),
                ],
                every_plot: false,
            },
        ],
        systems: &[
            System {
                name: "SAP Business One",
                code_prefix: "SAPB1-",
            },
            System {
                name: "Odoo",
                code_prefix: "ODOO-PARC-",
            },
        ],
    },
    CountryPlanning {
        code: "BO",
        tags: &[
            TagGroup {
                name: "Zona",
                values: &[
                    ("Norte integrado", Status::Live),
                    ("Zona este", Status::Live),
                    ("Chiquitanía", Status::Inactive),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Tenencia",
                values: &[
                    ("Propio", Status::Live),
                    ("Alquilado", Status::Live),
                    ("Comodato", Status::Deleted),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Aptitud",
                values: &[
                    ("Agrícola", Status::Live),
                    ("Ganadera", Status::Live),
                    ("Agroforestal", Status::Live),
                ],
                every_plot: false,
            },
        ],
        systems: &[
            System {
                name: "SAP Business One",
                code_prefix: "SAPB1-",
            },
            System {
                name: "Microsoft Dynamics 365 Business Central",
                code_prefix: "BC-LOTE-",
            },
        ],
    },
    CountryPlanning {
        code: "CO",
        tags: &[
            TagGroup {
                name: "Región",
                values: &[
                    ("Meta", Status::Live),
                    ("Casanare", Status::Live),
                    ("Tolima", Status::Inactive),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Tenencia",
                values: &[
                    ("Propio", Status::Live),
                    ("Arrendado", Status::Live),
                    ("Aparcería", Status::Deleted),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Sistema",
                values: &[
                    ("Riego", Status::Live),
                    ("Secano", Status::Live),
                    ("Secano favorecido", Status::Live),
                ],
                every_plot: false,
            },
        ],
        systems: &[
            System {
                name: "Siesa Enterprise",
                code_prefix: "SIESA-LOTE-",
            },
            System {
                name: "World Office",
                code_prefix: "WO-",
            },
        ],
    },
    CountryPlanning {
        code: "UY",
        tags: &[
            TagGroup {
                name: "Departamento",
                values: &[
                    ("Río Negro", Status::Live),
                    ("Soriano", Status::Live),
                    ("Paysandú", Status::Inactive),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Tenencia",
                values: &[
                    ("Propio", Status::Live),
                    ("Arrendado", Status::Live),
                    ("Medianería", Status::Deleted),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Aptitud",
                values: &[
                    ("Agrícola", Status::Live),
                    ("Ganadera", Status::Live),
                    ("Agrícola-ganadera", Status::Live),
                ],
                every_plot: false,
            },
        ],
        systems: &[
            System {
                name: "Memory",
                code_prefix: "MEM-CHACRA-",
            },
            System {
                name: "Zeta Software",
                code_prefix: "ZETA-",
            },
        ],
    },
    CountryPlanning {
        code: "VE",
        tags: &[
            TagGroup {
                name: "Estado",
                values: &[
                    ("Portuguesa", Status::Live),
                    ("Barinas", Status::Live),
                    ("Guárico", Status::Inactive),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Tenencia",
                values: &[
                    ("Propio", Status::Live),
                    ("Arrendado", Status::Live),
                    ("Adjudicado", Status::Deleted),
                ],
                every_plot: true,
            },
            TagGroup {
                name: "Riego",
                values: &[
                    ("Secano", Status::Live),
                    ("Riego por gravedad", Status::Live),
                    ("Riego por aspersión", Status::Live),
                ],
                every_plot: false,
            },
        ],
        systems: &[
            System {
                name: "Profit Plus",
                code_prefix: "PROFIT-LOTE-",
            },
            System {
                name: "Galac",
                code_prefix: "GLC-",
            },
        ],
    },
];
