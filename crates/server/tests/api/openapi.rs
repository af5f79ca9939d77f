//! The OpenAPI document and the docs page: made from the same table as the routes, and checked against a running
//! server in both directions.

use std::collections::BTreeSet;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{agronomist, integrator, Backend, Setup, TestApp};

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
                !responses.contains_key("default"),
                "{method} {path} lists its error statuses one by one, not as `default`"
            );
            assert!(
                responses.keys().any(|status| status.starts_with('2')),
                "{method} {path} documents success"
            );
            let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
            // What a request needs has an example; optional filters have none, so that try-it-out starts from the
            // plain first page (their descriptions show their form).
            for parameter in &parameters {
                let name = parameter["name"].as_str().unwrap_or_default();
                let needs_example = parameter["required"] == true || name == "page" || name == "size";
                assert_eq!(
                    parameter.get("example").is_some(),
                    needs_example,
                    "{method} {path}: parameter {name}"
                );
            }
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
    let served = app.served_document().await;
    // Served, the samples call the address the request reached.
    let built = serde_json::to_string(&server::openapi_document("SVC")).expect("JSON");
    let built: Value = serde_json::from_str(&built.replace(server::code_samples::BASE, &app.base)).expect("JSON");
    assert_eq!(served, built);
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
    for (path, method, operation) in operations(&document) {
        let method = method.to_uppercase();
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
        // openapi-python-client names the module of `listFarmersV2` `list_farmers_v2`.
        let module: String = id
            .chars()
            .flat_map(|c| match c.is_ascii_uppercase() {
                true => vec!['_', c.to_ascii_lowercase()],
                false => vec![c],
            })
            .collect();
        assert!(
            python.contains(&format!(" import {module}\n")) && python.contains(&format!("{module}.sync_detailed(")),
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
    for (path, method, operation) in operations(&document) {
        if method != "get" || path.contains('{') {
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

/// Every operation of the document with its path and method.
fn operations(document: &Value) -> Vec<(String, String, Value)> {
    let mut all = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("item") {
            all.push((path.clone(), method.clone(), operation.clone()));
        }
    }
    all
}

#[test]
fn every_operation_lists_the_error_statuses_it_can_answer_with_the_error_envelope() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let mut checked = 0;
    for (path, method, operation) in operations(&document) {
        let responses = operation["responses"].as_object().expect("responses");
        let listed = |status: u16| responses.contains_key(&status.to_string());
        let parameters = operation["parameters"].as_array().cloned().unwrap_or_default();
        let takes = |place: &str| parameters.iter().any(|p| p["in"] == place);
        let body = operation.get("requestBody").is_some();
        let security = operation["security"].as_array().cloned().unwrap_or_default();
        let caller = security.iter().any(|requirement| requirement.get("bearer").is_some());
        let mut due = vec![400, 408, 414, 431, 500, 503];
        if !security.is_empty() {
            due.extend([401, 429]);
        }
        if caller {
            due.push(403);
        }
        if body {
            due.extend([400, 413, 415, 422]);
        }
        if takes("query") {
            due.push(400);
        }
        if takes("path") || ["put", "patch", "delete"].contains(&method.as_str()) {
            due.push(404);
        }
        if caller && method != "get" {
            due.extend([409, 422]);
        }
        for status in due {
            assert!(listed(status), "{method} {path} lists {status}: {:?}", responses.keys());
        }
        for (status, response) in responses {
            let error = status.starts_with('4') || status.starts_with('5');
            if error && status != "304" {
                assert_eq!(
                    response["content"]["application/json"]["schema"]["$ref"], "#/components/schemas/ErrorBody",
                    "{method} {path}: {status} answers the error envelope"
                );
                assert!(
                    response["description"].as_str().is_some_and(|d| !d.is_empty()),
                    "{method} {path}: {status} says why"
                );
            }
        }
        checked += 1;
    }
    assert!(checked > 100, "every operation was checked: {checked}");
}

/// Every component schema's properties, as (component, property, schema).
fn properties(document: &Value) -> Vec<(String, String, Value)> {
    let mut all = Vec::new();
    for (component, schema) in document["components"]["schemas"].as_object().expect("schemas") {
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            all.push((component.clone(), name.clone(), property.clone()));
        }
    }
    all
}

#[test]
fn every_schema_property_is_described_and_exemplified() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let all = properties(&document);
    assert!(all.len() > 500, "every property was checked: {}", all.len());
    let described = |schema: &Value| schema["description"].as_str().is_some_and(|d| !d.trim().is_empty());
    let exemplified = |schema: &Value| {
        schema.get("example").is_some()
            || schema["examples"]
                .as_array()
                .is_some_and(|examples| !examples.is_empty())
    };
    // A property that is another component shows that component, whose own properties carry the examples.
    let component = |schema: &Value| {
        let referred = resolved(&document, schema);
        schema["$ref"].is_string()
            && (exemplified(referred) || referred["properties"].is_object() || referred["oneOf"].is_array())
    };
    for (owner, name, property) in all {
        let alternatives: Vec<&Value> = ["oneOf", "allOf", "anyOf"]
            .iter()
            .flat_map(|composition| property[*composition].as_array().into_iter().flatten())
            .collect();
        assert!(
            described(&property) || alternatives.iter().any(|alternative| described(alternative)),
            "{owner}.{name} has a description: {property}"
        );
        let shown = exemplified(&property)
            || component(&property)
            || component(&property["items"])
            || alternatives.iter().any(|alternative| component(alternative));
        assert!(shown, "{owner}.{name} has an example: {property}");
    }
}

