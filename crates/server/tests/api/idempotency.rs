//! `Idempotency-Key`: retries of a POST get the first answer; reuse for another request is refused.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

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
}
