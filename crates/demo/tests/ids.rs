//! The demo's ids do not hide an integrator's mistakes: within a society no cultivation has the id of one of its
//! campaigns, so a cultivation id sent where a campaign id is due fails in the sandbox as in production.

use std::collections::{BTreeMap, BTreeSet};

use demo::large::{self, LargeOptions};
use demo::DemoOptions;
use store::bulk::Kind;
use store::{Store, StoreConfig};
use testkit::scratch::Scratch;

/// A migrated, empty SQLite store in a scratch folder of its own, which goes with its files when dropped, a failed
/// test's included.
async fn empty_store(name: &str) -> (Store, Scratch) {
    let files = Scratch::new(&format!("demo-ids-{name}"));
    let url = format!("sqlite://{}", files.join("demo.sqlite").display());
    let store = Store::connect(&url, StoreConfig::default()).await.expect("connect");
    store.migrate().await.expect("migrate");
    (store, files)
}

/// The ids of `table`'s rows, by society.
async fn ids_by_society(store: &Store, table: &str) -> BTreeMap<i64, BTreeSet<i64>> {
    let rows = store
        .read_rows(table, &[("id", Kind::Int), ("society_id", Kind::Int)], &[])
        .await
        .expect("read ids");
    let mut by_society: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
    for row in rows {
        let (Some(id), Some(society)) = (row[0].int(), row[1].int()) else {
            panic!("{table}: a row without id or society");
        };
        by_society.entry(society).or_default().insert(id);
    }
    by_society
}

/// Panics unless every society's cultivation ids and campaign ids are disjoint (and there are some of each).
async fn assert_cultivations_are_not_campaigns(store: &Store, what: &str) {
    let campaigns = ids_by_society(store, "campaigns").await;
    let cultivations = ids_by_society(store, "cultivations").await;
    let societies: BTreeSet<i64> = store
        .admin()
        .societies()
        .await
        .expect("societies")
        .iter()
        .map(|society| society.id)
        .collect();
    assert_eq!(
        campaigns.keys().copied().collect::<BTreeSet<i64>>(),
        societies,
        "{what}: every society has campaigns"
    );
    for (society, campaign_ids) in &campaigns {
        let cultivation_ids = cultivations.get(society).expect("cultivations of every society");
        let shared: Vec<&i64> = campaign_ids.intersection(cultivation_ids).collect();
        assert!(
            shared.is_empty(),
            "{what}: society {society} has {} cultivations numbered like its campaigns, e.g. {:?}",
            shared.len(),
            &shared[..shared.len().min(5)]
        );
    }
}

#[tokio::test]
async fn no_cultivation_of_a_society_has_the_id_of_one_of_its_campaigns_at_any_scale() {
    for (scale, farmers) in [(1, 8), (1, 120), (3, 8)] {
        let (store, _files) = empty_store(&format!("{scale}-{farmers}")).await;
        let options = DemoOptions {
            scale,
            farmers,
            ..DemoOptions::default()
        };
        demo::demo(&store, &options).await.expect("seed");
        assert_cultivations_are_not_campaigns(&store, &format!("scale {scale}, {farmers} farmers")).await;
        store.close().await;
    }
}

#[tokio::test]
async fn the_large_society_numbers_its_cultivations_apart_from_its_campaigns_too() {
    let (store, _files) = empty_store("large").await;
    demo::demo(
        &store,
        &DemoOptions {
            farmers: 8,
            ..DemoOptions::default()
        },
    )
    .await
    .expect("seed");
    let options = LargeOptions {
        farmers: 20,
        establishments_per_farmer: 2,
        plots_per_establishment: 3,
        work_orders: 40,
        lines_per_order: 4,
        devices: 2,
        device_events: 100,
        ..LargeOptions::default()
    };
    let summary = large::grow(&store, &options, |_, _, _| {}).await.expect("grow");
    let written: BTreeMap<&str, u64> = summary.tables.iter().map(|(table, rows, _)| (*table, *rows)).collect();
    assert_eq!(written.get("plots"), Some(&120));
    assert_eq!(written.get("campaigns"), Some(&120));
    assert!(written.get("cultivations").is_some_and(|rows| *rows > 0));
    assert!(large::is_large(&store).await.expect("is large"));
    assert_cultivations_are_not_campaigns(&store, "the large society").await;
    store.close().await;
}