/// The components a request body refers to, directly or within.
fn request_components(document: &Value) -> BTreeSet<String> {
    fn refer(value: &Value, found: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                if let Some(name) = map
                    .get("$ref")
                    .and_then(Value::as_str)
                    .and_then(|r| r.strip_prefix("#/components/schemas/"))
                {
                    found.push(name.to_owned());
                }
                map.values().for_each(|inner| refer(inner, found));
            }
            Value::Array(items) => items.iter().for_each(|inner| refer(inner, found)),
            _ => {}
        }
    }
    let mut pending = Vec::new();
    for (_, _, operation) in operations(document) {
        refer(&operation["requestBody"], &mut pending);
    }
    let mut seen = BTreeSet::new();
    while let Some(name) = pending.pop() {
        if seen.insert(name.clone()) {
            refer(&document["components"]["schemas"][&name], &mut pending);
        }
    }
    seen
}

/// Every schema within `schema` (itself, properties, items, alternatives), with its JSON path.
fn nested(schema: &Value, at: &str, found: &mut Vec<(String, Value)>) {
    found.push((at.to_owned(), schema.clone()));
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        nested(property, &format!("{at}.{name}"), found);
    }
    if schema["items"].is_object() {
        nested(&schema["items"], &format!("{at}[]"), found);
    }
    for composition in ["oneOf", "anyOf", "allOf"] {
        for (index, option) in schema[composition].as_array().into_iter().flatten().enumerate() {
            nested(option, &format!("{at}/{composition}{index}"), found);
        }
    }
}

fn types(schema: &Value) -> Vec<String> {
    match &schema["type"] {
        Value::String(one) => vec![one.clone()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        _ => vec![],
    }
}

#[test]
fn every_text_and_integer_a_request_takes_states_its_form() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let components = request_components(&document);
    assert!(components.len() > 10, "every request body was found: {components:?}");
    let mut texts = 0;
    for component in components {
        let mut found = Vec::new();
        nested(&document["components"]["schemas"][&component], &component, &mut found);
        for (at, schema) in found {
            let kinds = types(&schema);
            if kinds.iter().any(|kind| kind == "string") {
                texts += 1;
                // The server refuses NUL in every text it reads: a pattern (that leaves NUL out of every class of
                // characters it negates, and allows no character whatever), a set of values or a format says so.
                let pattern = schema["pattern"].as_str();
                let nul_free = |pattern: &str| {
                    pattern.split("[^").skip(1).all(|class| class.starts_with(r"\u0000"))
                        && !pattern.replace(r"\.", "").contains('.')
                        || pattern.contains(r"[^\u0000]")
                };
                assert!(
                    pattern.is_some_and(nul_free) || schema["enum"].is_array() || schema["format"] == "date-time",
                    "{at} states that it holds no NUL: {schema}"
                );
            }
            if kinds.iter().any(|kind| kind == "integer") {
                assert_eq!(schema["format"], "int64", "{at} is a 64-bit integer: {schema}");
            }
        }
    }
    assert!(texts > 15, "every text was checked: {texts}");
}

