//! Every write yields its events at once, each naming a record of the writer's society with the record as its `GET`
//! answers it. The API's writes are generated from the route table (the OpenAPI document is made from the table
//! that routes axum): each is sent with its documented example, aimed at the caller's own records, so a new write is
//! covered here without anyone editing this file, or fails the test until it is named in [`NOT_RECORD_WRITES`] with
//! its reason. An operator's write outside the API (`tranquera admin farmer create`) is read back at once, with no
//! waiting, since a client that read it without its payload would move its cursor past it.

use std::collections::BTreeMap;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{integrator, Setup, TestApp};
use crate::on_both_backends_with;

const FEED: &str = "/api/v3/third_party/events";

/// Writes that change no record of the feed, each with the reason; every other write must yield events.
const NOT_RECORD_WRITES: &[(&str, &str, &str)] = &[
    (
        "POST",
        "/api/v2/login",
        "opens a session: no record of a society changes",
    ),
    (
        "POST",
        "/api/v2/login/refresh",
        "renews a session: no record of a society changes",
    ),
    (
        "POST",
        "/api/v3/third_party/webhook_endpoints/{id}/deliveries/{delivery_id}/retry",
        "sends a delivery again: a delivery is the feed's reader, not a record of the feed",
    ),
];

/// The URL the created webhook endpoint gets instead of the example's: loopback, so no test asks a DNS server.
const LOOPBACK_HOOK: &str = "http://127.0.0.1:9/hooks";

/// A server whose webhook endpoints may be loopback URLs, as `demo` runs it.
fn loopback_hooks() -> Setup {
    let mut setup = Setup::default();
    setup.server.webhooks.policy = domain::webhooks::UrlPolicy::DEMO;
    setup
}

/// One documented write.
#[derive(Debug, Clone)]
struct Write {
    method: Method,
    path: String,
    example: Option<Value>,
}

impl Write {
    fn name(&self) -> String {
        format!("{} {}", self.method, self.path)
    }

    /// The collection whose record its path names (`…/plots` of `…/plots/{id}`); `None` for a create.
    fn collection(&self) -> Option<&str> {
        self.path.split_once("/{").map(|(collection, _)| collection)
    }

    /// Creates first, then writes of an existing record, deletes last: a delete then removes what this test made.
    fn order(&self) -> u8 {
        match (&self.method, self.collection()) {
            (&Method::DELETE, _) => 2,
            (_, Some(_)) => 1,
            (_, None) if self.example.as_ref().is_some_and(|e| e.get("id").is_some()) => 1,
            _ => 0,
        }
    }
}

fn writes(document: &Value) -> Vec<Write> {
    let mut writes = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, doc) in item.as_object().expect("a path item") {
            if !["post", "put", "patch", "delete"].contains(&method.as_str()) {
                continue;
            }
            writes.push(Write {
                method: Method::from_bytes(method.to_ascii_uppercase().as_bytes()).expect("a method"),
                path: path.clone(),
                example: doc["requestBody"]["content"]["application/json"]
                    .get("example")
                    .cloned(),
            });
        }
    }
    writes.sort_by_key(Write::order);
    writes
}

/// A collection's name, comparable across generations and spellings: `workOrders` and `work_orders` alike.
fn collection_key(segment: &str) -> String {
    segment
        .chars()
        .filter(|c| *c != '_')
        .flat_map(char::to_lowercase)
        .collect()
}

fn last_segment(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or_default()
}

/// The id of a record as a list or a write answers it: `id`, or a work order's `header.local_id`.
fn record_id(record: &Value) -> Option<i64> {
    record["id"].as_i64().or_else(|| record["header"]["local_id"].as_i64())
}

/// The caller's view of the route table: its lists, read on demand, and the reads of one record.
struct Caller<'a> {
    app: &'a TestApp,
    token: String,
    society: i64,
    /// Lists of the caller's records (not shared catalogues), API v3 first.
    lists: Vec<String>,
    /// `GET …/{id}` paths.
    details: Vec<String>,
    read: BTreeMap<String, Vec<i64>>,
    /// The record this test made in each collection, by collection key.
    made: BTreeMap<String, i64>,
}

