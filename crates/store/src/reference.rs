//! The reference data every deployment ships: the global and per-country catalogues (species, units, products,
//! cycles, planting times, voucher and labour types, adversities, …), embedded from `crates/store/reference/*.csv`
//! and brought up to date on every `migrate`.
//!
//! A release's data is applied once (recorded by its checksum in `reference_releases`). Each shipped row is matched
//! by its `reference_key`: a new key is inserted, and a row is rewritten only when the release's content for it
//! differs from what the previous release gave it (`reference_hash`), so an operator's own correction stands until a
//! release corrects that very row, and `active`, the operator's switch, is never written. Every change stamps
//! `updated_at` with the time it is applied, so incremental syncs see it; its transaction moves
//! `reference_version`, which every `syncCheck` and catalogue ETag include. Society data is never touched.

mod catalogues;
mod shipped;

use std::collections::HashMap;

use sha2::{Digest, Sha256};

use self::catalogues::{stored_columns, Catalogue, CATALOGUES};
use self::shipped::{adoptable, malformed, parse, values, ShippedRow};
use crate::db::{with_reader, with_writer};
use crate::sql::{bind_args, Arg, Dialect};
use crate::write::{BeginWrite, WriteTx};
use crate::{now_millis, Store, StoreError};

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
        let parsed = parse_release(data)?;
        let mut ids: HashMap<&'static str, HashMap<String, i64>> = HashMap::new();
        let mut applied = ReferenceApplied { version: data.version.clone(), added: 0, corrected: 0, adopted: 0 };
        for (catalogue, rows) in &parsed {
            let keys = tx.apply_catalogue(catalogue, rows, &ids, now, &mut applied).await?;
            ids.insert(catalogue.table, keys);
        }
        let ReferenceApplied { added, corrected, adopted, .. } = applied;
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
        if added + corrected + adopted > 0 {
            tx.reference_changed();
        }
        tx.commit().await?;
        if added + corrected + adopted > 0 {
            tracing::debug!(version = %data.version, added, corrected, adopted, "applied reference data");
        }
        Ok(Some(applied))
    })
}

/// Every catalogue of `data`, its file parsed, in the order of [`CATALOGUES`].
fn parse_release(data: &ReferenceData) -> Result<Vec<(&'static Catalogue, Vec<ShippedRow>)>, StoreError> {
    CATALOGUES
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
        .collect()
}

/// The statements that store a shipped row of `catalogue`: its insert (`RETURNING id`), whose arguments are
/// [`values`] then key and times; and its rewrite, whose arguments are [`values`] then time and id.
fn statements(catalogue: &Catalogue) -> (String, String) {
    let table = catalogue.table;
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
    (insert, update)
}

/// A release's writes of one catalogue, on a write transaction of either backend.
trait ReleaseWrites {
    /// Brings `catalogue` to the release's `rows`, whose references name rows by the keys of `ids` (the catalogues
    /// applied before it), counting what it did in `applied`; answers the catalogue's ids by key.
    fn apply_catalogue(
        &mut self,
        catalogue: &Catalogue,
        rows: &[ShippedRow],
        ids: &HashMap<&'static str, HashMap<String, i64>>,
        now: i64,
        applied: &mut ReferenceApplied,
    ) -> impl std::future::Future<Output = Result<HashMap<String, i64>, StoreError>> + Send;

    /// Gives the operator's row with the new shipped `row`'s code, if there is one, the row's key: answers its id.
    fn adopt(
        &mut self,
        catalogue: &Catalogue,
        row: &ShippedRow,
    ) -> impl std::future::Future<Output = Result<Option<i64>, sqlx::Error>> + Send;
}

/// Implements [`ReleaseWrites`] for the write transaction of backend `$db`.
macro_rules! release_writes {
    ($db:ty) => {
        impl ReleaseWrites for WriteTx<'static, $db> {
            async fn apply_catalogue(
                &mut self,
                catalogue: &Catalogue,
                rows: &[ShippedRow],
                ids: &HashMap<&'static str, HashMap<String, i64>>,
                now: i64,
                applied: &mut ReferenceApplied,
            ) -> Result<HashMap<String, i64>, StoreError> {
                let table = catalogue.table;
                let existing: Vec<(i64, String, Option<String>)> = sqlx::query_as(&format!(
                    "SELECT id, reference_key, reference_hash FROM {table} WHERE reference_key IS NOT NULL"
                ))
                .fetch_all(&mut **self)
                .await?;
                let mut keys: HashMap<String, i64> = HashMap::with_capacity(existing.len() + rows.len());
                let mut hashes: HashMap<i64, Option<String>> = HashMap::with_capacity(existing.len());
                for (id, key, hash) in existing {
                    keys.insert(key, id);
                    hashes.insert(id, hash);
                }
                let (insert, update) = statements(catalogue);
                for row in rows {
                    let mut args = values(catalogue, row, ids)?;
                    match keys.get(&row.key).copied() {
                        Some(id) if hashes.get(&id).and_then(Option::as_deref) == Some(row.hash.as_str()) => {}
                        Some(id) => {
                            args.extend([Arg::Int(now), Arg::Int(id)]);
                            bind_args!(sqlx::query(&update), &args)
                                .execute(&mut **self)
                                .await?;
                            applied.corrected += 1;
                        }
                        None => {
                            if let Some(id) = self.adopt(catalogue, row).await? {
                                keys.insert(row.key.clone(), id);
                                applied.adopted += 1;
                                continue;
                            }
                            args.extend([Arg::Text(row.key.clone()), Arg::Int(now), Arg::Int(now)]);
                            let id: i64 = bind_args!(sqlx::query_scalar(&insert), &args)
                                .fetch_one(&mut **self)
                                .await?;
                            keys.insert(row.key.clone(), id);
                            applied.added += 1;
                        }
                    }
                }
                Ok(keys)
            }

            async fn adopt(&mut self, catalogue: &Catalogue, row: &ShippedRow) -> Result<Option<i64>, sqlx::Error> {
                let Some(code) = adoptable(catalogue, row) else {
                    return Ok(None);
                };
                sqlx::query_scalar(&format!(
                    "UPDATE {} SET reference_key = $1, reference_hash = $2 \
                     WHERE country = $3 AND external_code = $4 AND deleted_at IS NULL \
                     AND reference_key IS NULL RETURNING id",
                    catalogue.table
                ))
                .bind(&row.key)
                .bind(&row.hash)
                .bind(&code.country)
                .bind(&code.external_code)
                .fetch_optional(&mut **self)
                .await
            }
        }
    };
}

release_writes!(sqlx::Sqlite);
release_writes!(sqlx::Postgres);

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
            let mut tx = pool.begin_write().await?;
            let switched = bind_args!(sqlx::query(&sql), &args).execute(&mut *tx).await?.rows_affected();
            let found: i64 = bind_args!(sqlx::query_scalar(&exists), [&arg]).fetch_one(&mut *tx).await?;
            if switched > 0 {
                tx.reference_changed();
            }
            tx.commit().await?;
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
    use super::catalogues::Column;
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