/// The schema at `component.property` (a property of a component, or of the items of one of its array properties).
fn property<'a>(document: &'a Value, component: &str, path: &[&str]) -> &'a Value {
    let mut schema = &document["components"]["schemas"][component];
    for step in path {
        schema = if *step == "[]" {
            &schema["items"]
        } else {
            &schema["properties"][step]
        };
        schema = resolved(document, schema);
    }
    assert!(schema.is_object(), "{component}.{path:?} is documented");
    schema
}

#[test]
fn every_enforced_bound_is_declared_with_the_servers_own_numbers() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let number = |value: &Value| value.as_f64().unwrap_or(f64::NAN);
    // Positive quantities: at least the smallest the domain stores as sent, wherever a write takes them.
    for (component, path, min) in [
        ("NewPlot", vec!["area"], domain::MIN_HECTARES),
        (
            "WorkOrderSupplyWrite",
            vec!["area_applied"],
            domain::refusal::MIN_QUANTITY,
        ),
        (
            "WorkOrderSupplyWrite",
            vec!["total_applied"],
            domain::refusal::MIN_QUANTITY,
        ),
        (
            "WorkOrderLabourWrite",
            vec!["area_applied"],
            domain::refusal::MIN_QUANTITY,
        ),
        ("NewSilobagCampaign", vec!["quantity_tn"], domain::refusal::MIN_QUANTITY),
    ] {
        let schema = property(&document, component, &path);
        assert_eq!(number(&schema["minimum"]), min, "{component}.{path:?} is positive");
    }
    assert_eq!(
        number(&property(&document, "NewPlot", &["area"])["maximum"]),
        domain::MAX_HECTARES
    );
    let humidity = property(&document, "NewSilobagCampaign", &["grain_humidity_percent"]);
    assert_eq!(
        (number(&humidity["minimum"]), number(&humidity["maximum"])),
        (0.0, 100.0)
    );
    let semaphore = property(&document, "NewSilobagCampaign", &["grain_quality_semaphore"]);
    assert_eq!(
        (number(&semaphore["minimum"]), number(&semaphore["maximum"])),
        (1.0, 3.0)
    );
    for (name, bound) in [("latitude", 90.0), ("longitude", 180.0)] {
        let schema = property(&document, "NewDevice", &[name]);
        assert_eq!(
            (number(&schema["minimum"]), number(&schema["maximum"])),
            (-bound, bound),
            "{name}"
        );
    }
    // Sets of values: exactly those the domain takes.
    let kinds: Vec<String> = property(&document, "NewDevice", &["kind"])["enum"]
        .as_array()
        .expect("kind is an enum")
        .iter()
        .filter_map(|kind| kind.as_str().map(str::to_owned))
        .collect();
    assert_eq!(kinds.len(), 2);
    for kind in &kinds {
        assert!(
            domain::field::DeviceKind::parse(kind).is_some(),
            "the server takes {kind}"
        );
    }
    assert_eq!(
        property(&document, "WorkOrderHeaderWrite", &["system_id"])["enum"],
        serde_json::json!(["third_party"])
    );
    // Lengths and counts.
    let url = property(&document, "WebhookEndpointWrite", &["url"]);
    assert_eq!(url["maxLength"], domain::webhooks::MAX_URL);
    let description = property(&document, "WebhookEndpointWrite", &["description"]);
    assert_eq!(description["maxLength"], domain::webhooks::MAX_DESCRIPTION);
    for component in ["CampaignImport", "ObjectiveYieldUpdate"] {
        let rows = property(&document, component, &["campaigns"]);
        assert_eq!(
            rows["maxItems"].as_u64(),
            Some(domain::jobs::MAX_JOB_ROWS as u64),
            "{component}"
        );
    }
    let batch = &document["components"]["schemas"]["NewDeviceEvents"]["oneOf"][1];
    assert_eq!(
        batch["maxItems"].as_u64(),
        Some(domain::field::MAX_DEVICE_EVENTS as u64)
    );
    // Query parameters of every list and of the feed.
    let mut lists = 0;
    for (path, method, operation) in operations(&document) {
        for parameter in operation["parameters"].as_array().into_iter().flatten() {
            let schema = &parameter["schema"];
            match parameter["name"].as_str().unwrap_or_default() {
                // A page's name (the guides') is one of a listed few; a record's id, below, any 64-bit integer.
                _ if parameter["in"] == "path" && schema["type"] == "string" => {
                    assert!(
                        schema["enum"].as_array().is_some_and(|names| !names.is_empty()),
                        "{method} {path}: {parameter}"
                    );
                }
                "page" => {
                    lists += 1;
                    assert_eq!(
                        (schema["minimum"].as_i64(), schema["maximum"].as_i64()),
                        (Some(1), Some(i64::MAX)),
                        "{method} {path}"
                    );
                    assert_eq!(i64::MAX as u64, domain::page::MAX_PAGE);
                }
                "size" if path.ends_with("/events") => {
                    assert_eq!(
                        (schema["minimum"].as_u64(), schema["maximum"].as_u64()),
                        (Some(1), Some(u64::from(domain::events::MAX_FEED_SIZE)))
                    );
                }
                "size" => {
                    assert_eq!(
                        (schema["minimum"].as_u64(), schema["maximum"].as_u64()),
                        (Some(1), Some(domain::page::MAX_PAGE_SIZE)),
                        "{method} {path}"
                    );
                }
                _ if parameter["in"] == "path" => {
                    assert_eq!(
                        (schema["minimum"].as_i64(), schema["maximum"].as_i64()),
                        (Some(i64::MIN), Some(i64::MAX)),
                        "{method} {path}"
                    );
                }
                _ => {}
            }
        }
    }
    assert!(lists > 40, "every list was checked: {lists}");
}

