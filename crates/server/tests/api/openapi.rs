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

/// The `src` and `href` values of `html`.
fn references(html: &str) -> Vec<&str> {
    let mut found = Vec::new();
    for attribute in ["src=\"", "href=\""] {
        for (start, _) in html.match_indices(attribute) {
            let rest = &html[start + attribute.len()..];
            if let Some(end) = rest.find('"') {
                found.push(&rest[..end]);
            }
        }
    }
    found
}

#[tokio::test]
async fn the_docs_page_loads_only_its_own_files_under_its_policy() {
    let app = TestApp::spawn_with(Backend::Sqlite, Setup::default()).await;
    let response = app.client.get(format!("{}/docs", app.base)).send().await.expect("GET");
    assert_eq!(response.status(), StatusCode::OK);
    let header = |response: &reqwest::Response, name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    assert!(header(&response, "content-type").starts_with("text/html"));
    let policy = header(&response, "content-security-policy");
    for directive in [
        "default-src 'none'",
        "script-src 'self';",
        "connect-src 'self'",
        "frame-ancestors 'none'",
    ] {
        assert!(policy.contains(directive), "the policy says {directive}: {policy}");
    }
    assert!(!policy.contains("unsafe") && !policy.contains("http"), "{policy}");
    let page = response.text().await.expect("HTML");
    assert_eq!(
        page.matches("<script").count(),
        page.matches("<script src=\"/docs/assets/").count(),
        "every script is a file of this server, none inline: {page}"
    );
    assert!(!page.contains("{{"), "every placeholder is filled: {page}");
    assert!(
        !page.contains("LaPampa-2026") && page.contains("data-system-id-header=\"X-SVC-SYSTEM-ID\""),
        "a server that is not the demo offers no account"
    );
    let files: Vec<&str> = references(&page)
        .into_iter()
        .filter(|reference| reference.starts_with("/docs/assets/"))
        .collect();
    assert_eq!(files.len(), 5, "icon, two styles, two scripts: {files:?}");
    for reference in references(&page) {
        assert!(reference.starts_with('/'), "{reference} is on this server");
    }
    for file in files {
        let response = app.client.get(format!("{}{file}", app.base)).send().await.expect("GET");
        assert_eq!(response.status(), StatusCode::OK, "{file}");
        assert_eq!(header(&response, "content-security-policy"), policy, "{file}");
        assert_eq!(header(&response, "x-content-type-options"), "nosniff", "{file}");
        let body = response.text().await.unwrap_or_default();
        if file.ends_with("docs.js") {
            for setting in [
                "deepLinking: true",
                "filter: true",
                "persistAuthorization: false",
                "validatorUrl: null",
            ] {
                assert!(body.contains(setting), "the init script sets {setting}");
            }
            for storage in ["localStorage", "sessionStorage", "document.cookie", "location.hash ="] {
                assert!(!body.contains(storage), "the token stays in memory: {storage}");
            }
        }
    }
    let missing = app
        .client
        .get(format!("{}/docs/assets/index.html", app.base))
        .send()
        .await
        .expect("GET");
    assert_eq!(
        missing.status(),
        StatusCode::NOT_FOUND,
        "only the files the page loads are served"
    );
    let body: Value = missing.json().await.expect("the error envelope");
    assert_eq!(body["error"]["code"], 404);
}

#[tokio::test]
async fn the_demo_docs_page_offers_the_demo_account() {
    let mut setup = Setup::default();
    setup.server.docs_login = Some(server::config::DocsLogin::new(
        integrator("AR").email,
        integrator("AR").password,
        "8",
    ));
    let app = TestApp::spawn_with(Backend::Sqlite, setup).await;
    let page = app
        .client
        .get(format!("{}/docs", app.base))
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("HTML");
    for value in [integrator("AR").email, integrator("AR").password, "8"] {
        assert!(page.contains(&format!("value=\"{value}\"")), "the form offers {value}");
    }
}

/// The document's operations: method, path and the operation.
fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("item") {
            found.push((method.to_uppercase(), path.clone(), operation.clone()));
        }
    }
    found
}

/// The source of the sample in `lang` of `operation`.
fn sample(operation: &Value, lang: &str) -> String {
    operation["x-codeSamples"]
        .as_array()
        .and_then(|samples| samples.iter().find(|sample| sample["lang"] == lang))
        .and_then(|sample| sample["source"].as_str())
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn every_operation_has_its_curl_rust_and_python_samples() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    for (method, path, operation) in operations(&document) {
        let description = operation["description"].as_str().unwrap_or_default();
        let id = operation["operationId"].as_str().expect("an id");
        for lang in ["Shell", "Rust", "Python"] {
            let source = sample(&operation, lang);
            assert!(!source.is_empty(), "{method} {path} has a {lang} sample");
            assert!(description.contains(&source), "{method} {path} shows its {lang} sample");
        }
        let curl = sample(&operation, "Shell");
        assert!(curl.contains(&format!("-X {method} ")), "{method} {path}: {curl}");
        let secured = operation["security"].is_array();
        assert_eq!(curl.contains("X-SVC-SYSTEM-ID: 8"), secured, "{method} {path}: {curl}");
        let python = sample(&operation, "Python");
        assert!(
            python.contains(&format!(" import {id}\n")) && python.contains(&format!("{id}.sync_detailed(")),
            "{method} {path}: the generated client's module is named from the operation id: {python}"
        );
        let rust = sample(&operation, "Rust");
        assert!(rust.contains("async fn main()"), "{method} {path}: {rust}");
        if operation.get("requestBody").is_some() {
            assert!(curl.contains(" -d '"), "{method} {path} sends its example body: {curl}");
            assert!(python.contains("body="), "{method} {path}: {python}");
        }
    }
}

#[tokio::test]
async fn the_curl_samples_of_plain_reads_answer_success() {
    let app = TestApp::spawn_with(Backend::Sqlite, Setup::default()).await;
    let token = app.token(integrator("AR")).await;
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let mut ran = 0;
    for (method, path, operation) in operations(&document) {
        if method != "GET" || path.contains('{') {
            continue;
        }
        let curl = sample(&operation, "Shell").replace(server::code_samples::BASE, &app.base);
        // Not std's Command: it would block the test's runtime, which also runs the server.
        let output = tokio::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{curl} -o /dev/null -w '%{{http_code}}'"))
            .env("TOKEN", &token)
            .output()
            .await
            .expect("curl runs");
        let status = String::from_utf8_lossy(&output.stdout);
        assert!(status.starts_with('2'), "GET {path} answered {status} to {curl}");
        ran += 1;
    }
    assert!(ran > 40, "every plain read ran: {ran}");
}
