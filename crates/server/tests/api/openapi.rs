//! The OpenAPI document and the docs page: made from the same table as the routes, and checked against a running
//! server in both directions.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{integrator, Backend, Setup, TestApp};

fn documented(document: &Value) -> BTreeSet<(String, String)> {
    let mut operations = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in ["get", "post", "put", "patch", "delete"] {
            if item.get(method).is_some() {
                operations.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    operations
}

#[test]
fn the_document_lists_exactly_the_routed_operations() {
    let routed: BTreeSet<(String, String)> = server::routes::table()
        .operations()
        .iter()
        .map(|(method, path)| (method.as_str().to_owned(), path.clone()))
        .collect();
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    assert_eq!(documented(&document), routed);
    assert!(routed.len() > 100, "every resource is routed: {}", routed.len());
}

#[test]
fn every_operation_is_fully_described() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    assert!(document["openapi"].as_str().is_some_and(|v| v.starts_with("3.1")));
    let schemes = &document["components"]["securitySchemes"];
    assert_eq!(schemes["bearer"]["scheme"], "bearer");
    assert_eq!(schemes["system_id"]["name"], "X-SVC-SYSTEM-ID");
    assert!(document["components"]["schemas"]["ErrorBody"].is_object());
    let mut ids = BTreeSet::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("item") {
            let id = operation["operationId"].as_str().expect("an operation id").to_owned();
            assert!(ids.insert(id), "operation ids are unique");
            assert!(operation["summary"].is_string(), "{method} {path} has a summary");
            let responses = operation["responses"].as_object().expect("responses");
            assert!(
                responses.contains_key("default"),
                "{method} {path} documents its errors"
            );
            assert!(
                responses.keys().any(|status| status.starts_with('2')),
                "{method} {path} documents success"
            );
            let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
            let has_example =
                operation.get("requestBody").is_some() || parameters.iter().all(|p| p.get("example").is_some());
            assert!(has_example, "{method} {path} has an example request");
            if let Some(body) = operation.get("requestBody") {
                let content = &body["content"]["application/json"];
                assert!(content["schema"].is_object(), "{method} {path} documents its body");
                assert!(
                    content["example"].is_object() || content["example"].is_array(),
                    "{method} {path} has an example"
                );
            }
            if path.starts_with("/api/") || path.starts_with("/integration/") {
                assert!(
                    operation["security"].is_array(),
                    "{method} {path} states its credentials"
                );
            }
            if method == "get"
                && operation["responses"]["200"]["content"]["application/json"]["schema"]["properties"]["items"]
                    .is_object()
            {
                let names: Vec<&str> = operation["parameters"]
                    .as_array()
                    .expect("parameters")
                    .iter()
                    .filter_map(|p| p["name"].as_str())
                    .collect();
                assert!(
                    names.contains(&"page") && names.contains(&"active"),
                    "{method} {path} lists its paging and filters"
                );
                let v2 = path.starts_with("/api/v2/");
                assert!(
                    names.contains(&if v2 { "updated_from" } else { "updated_at_from" }),
                    "{method} {path}: {names:?}"
                );
            }
        }
    }
}

#[test]
fn the_header_token_names_the_documented_header() {
    let document = serde_json::to_value(server::openapi_document("ACME")).expect("JSON");
    assert_eq!(
        document["components"]["securitySchemes"]["system_id"]["name"],
        "X-ACME-SYSTEM-ID"
    );
}

#[tokio::test]
async fn every_documented_operation_is_routed_and_served() {
    let app = TestApp::spawn_with(Backend::Sqlite, Setup::default()).await;
    let token = app.token(integrator("AR")).await;
    let served: Value = app
        .client
        .get(format!("{}/openapi.json", app.base))
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON");
    assert_eq!(
        served,
        serde_json::to_value(server::openapi_document("SVC")).expect("JSON")
    );
    for (method, path) in documented(&served) {
        let concrete = path
            .split('/')
            .map(|segment| if segment.starts_with('{') { "999999" } else { segment })
            .collect::<Vec<_>>()
            .join("/");
        let method = Method::from_bytes(method.as_bytes()).expect("a method");
        let mut request = app
            .request(method.clone(), &concrete)
            .bearer_auth(&token)
            .header("accept-language", "en");
        if [Method::POST, Method::PUT, Method::PATCH].contains(&method) {
            request = request.json(&serde_json::json!({}));
        }
        let response = request.send().await.expect("send");
        let status = response.status();
        let body: Value = response.json().await.unwrap_or(Value::Null);
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert_ne!(status, StatusCode::METHOD_NOT_ALLOWED, "{method} {path} is routed");
        assert!(!message.starts_with("The path"), "{method} {path} is routed: {message}");
        assert!(!status.is_server_error(), "{method} {path} answers {status}: {message}");
    }
}

#[tokio::test]
async fn the_docs_page_lists_every_operation_with_nothing_from_elsewhere() {
    let app = TestApp::spawn_with(Backend::Sqlite, Setup::default()).await;
    let response = app.client.get(format!("{}/docs", app.base)).send().await.expect("GET");
    assert_eq!(response.status(), StatusCode::OK);
    assert!(response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|t| t.starts_with("text/html")));
    let page = response.text().await.expect("HTML");
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    for item in document["paths"].as_object().expect("paths").values() {
        for operation in item.as_object().expect("item").values() {
            let id = operation["operationId"].as_str().expect("id");
            assert!(page.contains(&format!("id=\"{id}\"")), "the page lists {id}");
        }
    }
    assert!(
        !page.contains("<script src") && !page.contains("<link"),
        "the page loads nothing from elsewhere"
    );
}