/// Every operation id, as `id METHOD path`, one a line, in the order of their paths and methods.
fn operation_id_lines(document: &Value) -> Vec<String> {
    let mut lines: Vec<(String, String, String)> = operations(document)
        .into_iter()
        .map(|(path, method, operation)| {
            let id = operation["operationId"].as_str().unwrap_or_default().to_owned();
            (path, method.to_uppercase(), id)
        })
        .collect();
    lines.sort();
    lines
        .into_iter()
        .map(|(path, method, id)| format!("{id} {method} {path}"))
        .collect()
}

#[test]
fn operation_ids_are_unique_camel_case_and_stable() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let lines = operation_id_lines(&document);
    let mut ids = BTreeSet::new();
    for line in &lines {
        let id = line.split(' ').next().unwrap_or_default();
        let mut chars = id.chars();
        assert!(
            chars.next().is_some_and(|first| first.is_ascii_lowercase()) && chars.all(|c| c.is_ascii_alphanumeric()),
            "{line}: an id matches ^[a-z][A-Za-z0-9]*$"
        );
        assert!(ids.insert(id.to_owned()), "{line}: ids are unique");
    }
    // Generated clients name their methods after these ids: a route keeps its id while it is served. A new route adds
    // its line here.
    let snapshot: Vec<&str> = include_str!("operation_ids.txt").lines().collect();
    assert_eq!(
        lines,
        snapshot,
        "the operation ids changed; the document's, one a line:\n{}",
        lines.join("\n")
    );
    for (id, method, path) in [
        ("login", "POST", "/api/v2/login"),
        ("refreshToken", "POST", "/api/v2/login/refresh"),
        ("listFarmers", "GET", "/api/v3/third_party/farmers"),
        ("listFarmersV2", "GET", "/api/v2/third_party/farmers"),
        ("getWorkOrder", "GET", "/api/v3/third_party/work_orders/{id}"),
        ("createWorkOrder", "POST", "/integration/api/v1/workOrders"),
        ("replaceWorkOrder", "PATCH", "/integration/api/v1/workOrders/{localId}"),
        ("deleteWorkOrder", "DELETE", "/integration/api/v1/workOrders/{localId}"),
        ("createPlot", "POST", "/api/v3/third_party/plots"),
        ("listPlots", "GET", "/api/v2/third_party/plots"),
    ] {
        let line = format!("{id} {method} {path}");
        assert!(lines.contains(&line), "{line}");
    }
}

