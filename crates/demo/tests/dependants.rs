//! Deleting a record is refused while anything live refers to it, for every foreign key of the schema: each
//! referencing table with `deleted_at`, found in SQLite's own catalogue, is tried with one live row over the demo data.
//! A table added later is covered without this test changing.

use domain::Refusal;
use sqlx::SqlitePool;
use store::dependants::Dependant;
use store::resources::establishments::Establishments;
use store::resources::operations::Applicators;
use store::resources::plots::PlotsV3;
use store::resources::Deletable;
use store::{now_millis, Scope, Store, StoreConfig};
use testkit::scratch::Scratch;

/// The demo data on SQLite, through the store and through a plain connection to the same file for the catalogue.
struct Demo {
    store: Store,
    sql: SqlitePool,
    /// The folder of the database's files, deleted with the demo.
    _files: Scratch,
}

/// The tables a [`Deletable`] resource deletes.
const DELETABLE: [&str; 3] = [Establishments::TABLE, PlotsV3::TABLE, Applicators::TABLE];

async fn demo_store(name: &str) -> Demo {
    let files = Scratch::new(&format!("dependants-{name}"));
    let path = files.join("demo.sqlite");
    let url = format!("sqlite://{}", path.display());
    let store = Store::connect(&url, StoreConfig::default()).await.expect("open");
    store.migrate().await.expect("migrate");
    let options = demo::DemoOptions {
        scale: 1,
        farmers: 3,
        seed: 7,
    };
    demo::demo(&store, &options).await.expect("seed");
    let sql = SqlitePool::connect(&url).await.expect("a plain connection");
    Demo {
        store,
        sql,
        _files: files,
    }
}

/// Every foreign-key column of the schema that points at the `id` of `DELETABLE` tables, from tables with
/// `deleted_at`: `(referenced table, referencing table, column)`, read from SQLite's catalogue directly.
async fn references_to_deletables(demo: &Demo) -> Vec<(String, String, String)> {
    let all: Vec<(String, String, String, Option<String>)> = {
        sqlx::query_as(
            "SELECT p.\"table\", m.name, p.\"from\", p.\"to\" FROM sqlite_master m, pragma_foreign_key_list(m.name) p \
             WHERE m.type = 'table' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) c WHERE c.name = 'deleted_at')",
        )
        .fetch_all(&demo.sql)
        .await
        .expect("the catalogue")
    };
    all.into_iter()
        .filter(|(referenced, _, _, to)| {
            DELETABLE.contains(&referenced.as_str()) && to.as_deref().unwrap_or("id") == "id"
        })
        .map(|(referenced, table, column, _)| (referenced, table, column))
        .collect()
}

async fn execute(demo: &Demo, sql: &str) {
    sqlx::query(sql)
        .execute(&demo.sql)
        .await
        .unwrap_or_else(|error| panic!("{sql}: {error}"));
}

async fn integer(demo: &Demo, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&demo.sql)
        .await
        .unwrap_or_else(|error| panic!("{sql}: {error}"))
}

/// A new record of `table` in the scope's society, which nothing refers to yet.
async fn fresh(demo: &Demo, scope: &Scope, table: &str) -> i64 {
    let store = &demo.store;
    let society = scope.society_id();
    match table {
        "establishments" => {
            let farmer = integer(
                demo,
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
            let establishment = Box::pin(fresh(demo, scope, "establishments")).await;
            let user = integer(demo, &format!("SELECT MIN(id) FROM users WHERE society_id = {society}")).await;
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

async fn delete(demo: &Demo, scope: &Scope, table: &str, id: i64) -> Result<(), Refusal> {
    let outcome = match table {
        "establishments" => demo
            .store
            .delete_logically::<Establishments>(scope, id)
            .await
            .expect("store")
            .map(drop),
        "plots" => demo
            .store
            .delete_logically::<PlotsV3>(scope, id)
            .await
            .expect("store")
            .map(drop),
        "applicators" => demo
            .store
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
    let demo = demo_store("refusals").await;
    let references = references_to_deletables(&demo).await;
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
        let row = integer(&demo, &format!("SELECT COALESCE(MIN(id), 0) FROM {table}")).await;
        assert!(row > 0, "{what}: the demo data has a row of {table} to test with");
        let society = integer(&demo, &format!("SELECT society_id FROM {table} WHERE id = {row}")).await;
        let scope = demo.store.admin().scope(society).await.expect("scope");
        let target = fresh(&demo, &scope, referenced).await;
        execute(
            &demo,
            &format!("UPDATE {table} SET {column} = {target}, deleted_at = NULL WHERE id = {row}"),
        )
        .await;
        let refusal = delete(&demo, &scope, referenced, target).await;
        assert!(
            matches!(refusal, Err(Refusal::HasDependants { resource, count: 1 }) if resource == table),
            "{what}: one live row refuses the deletion, naming its table: {refusal:?}"
        );
        execute(
            &demo,
            &format!("UPDATE {table} SET deleted_at = {} WHERE id = {row}", now_millis()),
        )
        .await;
        assert_eq!(
            delete(&demo, &scope, referenced, target).await,
            Ok(()),
            "{what}: a deleted one does not"
        );
    }
}

#[tokio::test]
async fn an_applicator_named_by_a_work_order_can_still_be_deleted() {
    let demo = demo_store("applicators").await;
    let dependants = demo.store.dependants().await.expect("catalogue");
    assert_eq!(
        dependants.of(Applicators::TABLE),
        [],
        "links without deleted_at keep history, not dependants"
    );
    let applicator = integer(&demo, "SELECT MIN(applicator_id) FROM work_order_labour_applicators").await;
    let society = integer(
        &demo,
        &format!("SELECT society_id FROM applicators WHERE id = {applicator}"),
    )
    .await;
    let scope = demo.store.admin().scope(society).await.expect("scope");
    assert_eq!(delete(&demo, &scope, Applicators::TABLE, applicator).await, Ok(()));
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
