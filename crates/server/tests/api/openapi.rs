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
            let answer = resolved(
                &document,
                &operation["responses"]["200"]["content"]["application/json"]["schema"],
            );
            let names: Vec<&str> = operation["parameters"]
                .as_array()
                .map(|parameters| parameters.iter().filter_map(|p| p["name"].as_str()).collect())
                .unwrap_or_default();
            // The change feed is walked by cursor, not by page: its own parameters instead of the list's.
            if method == "get" && answer["properties"]["next_cursor"].is_object() {
                assert_eq!(names, ["after", "types", "size"], "{method} {path}");
            }
            // A record's own history (an endpoint's deliveries) pages, but is not a resource list with audit filters.
            let history = path.contains('{');
            if method == "get" && !history && answer["properties"]["total_pages"].is_object() {
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

/// `schema`, or the component its `$ref` names.
fn resolved<'a>(document: &'a Value, schema: &'a Value) -> &'a Value {
    match schema["$ref"]
        .as_str()
        .and_then(|reference| reference.strip_prefix("#/components/schemas/"))
    {
        Some(name) => &document["components"]["schemas"][name],
        None => schema,
    }
}

/// The component a `{"$ref": "#/components/schemas/Name"}` names, if `schema` is one and it exists.
fn named_component<'a>(document: &'a Value, schema: &Value) -> Option<&'a str> {
    let name = schema["$ref"].as_str()?.strip_prefix("#/components/schemas/")?;
    let (name, _) = document["components"]["schemas"].as_object()?.get_key_value(name)?;
    Some(name)
}

#[test]
fn every_list_answers_a_named_page_of_named_items() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let mut lists = 0;
    for (path, item) in document["paths"].as_object().expect("paths") {
        let Some(operation) = item.get("get") else { continue };
        let paged = operation["parameters"]
            .as_array()
            .is_some_and(|parameters| parameters.iter().any(|p| p["name"] == "page" && p["in"] == "query"));
        if !paged {
            continue;
        }
        lists += 1;
        let answer = &operation["responses"]["200"]["content"]["application/json"]["schema"];
        let page = named_component(&document, answer)
            .unwrap_or_else(|| panic!("GET {path}: the page is a named component, not inline: {answer}"));
        let items = &document["components"]["schemas"][page]["properties"]["items"];
        assert_eq!(items["type"], "array", "GET {path}: {page}.items is an array");
        let item = named_component(&document, &items["items"])
            .unwrap_or_else(|| panic!("GET {path}: {page}.items holds a named component: {items}"));
        assert_eq!(
            page,
            format!("{item}Page"),
            "GET {path}: the page is named from its item"
        );
    }
    assert!(lists > 40, "every list was checked: {lists}");
}

#[test]
fn every_v3_list_has_a_detail_by_id() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let paths = document["paths"].as_object().expect("paths");
    let mut lists = 0;
    for (path, item) in paths {
        let answer = &item["get"]["responses"]["200"]["content"]["application/json"]["schema"];
        let is_page = resolved(&document, answer)["properties"]["items"].is_object();
        if !path.starts_with("/api/v3/third_party/") || path.contains('{') || !is_page {
            continue;
        }
        lists += 1;
        let detail = paths.iter().find(|(other, item)| {
            item.get("get").is_some()
                && other
                    .strip_prefix(path.as_str())
                    .and_then(|rest| rest.strip_prefix("/{"))
                    .is_some_and(|rest| rest.ends_with('}') && !rest.contains('/'))
        });
        assert!(detail.is_some(), "GET {path} is a v3 list with no GET {path}/{{id}}");
    }
    assert!(lists > 30, "every v3 list was checked: {lists}");
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
