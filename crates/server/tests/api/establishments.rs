//! Establishments: list, detail, create and logical delete, and how they show in incremental sync.

use client::futures_util::future::join_all;
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const PATH: &str = "/api/v3/third_party/establishments";

async fn total(app: &TestApp, token: &str) -> u64 {
    app.get_ok(PATH, token).await["total_items"].as_u64().expect("total")
}

async fn first_farmer(app: &TestApp, token: &str) -> Value {
    app.get_ok("/api/v3/third_party/farmers", token).await["items"][0]["id"].clone()
}

/// A new establishment, with nothing in it.
async fn empty_establishment(app: &TestApp, token: &str, farmer: &Value) -> Value {
    app.post(PATH, token, &json!({ "name": "Sin lotes", "farmer_id": farmer }))
        .await
        .json()
        .await
        .expect("JSON")
}

on_both_backends! {
    async fn establishments_have_the_specified_fields(app) {
        let token = app.token(integrator("AR")).await;
        let body = app.get_ok(PATH, &token).await;
        let item = &body["items"][0];
        let mut keys: Vec<_> = item.as_object().expect("object").keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["active", "created_at", "deleted_at", "external_code", "farmer_id", "id", "name", "updated_at"]);
        assert!(item["external_code"].as_str().is_some_and(|code| code.starts_with("EST-")));
        assert_eq!(item["active"], true);
        assert!(item["deleted_at"].is_null());
    }

    async fn a_created_establishment_is_stored_and_listed(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = first_farmer(&app, &token).await;
        let response = app.post(PATH, &token, &json!({ "name": "  La Tranquera  ", "farmer_id": farmer, "external_code": "ERP-EST-77" })).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let created: Value = response.json().await.expect("JSON");
        assert_eq!(location, Some(format!("{PATH}/{}", created["id"])));
        assert_eq!(created["name"], "La Tranquera");
        assert_eq!(created["external_code"], "ERP-EST-77");
        assert_eq!(created["farmer_id"], farmer);
        assert_eq!(created["active"], true);
        assert!(created["deleted_at"].is_null());
        let detail = app.get_ok(&format!("{PATH}/{}", created["id"]), &token).await;
        assert_eq!(detail, created);
        let listed = app.all_items(PATH, &token).await;
        assert!(listed.contains(&created));
    }

    async fn create_refuses_bad_bodies_and_writes_nothing(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = first_farmer(&app, &token).await;
        let before = total(&app, &token).await;
        let (code, message) = error_envelope(app.post(PATH, &token, &json!({ "name": "   ", "farmer_id": farmer })).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert_eq!(code, 422);
        assert!(message.contains("name"), "{message}");
        let (_, message) = error_envelope(app.post(PATH, &token, &json!({ "name": "X", "farmer_id": 999_999 })).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.contains("farmer_id") && message.contains("999999"), "{message}");
        let (_, message) = error_envelope(app.post(PATH, &token, &json!({ "farmer_id": farmer })).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("name"), "{message}");
        error_envelope(app.post(PATH, &token, &json!({ "name": "X", "farmer_id": "one" })).await, StatusCode::BAD_REQUEST).await;
        error_envelope(app.post(PATH, &token, &json!([1, 2])).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(total(&app, &token).await, before);
    }

    async fn an_inactive_establishment_can_be_created_and_filtered(app) {
        let token = app.token(integrator("MX")).await;
        let farmer = first_farmer(&app, &token).await;
        let created: Value = app.post(PATH, &token, &json!({ "name": "Rancho Viejo", "farmer_id": farmer, "active": false })).await.json().await.expect("JSON");
        assert_eq!(created["active"], false);
        let inactive = app.get_ok(&format!("{PATH}?active=false"), &token).await;
        assert_eq!(inactive["items"], json!([created]));
        let active = app.all_items(&format!("{PATH}?active=1"), &token).await;
        assert!(!active.contains(&created));
    }

    async fn delete_is_logical_and_visible_to_deleted_at_from(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = first_farmer(&app, &token).await;
        let created: Value = app.post(PATH, &token, &json!({ "name": "Para borrar", "farmer_id": farmer })).await.json().await.expect("JSON");
        let id = created["id"].as_i64().expect("id");
        let before_delete = app.get_ok(PATH, &token).await["total_items"].as_u64().expect("total");
        let response = app.delete(&format!("{PATH}/{id}"), &token).await;
        assert_eq!(response.status(), StatusCode::OK);
        let deleted: Value = response.json().await.expect("JSON");
        assert!(deleted["deleted_at"].is_string());
        assert_eq!(deleted["updated_at"], deleted["deleted_at"]);
        assert_eq!(app.get_ok(PATH, &token).await["total_items"].as_u64(), Some(before_delete - 1));
        let since = deleted["created_at"].as_str().expect("created_at").replace('+', "%2B");
        let listed = app.get_ok(&format!("{PATH}?deleted_at_from={since}"), &token).await;
        assert_eq!(listed["items"], json!([deleted]));
        let detail = app.get_ok(&format!("{PATH}/{id}"), &token).await;
        assert_eq!(detail, deleted, "the detail still shows a deleted record, with deleted_at");
        let again = app.delete(&format!("{PATH}/{id}"), &token).await;
        assert_eq!(again.status(), StatusCode::OK, "a retried delete succeeds");
        assert_eq!(again.json::<Value>().await.expect("JSON"), deleted, "and changes nothing");
    }

    async fn an_establishment_with_live_plots_cannot_be_deleted(app) {
        let token = app.token(integrator("AR")).await;
        let first = app.get_ok(PATH, &token).await["items"][0].clone();
        let (code, message) = error_envelope(app.delete(&format!("{PATH}/{}", first["id"]), &token).await, StatusCode::CONFLICT).await;
        assert_eq!(code, 409);
        assert!(message.contains("plots"), "{message}");
        assert_eq!(app.get_ok(&format!("{PATH}/{}", first["id"]), &token).await, first, "nothing changed");
    }

    async fn an_establishment_with_a_live_device_silobag_or_warehouse_cannot_be_deleted(app) {
        let token = app.token(integrator("AR")).await;
        let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("a society id");
        let farmer = first_farmer(&app, &token).await;
        // A device through the API; silobags and warehouses have no create, so one of the demo data's moves in.
        let with_device = empty_establishment(&app, &token, &farmer).await;
        let device = json!({ "name": "Estación nueva", "kind": "weather_station", "serial_number": "WS-TEST-1", "establishment_id": with_device["id"] });
        assert_eq!(app.post("/api/v3/third_party/devices", &token, &device).await.status(), StatusCode::CREATED);
        let mut cases = vec![(with_device, "devices")];
        for table in ["silobags", "warehouses"] {
            let establishment = empty_establishment(&app, &token, &farmer).await;
            let moved = format!(
                "UPDATE {table} SET establishment_id = {} WHERE society_id = $1 AND id = \
                 (SELECT MIN(id) FROM {table} WHERE society_id = $1 AND deleted_at IS NULL)",
                establishment["id"]
            );
            assert_eq!(app.execute(&moved, society).await.expect("moved"), 1, "the demo data has live {table}");
            cases.push((establishment, table));
        }
        for (establishment, dependant) in cases {
            let path = format!("{PATH}/{}", establishment["id"]);
            let (code, message) = error_envelope(app.delete(&path, &token).await, StatusCode::CONFLICT).await;
            assert_eq!(code, 409);
            let one = match dependant {
                "devices" => "1 dispositivo activo",
                "silobags" => "1 silobolsa activa",
                _ => "1 depósito activo",
            };
            assert!(message.contains(&format!("tiene {one} ({dependant})")), "{dependant}: {message}");
            assert_eq!(app.get_ok(&path, &token).await, establishment, "{dependant}: nothing changed");
        }
    }

    async fn an_establishment_is_never_deleted_with_a_plot_created_in_it_at_the_same_time(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = first_farmer(&app, &token).await;
        for round in 0..8 {
            let created: Value = app.post(PATH, &token, &json!({ "name": format!("Carrera {round}"), "farmer_id": farmer })).await.json().await.expect("JSON");
            let id = created["id"].clone();
            let plot = json!({ "name": "Lote nuevo", "establishment_id": id, "area": 12.5 });
            let creates = join_all((0..4).map(|_| app.post("/api/v3/third_party/plots", &token, &plot)));
            let path = format!("{PATH}/{id}");
            let (deleted, plots) = tokio::join!(app.delete(&path, &token), creates);
            let stored = plots.iter().filter(|plot| plot.status() == StatusCode::CREATED).count();
            assert!(
                !(deleted.status() == StatusCode::OK && stored > 0),
                "round {round}: the establishment was deleted and {stored} live plots were created in it"
            );
        }
    }

    async fn unknown_ids_are_404_naming_the_resource_and_id(app) {
        let token = app.token(integrator("AR")).await;
        let (code, message) = error_envelope(app.get(&format!("{PATH}/987654"), &token).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404);
        assert!(message.contains("establishments") && message.contains("987654"), "{message}");
        let (_, message) = error_envelope(app.get(&format!("{PATH}/abc"), &token).await, StatusCode::NOT_FOUND).await;
        assert!(message.contains("abc"), "{message}");
        error_envelope(app.delete(&format!("{PATH}/987654"), &token).await, StatusCode::NOT_FOUND).await;
    }

    async fn updated_at_from_returns_exactly_what_changed(app) {
        let token = app.token(integrator("BR")).await;
        let farmer = first_farmer(&app, &token).await;
        let created: Value = app.post(PATH, &token, &json!({ "name": "Fazenda Nova", "farmer_id": farmer })).await.json().await.expect("JSON");
        let since = created["updated_at"].as_str().expect("updated_at").replace('+', "%2B");
        let changed = app.get_ok(&format!("{PATH}?updated_at_from={since}"), &token).await;
        assert_eq!(changed["items"], json!([created]));
        let created_since = app.get_ok(&format!("{PATH}?created_at_from={since}"), &token).await;
        assert_eq!(created_since["items"], json!([created]));
    }
}