/// The header parameter `name` of `method path`, if the document declares it.
fn header_parameter(document: &Value, method: &str, path: &str, name: &str) -> Option<Value> {
    document["paths"][path][method]["parameters"]
        .as_array()?
        .iter()
        .find(|parameter| parameter["in"] == "header" && parameter["name"] == name)
        .cloned()
}

#[test]
fn if_match_and_idempotency_key_are_declared_where_the_server_reads_them() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let mut posts = 0;
    for (path, method, operation) in operations(&document) {
        let caller = operation["security"].as_array().is_some_and(|requirements| {
            requirements
                .iter()
                .any(|requirement| requirement.get("bearer").is_some())
        });
        let key = header_parameter(&document, &method, &path, "Idempotency-Key");
        // The server honours a key on every authenticated POST, and on nothing else.
        assert_eq!(
            key.is_some(),
            caller && method == "post",
            "{method} {path}: Idempotency-Key"
        );
        if let Some(key) = key {
            posts += 1;
            assert_eq!(key["required"], false, "{method} {path}");
            assert_eq!(
                key["schema"]["pattern"], r"^[\t ]*[!-~]{1,255}[\t ]*$",
                "{method} {path}"
            );
            assert!(key["description"].as_str().is_some_and(|d| d.contains("24 hours")));
        }
        let if_match = header_parameter(&document, &method, &path, "If-Match");
        let replacement = method == "patch" && path == "/integration/api/v1/workOrders/{localId}";
        assert_eq!(if_match.is_some(), replacement, "{method} {path}: If-Match");
        if let Some(if_match) = if_match {
            assert_eq!(if_match["schema"]["type"], "string");
            assert!(operation["responses"]["412"].is_object(), "a stale If-Match is 412");
        } else {
            assert!(
                operation["responses"]["412"].is_null(),
                "{method} {path}: only If-Match is 412"
            );
        }
    }
    assert!(posts > 10, "every authenticated POST was checked: {posts}");
}

/// A read of a work order can be sent back as its write: every field the write takes has, in the read, a schema the
/// write's accepts (the same type, a set of values within the write's, and present wherever the write requires it).
#[test]
fn a_work_order_read_can_be_sent_back_as_its_write() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let kinds = |schema: &Value| -> BTreeSet<String> {
        let schema = resolved(&document, schema);
        let mut found: BTreeSet<String> = types(schema).into_iter().collect();
        for option in schema["oneOf"].as_array().into_iter().flatten() {
            found.extend(types(resolved(&document, option)));
        }
        found
    };
    let mut checked = 0;
    let mut pending = vec![("WorkOrder".to_owned(), "WorkOrderWrite".to_owned(), String::new())];
    while let Some((read, write, at)) = pending.pop() {
        let (read, write) = (
            &document["components"]["schemas"][&read],
            &document["components"]["schemas"][&write],
        );
        let required = |schema: &Value, name: &str| {
            schema["required"]
                .as_array()
                .is_some_and(|names| names.iter().any(|n| n == name))
        };
        for (name, written) in write["properties"].as_object().expect("the write's properties") {
            let at = format!("{at}.{name}");
            let sent = &read["properties"][name];
            assert!(sent.is_object(), "{at}: the read has it");
            if required(write, name) {
                assert!(
                    required(read, name),
                    "{at}: the read always has what the write requires"
                );
            }
            let (sent_kinds, written_kinds) = (kinds(sent), kinds(written));
            assert!(
                sent_kinds.is_subset(&written_kinds),
                "{at}: {sent_kinds:?} within {written_kinds:?}"
            );
            if let Some(values) = resolved(&document, written)["enum"].as_array() {
                let sent_values = resolved(&document, sent)["enum"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                assert!(
                    !sent_values.is_empty() && sent_values.iter().all(|value| values.contains(value)),
                    "{at}: the read declares the write's values {values:?}: {sent}"
                );
            }
            let nested = |schema: &Value| {
                named_component(&document, schema).or_else(|| named_component(&document, &schema["items"]))
            };
            if let (Some(read), Some(write)) = (nested(sent), nested(written)) {
                if read != write {
                    pending.push((read.to_owned(), write.to_owned(), at.clone()));
                }
            }
            checked += 1;
        }
    }
    assert!(checked > 20, "every field of the write was checked: {checked}");
}

