//! One society's records are invisible to every other society: in lists, by id, and to writes.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator};
use crate::on_both_backends;

on_both_backends! {
    async fn lists_show_only_the_callers_society(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let ar_farmers = app.all_items("/api/v2/third_party/farmers", &argentina).await;
        let br_farmers = app.all_items("/api/v2/third_party/farmers", &brazil).await;
        assert!(!ar_farmers.is_empty() && !br_farmers.is_empty());
        let ar_society = &ar_farmers[0]["society_id"];
        assert!(ar_farmers.iter().all(|f| &f["society_id"] == ar_society));
        assert!(br_farmers.iter().all(|f| &f["society_id"] != ar_society));
        let ar_ids: Vec<&Value> = ar_farmers.iter().map(|f| &f["id"]).collect();
        assert!(br_farmers.iter().all(|f| !ar_ids.contains(&&f["id"])));
        let ar_establishments = app.all_items("/api/v3/third_party/establishments?size=500", &argentina).await;
        let br_establishments = app.all_items("/api/v3/third_party/establishments?size=500", &brazil).await;
        assert!(ar_establishments.iter().all(|e| !br_establishments.contains(e)));
    }

    async fn reads_under_way_at_once_each_get_their_own_societys_rows(app) {
        // On PostgreSQL these reads share connections, several at once on each: every answer must still be its own.
        let app = &app;
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let ar_society = app.get_ok("/api/v2/third_party/farmers", &argentina).await["items"][0]["society_id"].clone();
        let reads = (1..=48).map(|n| {
            let (token, argentine) = if n % 2 == 0 { (&argentina, true) } else { (&brazil, false) };
            // A different size each: no kept answer serves it.
            let path = format!("/api/v2/third_party/farmers?size={}", n / 2 + 1);
            async move { (argentine, app.get_ok(&path, token).await) }
        });
        let answers = futures_util::future::join_all(reads).await;
        for (argentine, answer) in &answers {
            let items = answer["items"].as_array().expect("items");
            assert!(!items.is_empty(), "{answer}");
            assert!(items.iter().all(|farmer| (farmer["society_id"] == ar_society) == *argentine), "{answer}");
        }
    }

    async fn another_societys_records_are_404_by_id(app) {
        let argentina = app.token(integrator("AR")).await;
        let mexico = app.token(integrator("MX")).await;
        let ar_establishment = app.get_ok("/api/v3/third_party/establishments", &argentina).await["items"][0].clone();
        let path = format!("/api/v3/third_party/establishments/{}", ar_establishment["id"]);
        error_envelope(app.get(&path, &mexico).await, StatusCode::NOT_FOUND).await;
        error_envelope(app.delete(&path, &mexico).await, StatusCode::NOT_FOUND).await;
        assert_eq!(app.get_ok(&path, &argentina).await, ar_establishment, "untouched");
    }

    async fn another_societys_farmer_cannot_own_a_new_establishment(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let ar_farmer = app.get_ok("/api/v3/third_party/farmers", &argentina).await["items"][0]["id"].clone();
        let before = app.get_ok("/api/v3/third_party/establishments", &brazil).await["total_items"].clone();
        let response = app.post("/api/v3/third_party/establishments", &brazil, &json!({ "name": "Intrusa", "farmer_id": ar_farmer })).await;
        error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert_eq!(app.get_ok("/api/v3/third_party/establishments", &brazil).await["total_items"], before);
    }
}
