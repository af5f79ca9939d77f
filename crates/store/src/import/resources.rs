//! Every importable resource, declared once: its table, whose its records are, and a row per field (the API's read
//! name, the domain's kind and whether it is required, the column, the table a reference names). The import and the
//! export of every resource are made from these rows alone.

use domain::import::{Field, Key, Kind};
use domain::master_data::MACHINE_KINDS;

use super::{Column, ImportResource, Ownership, Target, TargetOwner};

const fn text(name: &'static str, required: bool) -> Column {
    Column {
        field: Field {
            name,
            kind: Kind::Text,
            required,
        },
        column: name,
        target: None,
        empty: None,
    }
}

const fn value(name: &'static str, kind: Kind, required: bool) -> Column {
    Column {
        field: Field { name, kind, required },
        column: name,
        target: None,
        empty: None,
    }
}

/// The `active` flag: an empty cell, or a file without the column, makes a new record active.
const ACTIVE: Column = Column {
    field: Field {
        name: "active",
        kind: Kind::Flag,
        required: false,
    },
    column: "active",
    target: None,
    empty: Some("TRUE"),
};

/// A reference to a record of `table`, by id or by external code (`key`), stored in `column`.
const fn reference(
    name: &'static str,
    column: &'static str,
    table: &'static str,
    owner: TargetOwner,
    key: Key,
    required: bool,
) -> Column {
    Column {
        field: Field {
            name,
            kind: Kind::Reference(key),
            required,
        },
        column,
        target: Some(Target { table, owner }),
        empty: None,
    }
}

const fn society(name: &'static str, columns: &'static [Column]) -> ImportResource {
    ImportResource {
        name,
        alias: None,
        table: name,
        ownership: Ownership::Society,
        columns,
    }
}

use Key::{ExternalCode, ReferenceKey};
use TargetOwner::{Country, Global, Society};

/// Every resource `tranquera admin import` and `export` serve, in the order a society is onboarded.
pub(super) const RESOURCES: &[ImportResource] = &[
    society(
        "farmers",
        &[
            text("name", true),
            text("lastname", false),
            text("cuit", false),
            text("observations", false),
            text("email", false),
            text("phone_number", false),
            ACTIVE,
        ],
    ),
    society(
        "establishments",
        &[
            reference("farmer", "farmer_id", "farmers", Society, ExternalCode, true),
            text("name", true),
            ACTIVE,
        ],
    ),
    society(
        "plots",
        &[
            reference(
                "establishment",
                "establishment_id",
                "establishments",
                Society,
                ExternalCode,
                true,
            ),
            text("name", true),
            value("area", Kind::Hectares, true),
            ACTIVE,
        ],
    ),
    society(
        "master_campaigns",
        &[
            text("name", true),
            // The spec's name for the species (`GET …/master_campaigns` answers `cultivation_id`).
            reference("cultivation", "species_id", "species", Global, ReferenceKey, true),
            reference(
                "planting_time",
                "planting_time_id",
                "planting_times",
                Country,
                ExternalCode,
                true,
            ),
            reference(
                "cycle",
                "cycle_id",
                "master_campaign_cycles",
                Country,
                ExternalCode,
                true,
            ),
            ACTIVE,
        ],
    ),
    society(
        "campaigns",
        &[
            reference(
                "master_campaign",
                "master_campaign_id",
                "master_campaigns",
                Society,
                ExternalCode,
                true,
            ),
            reference("plot", "plot_id", "plots", Society, ExternalCode, true),
            text("name", true),
            value("area", Kind::Hectares, true),
            value("planting_date", Kind::Date, false),
            value("objective_yield", Kind::ObjectiveYield, false),
            reference(
                "activity_status",
                "activity_status_id",
                "activity_statuses",
                Global,
                ReferenceKey,
                false,
            ),
            ACTIVE,
        ],
    ),
    society(
        "contractors",
        &[
            text("name", true),
            text("cuit", false),
            text("email", false),
            text("phone_number", false),
            ACTIVE,
        ],
    ),
    society(
        "machines",
        &[
            reference(
                "contractor",
                "contractor_id",
                "contractors",
                Society,
                ExternalCode,
                false,
            ),
            text("name", true),
            value("kind", Kind::OneOf(MACHINE_KINDS), true),
            text("brand", false),
            text("model", false),
            value("year", Kind::Year, false),
            text("license_plate", false),
            ACTIVE,
        ],
    ),
    society(
        "warehouses",
        &[
            reference(
                "establishment",
                "establishment_id",
                "establishments",
                Society,
                ExternalCode,
                false,
            ),
            text("name", true),
            text("address", false),
            ACTIVE,
        ],
    ),
    society(
        "tags",
        &[
            reference("parent", "parent_id", "tags", Society, ExternalCode, false),
            text("name", true),
            ACTIVE,
        ],
    ),
    society(
        "applicators",
        &[
            text("name", true),
            text("address", false),
            text("phone_number", false),
            text("email", false),
            ACTIVE,
        ],
    ),
    ImportResource {
        name: "master_campaign_cycles",
        alias: Some("cycles"),
        table: "master_campaign_cycles",
        ownership: Ownership::Country,
        columns: &[
            text("name", true),
            value("start_date", Kind::Date, true),
            value("end_date", Kind::Date, true),
            ACTIVE,
        ],
    },
    ImportResource {
        name: "planting_times",
        alias: None,
        table: "planting_times",
        ownership: Ownership::Country,
        columns: &[
            text("name", true),
            Column {
                empty: Some("''"),
                ..text("description", false)
            },
            ACTIVE,
        ],
    },
    ImportResource {
        name: "formulateds",
        alias: None,
        table: "formulateds",
        ownership: Ownership::Country,
        columns: &[
            text("name", true),
            text("active_ingredient", true),
            reference(
                "formulation_type",
                "formulation_type_id",
                "formulation_types",
                Global,
                ReferenceKey,
                true,
            ),
            reference("unit", "unit_id", "units", Global, ReferenceKey, true),
            ACTIVE,
        ],
    },
];
