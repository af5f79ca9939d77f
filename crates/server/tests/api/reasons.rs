//! The machine-readable `reason` of every error, and `errors[]` on 400 and 422: situations that share a status
//! have reasons of their own, in every language; a 405 on a path another version serves points to it; and the
//! document's enums are exactly the reasons the server gives.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use store::auth::TokenCheck;

use crate::helpers::{error_detail, error_reason, integrator, TestApp};
use crate::on_both_backends;

const WRITE: &str = "/integration/api/v1/workOrders";
const READ: &str = "/api/v3/third_party/work_orders";
const FARMERS: &str = "/api/v3/third_party/farmers";

async fn first_id(app: &TestApp, token: &str, path: &str) -> i64 {
    app.get_ok(path, token).await["items"][0]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{path} has an item"))
}

/// A valid new work order of the society `login` names.
async fn new_order(app: &TestApp, login: &Value, external_id: &str) -> Value {
    let token = login["access_token"].as_str().expect("token");
    let state = json!({ "pending": true, "executed": false, "confirmed": false });
    let campaign = first_id(app, token, "/api/v3/third_party/campaigns").await;
    let formulated = first_id(app, token, "/api/v3/third_party/formulateds").await;
    let voucher_type = first_id(app, token, "/api/v3/third_party/voucher_types").await;
    let labour_type = first_id(app, token, "/api/v3/third_party/application_order_labour_types").await;
    json!({
        "header": {
            "external_id": external_id, "system_id": "third_party", "name": "Siembra lote 9",
            "date": "2025-10-02T08:00:00-03:00", "voucher_date": "2025-10-01T00:00:00-03:00", "state": state,
            "extra_fields": { "company": { "local_id": login["society"]["id"] }, "voucher_type": { "local_id": voucher_type } }
        },
        "supplies": [{ "cultivation": { "local_id": campaign }, "formulated": { "local_id": formulated },
                       "area_applied": 10.0, "total_applied": 20.0, "date": "2025-10-02T08:00:00-03:00", "state": state }],
        "labours": [{ "cultivation": { "local_id": campaign }, "labour_type": { "local_id": labour_type },
                      "area_applied": 10.0, "date": "2025-10-02T08:00:00-03:00", "state": state }]
    })
}

/// An API call with `authorization` as the header's value.
async fn with_authorization(app: &TestApp, authorization: &str) -> reqwest::Response {
    app.request(Method::GET, FARMERS)
        .header("authorization", authorization)
        .send()
        .await
        .expect("GET")
}

/// The 405 message for `method path` in `lang`, checked to keep its `Allow` header.
async fn method_not_allowed(app: &TestApp, token: &str, method: Method, path: &str, lang: &str) -> String {
    let response = app
        .request(method.clone(), path)
        .bearer_auth(token)
        .header("accept-language", lang)
        .send()
        .await
        .expect("send");
    assert!(response.headers().get("allow").is_some(), "{method} {path} keeps Allow");
    let error = error_detail(response, StatusCode::METHOD_NOT_ALLOWED).await;
    assert_eq!(error["reason"], "method_not_allowed");
    error["message"].as_str().expect("a message").to_owned()
}

