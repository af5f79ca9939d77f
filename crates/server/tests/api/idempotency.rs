//! `Idempotency-Key`: retries of a POST get the first answer; reuse for another request is refused; a request that
//! ended without an answer frees its key.

use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const PATH: &str = "/api/v3/third_party/establishments";

async fn post_with_key(app: &TestApp, token: &str, key: &str, body: &Value) -> reqwest::Response {
    app.request(Method::POST, PATH)
        .bearer_auth(token)
        .header("Idempotency-Key", key)
        .json(body)
        .send()
        .await
        .expect("POST")
}

async fn farmer(app: &TestApp, token: &str) -> Value {
    app.get_ok("/api/v3/third_party/farmers", token).await["items"][0]["id"].clone()
}

async fn total(app: &TestApp, token: &str) -> Value {
    app.get_ok(PATH, token).await["total_items"].clone()
}

const EVENTS: &str = "/api/v3/third_party/device_events";

/// The largest batch of device readings, of the society of `token`.
async fn largest_batch(app: &TestApp, token: &str) -> Value {
    let devices: Vec<i64> = app
        .all_items("/api/v3/third_party/devices", token)
        .await
        .iter()
        .filter_map(|d| d["id"].as_i64())
        .collect();
    let kind = app.get_ok("/api/v3/third_party/device_event_types", token).await["items"][0]["id"].clone();
    Value::Array(
        (0..10_000_usize)
            .map(|i| {
                json!({ "device_id": devices[i % devices.len()], "device_event_type_id": kind,
                             "recorded_at": "2024-03-01T09:30:00-03:00", "value": i as f64 })
            })
            .collect(),
    )
}

/// Sends a keyed POST of `body` on a socket of its own and closes the socket soon after the body, while the server
/// is storing it, as a client that timed out would. (Closed at once, the server may see the client leave before it
/// claims the key at all.)
async fn abandon(app: &TestApp, token: &str, path: &str, key: &str, body: &Value) {
    let address = app.base.trim_start_matches("http://").to_owned();
    let body = serde_json::to_vec(body).expect("a body");
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: {address}\r\nX-SVC-SYSTEM-ID: 8\r\nAuthorization: Bearer {token}\r\n\
         Idempotency-Key: {key}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut socket = tokio::net::TcpStream::connect(&address).await.expect("connect");
    socket.write_all(head.as_bytes()).await.expect("the head");
    socket.write_all(&body).await.expect("the body");
    socket.flush().await.expect("flush");
    tokio::time::sleep(Duration::from_millis(100)).await;
    drop(socket);
}

async fn events_total(app: &TestApp, token: &str) -> u64 {
    app.get_ok(EVENTS, token).await["total_items"]
        .as_u64()
        .expect("a total")
}