impl<'a> Caller<'a> {
    async fn new(app: &'a TestApp, document: &Value) -> Caller<'a> {
        let login = app.login_as(integrator("AR")).await;
        let mut lists = Vec::new();
        let mut details = Vec::new();
        for (path, item) in document["paths"].as_object().expect("paths") {
            let get = &item["get"];
            let bearer = get["security"]
                .as_array()
                .is_some_and(|s| s.iter().any(|r| r.get("bearer").is_some()));
            if !bearer {
                continue;
            }
            if path.ends_with('}') {
                details.push(path.clone());
            } else if !path.contains('{') && get["x-scope"] != "global" {
                lists.push(path.clone());
            }
        }
        lists.sort_by_key(|path| (!path.starts_with("/api/v3/"), path.clone()));
        details.sort_by_key(|path| (!path.starts_with("/api/v3/"), path.clone()));
        Caller {
            app,
            token: login["access_token"].as_str().expect("a token").to_owned(),
            society: login["society"]["id"].as_i64().expect("a society"),
            lists,
            details,
            read: BTreeMap::new(),
            made: BTreeMap::new(),
        }
    }

    /// The ids of the caller's records in the list whose collection is `key`, read once.
    async fn ids(&mut self, key: &str) -> Vec<i64> {
        let Some(list) = self
            .lists
            .iter()
            .find(|path| collection_key(last_segment(path)) == key)
            .cloned()
        else {
            return Vec::new();
        };
        if !self.read.contains_key(&list) {
            let items = self.app.all_items(&list, &self.token).await;
            self.read
                .insert(list.clone(), items.iter().filter_map(record_id).collect());
        }
        self.read[&list].clone()
    }

    /// The caller's record a reference field names (`farmer_id`, `cultivation`, `machines`), its `index`-th.
    async fn reference(&mut self, field: &str, index: usize) -> Option<i64> {
        if field == "company" {
            return Some(self.society);
        }
        // The spec's homonym: a work order's `cultivation` is a campaign.
        let stem = match field.strip_suffix("_id").unwrap_or(field) {
            "cultivation" => "campaign",
            stem => stem,
        };
        for key in [collection_key(stem), collection_key(&format!("{stem}s"))] {
            let ids = self.ids(&key).await;
            if let Some(id) = ids.get(index).or(ids.first()) {
                return Some(*id);
            }
        }
        None
    }

    /// A live record of the caller's in `collection`: the one this test made there, else its first.
    async fn record_of(&mut self, collection: &str) -> Option<i64> {
        let key = collection_key(last_segment(collection));
        match self.made.get(&key) {
            Some(id) => Some(*id),
            None => self.ids(&key).await.first().copied(),
        }
    }

    /// `body` with every reference it holds aimed at the caller's records, and a webhook's URL at loopback.
    async fn aim(&mut self, body: &mut Value) {
        let mut places = Vec::new();
        references(body, "", None, &mut places);
        for (pointer, field, index) in places {
            if let Some(id) = self.reference(&field, index).await {
                *body.pointer_mut(&pointer).expect("the place exists") = Value::from(id);
            }
        }
        if let Some(url) = body.get_mut("url") {
            *url = json!(LOOPBACK_HOOK);
        }
    }

    /// The record's read now, by the detail paths of its resource (a job's by each kind of job): `None` when none
    /// of them serves it to the caller.
    async fn detail(&self, resource: &str, id: i64) -> Option<Value> {
        let keys = [collection_key(resource), collection_key(&format!("{resource}s"))];
        for path in &self.details {
            let collection = path.rsplit_once("/{").map_or("", |(collection, _)| collection);
            if !keys.contains(&collection_key(last_segment(collection))) {
                continue;
            }
            let path = format!("{collection}/{id}");
            let response = self.app.get(&path, &self.token).await;
            if response.status() == StatusCode::OK {
                return Some(response.json().await.expect("JSON"));
            }
        }
        None
    }
}

/// Every reference of `value` (a field `…_id` or a list of ids, `{"local_id"}` objects), as a JSON pointer, the
/// field that names what it refers to, and its place in its list.
fn references(value: &Value, pointer: &str, field: Option<(&str, usize)>, into: &mut Vec<(String, String, usize)>) {
    match value {
        Value::Object(fields) => {
            for (name, child) in fields {
                let place = format!("{pointer}/{name}");
                match (name.as_str(), child) {
                    ("local_id", Value::Number(_)) => {
                        if let Some((field, index)) = field {
                            into.push((place, field.to_owned(), index));
                        }
                    }
                    (name, Value::Number(_)) if name.ends_with("_id") => into.push((place, name.to_owned(), 0)),
                    (name, _) => references(child, &place, Some((name, 0)), into),
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                let place = format!("{pointer}/{index}");
                match (item, field) {
                    (Value::Number(_), Some((field, _))) => into.push((place, field.to_owned(), index)),
                    (_, field) => references(item, &place, field.map(|(name, _)| (name, index)), into),
                }
            }
        }
        _ => {}
    }
}

/// Every event after `cursor`, following `next_cursor`; and the last cursor.
async fn drain(app: &TestApp, token: &str, cursor: &str) -> (Vec<Value>, String) {
    let mut cursor = cursor.to_owned();
    let mut events = Vec::new();
    loop {
        let page = app.get_ok(&format!("{FEED}?after={cursor}&size=1000"), token).await;
        events.extend(page["items"].as_array().expect("items").iter().cloned());
        cursor = page["next_cursor"].as_str().expect("a cursor").to_owned();
        if page["has_more"] != true {
            return (events, cursor);
        }
    }
}

/// The events after `cursor` once `done` holds of them: a job's events come as it runs, after its request was
/// answered, so this waits, up to 30 s.
async fn events_until(app: &TestApp, token: &str, cursor: &str, done: impl Fn(&[Value]) -> bool) -> Vec<Value> {
    let (mut events, mut cursor) = drain(app, token, cursor).await;
    for _ in 0..300 {
        if done(&events) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        let (more, next) = drain(app, token, &cursor).await;
        events.extend(more);
        cursor = next;
    }
    events
}

async fn head(app: &TestApp, token: &str) -> String {
    let page = app.get_ok(&format!("{FEED}?after=now"), token).await;
    page["next_cursor"].as_str().expect("a cursor").to_owned()
}

/// The records a write's answer names: itself, or each item of an array it answers.
fn answered_ids(answer: &Value) -> Vec<i64> {
    match answer {
        Value::Array(items) => items.iter().filter_map(record_id).collect(),
        record => record_id(record).into_iter().collect(),
    }
}

/// Whether a record's read shape says it is deleted (a work order says so in its header).
fn deleted(data: &Value) -> bool {
    data["deleted_at"].is_string() || data["header"]["deleted_at"].is_string()
}

/// Checks `events` of `what`: each names a record the caller reads, or one it deleted; the last event of each record
/// carries the record as its read answers it now, and the earlier ones name the same record.
async fn check_events(caller: &Caller<'_>, what: &str, events: &[Value]) {
    let mut last: BTreeMap<(String, i64), &Value> = BTreeMap::new();
    for event in events {
        let resource = event["resource"].as_str().expect("a resource").to_owned();
        let id = event["resource_id"].as_i64().expect("a record id");
        assert_eq!(
            record_id(&event["data"]),
            Some(id),
            "{what}: the event's data is its record: {event}"
        );
        last.insert((resource, id), event);
    }
    for ((resource, id), event) in last {
        match caller.detail(&resource, id).await {
            Some(read) => assert_eq!(
                event["data"], read,
                "{what}: {} {id}: its data is its GET",
                event["type"]
            ),
            None => {
                assert!(
                    event["type"].as_str().is_some_and(|t| t.ends_with(".deleted")),
                    "{what}: {event} names no record the caller reads"
                );
                assert!(
                    deleted(&event["data"]),
                    "{what}: a deleted record's data says when: {event}"
                );
            }
        }
    }
}

on_both_backends_with! { loopback_hooks();
    async fn every_write_of_the_route_table_yields_its_events_with_the_records_as_read(app) {
        let document = app.served_document().await;
        let writes = writes(&document);
        assert!(writes.len() >= 20, "every write is found: {}", writes.len());
        for (method, path, _) in NOT_RECORD_WRITES {
            assert!(writes.iter().any(|w| w.method.as_str() == *method && w.path == *path), "{method} {path} is documented");
        }
        let mut caller = Caller::new(&app, &document).await;
        let mut checked = 0;
        for write in &writes {
            let what = write.name();
            if NOT_RECORD_WRITES.iter().any(|(method, path, _)| write.method.as_str() == *method && write.path == *path) {
                continue;
            }
            let mut body = write.example.clone();
            if let Some(body) = body.as_mut() {
                caller.aim(body).await;
            }
            let target = match write.collection() {
                Some(collection) => Some(caller.record_of(collection).await.unwrap_or_else(|| panic!("{what}: the caller has no record to write"))),
                None if write.order() == 1 => {
                    let id = caller.record_of(&write.path).await.unwrap_or_else(|| panic!("{what}: the caller has no record to write"));
                    body.as_mut().expect("a body")["id"] = json!(id);
                    Some(id)
                }
                None => None,
            };
            let path = match (write.collection(), target) {
                (Some(_), Some(id)) => format!("{}/{id}", write.collection().unwrap_or_default())
                    + write.path.split_once('}').map_or("", |(_, rest)| rest),
                _ => write.path.clone(),
            };
            let cursor = head(&app, &caller.token).await;
            let mut request = app.request(write.method.clone(), &path).bearer_auth(&caller.token);
            if let Some(body) = &body {
                request = request.json(body);
            }
            let response = request.send().await.expect("send");
            let status = response.status();
            let answer: Value = response.json().await.unwrap_or(Value::Null);
            assert!(status.is_success(),
                "{what} with its example aimed at the caller's records must succeed, or be named in NOT_RECORD_WRITES \
                 with its reason; {path} {body:?} answered {status}: {answer}");
            let mut written = answered_ids(&answer);
            written.extend(target);
            if let (0, false, Some(id)) = (write.order(), status == StatusCode::ACCEPTED, written.first()) {
                caller.made.insert(collection_key(last_segment(&write.path)), *id);
            }
            let events = if status == StatusCode::ACCEPTED {
                // A background job: its events come as it runs, up to its end.
                let job = answer["id"].as_i64().expect("a job id");
                events_until(&app, &caller.token, &cursor, |events| events.iter().any(|e| {
                    e["resource_id"] == job && (e["type"] == "job.finished" || e["type"] == "job.failed")
                })).await
            } else {
                events_until(&app, &caller.token, &cursor, |events| !events.is_empty()).await
            };
            assert!(!events.is_empty(), "{what}: no event after it");
            assert!(events.iter().all(|e| e["type"] != "job.failed"), "{what}: its job failed: {events:#?}");
            let named: Vec<i64> = events.iter().filter_map(|e| e["resource_id"].as_i64()).collect();
            assert!(written.iter().any(|id| named.contains(id)), "{what}: no event names the record it wrote ({written:?}): {events:#?}");
            if status != StatusCode::ACCEPTED {
                let mut records: Vec<(&Value, &Value)> = events.iter().map(|e| (&e["resource"], &e["resource_id"])).collect();
                records.sort_by_key(|(resource, id)| (resource.to_string(), id.as_i64()));
                let before = records.len();
                records.dedup();
                assert_eq!(records.len(), before, "{what}: one event per record it wrote: {events:#?}");
            }
            check_events(&caller, &what, &events).await;
            checked += 1;
        }
        assert_eq!(checked + NOT_RECORD_WRITES.len(), writes.len());
    }

    async fn an_operators_farmer_is_in_the_feed_at_once_with_its_record(app) {
        // `tranquera admin farmer create` is this call: the first read of the feed after it must already carry the
        // farmer whole, or a client reading then moves its cursor past an empty event and never sees the farmer.
        let login = app.login_as(integrator("AR")).await;
        let token = login["access_token"].as_str().expect("a token").to_owned();
        let society = login["society"]["id"].as_i64().expect("a society");
        let cursor = head(&app, &token).await;
        let farmer = store::admin::NewFarmer {
            name: "Los Algarrobos S.A.".into(),
            cuit: Some("30-71234567-8".into()),
            external_code: Some("OP-FARMER-1".into()),
            email: Some("administracion@algarrobos.com.ar".into()),
            ..Default::default()
        };
        let id = app.store.admin().create_farmer(society, &farmer).await.expect("an operator's farmer");
        let (events, _) = drain(&app, &token, &cursor).await;
        let created: Vec<&Value> = events.iter().filter(|e| e["type"] == "farmer.created" && e["resource_id"] == id).collect();
        assert_eq!(created.len(), 1, "the first read after the write: {events:#?}");
        let read = app.get_ok(&format!("/api/v3/third_party/farmers/{id}"), &token).await;
        assert_eq!(read["name"], "Los Algarrobos S.A.");
        assert_eq!(created[0]["data"], read, "the farmer's event carries the farmer as its GET shows it");
    }
}
