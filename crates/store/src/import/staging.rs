//! The staging tables of imports, one per resource, made from the resources' declarations (migration 29 holds
//! them as a test here writes them): permanent tables, so that on Citus they are placed like the tables they
//! are joined with. A society's resource stages by `society_id` (distributed with the society's records, so its
//! checks and writes run on the one worker that holds the society); a country's catalogue by `country` (a table
//! copied to every node, as the catalogues are). Each import's rows carry an `import_id` of their own, and live only
//! inside the import's transaction: they are deleted before it commits, and a refused or failed import rolls them
//! back, so between imports the tables are empty and no import reads another's rows.
//!
//! Staged columns: the owner, `import_id`, `row_number`, `external_code`, `deleted`, then per field `v{i}` (a
//! reference: `v{i}_id` and `v{i}_code`, resolved when it is written), and `pass`, the round of a resource that
//! refers to itself (tags).

use domain::import::Kind;

use super::{ImportResource, Ownership};

/// The staging table of `resource`.
pub(super) fn table(resource: &ImportResource) -> String {
    format!("import_staging_{}", resource.table)
}

/// The column that names the owner of `resource`'s records, in its table and its staging table.
pub(super) fn owner_column(resource: &ImportResource) -> &'static str {
    match resource.ownership {
        Ownership::Society => "society_id",
        Ownership::Country => "country",
    }
}

/// The type a value of `kind` is staged as.
pub(super) fn staged_type(kind: Kind) -> &'static str {
    match kind {
        Kind::Text | Kind::OneOf(_) | Kind::Date | Kind::Reference(_) => "TEXT",
        Kind::Hectares | Kind::ObjectiveYield => "DOUBLE PRECISION",
        // Flags are staged as 1, 0 or NULL, since a bound NULL has no boolean type on SQLite's side.
        Kind::Year | Kind::Flag => "BIGINT",
    }
}

/// The staging table of `resource` and its index, as a migration states them (`{unlogged}` is PostgreSQL's
/// `UNLOGGED`: staged rows never outlive their transaction, so they need no write-ahead log). The migration states
/// them; a test checks it states what the declarations make.
#[cfg(test)]
fn create_table(resource: &ImportResource) -> String {
    let owner = match resource.ownership {
        Ownership::Society => "society_id BIGINT NOT NULL",
        Ownership::Country => "country TEXT NOT NULL",
    };
    let mut columns = vec![
        owner.to_owned(),
        "import_id BIGINT NOT NULL".to_owned(),
        "row_number BIGINT NOT NULL".to_owned(),
        "external_code TEXT NOT NULL".to_owned(),
        "deleted BOOLEAN NOT NULL".to_owned(),
    ];
    for (index, column) in resource.columns.iter().enumerate() {
        match column.field.kind {
            Kind::Reference(_) => {
                columns.push(format!("v{index}_id BIGINT"));
                columns.push(format!("v{index}_code TEXT"));
            }
            kind => columns.push(format!("v{index} {}", staged_type(kind))),
        }
    }
    columns.push("pass BIGINT".to_owned());
    // A key, as Citus moves a distributed table's shards online only by one.
    columns.push(format!(
        "PRIMARY KEY ({}, import_id, row_number)",
        owner_column(resource)
    ));
    let table = table(resource);
    format!(
        "CREATE {{unlogged}}TABLE {table} (\n    {}\n);\nCREATE INDEX {table}_code ON {table} ({}, import_id, \
         external_code);\n",
        columns.join(",\n    "),
        owner_column(resource)
    )
}

/// Every resource's staging table and index, as migration 29 makes them.
#[cfg(test)]
fn create_tables() -> String {
    super::resources()
        .iter()
        .map(create_table)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migration_makes_the_staging_tables_the_declarations_describe() {
        let migration = include_str!("../migrations/0029_import_staging.sql");
        let statements = migration
            .lines()
            .skip_while(|line| line.starts_with("--"))
            .collect::<Vec<_>>()
            .join("\n");
        assert_eq!(
            statements.trim(),
            create_tables().trim(),
            "a resource's fields changed: stage them with a new migration"
        );
    }

    #[test]
    fn societies_stage_by_society_and_catalogues_by_country() {
        let plots = crate::import::resource("plots").expect("plots");
        let made = create_table(plots);
        assert!(made.starts_with("CREATE {unlogged}TABLE import_staging_plots (\n    society_id BIGINT NOT NULL,"));
        assert!(made.contains("v0_id BIGINT,\n    v0_code TEXT,"), "{made}");
        let cycles = crate::import::resource("cycles").expect("cycles");
        assert!(create_table(cycles).contains("(country, import_id, external_code)"));
    }
}
