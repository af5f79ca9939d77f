//! Which records a logical deletion would orphan, derived from the schema's own foreign keys rather than kept by
//! hand: a table that refers to another (through a foreign key to its `id`) and has a `deleted_at` column holds its
//! dependants, and those rows with `deleted_at` NULL are live. A new referencing table is covered the moment its
//! migration runs.
//!
//! Tables that refer without a `deleted_at` (links such as `work_order_labour_applicators` or `plot_tags`) are no
//! dependants: they record history or membership, and a logically deleted record stays readable, so nothing they
//! name dangles. That is why work orders keep naming the applicators that did their labours, and an applicator named
//! there can still be deleted.
//!
//! The catalogue is read once per [`Store`] (so once per process in production) and kept.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, OnceLock, PoisonError};

use crate::db::{with_reader, Db};
use crate::{Store, StoreError};

/// Records that would be left pointing at a deleted record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Dependant {
    /// Their table, which also names them in the refusal.
    pub table: &'static str,
    /// Their column that refers to the deleted record.
    pub column: &'static str,
}

/// Every table's dependants, in the order the schema created their tables: a record with dependants of several kinds
/// is refused naming the kind declared first, the same on both backends.
#[derive(Debug, Default)]
pub struct Dependants(BTreeMap<&'static str, Vec<Dependant>>);

impl Dependants {
    /// The dependants of records of `table`; none when nothing with a `deleted_at` refers to it.
    pub fn of(&self, table: &str) -> &[Dependant] {
        self.0.get(table).map_or(&[], Vec::as_slice)
    }

    fn from_catalogue(references: Vec<(String, String, String)>) -> Self {
        let mut dependants = BTreeMap::<&'static str, Vec<Dependant>>::new();
        for (referenced, table, column) in references {
            let dependant = Dependant {
                table: interned(table),
                column: interned(column),
            };
            let of_table = dependants.entry(interned(referenced)).or_default();
            if !of_table.contains(&dependant) {
                of_table.push(dependant);
            }
        }
        Self(dependants)
    }
}

/// `(referenced table, referencing table, referencing column)` for each foreign-key column that points at an `id`,
/// from tables that have `deleted_at`. A foreign key that names no columns points at the primary key, `id`.
const SQLITE_REFERENCES: &str = "SELECT p.\"table\", m.name, p.\"from\" \
     FROM sqlite_master m, pragma_foreign_key_list(m.name) p \
     WHERE m.type = 'table' AND COALESCE(p.\"to\", 'id') = 'id' \
     AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'deleted_at') \
     ORDER BY m.rowid, p.id, p.seq";

/// The same as [`SQLITE_REFERENCES`], from PostgreSQL's catalogue, in the current schema.
const POSTGRES_REFERENCES: &str = "SELECT target.relname::text, source.relname::text, referencing.attname::text \
     FROM pg_constraint c \
     JOIN pg_class source ON source.oid = c.conrelid \
     JOIN pg_class target ON target.oid = c.confrelid \
     CROSS JOIN LATERAL unnest(c.conkey, c.confkey) WITH ORDINALITY AS k(from_column, to_column, position) \
     JOIN pg_attribute referencing ON referencing.attrelid = c.conrelid AND referencing.attnum = k.from_column \
     JOIN pg_attribute referenced ON referenced.attrelid = c.confrelid AND referenced.attnum = k.to_column \
     WHERE c.contype = 'f' AND source.relnamespace = current_schema()::regnamespace AND referenced.attname = 'id' \
     AND EXISTS (SELECT 1 FROM pg_attribute d WHERE d.attrelid = source.oid AND d.attname = 'deleted_at' \
                 AND NOT d.attisdropped) \
     ORDER BY source.oid, c.oid, k.position";

impl Store {
    /// The schema's dependants, read from the catalogue on first use.
    pub async fn dependants(&self) -> Result<&Dependants, StoreError> {
        self.dependants.get_or_try_init(|| read(&self.db)).await
    }
}

async fn read(db: &Db) -> Result<Dependants, StoreError> {
    let catalogue = match db {
        Db::Sqlite { .. } => SQLITE_REFERENCES,
        Db::Postgres { .. } => POSTGRES_REFERENCES,
    };
    let references: Vec<(String, String, String)> = with_reader!(db, pool => {
        sqlx::query_as(catalogue).fetch_all(pool).await?
    });
    Ok(Dependants::from_catalogue(references))
}

/// `name` as a `&'static str`, as a refusal names what it refuses for. Table and column names are few and fixed by
/// the schema, so each is leaked once per process however many stores read them.
fn interned(name: String) -> &'static str {
    static NAMES: OnceLock<Mutex<BTreeSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some(known) = names.get(name.as_str()) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.into_boxed_str());
    names.insert(leaked);
    leaked
}
