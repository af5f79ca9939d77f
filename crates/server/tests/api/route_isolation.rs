//! Tenant isolation on every route, generated from the server's own route table (the OpenAPI document is made from
//! the same table that routes axum), not from a hand-kept list.
//!
//! Every operation is classified from the document alone: open (no bearer token), a list, an operation on one
//! record (an id in its path, or, for a write, an `id` in its body), or a create. The Argentine society (A) first
//! creates one of everything through the documented examples, aimed at its own records, so that every list has
//! records of A; then the Brazilian society (B) tries every operation against A's ids:
//! - B's lists never hold one of A's ids (ids are global sequences), except catalogues the document marks
//!   `x-scope: global`, which B must see exactly as A does;
//! - every read or write of one of A's records answers B 404 (or 403);
//! - every create whose references all point at A's records is refused (or, for a background job, refuses every
//!   row);
//! - afterwards A re-reads every list and finds nothing changed, and its `syncCheck` unchanged.
//!
//! An operation the test cannot classify, or a list where A has no record to probe with, fails the test, so a new
//! route is covered without anyone editing this file, or is named here loudly.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;

use crate::helpers::{integrator, TestApp};
use crate::on_both_backends;

/// How the test treats an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Class {
    /// Needs no bearer token (login, refresh, health, the documents): it serves no society's records.
    Open,
    /// A paginated list; `shared` when the document marks it a catalogue of every society.
    List { shared: bool },
    /// A read or write of the record its path names; its ids come from the list `source`.
    ByPathId { source: String },
    /// A write of the record its body's `id` names; its ids come from the list `source`.
    ByBodyId { source: String },
    /// A read of one record of a shared catalogue that no list serves: there is nothing to isolate.
    SharedDetail,
    /// A create: takes a body and names no existing record.
    Create,
}

/// One documented operation.
#[derive(Debug, Clone)]
struct Operation {
    method: Method,
    path: String,
    doc: Value,
    /// The success answer's schema, the component it refers to resolved.
    answer: Value,
}

impl Operation {
    fn example(&self) -> Option<&Value> {
        self.doc["requestBody"]["content"]["application/json"].get("example")
    }

    fn takes_parameter(&self, name: &str) -> bool {
        self.doc["parameters"]
            .as_array()
            .is_some_and(|parameters| parameters.iter().any(|p| p["name"] == name))
    }

    fn scope(&self) -> Option<&str> {
        self.doc["x-scope"].as_str()
    }

    fn success_schema(&self) -> &Value {
        let responses = self.doc["responses"].as_object();
        responses
            .and_then(|responses| responses.iter().find(|(status, _)| status.starts_with('2')))
            .map_or(&Value::Null, |(_, response)| {
                &response["content"]["application/json"]["schema"]
            })
    }
}

fn operations(document: &Value) -> Vec<Operation> {
    let mut found = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, doc) in item.as_object().expect("a path item") {
            let method = Method::from_bytes(method.to_ascii_uppercase().as_bytes()).expect("an HTTP method");
            let mut operation = Operation {
                method,
                path: path.clone(),
                doc: doc.clone(),
                answer: Value::Null,
            };
            let success = operation.success_schema();
            operation.answer = match success["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                Some(name) => document["components"]["schemas"][name].clone(),
                None => success.clone(),
            };
            found.push(operation);
        }
    }
    found
}

fn needs_bearer(operation: &Operation) -> bool {
    operation.doc["security"]
        .as_array()
        .is_some_and(|requirements| requirements.iter().any(|r| r.get("bearer").is_some()))
}

fn is_list(operation: &Operation) -> bool {
    operation.method == Method::GET
        && !operation.path.contains('{')
        && operation.answer["properties"]["items"].is_object()
}

