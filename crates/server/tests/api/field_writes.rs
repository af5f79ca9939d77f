//! The field group's writes: silobag campaign rows (with the optional API-key header), devices, and device events
//! one at a time or in all-or-nothing batches.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const SILOBAG_CAMPAIGNS: &str = "/api/v3/third_party/silobag_campaigns";
const DEVICES: &str = "/api/v3/third_party/devices";
const EVENTS: &str = "/api/v3/third_party/device_events";

/// The first id of a list.
async fn first_id(app: &TestApp, path: &str, token: &str) -> i64 {
    app.get_ok(path, token).await["items"][0]["id"].as_i64().expect("an id")
}

async fn total(app: &TestApp, path: &str, token: &str) -> u64 {
    app.get_ok(path, token).await["total_items"].as_u64().expect("a total")
}

async fn sync_check(app: &TestApp, country: &str) -> Value {
    app.login_as(integrator(country)).await["society"]["syncCheck"].clone()
}

/// A valid silobag campaign row of the society of `token`.
async fn silobag_row(app: &TestApp, token: &str) -> Value {
    json!({
        "silobag_id": first_id(app, "/api/v3/third_party/silobags", token).await,
        "campaign_id": first_id(app, "/api/v3/third_party/campaigns", token).await,
        "quantity_tn": 180.5,
        "grain_humidity_percent": 13.5,
        "grain_quality_semaphore": 2,
        "observations": "Control de humedad semanal",
    })
}

/// A reading of `device` of the first event type.
async fn reading(app: &TestApp, token: &str, device: i64, value: f64) -> Value {
    json!({
        "device_id": device,
        "device_event_type_id": first_id(app, "/api/v3/third_party/device_event_types", token).await,
        "recorded_at": "2024-03-01T09:30:00-03:00",
        "value": value,
    })
}

fn query_time(value: &Value) -> String {
    value.as_str().expect("a timestamp").replace('+', "%2B")
}

async fn post_with(
    app: &TestApp,
    path: &str,
    token: &str,
    headers: &[(&str, &str)],
    body: &Value,
) -> reqwest::Response {
    let mut request = app.request(Method::POST, path).bearer_auth(token).json(body);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.expect("POST")
}

