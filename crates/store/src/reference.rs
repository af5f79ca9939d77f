//! The reference data every deployment ships: the global and per-country catalogues (species, units, products,
//! cycles, planting times, voucher and labour types, adversities, …), embedded from `crates/store/reference/*.csv`
//! and brought up to date on every `migrate`.
//!
//! A release's data is applied once (recorded by its checksum in `reference_releases`). Each shipped row is matched
//! by its `reference_key`: a new key is inserted, and a row is rewritten only when the release's content for it
//! differs from what the previous release gave it (`reference_hash`), so an operator's own correction stands until a
//! release corrects that very row, and `active`, the operator's switch, is never written. Every change stamps
//! `updated_at` with the time it is applied, so incremental syncs see it; the catalogue triggers move
//! `reference_version`, which every `syncCheck` and catalogue ETag include. Society data is never touched.

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use crate::db::{bind_args, with_reader, with_writer, Arg, BeginWrite, Dialect};
use crate::{now_millis, Store, StoreError};

/// A column of a reference file.
#[derive(Debug, Clone, Copy)]
enum Column {
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
    fn field(self) -> &'static str {
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
struct Catalogue {
    table: &'static str,
    columns: &'static [Column],
    key_is_external_code: bool,
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
const CATALOGUES: &[Catalogue] = &[
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

/// A release of reference data: its version label and one CSV text per catalogue table.
#[derive(Debug, Clone)]
pub struct ReferenceData {
    /// The release's label (`crates/store/reference/VERSION`), for operators to read.
    pub version: String,
    /// `(table, CSV text)`, one per catalogue.
    pub files: Vec<(&'static str, String)>,
}

macro_rules! shipped_files {
    ($($table:literal),* $(,)?) => {
        vec![$(($table, include_str!(concat!("../reference/", $table, ".csv")).to_owned())),*]
    };
}

impl ReferenceData {
    /// The reference data this build ships.
    pub fn shipped() -> Self {
        Self {
            version: include_str!("../reference/VERSION").trim().to_owned(),
            files: shipped_files!(
                "species",
                "units",
                "formulation_types",
                "formulateds",
                "master_campaign_cycles",
                "planting_times",
                "activity_statuses",
                "hydric_states",
                "phenological_states",
                "voucher_types",
                "labour_types",
                "adversity_kinds",
                "adversity_categories",
                "adversities",
                "climatic_factors",
                "weather_anomaly_types",
                "device_event_types",
            ),
        }
    }

    /// The text of `table`'s file, mutable (a test makes a later release out of this one).
    pub fn file_mut(&mut self, table: &str) -> Option<&mut String> {
        self.files
            .iter_mut()
            .find(|(name, _)| *name == table)
            .map(|(_, text)| text)
    }

    fn checksum(&self) -> String {
        let mut hash = Sha256::new();
        for (table, text) in &self.files {
            hash.update(table.as_bytes());
            hash.update([0]);
            hash.update(text.as_bytes());
            hash.update([0]);
        }
        crate::hex(&hash.finalize())
    }
}

/// What applying a release did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferenceApplied {
    /// The release's label.
    pub version: String,
    /// Rows inserted.
    pub added: u64,
    /// Rows rewritten because the release corrected them.
    pub corrected: u64,
    /// Operators' rows the release took as its own, because they had the external code of a row it ships.
    pub adopted: u64,
}

/// One row of a reference file, parsed: its key, the hash of its content, and its cells by column.
struct ShippedRow {
    key: String,
    hash: String,
    cells: Vec<String>,
}

fn malformed(table: &str, detail: impl std::fmt::Display) -> StoreError {
    StoreError::Config(format!("reference data {table}.csv: {detail}"))
}

/// Parses one catalogue's file, checking its header against the declaration.
fn parse(catalogue: &Catalogue, text: &str) -> Result<Vec<ShippedRow>, StoreError> {
    let table = catalogue.table;
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .map_err(|error| malformed(table, error))?
        .iter()
        .map(str::to_owned)
        .collect();
    let expected: Vec<&str> = std::iter::once("key")
        .chain(catalogue.columns.iter().map(|column| column.field()))
        .collect();
    if header != expected {
        return Err(malformed(table, format!("header is {header:?}, expected {expected:?}")));
    }
    let mut rows = Vec::new();
    for record in reader.records() {
        let record = record.map_err(|error| malformed(table, error))?;
        let mut cells = record.iter().map(str::to_owned);
        let key = cells.next().unwrap_or_default();
        let plain_key = !key.is_empty()
            && key
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"._-".contains(&b));
        if !plain_key {
            return Err(malformed(table, format!("key {key:?} is not [a-z0-9._-]+")));
        }
        let cells: Vec<String> = cells.collect();
        let mut hash = Sha256::new();
        for cell in &cells {
            hash.update(cell.as_bytes());
            hash.update([0x1f]);
        }
        rows.push(ShippedRow {
            key,
            hash: crate::hex(&hash.finalize()),
            cells,
        });
    }
    Ok(rows)
}

/// The values a row is stored with, in the order of [`stored_columns`].
fn values(
    catalogue: &Catalogue,
    row: &ShippedRow,
    ids: &HashMap<&'static str, HashMap<String, i64>>,
) -> Result<Vec<Arg>, StoreError> {
    let table = catalogue.table;
    let mut values = Vec::with_capacity(catalogue.columns.len() + 3);
    for (column, cell) in catalogue.columns.iter().zip(&row.cells) {
        values.push(match *column {
            Column::Text(_) => Arg::Text(cell.clone()),
            Column::Int(name) => Arg::Int(
                cell.parse()
                    .map_err(|_| malformed(table, format!("{}: {name} {cell:?} is not an integer", row.key)))?,
            ),
            Column::Ref { .. } if cell.is_empty() => Arg::OptionalInt(None),
            Column::Ref {
                field, table: target, ..
            } => Arg::OptionalInt(Some(
                ids.get(target)
                    .and_then(|keys| keys.get(cell))
                    .copied()
                    .ok_or_else(|| malformed(table, format!("{}: {field} {cell:?} is no key of {target}", row.key)))?,
            )),
        });
    }
    if catalogue.key_is_external_code {
        values.push(Arg::Text(row.key.clone()));
    }
    values.push(Arg::Text(row.hash.clone()));
    Ok(values)
}

/// A shipped row's country and external code, for the catalogues whose live codes are unique per country.
struct CountryCode {
    country: String,
    external_code: String,
}

/// Where a new shipped row may meet an operator's row with its code (imported before the release shipped it): the
/// country and code to look for. Such a row is adopted (given the key, its content kept as an operator's correction)
/// rather than inserted beside it, which the unique index of live codes would refuse.
fn adoptable(catalogue: &Catalogue, row: &ShippedRow) -> Option<CountryCode> {
    let cell = |name: &str| {
        catalogue
            .columns
            .iter()
            .position(|column| column.field() == name)
            .and_then(|at| row.cells.get(at))
            .cloned()
    };
    let country = cell("country")?;
    let external_code = if catalogue.key_is_external_code {
        row.key.clone()
    } else {
        cell("external_code")?
    };
    Some(CountryCode { country, external_code })
}

/// The columns [`values`] fills, in order.
fn stored_columns(catalogue: &Catalogue) -> Vec<&'static str> {
    let mut columns: Vec<&'static str> = catalogue.columns.iter().map(|column| column.column()).collect();
    if catalogue.key_is_external_code {
        columns.push("external_code");
    }
    columns.push("reference_hash");
    columns
}

/// Applies `data` unless this very release was applied before; answers what it changed.
pub(crate) async fn apply(db: &crate::db::Db, data: &ReferenceData) -> Result<Option<ReferenceApplied>, StoreError> {
    let checksum = data.checksum();
    let dialect = db.dialect();
    let now = now_millis();
    with_writer!(db, pool => {
        let mut tx = pool.begin_write().await?;
        if dialect == Dialect::Postgres {
            sqlx::query("SELECT pg_advisory_xact_lock($1)")
                .bind(crate::migrate::MIGRATION_LOCK)
                .execute(&mut *tx)
                .await?;
        }
        let seen: Option<String> = sqlx::query_scalar("SELECT version FROM reference_releases WHERE checksum = $1")
            .bind(&checksum)
            .fetch_optional(&mut *tx)
            .await?;
        if seen.is_some() {
            return Ok(None);
        }
        // Read only for a release the database has not applied: a start-up that finds it applied parses nothing.
        let parsed = CATALOGUES
            .iter()
            .map(|catalogue| {
                let text = data
                    .files
                    .iter()
                    .find(|(table, _)| *table == catalogue.table)
                    .map(|(_, text)| text.as_str())
                    .ok_or_else(|| malformed(catalogue.table, "missing"))?;
                Ok((catalogue, parse(catalogue, text)?))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let mut ids: HashMap<&'static str, HashMap<String, i64>> = HashMap::new();
        let (mut added, mut corrected, mut adopted) = (0_u64, 0_u64, 0_u64);
        for (catalogue, rows) in &parsed {
            let table = catalogue.table;
            let existing: Vec<(i64, String, Option<String>)> = sqlx::query_as(&format!(
                "SELECT id, reference_key, reference_hash FROM {table} WHERE reference_key IS NOT NULL"
            ))
            .fetch_all(&mut *tx)
            .await?;
            let mut keys: HashMap<String, i64> = HashMap::with_capacity(existing.len() + rows.len());
            let mut hashes: HashMap<i64, Option<String>> = HashMap::with_capacity(existing.len());
            for (id, key, hash) in existing {
                keys.insert(key, id);
                hashes.insert(id, hash);
            }
            let columns = stored_columns(catalogue);
            let width = columns.len();
            let insert = format!(
                "INSERT INTO {table} ({}, reference_key, created_at, updated_at) VALUES ({}) RETURNING id",
                columns.join(", "),
                (1..=width + 3).map(|n| format!("${n}")).collect::<Vec<_>>().join(", ")
            );
            let update = format!(
                "UPDATE {table} SET {}, updated_at = ${} WHERE id = ${}",
                columns
                    .iter()
                    .enumerate()
                    .map(|(index, column)| format!("{column} = ${}", index + 1))
                    .collect::<Vec<_>>()
                    .join(", "),
                width + 1,
                width + 2
            );
            for row in rows {
                let mut args = values(catalogue, row, &ids)?;
                match keys.get(&row.key).copied() {
                    Some(id) if hashes.get(&id).and_then(Option::as_deref) == Some(row.hash.as_str()) => {}
                    Some(id) => {
                        args.extend([Arg::Int(now), Arg::Int(id)]);
                        bind_args!(sqlx::query(&update), &args).execute(&mut *tx).await?;
                        corrected += 1;
                    }
                    None => {
                        let adoption = adoptable(catalogue, row);
                        let adopted_id: Option<i64> = match &adoption {
                            Some(code) => {
                                sqlx::query_scalar(&format!(
                                    "UPDATE {table} SET reference_key = $1, reference_hash = $2 \
                                     WHERE country = $3 AND external_code = $4 AND deleted_at IS NULL \
                                     AND reference_key IS NULL RETURNING id"
                                ))
                                .bind(&row.key)
                                .bind(&row.hash)
                                .bind(&code.country)
                                .bind(&code.external_code)
                                .fetch_optional(&mut *tx)
                                .await?
                            }
                            None => None,
                        };
                        if let Some(id) = adopted_id {
                            keys.insert(row.key.clone(), id);
                            adopted += 1;
                            continue;
                        }
                        args.extend([Arg::Text(row.key.clone()), Arg::Int(now), Arg::Int(now)]);
                        let id: i64 = bind_args!(sqlx::query_scalar(&insert), &args).fetch_one(&mut *tx).await?;
                        keys.insert(row.key.clone(), id);
                        added += 1;
                    }
                }
            }
            ids.insert(table, keys);
        }
        sqlx::query(
            "INSERT INTO reference_releases (checksum, version, added, corrected, applied_at) VALUES ($1, $2, $3, $4, $5)",
        )
        .bind(&checksum)
        .bind(&data.version)
        .bind(i64::try_from(added).unwrap_or(i64::MAX))
        .bind(i64::try_from(corrected).unwrap_or(i64::MAX))
        .bind(now)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        if added + corrected + adopted > 0 {
            tracing::info!(version = %data.version, added, corrected, adopted, "applied reference data");
        }
        Ok(Some(ReferenceApplied {
            version: data.version.clone(),
            added,
            corrected,
            adopted,
        }))
    })
}

/// A release applied to a database, as `reference_releases` records it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct ReferenceRelease {
    /// The release's label.
    pub version: String,
    /// Rows it inserted.
    pub added: i64,
    /// Rows it rewrote.
    pub corrected: i64,
    /// When it was applied (epoch ms).
    pub applied_at: i64,
}

/// The catalogues an operator may switch rows of, by table name.
pub fn catalogue_tables() -> impl Iterator<Item = &'static str> {
    CATALOGUES.iter().map(|catalogue| catalogue.table)
}

/// The external systems a new society of `country` starts with: `(name, description)`, from
/// `reference/external_systems.csv`. They are the society's own rows from then on.
pub(crate) fn external_systems(country: &str) -> Result<Vec<(String, String)>, StoreError> {
    let text = include_str!("../reference/external_systems.csv");
    let mut systems = Vec::new();
    for record in csv::Reader::from_reader(text.as_bytes()).records() {
        let record = record.map_err(|error| malformed("external_systems", error))?;
        if record.get(1) == Some(country) {
            systems.push((
                record.get(2).unwrap_or_default().to_owned(),
                record.get(3).unwrap_or_default().to_owned(),
            ));
        }
    }
    Ok(systems)
}

impl Store {
    /// Turns a catalogue row on or off, found by its reference key or, for the operator's own rows, its id; answers
    /// whether such a row exists. A release never writes `active`, so the switch outlasts upgrades.
    pub async fn set_reference_active(&self, table: &str, key_or_id: &str, active: bool) -> Result<bool, StoreError> {
        let Some(catalogue) = CATALOGUES.iter().find(|catalogue| catalogue.table == table) else {
            return Err(StoreError::Config(format!(
                "{table:?} is not a catalogue; use one of {}",
                catalogue_tables().collect::<Vec<_>>().join(", ")
            )));
        };
        let (condition, arg) = match key_or_id.parse::<i64>() {
            Ok(id) => ("id = $3", Arg::Int(id)),
            Err(_) => ("reference_key = $3", Arg::Text(key_or_id.to_owned())),
        };
        let sql = format!(
            "UPDATE {} SET active = $1, updated_at = $2 WHERE {condition} AND active <> $1",
            catalogue.table
        );
        let exists = format!(
            "SELECT COUNT(*) FROM {} WHERE {}",
            catalogue.table,
            condition.replace("$3", "$1")
        );
        let args = [Arg::Bool(active), Arg::Int(now_millis()), arg.clone()];
        with_writer!(&self.db, pool => {
            bind_args!(sqlx::query(&sql), &args).execute(pool).await?;
            let found: i64 = bind_args!(sqlx::query_scalar(&exists), [&arg]).fetch_one(pool).await?;
            Ok(found > 0)
        })
    }

