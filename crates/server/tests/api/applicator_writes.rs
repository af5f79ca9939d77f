//! Applicator writes (v2): create, the two ways to update (id in the body, id in the path), logical deletion, every
//! refusal writing nothing, and isolation between societies. Reads are the v3 list's.

use reqwest::{Method, Response, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const WRITE: &str = "/api/v2/third_party/applicators";
const LIST: &str = "/api/v3/third_party/applicators";
const MACHINES: &str = "/api/v3/third_party/machines";

async fn machines(app: &TestApp, token: &str) -> Vec<i64> {
    let items = app.all_items(MACHINES, token).await;
    let ids: Vec<i64> = items.iter().filter_map(|m| m["id"].as_i64()).collect();
    assert!(ids.len() >= 3, "the demo society has machines to assign");
    ids
}

async fn put(app: &TestApp, path: &str, token: &str, body: &Value) -> Response {
    app.request(Method::PUT, path)
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .expect("PUT")
}

async fn create(app: &TestApp, token: &str, body: &Value) -> Value {
    let response = app.post(WRITE, token, body).await;
    assert_eq!(response.status(), StatusCode::CREATED);
    response.json().await.expect("JSON")
}

fn applicator(name: &str, machines: &[i64]) -> Value {
    json!({ "name": name, "external_code": "ERP-APL-7", "address": "Ruta 8 km 412, Pergamino",
            "phone_number": "+54 2477 555-0101", "email": "aplicador@example.com", "machines": machines })
}

fn find(list: &[Value], id: &Value) -> Option<Value> {
    list.iter().find(|a| a["id"] == *id).cloned()
}

on_both_backends! {
    async fn a_created_applicator_shows_in_the_list_with_its_machines(app) {
        let token = app.token(integrator("AR")).await;
        let owned = machines(&app, &token).await;
        let before = app.get_ok(LIST, &token).await["total_items"].as_u64().expect("total");
        let response = app.post(WRITE, &token, &applicator("Juan Pérez", &[owned[1], owned[0], owned[1]])).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let created: Value = response.json().await.expect("JSON");
        assert_eq!(location, Some(format!("{LIST}/{}", created["id"])));
        assert_eq!(created["name"], "Juan Pérez");
        assert_eq!(created["address"], "Ruta 8 km 412, Pergamino");
        assert_eq!(created["machines"], json!([owned[0].min(owned[1]), owned[0].max(owned[1])]), "ascending, once each");
        assert_eq!((created["active"].clone(), created["deleted_at"].clone()), (json!(true), Value::Null));
        let listed = app.all_items(LIST, &token).await;
        assert_eq!(find(&listed, &created["id"]), Some(created.clone()));
        assert_eq!(app.get_ok(LIST, &token).await["total_items"].as_u64(), Some(before + 1));
    }

    async fn both_updates_replace_the_applicator_and_its_machines(app) {
        let token = app.token(integrator("AR")).await;
        let owned = machines(&app, &token).await;
        let created = create(&app, &token, &applicator("Juan Pérez", &owned[..2])).await;
        let id = created["id"].clone();

        let by_body = put(&app, WRITE, &token, &json!({ "id": id, "name": "Juan Pérez (h)", "machines": [owned[2]], "active": false })).await;
        assert_eq!(by_body.status(), StatusCode::OK);
        let updated: Value = by_body.json().await.expect("JSON");
        assert_eq!(updated["id"], id);
        assert_eq!(updated["name"], "Juan Pérez (h)");
        assert_eq!(updated["machines"], json!([owned[2]]), "the machine list is replaced");
        assert_eq!(updated["active"], false);
        assert_eq!(updated["address"], Value::Null, "a full update: what is not sent is cleared");
        assert_eq!(find(&app.all_items(LIST, &token).await, &id), Some(updated));

        let by_path = put(&app, &format!("{WRITE}/{id}"), &token, &json!({ "id": 999_999_999, "name": "Pedro Gómez", "machines": [] })).await;
        assert_eq!(by_path.status(), StatusCode::OK, "the path names the applicator, not the body");
        let renamed: Value = by_path.json().await.expect("JSON");
        assert_eq!((renamed["id"].clone(), renamed["name"].clone()), (id.clone(), json!("Pedro Gómez")));
        assert_eq!(renamed["machines"], json!([]));
        assert_eq!(renamed["active"], true, "active defaults to true");
        assert_eq!(find(&app.all_items(LIST, &token).await, &id), Some(renamed));
    }

    async fn refused_writes_say_why_and_write_nothing(app) {
        let token = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let owned = machines(&app, &token).await;
        let foreign = machines(&app, &brazil).await[0];
        let existing = create(&app, &token, &applicator("Juan Pérez", &owned[..1])).await;
        let id = existing["id"].clone();
        let before = app.all_items(LIST, &token).await;
        let check = app.login_as(integrator("AR")).await["society"]["syncCheck"].clone();

        let unprocessable = [
            (json!({ "name": "  ", "machines": [] }), "name".to_owned()),
            (json!({ "name": "Juan", "machines": [999_999_999] }), "999999999".to_owned()),
            (json!({ "name": "Juan", "machines": [owned[0], foreign] }), foreign.to_string()),
        ];
        for (body, named) in &unprocessable {
            let (code, message) = error_envelope(app.post(WRITE, &token, body).await, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert_eq!(code, 422);
            assert!(message.contains(named.as_str()), "POST {body}: {message}");
            let (_, message) = error_envelope(put(&app, &format!("{WRITE}/{id}"), &token, body).await, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert!(message.contains(named.as_str()), "PUT {body}: {message}");
            let mut with_id = body.clone();
            with_id["id"] = id.clone();
            error_envelope(put(&app, WRITE, &token, &with_id).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        }
        let (_, message) = error_envelope(put(&app, WRITE, &token, &json!({ "name": "Sin id" })).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.contains("id"), "a PUT without a path id needs one in the body: {message}");

        for response in [
            put(&app, &format!("{WRITE}/999999999"), &token, &json!({ "name": "Nadie" })).await,
            put(&app, WRITE, &token, &json!({ "id": 999_999_999, "name": "Nadie" })).await,
            put(&app, &format!("{WRITE}/abc"), &token, &json!({ "name": "Nadie" })).await,
            app.delete(&format!("{WRITE}/999999999"), &token).await,
        ] {
            let (code, _) = error_envelope(response, StatusCode::NOT_FOUND).await;
            assert_eq!(code, 404);
        }
        assert_eq!(app.all_items(LIST, &token).await, before, "no refusal wrote anything");
        assert_eq!(app.login_as(integrator("AR")).await["society"]["syncCheck"], check);
    }

    async fn deletion_is_logical_and_reported_to_incremental_sync(app) {
        let token = app.token(integrator("AR")).await;
        let owned = machines(&app, &token).await;
        let since = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S+00:00").to_string().replace('+', "%2B");
        let created = create(&app, &token, &applicator("Efímero", &owned[..1])).await;
        let id = created["id"].clone();
        let response = app.delete(&format!("{WRITE}/{id}"), &token).await;
        assert_eq!(response.status(), StatusCode::OK);
        let deleted: Value = response.json().await.expect("JSON");
        assert_eq!(deleted["id"], id);
        assert!(deleted["deleted_at"].is_string(), "{deleted}");
        assert_eq!(deleted["machines"], created["machines"], "the record is kept whole");
        assert_eq!(find(&app.all_items(LIST, &token).await, &id), None, "gone from the live list");
        let removed = app.all_items(&format!("{LIST}?deleted_at_from={since}"), &token).await;
        assert_eq!(find(&removed, &id), Some(deleted.clone()));
        let again = app.delete(&format!("{WRITE}/{id}"), &token).await;
        assert_eq!(again.status(), StatusCode::OK, "a retried delete succeeds, as for every logical delete");
        assert_eq!(again.json::<Value>().await.expect("JSON"), deleted, "and changes nothing");
        let revived = put(&app, &format!("{WRITE}/{id}"), &token, &json!({ "name": "Resucitado" })).await;
        error_envelope(revived, StatusCode::NOT_FOUND).await;
    }

    async fn another_society_cannot_update_or_delete(app) {
        let token = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let owned = machines(&app, &token).await;
        let created = create(&app, &token, &applicator("Juan Pérez", &owned[..2])).await;
        let id = created["id"].clone();
        for response in [
            put(&app, &format!("{WRITE}/{id}"), &brazil, &json!({ "name": "Tomado" })).await,
            put(&app, WRITE, &brazil, &json!({ "id": id, "name": "Tomado" })).await,
            app.delete(&format!("{WRITE}/{id}"), &brazil).await,
        ] {
            let (code, _) = error_envelope(response, StatusCode::NOT_FOUND).await;
            assert_eq!(code, 404, "another society's applicator does not exist for the caller");
        }
        assert_eq!(find(&app.all_items(LIST, &token).await, &id), Some(created));
        assert_eq!(find(&app.all_items(LIST, &brazil).await, &id), None);
    }
}
