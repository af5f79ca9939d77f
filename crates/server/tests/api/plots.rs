//! Plot writes (v3) and how they show in the v2 plot list.

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const PLOTS: &str = "/api/v3/third_party/plots";
const V2_PLOTS: &str = "/api/v2/third_party/plots";

async fn new_establishment(app: &TestApp, token: &str) -> i64 {
    let farmer = app.get_ok("/api/v3/third_party/farmers", token).await["items"][0]["id"].clone();
    let created: Value = app
        .post(
            "/api/v3/third_party/establishments",
            token,
            &json!({ "name": "Campo Nuevo", "farmer_id": farmer }),
        )
        .await
        .json()
        .await
        .expect("JSON");
    created["id"].as_i64().expect("id")
}

async fn plot_count(app: &TestApp, token: &str) -> u64 {
    app.get_ok(V2_PLOTS, token).await["total_items"]
        .as_u64()
        .expect("total")
}

on_both_backends! {
    async fn a_created_plot_is_stored_and_listed_in_v2(app) {
        let token = app.token(integrator("AR")).await;
        let establishment = new_establishment(&app, &token).await;
        let response = app.post(PLOTS, &token, &json!({ "name": "Lote Norte", "establishment_id": establishment, "area": 48.456, "external_code": "ERP-LOT-9" })).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let created: Value = response.json().await.expect("JSON");
        assert_eq!(location, Some(format!("{PLOTS}/{}", created["id"])));
        assert_eq!(created["area"], 48.46);
        assert_eq!(created["establishment_id"], establishment);
        assert_eq!(created["external_code"], "ERP-LOT-9");
        assert!(created["created_by_id"].is_i64());
        assert_eq!(app.get_ok(&format!("{PLOTS}/{}", created["id"]), &token).await, created);
        let listed = app.all_items(V2_PLOTS, &token).await;
        let v2 = listed.iter().find(|p| p["id"] == created["id"]).expect("listed in v2");
        assert_eq!(v2["area"], "48.46");
        assert_eq!(v2["establishment_id"], establishment);
        assert_eq!(v2["tags"], "[]");
        assert_eq!(v2["created_by_fullname"], "Integración ERP");
    }

    async fn bad_plots_are_refused_and_nothing_is_written(app) {
        let token = app.token(integrator("AR")).await;
        let establishment = new_establishment(&app, &token).await;
        let before = plot_count(&app, &token).await;
        for (body, field) in [
            (json!({ "name": " ", "establishment_id": establishment, "area": 10 }), "name"),
            (json!({ "name": "X", "establishment_id": establishment, "area": 0 }), "area"),
            (json!({ "name": "X", "establishment_id": establishment, "area": -3.5 }), "area"),
            (json!({ "name": "X", "establishment_id": 999_999, "area": 10 }), "establishment_id"),
        ] {
            let (code, message) = error_envelope(app.post(PLOTS, &token, &body).await, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert_eq!(code, 422);
            assert!(message.contains(field), "{message}");
        }
        error_envelope(app.post(PLOTS, &token, &json!({ "name": "X", "establishment_id": establishment })).await, StatusCode::BAD_REQUEST).await;
        let foreign = new_establishment(&app, &app.token(integrator("BR")).await).await;
        let body = json!({ "name": "Intrusa", "establishment_id": foreign, "area": 5 });
        error_envelope(app.post(PLOTS, &token, &body).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert_eq!(plot_count(&app, &token).await, before);
    }

    async fn delete_is_logical_and_retry_safe(app) {
        let token = app.token(integrator("MX")).await;
        let establishment = new_establishment(&app, &token).await;
        let created: Value = app.post(PLOTS, &token, &json!({ "name": "Parcela 9", "establishment_id": establishment, "area": 12 })).await.json().await.expect("JSON");
        let path = format!("{PLOTS}/{}", created["id"]);
        let (_, message) = error_envelope(app.delete(&format!("/api/v3/third_party/establishments/{establishment}"), &token).await, StatusCode::CONFLICT).await;
        assert!(message.contains("tiene 1 lote activo (plots)"), "one plot, in the singular: {message}");
        let deleted: Value = app.delete(&path, &token).await.json().await.expect("JSON");
        assert!(deleted["deleted_at"].is_string());
        let again = app.delete(&path, &token).await;
        assert_eq!(again.status(), StatusCode::OK);
        assert_eq!(again.json::<Value>().await.expect("JSON"), deleted);
        assert!(app.all_items(V2_PLOTS, &token).await.iter().all(|p| p["id"] != created["id"]));
        let since = deleted["deleted_at"].as_str().expect("deleted_at").replace('+', "%2B");
        let removed = app.all_items(&format!("{V2_PLOTS}?deleted_from={since}"), &token).await;
        assert_eq!(removed.iter().map(|p| &p["id"]).collect::<Vec<_>>(), vec![&created["id"]]);
        let establishment_deleted = app.delete(&format!("/api/v3/third_party/establishments/{establishment}"), &token).await;
        assert_eq!(establishment_deleted.status(), StatusCode::OK, "its only plot is gone");
    }

    async fn a_plot_with_live_campaigns_cannot_be_deleted(app) {
        let token = app.token(integrator("AR")).await;
        let campaign = app.get_ok("/api/v3/third_party/campaigns", &token).await["items"][0].clone();
        let path = format!("{PLOTS}/{}", campaign["plot_id"]);
        let (code, message) = error_envelope(app.delete(&path, &token).await, StatusCode::CONFLICT).await;
        assert_eq!(code, 409);
        assert!(message.contains("campaigns"), "{message}");
        assert!(app.get_ok(&path, &token).await["deleted_at"].is_null());
    }

    async fn another_societys_plots_cannot_be_read_or_deleted(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let plot = app.get_ok(V2_PLOTS, &argentina).await["items"][0]["id"].clone();
        error_envelope(app.get(&format!("{PLOTS}/{plot}"), &brazil).await, StatusCode::NOT_FOUND).await;
        error_envelope(app.delete(&format!("{PLOTS}/{plot}"), &brazil).await, StatusCode::NOT_FOUND).await;
    }

    async fn each_v2_plot_shows_its_own_establishment_and_farmer_however_far_apart_a_pages_are(app) {
        let token = app.token(integrator("AR")).await;
        let establishments = app.all_items("/api/v3/third_party/establishments", &token).await;
        let oldest = establishments.iter().filter_map(|e| e["id"].as_i64()).min().expect("an establishment");
        let newest = new_establishment(&app, &token).await;
        let mut created = Vec::new();
        for establishment in [oldest, newest] {
            let body = json!({ "name": "Lote de prueba", "establishment_id": establishment, "area": 10 });
            let plot: Value = app.post(PLOTS, &token, &body).await.json().await.expect("JSON");
            created.push((plot["id"].clone(), establishment));
        }
        let establishments = app.all_items("/api/v3/third_party/establishments", &token).await;
        let farmers = app.all_items("/api/v3/third_party/farmers", &token).await;
        let plots = app.all_items(V2_PLOTS, &token).await;
        assert_eq!(Some(plots.len() as u64), app.get_ok(V2_PLOTS, &token).await["total_items"].as_u64());
        for (id, establishment) in created {
            let plot = plots.iter().find(|p| p["id"] == id).expect("each new plot is listed");
            assert_eq!(plot["establishment_id"], establishment, "{plot}");
        }
        for plot in &plots {
            let establishment = establishments.iter().find(|e| e["id"] == plot["establishment_id"]).expect("its establishment");
            assert_eq!(plot["establishment_name"], establishment["name"], "{plot}");
            assert_eq!(plot["farmer_id"], establishment["farmer_id"], "{plot}");
            let farmer = farmers.iter().find(|f| f["id"] == plot["farmer_id"]).expect("its farmer");
            let display = format!("{} {}", farmer["name"].as_str().unwrap_or_default(), farmer["lastname"].as_str().unwrap_or_default());
            assert_eq!(plot["farmer_name"].as_str(), Some(display.trim_matches(' ')), "{plot}");
        }
        // The two new plots end the list, on a page whose establishments are far apart: read by their ids, not a range.
        let last_page: Vec<i64> = plots[(plots.len() - 1) / 100 * 100..].iter().filter_map(|p| p["establishment_id"].as_i64()).collect();
        let (low, high) = (last_page.iter().min().copied().unwrap_or_default(), last_page.iter().max().copied().unwrap_or_default());
        let mut distinct = last_page.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(high - low >= 2 * i64::try_from(distinct.len()).unwrap_or(i64::MAX), "{distinct:?}");
    }
}