/// A collection's name, comparable across generations and spellings: `workOrders` and `work_orders` alike.
fn collection_key(segment: &str) -> String {
    segment
        .chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The list whose items are the records a path's collection segment names: the list at the same path if there is
/// one, else a list whose last segment is the same collection in another generation or spelling.
fn source_list(collection_path: &str, lists: &BTreeMap<String, Operation>) -> Option<String> {
    if lists.contains_key(collection_path) {
        return Some(collection_path.to_owned());
    }
    let key = collection_key(collection_path.rsplit('/').next().unwrap_or_default());
    lists
        .keys()
        .find(|path| collection_key(path.rsplit('/').next().unwrap_or_default()) == key)
        .cloned()
}

fn classify(operation: &Operation, lists: &BTreeMap<String, Operation>) -> Result<Class, String> {
    if !needs_bearer(operation) {
        return Ok(Class::Open);
    }
    if is_list(operation) {
        return Ok(Class::List {
            shared: operation.scope() == Some("global"),
        });
    }
    let name = format!("{} {}", operation.method, operation.path);
    // A path naming a record, possibly followed by more (`…/{id}/deliveries/{delivery_id}/retry`): the record's
    // collection is what comes before its first parameter.
    if let Some(collection) = operation.path.split_once("/{").map(|(collection, _)| collection) {
        return match source_list(collection, lists) {
            Some(source) => Ok(Class::ByPathId { source }),
            None if operation.method == Method::GET && operation.scope() == Some("global") => Ok(Class::SharedDetail),
            None => Err(format!("{name}: no list serves the records its path names")),
        };
    }
    match (&operation.method, operation.example()) {
        (method, Some(example)) if *method != Method::GET && example.get("id").is_some() => {
            match source_list(&operation.path, lists) {
                Some(source) => Ok(Class::ByBodyId { source }),
                None => Err(format!("{name}: no list serves the records its body's id names")),
            }
        }
        (&Method::POST, Some(_)) => Ok(Class::Create),
        _ => Err(format!("{name}: neither a list, nor by id, nor a create")),
    }
}

/// `path` with each `{parameter}` replaced by `id`: A's record, and under it (a delivery of A's endpoint, say) an id
/// that B cannot reach through it either.
fn with_every_parameter(path: &str, id: i64) -> String {
    path.split('/')
        .map(|segment| {
            if segment.starts_with('{') {
                id.to_string()
            } else {
                segment.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// The id of a list item: `id`, or a work order's `header.local_id`.
fn item_id(item: &Value) -> Option<i64> {
    item["id"].as_i64().or_else(|| item["header"]["local_id"].as_i64())
}

/// A society's view of the API: every list, whole.
struct View {
    lists: BTreeMap<String, Vec<Value>>,
}

impl View {
    async fn read(app: &TestApp, token: &str, lists: &BTreeMap<String, Operation>) -> View {
        let mut read = BTreeMap::new();
        for (path, operation) in lists {
            let query = if operation.takes_parameter("size") {
                "?size=500"
            } else {
                ""
            };
            read.insert(path.clone(), app.all_items(&format!("{path}{query}"), token).await);
        }
        View { lists: read }
    }

    fn ids(&self, list: &str) -> Vec<i64> {
        self.lists[list].iter().filter_map(item_id).collect()
    }

    /// The first and the last of this society's ids in `list`: probes at both ends of the id sequence.
    fn probes(&self, list: &str) -> Vec<i64> {
        let ids = self.ids(list);
        let mut probes: Vec<i64> = ids.first().into_iter().chain(ids.last()).copied().collect();
        probes.dedup();
        probes
    }
}

/// The list a reference field points into, by the field's name (`farmer_id`, `{"cultivation": {"local_id"}}`,
/// `"machines": [3]`), when such a list exists and is not a shared catalogue.
fn referenced_list<'a>(field: &str, lists: &'a BTreeMap<String, Operation>) -> Option<&'a str> {
    let stem = field.strip_suffix("_id").unwrap_or(field);
    let keys = [collection_key(stem), collection_key(&format!("{stem}s"))];
    lists
        .iter()
        .find(|(path, operation)| {
            keys.contains(&collection_key(path.rsplit('/').next().unwrap_or_default()))
                && operation.scope() != Some("global")
        })
        .map(|(path, _)| path.as_str())
}

/// `body` with every reference it can map to a list replaced by `owner`'s first id there; answers how many were.
fn aim_references(body: &mut Value, owner: &View, lists: &BTreeMap<String, Operation>) -> usize {
    let replace = |field: &str, value: &mut Value| match referenced_list(field, lists)
        .and_then(|list| owner.ids(list).first().copied())
    {
        Some(id) if value.is_i64() => {
            *value = Value::from(id);
            1
        }
        _ => 0,
    };
    let mut replaced = 0;
    match body {
        Value::Array(items) => {
            for item in items {
                replaced += aim_references(item, owner, lists);
            }
        }
        Value::Object(fields) => {
            for (field, value) in fields.iter_mut() {
                if field.ends_with("_id") && value.is_i64() {
                    replaced += replace(field, value);
                } else if let Some(local) = value.get_mut("local_id") {
                    replaced += replace(field, local);
                } else if let Some(elements) = value.as_array_mut() {
                    for element in elements {
                        replaced += if element.is_i64() {
                            replace(field, element)
                        } else if let Some(local) = element.get_mut("local_id") {
                            replace(field, local)
                        } else {
                            aim_references(element, owner, lists)
                        };
                    }
                } else {
                    replaced += aim_references(value, owner, lists);
                }
            }
        }
        _ => {}
    }
    replaced
}

async fn send(app: &TestApp, method: Method, path: &str, token: &str, body: Option<&Value>) -> (StatusCode, Value) {
    let mut request = app.request(method, path).bearer_auth(token);
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.expect("send");
    let status = response.status();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// Waits until the background job a 202 answered has finished, and answers it; `job_routes` read a job back.
async fn finished_job(app: &TestApp, token: &str, created_at: &str, job: &Value, job_routes: &[Operation]) -> Value {
    let route = job_routes
        .iter()
        .find(|route| route.path.starts_with(&format!("{created_at}/")))
        .unwrap_or_else(|| panic!("POST {created_at} answered 202 but no route reads its job back"));
    let path = route.path.replace("{id}", &job["id"].to_string());
    for _ in 0..600 {
        let current = app.get_ok(&path, token).await;
        if current["status"] == "finished" || current["status"] == "failed" {
            return current;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the job of POST {created_at} never finished");
}

fn assert_refused(status: StatusCode, body: &Value, what: &str) {
    assert!(
        status == StatusCode::NOT_FOUND || status == StatusCode::FORBIDDEN,
        "{what}: another society's record must be 404 or 403, got {status}: {body}"
    );
    assert!(
        body["error"]["message"].is_string(),
        "{what}: the error envelope: {body}"
    );
}

on_both_backends! {
    async fn another_society_can_reach_none_of_a_societys_records_through_any_route(app) {
        let document = serde_json::to_value(server::openapi_document("SVC")).expect("the document in JSON");
        let all = operations(&document);
        let lists: BTreeMap<String, Operation> = all.iter().filter(|o| is_list(o)).map(|o| (o.path.clone(), o.clone())).collect();
        let mut classes = Vec::new();
        let mut unclassified = Vec::new();
        for operation in &all {
            match classify(operation, &lists) {
                Ok(class) => classes.push((operation.clone(), class)),
                Err(reason) => unclassified.push(reason),
            }
        }
        assert!(unclassified.is_empty(), "routes this test cannot classify, so cannot prove isolated: {unclassified:#?}");
        let job_routes: Vec<Operation> = classes
            .iter()
            .filter(|(o, class)| matches!(class, Class::ByPathId { .. }) && o.method == Method::GET && o.success_schema()["$ref"] == "#/components/schemas/Job")
            .map(|(o, _)| o.clone())
            .collect();
        let a = app.token(integrator("AR")).await;
        let b = app.token(integrator("BR")).await;

        // A creates one of everything, aimed at its own records, so that every list holds records of A.
        let seeded = View::read(&app, &a, &lists).await;
        for (operation, _) in classes.iter().filter(|(_, class)| *class == Class::Create) {
            let mut body = operation.example().cloned().expect("a create documents an example");
            aim_references(&mut body, &seeded, &lists);
            let (status, answer) = send(&app, Method::POST, &operation.path, &a, Some(&body)).await;
            assert!(!status.is_server_error(), "A's POST {}: {status} {answer}", operation.path);
            if status == StatusCode::ACCEPTED {
                finished_job(&app, &a, &operation.path, &answer, &job_routes).await;
            }
        }
        let before = View::read(&app, &a, &lists).await;
        let sync_check = app.login_as(integrator("AR")).await["society"]["syncCheck"].clone();
        let empty: Vec<&String> = before.lists.iter().filter(|(_, items)| items.is_empty()).map(|(path, _)| path).collect();
        assert!(empty.is_empty(), "A has no records in these lists, so their isolation cannot be shown: {empty:?}");

        // B's lists hold none of A's records; shared catalogues are the same for both.
        let b_view = View::read(&app, &b, &lists).await;
        let mut probed = BTreeSet::new();
        for (operation, class) in &classes {
            let what = format!("{} {}", operation.method, operation.path);
            match class {
                Class::Open | Class::SharedDetail | Class::Create => {}
                Class::List { shared: true } => {
                    assert_eq!(b_view.lists[&operation.path], before.lists[&operation.path], "{what}: a shared catalogue");
                }
                Class::List { shared: false } => {
                    let a_ids: BTreeSet<i64> = before.ids(&operation.path).into_iter().collect();
                    let leaked: Vec<i64> = b_view.ids(&operation.path).into_iter().filter(|id| a_ids.contains(id)).collect();
                    assert!(leaked.is_empty(), "{what}: B's list holds A's records {leaked:?}");
                }
                Class::ByPathId { source } | Class::ByBodyId { source } => {
                    let shared = lists[source].scope() == Some("global");
                    for id in before.probes(source) {
                        let mut body = operation.example().map(|_| b_view.lists[source].first().cloned().unwrap_or_default());
                        if let Some(Value::Object(fields)) = body.as_mut() {
                            if fields.contains_key("id") || matches!(class, Class::ByBodyId { .. }) {
                                fields.insert("id".into(), Value::from(id));
                            }
                        }
                        let path = match class {
                            Class::ByPathId { .. } => with_every_parameter(&operation.path, id),
                            _ => operation.path.clone(),
                        };
                        let (status, answer) = send(&app, operation.method.clone(), &path, &b, body.as_ref()).await;
                        if shared && operation.method == Method::GET {
                            let (_, as_a) = send(&app, Method::GET, &path, &a, None).await;
                            assert_eq!((status, &answer), (StatusCode::OK, &as_a), "{what}: a shared catalogue reads alike");
                        } else {
                            assert!(!shared, "{what}: a write on a shared catalogue");
                            assert_refused(status, &answer, &format!("{what} on A's {id}"));
                        }
                        probed.insert(what.clone());
                    }
                }
            }
        }

        // Creates whose references all point at A's records are refused, now or row by row in their job.
        for (operation, _) in classes.iter().filter(|(_, class)| *class == Class::Create) {
            let what = format!("POST {}", operation.path);
            let mut body = operation.example().cloned().expect("a create documents an example");
            let aimed = aim_references(&mut body, &before, &lists);
            let (status, answer) = send(&app, Method::POST, &operation.path, &b, Some(&body)).await;
            assert!(!status.is_server_error(), "{what}: {status} {answer}");
            if aimed == 0 {
                continue;
            }
            if status == StatusCode::ACCEPTED {
                let job = finished_job(&app, &b, &operation.path, &answer, &job_routes).await;
                assert_eq!(job["failed_items"], job["total_items"], "{what}: every row naming A's records is refused: {job}");
            } else {
                assert!(status.is_client_error(), "{what} with A's references must be refused, got {status}: {answer}");
            }
            probed.insert(what);
        }

        // A finds everything as it was.
        let after = View::read(&app, &a, &lists).await;
        for (path, items) in &before.lists {
            assert!(&after.lists[path] == items, "{path}: A's records changed while B probed them");
        }
        assert_eq!(app.login_as(integrator("AR")).await["society"]["syncCheck"], sync_check, "A's data changed");
        assert!(probed.len() > 50, "every route with an id was probed: {}", probed.len());
    }
}

#[test]
fn every_operation_of_the_route_table_is_classified() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("the document in JSON");
    let all = operations(&document);
    let lists: BTreeMap<String, Operation> = all
        .iter()
        .filter(|o| is_list(o))
        .map(|o| (o.path.clone(), o.clone()))
        .collect();
    let classify_one = |method: Method, path: &str| {
        let operation = all
            .iter()
            .find(|o| o.method == method && o.path == path)
            .expect("a documented operation");
        classify(operation, &lists)
    };
    assert_eq!(
        classify_one(Method::PATCH, "/integration/api/v1/workOrders/{localId}"),
        Ok(Class::ByPathId {
            source: "/api/v3/third_party/work_orders".into()
        })
    );
    assert_eq!(
        classify_one(Method::PUT, "/api/v2/third_party/applicators"),
        Ok(Class::ByBodyId {
            source: "/api/v3/third_party/applicators".into()
        })
    );
    assert_eq!(
        classify_one(Method::GET, "/api/v2/third_party/adversity"),
        Ok(Class::List { shared: true })
    );
    assert_eq!(
        classify_one(Method::GET, "/api/v3/third_party/work_orders"),
        Ok(Class::List { shared: false })
    );
    assert_eq!(
        classify_one(Method::POST, "/api/v3/third_party/plots"),
        Ok(Class::Create)
    );
    assert_eq!(classify_one(Method::POST, "/api/v2/login"), Ok(Class::Open));
    assert_eq!(
        classify_one(
            Method::POST,
            "/api/v3/third_party/webhook_endpoints/{id}/deliveries/{delivery_id}/retry"
        ),
        Ok(Class::ByPathId {
            source: "/api/v3/third_party/webhook_endpoints".into()
        })
    );
    let unknown = Operation {
        method: Method::GET,
        path: "/api/v3/third_party/new_things/{id}".into(),
        doc: serde_json::json!({ "security": [{ "bearer": [], "system_id": [] }] }),
        answer: Value::Null,
    };
    assert!(
        classify(&unknown, &lists).is_err(),
        "a route no list serves is not silently skipped"
    );
}

/// The console's routes (`/console/…`), which the OpenAPI document does not describe: generated from the console's
/// own route list, which is the one its router is built from, so a new console route is covered here or fails.
mod console_routes {
    use super::*;
    use crate::console::{console_on, recorded};
    use crate::on_both_backends_with;

    on_both_backends_with! { console_on();
        async fn another_society_can_reach_none_of_a_societys_console_records(app) {
            let a = app.token(integrator("AR")).await;
            let b = app.token(integrator("BR")).await;
            app.get_ok("/api/v3/third_party/farmers", &a).await;
            app.get(&format!("/api/v3/third_party/farmers/{}", i64::MAX), &a).await;
            app.get_ok("/api/v3/third_party/establishments", &b).await;
            recorded(&app, &a, "", 2).await;
            recorded(&app, &b, "", 1).await;
            let operations = server::console::operations();
            let lists: BTreeSet<&str> = operations
                .iter()
                .filter(|(_, path)| path.starts_with("/console/api/") && !path.contains('{'))
                .map(|(_, path)| *path)
                .collect();
            assert!(!lists.is_empty(), "the console serves its records through a list");
            let mut probed = 0;
            for (method, path) in &operations {
                assert_eq!(*method, Method::GET, "{path}: the console only reads; a write would need its own probe here");
                if !path.starts_with("/console/api/") {
                    // The page and its assets: the same bytes for everyone, no society's data, no token needed.
                    let (status, _) = send(&app, Method::GET, path, "", None).await;
                    assert_eq!(status, StatusCode::OK, "{path}");
                    continue;
                }
                let (anonymous, answer) = send(&app, Method::GET, path, "", None).await;
                assert_eq!(anonymous, StatusCode::UNAUTHORIZED, "{path} without a token: {answer}");
                match path.split_once("/{") {
                    None => {
                        let ids = |answer: &Value| -> BTreeSet<i64> {
                            answer["items"].as_array().into_iter().flatten().filter_map(item_id).collect()
                        };
                        let (_, as_a) = send(&app, Method::GET, path, &a, None).await;
                        let (status, as_b) = send(&app, Method::GET, path, &b, None).await;
                        assert_eq!(status, StatusCode::OK, "{path}: {as_b}");
                        assert!(!ids(&as_a).is_empty() && !ids(&as_b).is_empty(), "{path}: both societies have records");
                        assert!(ids(&as_a).is_disjoint(&ids(&as_b)), "{path}: B's list holds A's records");
                    }
                    Some((collection, _)) => {
                        assert!(lists.contains(collection), "{path}: no console list serves the records it names");
                        let (_, as_a) = send(&app, Method::GET, collection, &a, None).await;
                        for item in as_a["items"].as_array().into_iter().flatten() {
                            let id = item_id(item).expect("a record id");
                            let path = with_every_parameter(path, id);
                            let (status, answer) = send(&app, Method::GET, &path, &b, None).await;
                            assert_refused(status, &answer, &format!("GET {path} of A's {id}"));
                            let (status, _) = send(&app, Method::GET, &path, &a, None).await;
                            assert_eq!(status, StatusCode::OK, "A reads its own {path}");
                            probed += 1;
                        }
                    }
                }
            }
            assert!(probed >= 2, "every console record of A was probed: {probed}");
        }
    }
}