on_both_backends! {
    async fn a_retry_gets_the_first_answer_and_creates_nothing(app) {
        let token = app.token(integrator("AR")).await;
        let body = json!({ "name": "Reintento", "farmer_id": farmer(&app, &token).await });
        let before = total(&app, &token).await;
        let first = post_with_key(&app, &token, "erp-7f3a-0001", &body).await;
        assert_eq!(first.status(), StatusCode::CREATED);
        assert!(first.headers().get("idempotent-replayed").is_none());
        let location = first.headers().get("location").cloned();
        let first_body: Value = first.json().await.expect("JSON");
        let retry = post_with_key(&app, &token, "erp-7f3a-0001", &body).await;
        assert_eq!(retry.status(), StatusCode::CREATED);
        assert_eq!(retry.headers().get("idempotent-replayed").and_then(|v| v.to_str().ok()), Some("true"));
        assert_eq!(retry.headers().get("location").cloned(), location);
        assert_eq!(retry.json::<Value>().await.expect("JSON"), first_body);
        let after = total(&app, &token).await;
        assert_eq!(after.as_u64(), before.as_u64().map(|n| n + 1), "one establishment, not two");
    }

    async fn a_retry_on_another_process_gets_the_first_answer_too(app) {
        let other = app.sibling().await;
        let token = app.token(integrator("AR")).await;
        let body = json!({ "name": "Reintento", "farmer_id": farmer(&app, &token).await });
        let first: Value = post_with_key(&app, &token, "key-across-processes", &body).await.json().await.expect("JSON");
        let retry = post_with_key(&other, &token, "key-across-processes", &body).await;
        assert_eq!(retry.status(), StatusCode::CREATED);
        assert_eq!(retry.json::<Value>().await.expect("JSON"), first);
    }

    async fn the_same_key_for_another_body_is_refused(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = farmer(&app, &token).await;
        post_with_key(&app, &token, "k-1", &json!({ "name": "Una", "farmer_id": farmer })).await;
        let before = total(&app, &token).await;
        let (code, message) = error_envelope(post_with_key(&app, &token, "k-1", &json!({ "name": "Otra", "farmer_id": farmer })).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert_eq!(code, 422);
        assert!(message.contains("Idempotency-Key"), "{message}");
        assert_eq!(total(&app, &token).await, before);
    }

    async fn a_refused_request_does_not_use_up_its_key(app) {
        let token = app.token(integrator("AR")).await;
        let refused = post_with_key(&app, &token, "k-2", &json!({ "name": "X", "farmer_id": 999_999 })).await;
        error_envelope(refused, StatusCode::UNPROCESSABLE_ENTITY).await;
        let fixed = post_with_key(&app, &token, "k-2", &json!({ "name": "X", "farmer_id": farmer(&app, &token).await })).await;
        assert_eq!(fixed.status(), StatusCode::CREATED);
    }

    async fn keys_belong_to_one_society(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let ar: Value = post_with_key(&app, &argentina, "shared-key", &json!({ "name": "AR", "farmer_id": farmer(&app, &argentina).await })).await.json().await.expect("JSON");
        let br = post_with_key(&app, &brazil, "shared-key", &json!({ "name": "BR", "farmer_id": farmer(&app, &brazil).await })).await;
        assert_eq!(br.status(), StatusCode::CREATED);
        assert!(br.headers().get("idempotent-replayed").is_none());
        assert_ne!(br.json::<Value>().await.expect("JSON")["id"], ar["id"]);
    }

    async fn malformed_keys_are_400(app) {
        let token = app.token(integrator("AR")).await;
        let body = json!({ "name": "X", "farmer_id": farmer(&app, &token).await });
        for bad in ["", &"k".repeat(256), "con espacio"] {
            error_envelope(post_with_key(&app, &token, bad, &body).await, StatusCode::BAD_REQUEST).await;
        }
    }

    async fn an_abandoned_request_frees_its_key_and_its_retry_creates_once(app) {
        let token = app.token(integrator("AR")).await;
        let batch = largest_batch(&app, &token).await;
        let before = events_total(&app, &token).await;
        abandon(&app, &token, EVENTS, "erp-abandoned", &batch).await;
        // The key is free once the server has seen the client leave (at once) or, at the latest, once its lease ran
        // out; until then the retry is told to wait.
        let started = Instant::now();
        let retry = loop {
            let retry = app.request(Method::POST, EVENTS).bearer_auth(&token).header("Idempotency-Key", "erp-abandoned")
                .json(&batch).send().await.expect("POST");
            if retry.status() != StatusCode::CONFLICT {
                break retry;
            }
            assert!(retry.headers().get("retry-after").is_some(), "a 409 in progress says when to come back");
            assert!(started.elapsed() < Duration::from_secs(store::idempotency::LEASE_MS as u64 / 1000 + 5),
                    "the abandoned request still holds its key");
            tokio::time::sleep(Duration::from_millis(200)).await;
        };
        // Run anew when the server dropped the abandoned request mid-way, replayed if it had finished first: either
        // way the batch is stored once.
        assert_eq!(retry.status(), StatusCode::CREATED);
        let stored: Vec<Value> = retry.json().await.expect("JSON");
        assert_eq!(stored.len(), 10_000);
        assert_eq!(events_total(&app, &token).await, before + 10_000, "the batch is stored once");
        let again = app.request(Method::POST, EVENTS).bearer_auth(&token).header("Idempotency-Key", "erp-abandoned")
            .json(&batch).send().await.expect("POST");
        assert_eq!(again.headers().get("idempotent-replayed").and_then(|v| v.to_str().ok()), Some("true"));
        assert_eq!(events_total(&app, &token).await, before + 10_000);
    }
}