/// Each operation in each of a few situations (no credentials, a token whose account lost the role, an unknown id,
/// an empty body, its example body, a page past the last): the server's every answer is a status the document lists.
#[tokio::test]
async fn every_status_the_server_answers_is_listed() {
    let app = TestApp::spawn_with(Backend::Sqlite, Setup::default()).await;
    let token = app.token(integrator("AR")).await;
    let lost = integrator("BR");
    let roleless = app.token(lost).await;
    app.store
        .admin()
        .set_roles(lost.email, &["agronomist".to_owned()])
        .await
        .expect("set roles");
    let document = app.served_document().await;
    let login = &document["paths"]["/api/v2/login"]["post"]["responses"];
    let refused = app.login(agronomist().email, agronomist().password).await.status();
    assert_eq!(
        refused,
        StatusCode::FORBIDDEN,
        "an account without the role cannot log in"
    );
    assert!(login["403"].is_object(), "the login lists its 403: {login}");
    let mut answers = 0;
    for (path, method, operation) in operations(&document) {
        let concrete = |id: &str| {
            path.split('/')
                .map(|segment| if segment.starts_with('{') { id } else { segment })
                .collect::<Vec<_>>()
                .join("/")
        };
        let listed = operation["responses"].as_object().cloned().unwrap_or_default();
        let verb = Method::from_bytes(method.to_uppercase().as_bytes()).expect("a method");
        let takes_body = operation.get("requestBody").is_some();
        let example = operation["requestBody"]["content"]["application/json"]["example"].clone();
        let paged = operation["parameters"]
            .as_array()
            .is_some_and(|parameters| parameters.iter().any(|p| p["name"] == "page"));
        let mut situations = vec![
            (
                "no credentials",
                app.client
                    .request(verb.clone(), format!("{}{}", app.base, concrete("1"))),
            ),
            ("no token", app.request(verb.clone(), &concrete("1"))),
            (
                "an invalid token",
                app.request(verb.clone(), &concrete("1")).bearer_auth("not-a-token"),
            ),
            (
                "a token without the role",
                app.request(verb.clone(), &concrete("1")).bearer_auth(&roleless),
            ),
            (
                "an unknown id",
                app.request(verb.clone(), &concrete("999999")).bearer_auth(&token),
            ),
            (
                "its example",
                app.request(verb.clone(), &concrete("1")).bearer_auth(&token),
            ),
        ];
        if paged {
            situations.push((
                "a page past the last",
                app.request(verb.clone(), &format!("{}?page=999999", concrete("1")))
                    .bearer_auth(&token),
            ));
        }
        for (situation, request) in situations {
            let request = match (takes_body, situation) {
                (true, "its example") => request.json(&example),
                (true, _) => request.json(&serde_json::json!({})),
                (false, _) => request,
            };
            let status = request.send().await.expect("send").status();
            assert!(
                listed.contains_key(status.as_str()),
                "{method} {path} with {situation} answered {status}, which it does not list: {:?}",
                listed.keys()
            );
            answers += 1;
        }
    }
    assert!(answers > 700, "every operation was tried: {answers}");
}