on_both_backends! {
    async fn the_three_conflicts_have_three_reasons(app) {
        let login = app.login_as(integrator("AR")).await;
        let token = login["access_token"].as_str().expect("token").to_owned();
        // A read-only order.
        let orders = app.all_items(&format!("{READ}?confirmed=1&size=500"), &token).await;
        let locked = orders.iter().find(|o| o["header"]["is_read_only"] == true).expect("a read-only demo order");
        let id = &locked["header"]["local_id"];
        let patch = app.request(Method::PATCH, &format!("{WRITE}/{id}")).bearer_auth(&token).json(locked).send().await.expect("PATCH");
        let read_only = error_reason(patch, StatusCode::CONFLICT).await;
        // An external_id another order has.
        let order = new_order(&app, &login, "ERP-REASON-1").await;
        assert_eq!(app.post(WRITE, &token, &order).await.status(), StatusCode::CREATED);
        let taken = error_reason(app.post(WRITE, &token, &order).await, StatusCode::CONFLICT).await;
        // An Idempotency-Key whose first request is still running: held here as the first request holds it.
        let TokenCheck::Valid(session) = app.store.authenticate(&token).await.expect("authenticate") else {
            panic!("a valid token");
        };
        let body = json!({ "name": "Campo en vuelo", "farmer_id": first_id(&app, &token, FARMERS).await });
        let path = "/api/v3/third_party/establishments";
        let mut hasher = Sha256::new();
        hasher.update("POST");
        hasher.update([0]);
        hasher.update(path);
        hasher.update([0]);
        hasher.update(serde_json::to_vec(&body).expect("a body"));
        let hash = store::hex(&hasher.finalize());
        app.store.claim_key(&session.scope, "in-flight", &hash).await.expect("claim the key");
        let retry = app.request(Method::POST, path).bearer_auth(&token).header("Idempotency-Key", "in-flight").json(&body).send().await.expect("POST");
        assert!(retry.headers().get("retry-after").is_some());
        let in_flight = error_reason(retry, StatusCode::CONFLICT).await;
        assert_eq!(
            [read_only.as_str(), taken.as_str(), in_flight.as_str()],
            ["work_order_read_only", "external_id_taken", "idempotency_in_progress"]
        );
    }

    async fn a_missing_record_page_and_route_have_three_reasons(app) {
        let token = app.token(integrator("AR")).await;
        let record = error_reason(app.get(&format!("{FARMERS}/999999999"), &token).await, StatusCode::NOT_FOUND).await;
        let page = error_reason(app.get(&format!("{FARMERS}?page=999999"), &token).await, StatusCode::NOT_FOUND).await;
        let route = error_reason(app.get("/api/v3/third_party/nothing_here", &token).await, StatusCode::NOT_FOUND).await;
        assert_eq!([record, page, route], ["record_not_found", "page_not_found", "route_not_found"]);
    }

    async fn a_token_missing_sent_without_bearer_or_invalid_are_told_apart(app) {
        let token = app.token(integrator("AR")).await;
        let missing = app.request(Method::GET, FARMERS).send().await.expect("GET");
        assert_eq!(error_reason(missing, StatusCode::UNAUTHORIZED).await, "missing_token");
        assert_eq!(error_reason(with_authorization(&app, "Bearer ").await, StatusCode::UNAUTHORIZED).await, "missing_token");
        for without in [token.clone(), format!("Token {token}"), format!("BEARER {token}"), format!("Bearer{token}")] {
            let reason = error_reason(with_authorization(&app, &without).await, StatusCode::UNAUTHORIZED).await;
            assert_eq!(reason, "token_without_bearer", "{without}");
        }
        let invalid = with_authorization(&app, &format!("Bearer {token}x")).await;
        assert_eq!(error_reason(invalid, StatusCode::UNAUTHORIZED).await, "invalid_token");
        // Its own words, in each language, naming how to send it.
        for (lang, words) in [("es", "envíelo como Authorization: Bearer <token>"), ("pt", "envie-o como Authorization: Bearer <token>"), ("en", "send it as Authorization: Bearer <token>")] {
            let bare = app.request(Method::GET, FARMERS).header("authorization", &token).header("accept-language", lang).send().await.expect("GET");
            let error = error_detail(bare, StatusCode::UNAUTHORIZED).await;
            assert!(error["message"].as_str().is_some_and(|m| m.contains(words)), "{lang}: {error}");
        }
        app.get_ok(FARMERS, &token).await;
    }

    async fn a_422_lists_every_violation_at_its_path_and_a_400_its_parameter(app) {
        let token = app.token(integrator("AR")).await;
        let establishment = first_id(&app, &token, "/api/v3/third_party/establishments").await;
        let plot = json!({ "name": " ", "establishment_id": establishment, "area": -3.5 });
        let refused = app.request(Method::POST, "/api/v3/third_party/plots").bearer_auth(&token).header("accept-language", "pt").json(&plot).send().await.expect("POST");
        let error = error_detail(refused, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert_eq!(error["reason"], "validation_failed");
        let problems = error["errors"].as_array().expect("errors");
        let places: Vec<(&str, &str)> = problems.iter().map(|p| (p["path"].as_str().unwrap_or(""), p["reason"].as_str().unwrap_or(""))).collect();
        assert_eq!(places, [("name", "blank"), ("area", "not_positive")]);
        assert!(problems[1]["message"].as_str().is_some_and(|m| m.contains("maior que zero")), "in the caller's language: {error}");

        let page = error_detail(app.get(&format!("{FARMERS}?page=abc"), &token).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(page["reason"], "invalid_parameter");
        assert_eq!(page["errors"], json!([{ "path": "page", "reason": "not_a_positive_integer", "message": page["message"] }]));
        let date = error_detail(app.get(&format!("{FARMERS}?updated_at_from=ayer"), &token).await, StatusCode::BAD_REQUEST).await;
        assert_eq!((&date["errors"][0]["path"], &date["errors"][0]["reason"]), (&json!("updated_at_from"), &json!("not_a_date_time")));
        // Not a 400 or 422: no list.
        let missing = error_detail(app.get(&format!("{FARMERS}/999999999"), &token).await, StatusCode::NOT_FOUND).await;
        assert!(missing.get("errors").is_none(), "{missing}");
    }

    async fn a_405_points_to_the_version_that_serves_the_method(app) {
        let token = app.token(integrator("AR")).await;
        let order = &app.get_ok(&format!("{READ}?size=1"), &token).await["items"][0];
        let id = order["header"]["local_id"].as_i64().expect("an order id");
        let cases = [
            (Method::GET, "/api/v3/third_party/plots".to_owned(), "GET /api/v2/third_party/plots".to_owned()),
            (Method::PATCH, format!("{READ}/{id}"), format!("PATCH {WRITE}/{id}")),
            (Method::GET, WRITE.to_owned(), format!("GET {READ}")),
        ];
        for (method, path, pointed) in cases {
            let es = method_not_allowed(&app, &token, method.clone(), &path, "es").await;
            assert_eq!(es, format!("El método no está permitido en esta ruta. Otra versión de la API ofrece este recurso con ese método: {pointed}."));
            let pt = method_not_allowed(&app, &token, method.clone(), &path, "pt-BR").await;
            assert_eq!(pt, format!("O método não é permitido nesta rota. Outra versão da API oferece este recurso com esse método: {pointed}."));
        }
        // Nothing serves it anywhere: the plain message.
        let plain = method_not_allowed(&app, &token, Method::DELETE, FARMERS, "es").await;
        assert_eq!(plain, "El método no está permitido en esta ruta.");
    }

    async fn the_document_lists_exactly_the_reasons_the_server_gives(app) {
        let document = app.served_document().await;
        let listed = |schema: &str| -> Vec<String> {
            let values = document["components"]["schemas"][schema]["properties"]["reason"]["enum"].as_array().unwrap_or_else(|| panic!("{schema}.reason is an enum"));
            values.iter().map(|v| v.as_str().expect("a name").to_owned()).collect()
        };
        let top: BTreeSet<String> = listed("ErrorDetail").into_iter().collect();
        let given: BTreeSet<String> = server::i18n::reasons::REASONS.iter().map(|r| (*r).to_owned()).collect();
        assert_eq!(top, given);
        let problems: Vec<String> = listed("ErrorProblem");
        let named: Vec<String> = server::i18n::reasons::problem_reasons().into_iter().map(str::to_owned).collect();
        assert_eq!(problems, named);
        for rule in domain::Rule::REASONS {
            assert!(problems.iter().any(|p| p == rule), "{rule}");
        }
        let required = &document["components"]["schemas"]["ErrorDetail"]["required"];
        assert!(required.as_array().is_some_and(|r| r.contains(&json!("reason"))), "{required}");
    }
}
