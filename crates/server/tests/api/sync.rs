//! Incremental sync: after a sync at instant T, `*_from=T` returns exactly what was created, changed or deleted
//! since, and nothing else.

use serde_json::{json, Value};

use crate::helpers::integrator;
use crate::on_both_backends;

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";

/// A filter value for "now", in the form the API renders (and so accepts) timestamps.
fn now_filter() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S+00:00")
        .to_string()
        .replace('+', "%2B")
}

on_both_backends! {
    async fn a_second_sync_sees_exactly_the_changes_since_the_first(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = app.get_ok("/api/v3/third_party/farmers", &token).await["items"][0]["id"].clone();
        // Timestamps have second precision: wait so nothing seeded shares the sync's second.
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        let since = now_filter();
        let created: Value = app.post(ESTABLISHMENTS, &token, &json!({ "name": "Nueva", "farmer_id": farmer })).await.json().await.expect("JSON");
        let doomed: Value = app.post(ESTABLISHMENTS, &token, &json!({ "name": "Efímera", "farmer_id": farmer })).await.json().await.expect("JSON");
        let deleted: Value = app.delete(&format!("{ESTABLISHMENTS}/{}", doomed["id"]), &token).await.json().await.expect("JSON");
        let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("society");
        let new_farmer = app
            .store
            .admin()
            .create_farmer(society, &store::admin::NewFarmer { name: "Nuevo Productor S.A.".into(), ..Default::default() })
            .await
            .expect("a farmer created on the platform side");

        let changed = app.all_items(&format!("{ESTABLISHMENTS}?updated_at_from={since}"), &token).await;
        assert_eq!(changed, vec![created.clone()], "live changes: the created one; the deleted one is reported apart");
        let removed = app.all_items(&format!("{ESTABLISHMENTS}?deleted_at_from={since}"), &token).await;
        assert_eq!(removed, vec![deleted]);
        let new_since = app.all_items(&format!("{ESTABLISHMENTS}?created_at_from={since}"), &token).await;
        assert_eq!(new_since, vec![created]);
        let farmers = app.all_items(&format!("/api/v3/third_party/farmers?updated_at_from={since}"), &token).await;
        assert_eq!(farmers.iter().map(|f| f["id"].as_i64()).collect::<Vec<_>>(), vec![Some(new_farmer)]);
        let v2_farmers = app.all_items(&format!("/api/v2/third_party/farmers?updated_from={since}"), &token).await;
        assert_eq!(v2_farmers.len(), 1);
        for path in ["/api/v3/third_party/campaigns", "/api/v3/third_party/work_orders", "/api/v3/third_party/device_events"] {
            let untouched = app.get_ok(&format!("{path}?updated_at_from={since}"), &token).await;
            assert_eq!(untouched["total_items"], 0, "{path}: nothing changed there");
        }
        let other = app.token(integrator("BR")).await;
        let elsewhere = app.get_ok(&format!("{ESTABLISHMENTS}?updated_at_from={since}"), &other).await;
        assert_eq!(elsewhere["total_items"], 0, "another society's changes are not this one's");
    }
}