on_both_backends! {
    async fn a_silobag_campaign_row_is_stored_listed_and_synced(app) {
        let token = app.token(integrator("AR")).await;
        let before_check = sync_check(&app, "AR").await;
        let body = silobag_row(&app, &token).await;
        let response = app.post(SILOBAG_CAMPAIGNS, &token, &body).await;
        assert_eq!(response.status(), StatusCode::OK, "the specification's status");
        let created: Value = response.json().await.expect("JSON");
        for field in ["silobag_id", "campaign_id", "quantity_tn", "grain_humidity_percent", "grain_quality_semaphore", "observations"] {
            assert_eq!(created[field], body[field], "{field}");
        }
        assert_eq!(created["active"], true);
        assert!(created["deleted_at"].is_null());
        assert_eq!(app.get_ok(&format!("{SILOBAG_CAMPAIGNS}/{}", created["id"]), &token).await, created);
        let changed = app.all_items(&format!("{SILOBAG_CAMPAIGNS}?updated_at_from={}", query_time(&created["modified_at"])), &token).await;
        assert!(changed.contains(&created), "in updated_at_from");
        assert!(app.all_items(SILOBAG_CAMPAIGNS, &token).await.contains(&created));
        assert_ne!(sync_check(&app, "AR").await, before_check);
        // observations is optional.
        let mut bare = body.clone();
        bare.as_object_mut().expect("an object").remove("observations");
        let response = app.post(SILOBAG_CAMPAIGNS, &token, &bare).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(response.json::<Value>().await.expect("JSON")["observations"], "");
    }

    async fn bad_silobag_campaign_rows_are_refused_and_nothing_is_written(app) {
        let token = app.token(integrator("AR")).await;
        let body = silobag_row(&app, &token).await;
        let foreign = silobag_row(&app, &app.token(integrator("BR")).await).await;
        let before = total(&app, SILOBAG_CAMPAIGNS, &token).await;
        let before_check = sync_check(&app, "AR").await;
        let with = |field: &str, value: Value| {
            let mut body = body.clone();
            body[field] = value;
            body
        };
        for (bad, mentions) in [
            (with("quantity_tn", json!(0)), "quantity_tn"),
            (with("quantity_tn", json!(-2.5)), "quantity_tn"),
            (with("grain_humidity_percent", json!(100.5)), "grain_humidity_percent"),
            (with("grain_humidity_percent", json!(-1)), "grain_humidity_percent"),
            (with("grain_quality_semaphore", json!(0)), "grain_quality_semaphore"),
            (with("grain_quality_semaphore", json!(4)), "grain_quality_semaphore"),
            (with("silobag_id", json!(999_999)), "silobag_id"),
            (with("campaign_id", json!(999_999)), "campaign_id"),
            (with("silobag_id", foreign["silobag_id"].clone()), "silobag_id"),
            (with("campaign_id", foreign["campaign_id"].clone()), "campaign_id"),
        ] {
            let (code, message) = error_envelope(app.post(SILOBAG_CAMPAIGNS, &token, &bad).await, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert_eq!(code, 422);
            assert!(message.contains(mentions), "{mentions}: {message}");
        }
        let (_, message) = error_envelope(app.post(SILOBAG_CAMPAIGNS, &token, &with("grain_quality_semaphore", json!(7))).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.contains('1') && message.contains('2') && message.contains('3'), "names the choices: {message}");
        let mut missing = body.clone();
        missing.as_object_mut().expect("an object").remove("quantity_tn");
        error_envelope(app.post(SILOBAG_CAMPAIGNS, &token, &missing).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(total(&app, SILOBAG_CAMPAIGNS, &token).await, before);
        assert_eq!(sync_check(&app, "AR").await, before_check);
    }

    async fn the_optional_api_key_must_be_the_societys(app) {
        let token = app.token(integrator("AR")).await;
        let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("society id");
        let other_society = app.login_as(integrator("BR")).await["society"]["id"].as_i64().expect("society id");
        let key = app.store.admin().create_api_key(society, "ERP silos").await.expect("a key");
        let foreign_key = app.store.admin().create_api_key(other_society, "ERP silos").await.expect("a key");
        let body = silobag_row(&app, &token).await;
        let before = total(&app, SILOBAG_CAMPAIGNS, &token).await;
        let valid = post_with(&app, SILOBAG_CAMPAIGNS, &token, &[("X-SVC-APIKEY", &key)], &body).await;
        assert_eq!(valid.status(), StatusCode::OK);
        for wrong in [format!("{key}x"), foreign_key.clone(), "not-a-key".to_owned()] {
            let response = post_with(&app, SILOBAG_CAMPAIGNS, &token, &[("X-SVC-APIKEY", &wrong)], &body).await;
            let (code, message) = error_envelope(response, StatusCode::UNAUTHORIZED).await;
            assert_eq!(code, 401);
            assert!(message.contains("X-SVC-APIKEY"), "{message}");
        }
        let (_, english) = error_envelope(post_with(&app, SILOBAG_CAMPAIGNS, &token, &[("X-SVC-APIKEY", "nope"), ("Accept-Language", "en")], &body).await, StatusCode::UNAUTHORIZED).await;
        assert!(english.contains("API key"), "{english}");
        assert_eq!(total(&app, SILOBAG_CAMPAIGNS, &token).await, before + 1, "only the valid key's row");
        // The key never replaces the bearer token.
        let no_token = app.request(Method::POST, SILOBAG_CAMPAIGNS).header("X-SVC-APIKEY", &key).json(&body).send().await.expect("POST");
        error_envelope(no_token, StatusCode::UNAUTHORIZED).await;
    }

    async fn devices_are_created_with_their_references_checked(app) {
        let token = app.token(integrator("AR")).await;
        let silobags = app.all_items("/api/v3/third_party/silobags", &token).await;
        let silobag = &silobags[0];
        let before_check = sync_check(&app, "AR").await;
        let response = app.post(DEVICES, &token, &json!({ "name": " Sensor silo 1 ", "kind": "silobag_sensor", "serial_number": "SB-0001", "silobag_id": silobag["id"], "latitude": -34.6, "longitude": -60.9 })).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let sensor: Value = response.json().await.expect("JSON");
        assert_eq!(location, Some(format!("{DEVICES}/{}", sensor["id"])));
        assert_eq!(sensor["name"], "Sensor silo 1");
        assert_eq!(sensor["kind"], "silobag_sensor");
        assert_eq!(sensor["establishment_id"], silobag["establishment_id"], "the silobag's establishment");
        assert_eq!(sensor["active"], true);
        assert_eq!(app.get_ok(&format!("{DEVICES}/{}", sensor["id"]), &token).await, sensor);
        let changed = app.all_items(&format!("{DEVICES}?updated_at_from={}", query_time(&sensor["modified_at"])), &token).await;
        assert!(changed.contains(&sensor));
        assert_ne!(sync_check(&app, "AR").await, before_check);
        let establishment = first_id(&app, "/api/v3/third_party/establishments", &token).await;
        let station: Value = app.post(DEVICES, &token, &json!({ "name": "Estación", "kind": "weather_station", "serial_number": "WS-9", "establishment_id": establishment, "active": false })).await.json().await.expect("JSON");
        assert_eq!(station["establishment_id"], establishment);
        assert!(station["silobag_id"].is_null());
        assert_eq!(station["active"], false);

        let before = total(&app, DEVICES, &token).await;
        let other_establishment = app.all_items("/api/v3/third_party/establishments", &token).await.iter()
            .map(|e| e["id"].clone()).find(|id| *id != silobag["establishment_id"]).expect("another establishment");
        let foreign_silobag = first_id(&app, "/api/v3/third_party/silobags", &app.token(integrator("BR")).await).await;
        let foreign_establishment = first_id(&app, "/api/v3/third_party/establishments", &app.token(integrator("BR")).await).await;
        let base = json!({ "name": "D", "kind": "weather_station", "serial_number": "S" });
        let with = |pairs: &[(&str, Value)]| {
            let mut body = base.clone();
            for (field, value) in pairs {
                body[*field] = value.clone();
            }
            body
        };
        for (bad, mentions) in [
            (with(&[("name", json!("  "))]), "name"),
            (with(&[("serial_number", json!(""))]), "serial_number"),
            (with(&[("kind", json!("drone"))]), "weather_station"),
            (with(&[("kind", json!("silobag_sensor"))]), "silobag_id"),
            (with(&[("silobag_id", silobag["id"].clone())]), "silobag_id"),
            (with(&[("latitude", json!(91))]), "latitude"),
            (with(&[("longitude", json!(-180.5))]), "longitude"),
            (with(&[("establishment_id", json!(999_999))]), "establishment_id"),
            (with(&[("establishment_id", json!(foreign_establishment))]), "establishment_id"),
            (with(&[("kind", json!("silobag_sensor")), ("silobag_id", json!(foreign_silobag))]), "silobag_id"),
            (with(&[("kind", json!("silobag_sensor")), ("silobag_id", silobag["id"].clone()), ("establishment_id", other_establishment)]), "silobag_id"),
        ] {
            let (code, message) = error_envelope(app.post(DEVICES, &token, &bad).await, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert_eq!(code, 422);
            assert!(message.contains(mentions), "{bad}: {message}");
        }
        assert_eq!(total(&app, DEVICES, &token).await, before);
    }

    async fn a_single_event_answers_an_object(app) {
        let token = app.token(integrator("AR")).await;
        let device = first_id(&app, DEVICES, &token).await;
        let before_check = sync_check(&app, "AR").await;
        let body = reading(&app, &token, device, 21.5).await;
        let response = app.post(EVENTS, &token, &body).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        let location = response.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_owned);
        let event: Value = response.json().await.expect("JSON");
        assert_eq!(location, Some(format!("{EVENTS}/{}", event["id"])));
        assert_eq!(event["device_id"], device);
        assert_eq!(event["value"], 21.5);
        assert_eq!(event["recorded_at"], "2024-03-01T09:30:00-03:00");
        assert_eq!(app.get_ok(&format!("{EVENTS}/{}", event["id"]), &token).await, event);
        let changed = app.all_items(&format!("{EVENTS}?updated_at_from={}", query_time(&event["modified_at"])), &token).await;
        assert!(changed.contains(&event));
        assert_ne!(sync_check(&app, "AR").await, before_check);
        // A single refused object is named without a batch index.
        let (_, message) = error_envelope(app.post(EVENTS, &token, &reading(&app, &token, 999_999, 1.0).await).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.starts_with("device_id"), "{message}");
        let mut bad_time = body.clone();
        bad_time["recorded_at"] = json!("2024-03-01 09:30");
        error_envelope(app.post(EVENTS, &token, &bad_time).await, StatusCode::BAD_REQUEST).await;
    }

    async fn a_batch_of_fifteen_hundred_is_stored_and_answered_in_order(app) {
        let token = app.token(integrator("AR")).await;
        let devices: Vec<i64> = app.all_items(DEVICES, &token).await.iter().filter_map(|d| d["id"].as_i64()).collect();
        let types: Vec<i64> = app.all_items("/api/v3/third_party/device_event_types", &token).await.iter().filter_map(|t| t["id"].as_i64()).collect();
        let before = total(&app, EVENTS, &token).await;
        // Two insert statements: 1,000 rows, then 500.
        let batch: Vec<Value> = (0..1500_usize)
            .map(|i| json!({
                "device_id": devices[i % devices.len()],
                "device_event_type_id": types[i % types.len()],
                "recorded_at": format!("2024-03-01T{:02}:{:02}:00-03:00", i / 60 % 24, i % 60),
                "value": i as f64 / 4.0,
            }))
            .collect();
        let response = app.post(EVENTS, &token, &Value::Array(batch.clone())).await;
        assert_eq!(response.status(), StatusCode::CREATED);
        assert!(response.headers().get("location").is_none());
        let stored: Vec<Value> = response.json().await.expect("JSON");
        assert_eq!(stored.len(), 1500);
        for (sent, answered) in batch.iter().zip(&stored) {
            for field in ["device_id", "device_event_type_id", "recorded_at", "value"] {
                assert_eq!(answered[field], sent[field], "{field}");
            }
        }
        assert!(stored.windows(2).all(|pair| pair[0]["id"].as_i64() < pair[1]["id"].as_i64()));
        assert_eq!(total(&app, EVENTS, &token).await, before + 1500);
        // The answer is made from the batch, not read back: it must be what a read gives.
        for answered in [&stored[0], &stored[999], &stored[1000], &stored[1499]] {
            assert_eq!(app.get_ok(&format!("{EVENTS}/{}", answered["id"]), &token).await, *answered);
        }
        // An empty batch stores nothing.
        let empty = app.post(EVENTS, &token, &json!([])).await;
        assert_eq!(empty.status(), StatusCode::CREATED);
        assert_eq!(empty.json::<Value>().await.expect("JSON"), json!([]));
    }

    async fn the_database_itself_keeps_readings_to_their_societys_devices(app) {
        // The API refuses such readings before it writes; the database must refuse them too, so no other way in
        // (another program, a future endpoint) can attach a reading to another society's device.
        let token = app.token(integrator("AR")).await;
        let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("a society id");
        let foreign_device = first_id(&app, DEVICES, &app.token(integrator("BR")).await).await;
        let event_type = first_id(&app, "/api/v3/third_party/device_event_types", &token).await;
        let establishment = first_id(&app, "/api/v3/third_party/establishments", &token).await;
        let new_device = |serial: &str| json!({ "name": "Estación", "kind": "weather_station", "serial_number": serial, "establishment_id": establishment });
        let device: Value = app.post(DEVICES, &token, &new_device("WS-DB-1")).await.json().await.expect("JSON");
        let device = device["id"].as_i64().expect("an id");
        let insert = |device: i64, event_type: i64| {
            format!(
                "INSERT INTO device_events (society_id, device_id, device_event_type_id, recorded_at, value, created_at, \
                 updated_at) VALUES ($1, {device}, {event_type}, 0, 1.5, 0, 0), ($1, {device}, {event_type}, 1, 2.5, 0, 0)"
            )
        };
        let before = total(&app, EVENTS, &token).await;
        assert!(app.execute(&insert(foreign_device, event_type), society).await.is_err(), "another society's device");
        assert!(app.execute(&insert(device, 999_999), society).await.is_err(), "an event type that does not exist");
        assert_eq!(total(&app, EVENTS, &token).await, before, "nothing of a refused statement is stored");
        assert_eq!(app.execute(&insert(device, event_type), society).await.expect("the society's own device"), 2);
        // A device with readings cannot be removed from under them; one without can.
        let remove = |device: i64| format!("DELETE FROM devices WHERE society_id = $1 AND id = {device}");
        assert!(app.execute(&remove(device), society).await.is_err(), "a device with readings");
        let unread: Value = app.post(DEVICES, &token, &new_device("WS-DB-2")).await.json().await.expect("JSON");
        assert_eq!(app.execute(&remove(unread["id"].as_i64().expect("an id")), society).await.expect("a device without readings"), 1);
    }

    async fn one_bad_item_in_a_batch_stores_none(app) {
        let token = app.token(integrator("AR")).await;
        let device = first_id(&app, DEVICES, &token).await;
        let foreign_device = first_id(&app, DEVICES, &app.token(integrator("BR")).await).await;
        let good = reading(&app, &token, device, 3.0).await;
        let before = total(&app, EVENTS, &token).await;
        let before_check = sync_check(&app, "AR").await;
        let mut batch = vec![good.clone(); 50];
        batch[3]["device_id"] = json!(foreign_device);
        batch[41]["device_event_type_id"] = json!(999_999);
        let (code, message) = error_envelope(app.post(EVENTS, &token, &Value::Array(batch)).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert_eq!(code, 422);
        assert!(message.contains("[3].device_id: ") && message.contains(&foreign_device.to_string()), "{message}");
        assert!(message.contains("[41].device_event_type_id"), "{message}");
        assert!(!message.contains("[4]"), "only failing items: {message}");
        // A malformed item is named too, as a malformed body.
        let mut malformed = vec![good.clone(); 5];
        malformed[2].as_object_mut().expect("an object").remove("value");
        let (_, message) = error_envelope(app.post(EVENTS, &token, &Value::Array(malformed)).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("[2]") && message.contains("value"), "{message}");
        assert_eq!(total(&app, EVENTS, &token).await, before);
        assert_eq!(sync_check(&app, "AR").await, before_check);
        // Past the batch limit.
        let huge = Value::Array(vec![good; 10_001]);
        let (code, message) = error_envelope(app.post(EVENTS, &token, &huge).await, StatusCode::PAYLOAD_TOO_LARGE).await;
        assert_eq!(code, 413);
        assert!(message.contains("10000"), "{message}");
        assert_eq!(total(&app, EVENTS, &token).await, before);
    }

    async fn an_idempotency_key_replays_a_field_write(app) {
        let token = app.token(integrator("AR")).await;
        let device = first_id(&app, DEVICES, &token).await;
        let batch = json!([reading(&app, &token, device, 1.0).await, reading(&app, &token, device, 2.0).await]);
        let before = total(&app, EVENTS, &token).await;
        let first = post_with(&app, EVENTS, &token, &[("Idempotency-Key", "gw-42-000017")], &batch).await;
        assert_eq!(first.status(), StatusCode::CREATED);
        let first: Value = first.json().await.expect("JSON");
        let retry = post_with(&app, EVENTS, &token, &[("Idempotency-Key", "gw-42-000017")], &batch).await;
        assert_eq!(retry.status(), StatusCode::CREATED);
        assert_eq!(retry.headers().get("idempotent-replayed").and_then(|v| v.to_str().ok()), Some("true"));
        assert_eq!(retry.json::<Value>().await.expect("JSON"), first);
        assert_eq!(total(&app, EVENTS, &token).await, before + 2);
    }
}
