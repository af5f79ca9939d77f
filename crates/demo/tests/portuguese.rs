//! The Brazilian demo society speaks Brazilian Portuguese: no text of its records (every text column of every
//! society table, found in SQLite's own catalogue, and the names of the voucher and labour types its work orders
//! name) holds a word that only Spanish uses. The Argentine society, read the same way, holds such words, so the
//! check is not vacuous. A table or column added later is covered without this test changing.

use sqlx::SqlitePool;
use store::{Store, StoreConfig};
use testkit::scratch::Scratch;

/// Words a Brazilian would not write: Spanish spellings of the demo's labours, places and notes, and the Spanish
/// short name of a work order (OT: orden de trabajo; Brazil says OS, ordem de serviço).
const SPANISH_ONLY: &[&str] = &[
    "Siembra",
    "siembra",
    "Cosecha",
    "cosecha",
    "Fertilización",
    "fertilización",
    "Pulverización",
    "Labranza",
    "Monitoreo",
    "Lote",
    "lote",
    "OT",
    "Orden",
    "orden",
    "trabajo",
    "Estación",
    "Grano",
    "Agrónomo",
    "Maíz",
    "silobolsa",
    "Silobolsa",
    "cultivo",
    "Cultivo",
    "y",
    "del",
    "sin",
    "con",
];

/// The Spanish-only words of `text`, word by word (letters and digits; `ERP-OT-000001` holds `OT`).
fn spanish_words(text: &str) -> Vec<&'static str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter_map(|word| SPANISH_ONLY.iter().find(|spanish| **spanish == word).copied())
        .collect()
}

/// Every text of society `society`'s records that holds a Spanish-only word, as `table.column: text`.
async fn spanish_texts(sql: &SqlitePool, society: i64) -> Vec<String> {
    let columns: Vec<(String, String)> = sqlx::query_as(
        "SELECT m.name, c.name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'table' \
         AND upper(c.type) = 'TEXT' AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) s WHERE s.name = 'society_id') \
         ORDER BY m.name, c.cid",
    )
    .fetch_all(sql)
    .await
    .expect("the catalogue");
    assert!(columns.len() > 20, "the society tables' text columns: {columns:?}");
    let mut texts = Vec::new();
    for (table, column) in columns {
        let query = format!("SELECT DISTINCT \"{column}\" FROM \"{table}\" WHERE society_id = $1");
        let values: Vec<Option<String>> = sqlx::query_scalar(&query)
            .bind(society)
            .fetch_all(sql)
            .await
            .unwrap_or_else(|error| panic!("{query}: {error}"));
        texts.extend(
            values
                .into_iter()
                .flatten()
                .map(|text| format!("{table}.{column}: {text}")),
        );
    }
    // The catalogue rows its work orders name, whose names an integrator reads beside them.
    for query in [
        "SELECT DISTINCT 'labour_types.name: ' || t.name FROM work_order_labours l \
         JOIN labour_types t ON t.id = l.labour_type_id WHERE l.society_id = $1",
        "SELECT DISTINCT 'voucher_types.name: ' || t.name FROM work_orders o \
         JOIN voucher_types t ON t.id = o.voucher_type_id WHERE o.society_id = $1",
    ] {
        let named: Vec<String> = sqlx::query_scalar(query)
            .bind(society)
            .fetch_all(sql)
            .await
            .unwrap_or_else(|error| panic!("{query}: {error}"));
        assert!(!named.is_empty(), "the society's orders name catalogue rows: {query}");
        texts.extend(named);
    }
    texts.retain(|text| !spanish_words(text).is_empty());
    texts
}

#[tokio::test]
async fn the_brazilian_society_has_no_spanish_word_and_the_argentine_one_does() {
    let files = Scratch::new("demo-portuguese");
    let url = format!("sqlite://{}", files.join("demo.sqlite").display());
    let store = Store::connect(&url, StoreConfig::default()).await.expect("open");
    store.migrate().await.expect("migrate");
    let options = demo::DemoOptions {
        scale: 1,
        farmers: 12,
        ..demo::DemoOptions::default()
    };
    let summary = demo::demo(&store, &options).await.expect("seed");
    let society = |country: &str| {
        summary
            .societies
            .iter()
            .find(|(_, code, _)| *code == country)
            .map(|(id, _, _)| *id)
            .unwrap_or_else(|| panic!("a society of {country}"))
    };
    let sql = SqlitePool::connect(&url).await.expect("a plain connection");
    let brazilian = spanish_texts(&sql, society("BR")).await;
    assert!(brazilian.is_empty(), "Spanish in the Brazilian society: {brazilian:#?}");
    let argentine = spanish_texts(&sql, society("AR")).await;
    for expected in [
        "work_orders.name",
        "labour_types.name",
        "voucher_types.name",
        "plots.name",
    ] {
        assert!(
            argentine.iter().any(|text| text.starts_with(expected)),
            "the check finds the Argentine society's Spanish in {expected}: {argentine:#?}"
        );
    }
    sql.close().await;
    store.close().await;
}