    /// The releases of reference data applied to this database, oldest first.
    pub async fn reference_releases(&self) -> Result<Vec<ReferenceRelease>, StoreError> {
        Ok(with_reader!(&self.db, pool => {
            sqlx::query_as("SELECT version, added, corrected, applied_at FROM reference_releases ORDER BY applied_at")
                .fetch_all(pool)
                .await?
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_files_match_their_declarations() {
        let data = ReferenceData::shipped();
        let mut keys: HashMap<&str, Vec<String>> = HashMap::new();
        for catalogue in CATALOGUES {
            let text = data
                .files
                .iter()
                .find(|(table, _)| *table == catalogue.table)
                .map(|(_, text)| text.as_str())
                .unwrap_or_else(|| panic!("{} ships no file", catalogue.table));
            let rows = parse(catalogue, text).expect("parses");
            assert!(!rows.is_empty(), "{} ships no rows", catalogue.table);
            let mut seen = std::collections::HashSet::new();
            for row in &rows {
                assert!(
                    seen.insert(row.key.clone()),
                    "{}: key {} twice",
                    catalogue.table,
                    row.key
                );
                for (column, cell) in catalogue.columns.iter().zip(&row.cells) {
                    if let Column::Ref { table, field, .. } = column {
                        let known = cell.is_empty() && *field == "species" && catalogue.table == "formulateds"
                            || keys.get(table).is_some_and(|keys| keys.contains(cell));
                        assert!(known, "{}: {} names unknown {field} {cell:?}", catalogue.table, row.key);
                    }
                }
            }
            keys.insert(catalogue.table, rows.into_iter().map(|row| row.key).collect());
        }
    }

    #[test]
    fn every_country_ships_cycles_planting_times_and_products() {
        let data = ReferenceData::shipped();
        for table in ["master_campaign_cycles", "planting_times", "formulateds"] {
            let text = &data.files.iter().find(|(name, _)| *name == table).expect("file").1;
            for country in domain::country::COUNTRIES {
                let rows = csv::Reader::from_reader(text.as_bytes())
                    .records()
                    .filter_map(Result::ok)
                    .filter(|record| record.get(1) == Some(country.code))
                    .count();
                assert!(rows >= 2, "{table}: {} ships {rows} rows", country.code);
            }
        }
    }
}
