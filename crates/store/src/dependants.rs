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
    pub(crate) async fn dependants(&self) -> Result<&Dependants, StoreError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::db::with_writer;
    use crate::resources::establishments::Establishments;
    use crate::resources::operations::Applicators;
    use crate::resources::plots::PlotsV3;
    use crate::resources::Deletable;
    use crate::seed::{self, DemoOptions};
    use crate::{now_millis, Scope, StoreConfig};
    use domain::Refusal;

    /// The tables a [`Deletable`] resource deletes.
    const DELETABLE: [&str; 3] = [Establishments::TABLE, PlotsV3::TABLE, Applicators::TABLE];

    async fn demo_store(name: &str) -> Store {
        let path = std::env::temp_dir().join(format!("dependants-{name}-{}.sqlite", std::process::id()));
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", path.display()));
        }
        let store = Store::connect(&format!("sqlite://{}", path.display()), StoreConfig::default())
            .await
            .expect("open");
        store.migrate().await.expect("migrate");
        let options = DemoOptions {
            scale: 1,
            farmers: 3,
            seed: 7,
        };
        seed::demo(&store, &options).await.expect("seed");
        store
    }

    /// Every foreign-key column of the schema that points at the `id` of `DELETABLE` tables, from tables with
    /// `deleted_at`: `(referenced table, referencing table, column)`, read from SQLite's catalogue directly.
    async fn references_to_deletables(store: &Store) -> Vec<(String, String, String)> {
        let all: Vec<(String, String, String, Option<String>)> = with_writer!(&store.db, pool => {
            sqlx::query_as(
                "SELECT p.\"table\", m.name, p.\"from\", p.\"to\" FROM sqlite_master m, pragma_foreign_key_list(m.name) p \
                 WHERE m.type = 'table' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'deleted_at')",
            )
            .fetch_all(pool)
            .await
            .expect("the catalogue")
        });
        all.into_iter()
            .filter(|(referenced, _, _, to)| {
                DELETABLE.contains(&referenced.as_str()) && to.as_deref().unwrap_or("id") == "id"
            })
            .map(|(referenced, table, column, _)| (referenced, table, column))
            .collect()
    }

    async fn execute(store: &Store, sql: &str) {
        with_writer!(&store.db, pool => {
            sqlx::query(sql).execute(pool).await.unwrap_or_else(|error| panic!("{sql}: {error}"));
        });
    }

    async fn integer(store: &Store, sql: &str) -> i64 {
        with_writer!(&store.db, pool => {
            sqlx::query_scalar(sql).fetch_one(pool).await.unwrap_or_else(|error| panic!("{sql}: {error}"))
        })
    }

    /// A new record of `table` in the scope's society, which nothing refers to yet.
    async fn fresh(store: &Store, scope: &Scope, table: &str) -> i64 {
        let society = scope.society_id();
        match table {
            "establishments" => {
                let farmer = integer(
                    store,
                    &format!("SELECT MIN(id) FROM farmers WHERE society_id = {society} AND deleted_at IS NULL"),
                )
                .await;
                let new = domain::master_data::NewEstablishment {
                    name: "Sin nada".into(),
                    farmer_id: farmer,
                    external_code: None,
                    active: true,
                };
                store
                    .create_establishment(scope, &new)
                    .await
                    .expect("store")
                    .expect("created")
                    .id
            }
            "plots" => {
                let establishment = Box::pin(fresh(store, scope, "establishments")).await;
                let user = integer(
                    store,
                    &format!("SELECT MIN(id) FROM users WHERE society_id = {society}"),
                )
                .await;
                let new = domain::master_data::NewPlot {
                    name: "Lote vacío".into(),
                    establishment_id: establishment,
                    area: 1.0,
                    external_code: None,
                    active: true,
                };
                store
                    .create_plot(scope, user, &new)
                    .await
                    .expect("store")
                    .expect("created")
                    .id
            }
            "applicators" => {
                let new = domain::master_data::ApplicatorCommand {
                    name: "Sin órdenes".into(),
                    external_code: None,
                    active: true,
                    address: None,
                    phone_number: None,
                    email: None,
                    machines: vec![],
                };
                store
                    .write_applicator(scope, None, &new)
                    .await
                    .expect("store")
                    .expect("created")
                    .id
            }
            other => panic!("no way to create a record of {other}"),
        }
    }

    async fn delete(store: &Store, scope: &Scope, table: &str, id: i64) -> Result<(), Refusal> {
        let outcome = match table {
            "establishments" => store
                .delete_logically::<Establishments>(scope, id)
                .await
                .expect("store")
                .map(drop),
            "plots" => store
                .delete_logically::<PlotsV3>(scope, id)
                .await
                .expect("store")
                .map(drop),
            "applicators" => store
                .delete_logically::<Applicators>(scope, id)
                .await
                .expect("store")
                .map(drop),
            other => panic!("{other} is not deletable"),
        };
        outcome
    }

    #[tokio::test]
    async fn a_live_row_of_any_referencing_table_forbids_the_deletion() {
        let store = demo_store("refusals").await;
        let references = references_to_deletables(&store).await;
        let establishments = references
            .iter()
            .filter(|(referenced, ..)| referenced == "establishments")
            .count();
        assert!(
            establishments >= 4,
            "plots, silobags, devices, warehouses: {references:?}"
        );
        for (referenced, table, column) in &references {
            let what = format!("{table}.{column} → {referenced}");
            let row = integer(&store, &format!("SELECT COALESCE(MIN(id), 0) FROM {table}")).await;
            assert!(row > 0, "{what}: the demo data has a row of {table} to test with");
            let society = integer(&store, &format!("SELECT society_id FROM {table} WHERE id = {row}")).await;
            let scope = store.admin().scope(society).await.expect("scope");
            let target = fresh(&store, &scope, referenced).await;
            execute(
                &store,
                &format!("UPDATE {table} SET {column} = {target}, deleted_at = NULL WHERE id = {row}"),
            )
            .await;
            let refusal = delete(&store, &scope, referenced, target).await;
            assert!(
                matches!(refusal, Err(Refusal::HasDependants { resource, count: 1 }) if resource == table),
                "{what}: one live row refuses the deletion, naming its table: {refusal:?}"
            );
            execute(
                &store,
                &format!("UPDATE {table} SET deleted_at = {} WHERE id = {row}", now_millis()),
            )
            .await;
            assert_eq!(
                delete(&store, &scope, referenced, target).await,
                Ok(()),
                "{what}: a deleted one does not"
            );
        }
    }

    #[tokio::test]
    async fn an_applicator_named_by_a_work_order_can_still_be_deleted() {
        let store = demo_store("applicators").await;
        let dependants = store.dependants().await.expect("catalogue");
        assert_eq!(
            dependants.of(Applicators::TABLE),
            [],
            "links without deleted_at keep history, not dependants"
        );
        let applicator = integer(&store, "SELECT MIN(applicator_id) FROM work_order_labour_applicators").await;
        let society = integer(
            &store,
            &format!("SELECT society_id FROM applicators WHERE id = {applicator}"),
        )
        .await;
        let scope = store.admin().scope(society).await.expect("scope");
        assert_eq!(delete(&store, &scope, Applicators::TABLE, applicator).await, Ok(()));
        assert!(dependants.of(Establishments::TABLE).contains(&Dependant {
            table: "plots",
            column: "establishment_id"
        }));
        assert_eq!(
            dependants.of(PlotsV3::TABLE).first(),
            Some(&Dependant {
                table: "campaigns",
                column: "plot_id"
            })
        );
    }
}
