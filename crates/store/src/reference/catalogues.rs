//! The declaration of every shipped catalogue: its table, the columns of its file and how each is stored, parents
//! before the catalogues that refer to them. A table of data.

/// A column of a reference file.
#[derive(Debug, Clone, Copy)]
pub(super) enum Column {
    /// Text, stored as is in the column of the same name.
    Text(&'static str),
    /// An integer, stored in the column of the same name.
    Int(&'static str),
    /// The key of a row of another catalogue, stored as that row's id in `column`; an empty cell is `NULL`.
    Ref {
        field: &'static str,
        column: &'static str,
        table: &'static str,
    },
}

impl Column {
    pub(super) fn field(self) -> &'static str {
        match self {
            Column::Text(name) | Column::Int(name) => name,
            Column::Ref { field, .. } => field,
        }
    }

    fn column(self) -> &'static str {
        match self {
            Column::Text(name) | Column::Int(name) => name,
            Column::Ref { column, .. } => column,
        }
    }
}

/// One catalogue: its table, the columns of its file after `key`, and whether its shipped rows take their key as
/// external code (the catalogues operators' imports name by external code).
#[derive(Debug, Clone, Copy)]
pub(super) struct Catalogue {
    pub(super) table: &'static str,
    pub(super) columns: &'static [Column],
    pub(super) key_is_external_code: bool,
}

const fn plain(table: &'static str, columns: &'static [Column]) -> Catalogue {
    Catalogue {
        table,
        columns,
        key_is_external_code: false,
    }
}

use Column::{Int, Text};

/// Every catalogue, parents before the catalogues that refer to them.
pub(super) const CATALOGUES: &[Catalogue] = &[
    plain("species", &[Text("name"), Text("name_pt"), Text("scientific_name")]),
    plain("units", &[Text("name"), Text("abbreviation"), Text("kind")]),
    plain("formulation_types", &[Text("code"), Text("name")]),
    plain(
        "formulateds",
        &[
            Text("country"),
            Text("name"),
            Text("external_code"),
            Text("active_ingredient"),
            Column::Ref {
                field: "formulation_type",
                column: "formulation_type_id",
                table: "formulation_types",
            },
            Column::Ref {
                field: "unit",
                column: "unit_id",
                table: "units",
            },
            Column::Ref {
                field: "species",
                column: "species_id",
                table: "species",
            },
        ],
    ),
    Catalogue {
        table: "master_campaign_cycles",
        columns: &[Text("country"), Text("name"), Text("start_date"), Text("end_date")],
        key_is_external_code: true,
    },
    Catalogue {
        table: "planting_times",
        columns: &[Text("country"), Text("name"), Text("description")],
        key_is_external_code: true,
    },
    plain("activity_statuses", &[Text("name"), Text("description")]),
    plain("hydric_states", &[Text("name"), Text("description")]),
    plain(
        "phenological_states",
        &[
            Column::Ref {
                field: "species",
                column: "species_id",
                table: "species",
            },
            Text("code"),
            Text("name"),
            Int("position"),
        ],
    ),
    plain("voucher_types", &[Text("code"), Text("name")]),
    plain(
        "labour_types",
        &[
            Column::Ref {
                field: "voucher_type",
                column: "voucher_type_id",
                table: "voucher_types",
            },
            Text("name"),
            Text("description"),
        ],
    ),
    plain("adversity_kinds", &[Text("name")]),
    plain(
        "adversity_categories",
        &[
            Column::Ref {
                field: "adversity_kind",
                column: "adv_kind_id",
                table: "adversity_kinds",
            },
            Text("name"),
            Text("description"),
        ],
    ),
    plain(
        "adversities",
        &[
            Column::Ref {
                field: "adversity_kind",
                column: "adv_kind_id",
                table: "adversity_kinds",
            },
            Column::Ref {
                field: "adversity_category",
                column: "adv_category_id",
                table: "adversity_categories",
            },
            Text("name"),
            Text("scientific_name"),
        ],
    ),
    plain("climatic_factors", &[Text("name")]),
    plain(
        "weather_anomaly_types",
        &[
            Column::Ref {
                field: "climatic_factor",
                column: "climatic_factor_id",
                table: "climatic_factors",
            },
            Text("name"),
        ],
    ),
    plain(
        "device_event_types",
        &[
            Text("code"),
            Text("name"),
            Column::Ref {
                field: "unit",
                column: "unit_id",
                table: "units",
            },
        ],
    ),
];

/// The columns a shipped row is stored in, in order: its cells', then the key as external code where it is one,
/// then the hash of its content.
pub(super) fn stored_columns(catalogue: &Catalogue) -> Vec<&'static str> {
    let mut columns: Vec<&'static str> = catalogue.columns.iter().map(|column| column.column()).collect();
    if catalogue.key_is_external_code {
        columns.push("external_code");
    }
    columns.push("reference_hash");
    columns
}
