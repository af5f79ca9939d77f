//! Operators' bulk loads of master data (`tranquera admin import` and `export`), one generic engine for every
//! resource [`resources`] declares.
//!
//! A file is loaded in one transaction on a connection of its own. Its rows, read and checked by the domain's rules
//! on the way in, are staged chunk by chunk ([`Load::stage`]) in the resource's staging table ([`staging`]), under
//! an id of the import's own, so memory stays flat however long the file is. [`Load::finish`] then runs every check
//! that needs the database (codes repeated in the file, references that are not live records of the society or its
//! country, deletions of records with live dependants) as set-based queries over the staged rows, and only if none
//! fails writes them: an upsert by `(owner, external_code)` on the live rows' unique index (migration 11) that leaves
//! unchanged rows untouched, then the deletions; then it deletes its staged rows and commits. A refused file, or one
//! that fails half-way, is rolled back whole, staged rows included. Every statement names the owner as a bound value,
//! so on Citus a society's import runs on the worker that holds the society. On PostgreSQL an advisory lock keyed by
//! the owner and resource serialises imports of one society's resource, and referenced records are locked to share
//! as the API's writes lock them; SQLite has one writer at a time.

mod checks;
mod export;
mod load;
mod resources;
mod sql;
mod staging;

use domain::import::Field;
use sha2::{Digest, Sha256};

pub use export::{ExportPage, ExportValue};
pub use load::{Load, Outcome};

use crate::{Store, StoreError};

/// Whose records an importable resource holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ownership {
    /// A society's (`society_id`); imported with `--society`.
    Society,
    /// A per-country catalogue's (`country`); imported with `--country`.
    Country,
}

/// Whose records a reference may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetOwner {
    /// The importing society's.
    Society,
    /// The importing society's country's (a per-country catalogue).
    Country,
    /// Everyone's (a global catalogue).
    Global,
}

/// The table a reference names, and whose records there it may name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// The table.
    pub table: &'static str,
    /// Whose records.
    pub owner: TargetOwner,
}

/// A field of an importable resource and where it is stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Column {
    /// The field as the domain reads and checks it.
    pub field: Field,
    /// Its column.
    pub column: &'static str,
    /// For a reference, what it names.
    pub target: Option<Target>,
    /// What a record gets when the field is empty, as SQL (`TRUE`, `''`); `NULL` when none.
    pub empty: Option<&'static str>,
}

/// A resource operators import and export.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportResource {
    /// Its name on the command line, as the API's path names it.
    pub name: &'static str,
    /// A shorter name the command line also takes.
    pub alias: Option<&'static str>,
    /// Its table.
    pub table: &'static str,
    /// Whose records it holds.
    pub ownership: Ownership,
    /// Its fields, besides `external_code`.
    pub columns: &'static [Column],
}

impl ImportResource {
    /// Its fields, in order, for the domain's reading of a file.
    pub fn fields(&self) -> Vec<Field> {
        self.columns.iter().map(|column| column.field).collect()
    }
}

/// Every importable resource.
pub fn resources() -> &'static [ImportResource] {
    resources::RESOURCES
}

/// The resource named (or aliased) `name`.
pub fn resource(name: &str) -> Option<&'static ImportResource> {
    let name = name.trim();
    resources::RESOURCES
        .iter()
        .find(|resource| resource.name == name || resource.alias == Some(name))
}

/// Whose records an import or export reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// A society, and its country (whose catalogues its references may name).
    Society {
        /// The society.
        id: i64,
        /// Its country.
        country: String,
    },
    /// A country's per-country catalogues.
    Country(String),
}

impl Owner {
    /// Whether records of a resource owned so may be loaded for this owner.
    pub fn fits(&self, ownership: Ownership) -> bool {
        matches!(
            (self, ownership),
            (Owner::Society { .. }, Ownership::Society) | (Owner::Country(_), Ownership::Country)
        )
    }

    fn country(&self) -> &str {
        match self {
            Owner::Society { country, .. } | Owner::Country(country) => country,
        }
    }

    /// The key of the PostgreSQL advisory lock that serialises imports of `resource` for this owner.
    fn lock_key(&self, resource: &ImportResource) -> i64 {
        let owner = match self {
            Owner::Society { id, .. } => format!("society {id}"),
            Owner::Country(country) => format!("country {country}"),
        };
        let digest = Sha256::digest(format!("tranquera import {owner} {}", resource.table).as_bytes());
        let mut key = [0; 8];
        key.copy_from_slice(&digest[..8]);
        i64::from_be_bytes(key)
    }
}

impl Store {
    /// The owner of a society's imports: the society and its country; none when there is no such society.
    pub async fn import_owner(&self, society_id: i64) -> Result<Option<Owner>, StoreError> {
        match self.admin().scope(society_id).await {
            Ok(scope) => Ok(Some(Owner::Society {
                id: society_id,
                country: scope.country().to_owned(),
            })),
            Err(crate::admin::AdminError::Store(error)) => Err(error),
            Err(crate::admin::AdminError::Invalid(_)) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_are_found_by_name_or_alias_and_name_their_tables_plainly() {
        assert_eq!(resource("cycles").map(|r| r.table), Some("master_campaign_cycles"));
        assert_eq!(resource("plots").map(|r| r.ownership), Some(Ownership::Society));
        assert!(resource("work_orders").is_none());
        let plain = |name: &str| name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
        for resource in resources() {
            assert!(plain(resource.table), "{}", resource.table);
            for column in resource.columns {
                assert!(plain(column.column), "{}", column.column);
                assert!(column.target.is_none_or(|target| plain(target.table)));
            }
        }
    }

    #[test]
    fn lock_keys_differ_by_owner_and_resource() {
        let plots = resource("plots").expect("plots");
        let farmers = resource("farmers").expect("farmers");
        let society = |id| Owner::Society {
            id,
            country: "PY".into(),
        };
        assert_eq!(society(1).lock_key(plots), society(1).lock_key(plots));
        assert_ne!(society(1).lock_key(plots), society(2).lock_key(plots));
        assert_ne!(society(1).lock_key(plots), society(1).lock_key(farmers));
    }
}
