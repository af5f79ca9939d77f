//! The change feed: every kind of write yields exactly its event with the record's read shape, the cursor resumes
//! without loss or repetition (also under concurrent writers on two processes, and past a transaction that took its
//! id early and committed late), types filter, retention refuses old cursors, and bad parameters are 400.

use std::collections::BTreeMap;

use client::futures_util::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::Connection;

use crate::helpers::{error_envelope, integrator, Backend, TestApp};
use crate::on_both_backends;

const FEED: &str = "/api/v3/third_party/events";

/// Every event after `cursor`, following `next_cursor` until the feed says there is no more; and the last cursor.
async fn drain(app: &TestApp, token: &str, cursor: &str, query: &str) -> (Vec<Value>, String) {
    let mut cursor = cursor.to_owned();
    let mut events = Vec::new();
    loop {
        let page = app.get_ok(&format!("{FEED}?after={cursor}&size=7{query}"), token).await;
        events.extend(page["items"].as_array().expect("items").iter().cloned());
        cursor = page["next_cursor"].as_str().expect("a cursor").to_owned();
        if page["has_more"] == false {
            return (events, cursor);
        }
    }
}

/// At least `count` events after `cursor`: the feed may hold back a commit while an older transaction of the
/// database runs (a test's own direct connection, say), so this waits for them, up to 30 s.
async fn wait_for(app: &TestApp, token: &str, cursor: &str, query: &str, count: usize) -> (Vec<Value>, String) {
    let (mut events, mut cursor) = drain(app, token, cursor, query).await;
    for _ in 0..300 {
        if events.len() >= count {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let (more, next) = drain(app, token, &cursor, query).await;
        events.extend(more);
        cursor = next;
    }
    (events, cursor)
}

/// The feed's head: a cursor after everything committed so far.
async fn head(app: &TestApp, token: &str) -> String {
    let page = app.get_ok(&format!("{FEED}?after=now"), token).await;
    assert_eq!(page["items"], json!([]));
    page["next_cursor"].as_str().expect("a cursor").to_owned()
}

fn types(events: &[Value]) -> Vec<String> {
    events
        .iter()
        .map(|event| {
            format!(
                "{} {}",
                event["type"].as_str().unwrap_or_default(),
                event["resource_id"]
            )
        })
        .collect()
}

async fn first_id(app: &TestApp, token: &str, path: &str) -> i64 {
    app.get_ok(path, token).await["items"][0]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{path} has an item"))
}

async fn json_of(response: reqwest::Response, status: StatusCode) -> Value {
    assert_eq!(response.status(), status);
    response.json().await.expect("JSON")
}

/// A valid work order of the caller's society, from its first references.
async fn work_order(app: &TestApp, token: &str, society: i64) -> Value {
    let state = json!({ "pending": true, "executed": false, "confirmed": false });
    let campaign = first_id(app, token, "/api/v3/third_party/campaigns").await;
    json!({
        "header": {
            "system_id": "third_party", "name": "Pulverización lote 4",
            "date": "2025-10-02T08:00:00-03:00", "voucher_date": "2025-10-01T00:00:00-03:00", "state": state,
            "extra_fields": { "company": { "local_id": society },
                              "voucher_type": { "local_id": first_id(app, token, "/api/v3/third_party/voucher_types").await } }
        },
        "supplies": [{ "cultivation": { "local_id": campaign },
                       "formulated": { "local_id": first_id(app, token, "/api/v3/third_party/formulateds").await },
                       "area_applied": 10.0, "total_applied": 20.0, "date": "2025-10-02T08:00:00-03:00", "state": state }],
        "labours": [{ "cultivation": { "local_id": campaign }, "area_applied": 10.0,
                      "machines": [{ "local_id": first_id(app, token, "/api/v3/third_party/machines").await }],
                      "date": "2025-10-02T08:00:00-03:00", "state": state }]
    })
}

/// No event may leave its transaction without its payload.
async fn no_event_lacks_its_payload(app: &TestApp) {
    let missing = app
        .integers(
            "SELECT COUNT(*) FROM events WHERE payload IS NULL AND society_id >= $1",
            0,
        )
        .await;
    assert_eq!(missing, [0]);
}

on_both_backends! {
    async fn every_kind_of_write_yields_exactly_its_event_with_the_record(app) {
        let login = app.login_as(integrator("AR")).await;
        let token = login["access_token"].as_str().expect("token").to_owned();
        let society = login["society"]["id"].as_i64().expect("society");
        let start = head(&app, &token).await;
        let farmer = first_id(&app, &token, "/api/v3/third_party/farmers").await;

        let establishment = json_of(app.post("/api/v3/third_party/establishments", &token,
            &json!({ "name": "La Nueva", "farmer_id": farmer })).await, StatusCode::CREATED).await;
        let plot = json_of(app.post("/api/v3/third_party/plots", &token,
            &json!({ "name": "Lote 9", "establishment_id": establishment["id"], "area": 12.5 })).await, StatusCode::CREATED).await;
        let order = json_of(app.post("/integration/api/v1/workOrders", &token, &work_order(&app, &token, society).await).await,
            StatusCode::CREATED).await;
        let order_id = order["header"]["local_id"].clone();
        // The writer hands its answer over as the event's payload: it must be what a read answers.
        assert_eq!(app.get_ok(&format!("/api/v3/third_party/work_orders/{order_id}"), &token).await, order);
        let mut changed = order.clone();
        changed["header"]["name"] = json!("Pulverización lote 4 (corregida)");
        changed["supplies"][0]["area_applied"] = json!(11.0);
        let patched = json_of(app.request(Method::PATCH, &format!("/integration/api/v1/workOrders/{order_id}"))
            .bearer_auth(&token).json(&changed).send().await.expect("PATCH"), StatusCode::OK).await;
        assert_eq!(app.delete(&format!("/integration/api/v1/workOrders/{order_id}"), &token).await.status(), StatusCode::OK);
        assert_eq!(app.delete(&format!("/api/v3/third_party/plots/{}", plot["id"]), &token).await.status(), StatusCode::OK);
        let applicator = json_of(app.post("/api/v2/third_party/applicators", &token,
            &json!({ "name": "Aplicaciones del Sur" })).await, StatusCode::CREATED).await;

        let (events, _) = wait_for(&app, &token, &start, "", 7).await;
        assert_eq!(types(&events), [
            format!("establishment.created {}", establishment["id"]),
            format!("plot.created {}", plot["id"]),
            format!("work_order.created {order_id}"),
            format!("work_order.updated {order_id}"),
            format!("work_order.deleted {order_id}"),
            format!("plot.deleted {}", plot["id"]),
            format!("applicator.created {}", applicator["id"]),
        ]);
        // The record as its read answered it at that moment, not as it is now.
        let establishment_read = app.get_ok(&format!("/api/v3/third_party/establishments/{}", establishment["id"]), &token).await;
        assert_eq!(events[0]["data"], establishment_read);
        assert_eq!(events[0]["resource"], "establishment");
        assert_eq!(events[2]["data"], order);
        assert_eq!(events[3]["data"], patched);
        assert_eq!(events[3]["data"]["supplies"][0]["area_applied"], 11.0);
        assert!(events[4]["data"]["header"]["deleted_at"].is_string());
        assert!(events[5]["data"]["deleted_at"].is_string());
        let ids: Vec<i64> = events.iter().map(|event| event["id"].as_i64().expect("id")).collect();
        assert!(ids.windows(2).all(|pair| pair[0] < pair[1]), "{ids:?}");
        assert!(events.iter().all(|event| event["occurred_at"].as_str().is_some_and(|at| at.ends_with("-03:00"))));
        no_event_lacks_its_payload(&app).await;
    }

    async fn an_order_too_large_for_one_statement_yields_its_one_event_too(app) {
        // 1,600 supplies of 13 values each are more than one statement binds: PostgreSQL then writes the order in a
        // transaction of several statements, not in the one statement that carries a smaller order and its event.
        let login = app.login_as(integrator("AR")).await;
        let token = login["access_token"].as_str().expect("token").to_owned();
        let society = login["society"]["id"].as_i64().expect("society");
        let start = head(&app, &token).await;
        let mut body = work_order(&app, &token, society).await;
        let supply = body["supplies"][0].clone();
        body["supplies"] = json!(vec![supply; 1600]);
        let order = json_of(app.post("/integration/api/v1/workOrders", &token, &body).await, StatusCode::CREATED).await;
        let order_id = order["header"]["local_id"].clone();
        assert_eq!(order["supplies"].as_array().map(Vec::len), Some(1600));
        let (events, _) = wait_for(&app, &token, &start, "", 1).await;
        assert_eq!(types(&events), [format!("work_order.created {order_id}")]);
        assert_eq!(events[0]["data"], order);
        no_event_lacks_its_payload(&app).await;
    }

    async fn field_writes_and_jobs_have_events_too(app) {
        let login = app.login_as(integrator("AR")).await;
        let token = login["access_token"].as_str().expect("token").to_owned();
        let start = head(&app, &token).await;
        let silobag = first_id(&app, &token, "/api/v3/third_party/silobags").await;
        let campaign = first_id(&app, &token, "/api/v3/third_party/campaigns").await;
        let row = json_of(app.post("/api/v3/third_party/silobag_campaigns", &token, &json!({
            "silobag_id": silobag, "campaign_id": campaign, "quantity_tn": 12.0, "grain_humidity_percent": 13.5,
            "grain_quality_semaphore": 1, "observations": "ok" })).await, StatusCode::OK).await;
        let job = json_of(app.post("/api/v2/third_party/campaigns/update_objective_yield", &token,
            &json!({ "campaigns": [{ "campaign_id": campaign, "objective_yield": 3.1 }] })).await, StatusCode::ACCEPTED).await;
        let mut seen = Vec::new();
        let mut cursor = start.clone();
        for _ in 0..100 {
            let (events, next) = drain(&app, &token, &cursor, "").await;
            cursor = next;
            seen.extend(types(&events));
            if seen.iter().any(|event| event.starts_with("job.finished")) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(seen.contains(&format!("silobag_campaign.created {}", row["id"])), "{seen:?}");
        assert!(seen.contains(&format!("job.created {}", job["id"])), "{seen:?}");
        assert!(seen.contains(&format!("job.finished {}", job["id"])), "{seen:?}");
        assert!(seen.contains(&format!("campaign.updated {campaign}")), "{seen:?}");
        // Filtered to one type, the feed shows only that type.
        let (jobs, _) = wait_for(&app, &token, &start, "&types=job.finished", 1).await;
        assert_eq!(types(&jobs), [format!("job.finished {}", job["id"])]);
        no_event_lacks_its_payload(&app).await;
    }

    async fn each_stored_device_reading_has_its_event_with_the_reading_as_answered(app) {
        // A batch hands its readings' events over whole, rendered as its answer is: more readings than one insert
        // statement takes, so the readings of both statements are covered, and a refused batch before it leaves none.
        let login = app.login_as(integrator("AR")).await;
        let token = login["access_token"].as_str().expect("token").to_owned();
        let start = head(&app, &token).await;
        let device = first_id(&app, &token, "/api/v3/third_party/devices").await;
        let event_type = first_id(&app, &token, "/api/v3/third_party/device_event_types").await;
        let reading = |device: i64, minute: usize| json!({
            "device_id": device, "device_event_type_id": event_type,
            "recorded_at": format!("2024-03-01T{:02}:{:02}:00-03:00", minute / 60 % 24, minute % 60),
            "value": minute as f64 / 4.0 });
        let refused = json!([reading(device, 0), reading(999_999, 1)]);
        json_of(app.post("/api/v3/third_party/device_events", &token, &refused).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        let batch: Vec<Value> = (0..1_005).map(|minute| reading(device, minute)).collect();
        let stored = json_of(app.post("/api/v3/third_party/device_events", &token, &Value::Array(batch)).await,
            StatusCode::CREATED).await;
        let stored = stored.as_array().expect("the stored readings");
        assert_eq!(stored.len(), 1_005);

        let (events, _) = wait_for(&app, &token, &start, "", 1_005).await;
        let expected: Vec<String> = stored.iter().map(|reading| format!("device_event.created {}", reading["id"])).collect();
        assert_eq!(types(&events), expected);
        for (event, reading) in events.iter().zip(stored) {
            assert_eq!(event["resource"], "device_event");
            assert_eq!(&event["data"], reading);
        }
        // What a read answers now, too.
        let read = app.get_ok(&format!("/api/v3/third_party/device_events/{}", stored[1_004]["id"]), &token).await;
        assert_eq!(events[1_004]["data"], read);

        // The largest batch: its events take several statements on SQLite too.
        let largest: Vec<Value> = (0..10_000).map(|minute| reading(device, minute)).collect();
        let largest = json_of(app.post("/api/v3/third_party/device_events", &token, &Value::Array(largest)).await,
            StatusCode::CREATED).await;
        let first = largest[0]["id"].as_i64().expect("an id");
        let society = login["society"]["id"].as_i64().expect("society");
        let counted = app.integers(&format!(
            "SELECT COUNT(DISTINCT resource_id) FROM events WHERE society_id = $1 AND resource = 'device_event' \
             AND resource_id >= {first} AND payload LIKE '{{\"id\":%'"), society).await;
        assert_eq!(counted, [10_000]);
        no_event_lacks_its_payload(&app).await;
    }

    async fn the_feed_refuses_bad_parameters_and_old_cursors(app) {
        let token = app.token(integrator("AR")).await;
        for (query, needle) in [("after=nope", "after"), ("types=plot.finished", "plot.finished"), ("types=crops.*", "crops.*"),
                                ("size=0", "size"), ("size=1001", "size")] {
            let (code, message) = error_envelope(app.get(&format!("{FEED}?{query}"), &token).await, StatusCode::BAD_REQUEST).await;
            assert_eq!(code, 400);
            assert!(message.contains(needle), "{query}: {message}");
        }
        let start = head(&app, &token).await;
        let farmer = first_id(&app, &token, "/api/v3/third_party/farmers").await;
        app.post("/api/v3/third_party/establishments", &token, &json!({ "name": "Vieja", "farmer_id": farmer })).await;
        let (events, after) = wait_for(&app, &token, &start, "", 1).await;
        assert_eq!(events.len(), 1);
        // Retention prunes everything that occurred before now: the cursor from before it is refused, with a resync
        // message, rather than silently skipping; the cursor after the pruned event still works.
        let pruned = app.store.prune_events(chrono::Utc::now().timestamp_millis() + 1).await.expect("prune");
        assert!(pruned >= 1);
        let response = app.request(Method::GET, &format!("{FEED}?after={start}"))
            .bearer_auth(&token).header("Accept-Language", "pt-BR").send().await.expect("GET");
        let (code, message) = error_envelope(response, StatusCode::GONE).await;
        assert_eq!(code, 410);
        assert!(message.contains("ressincronize"), "{message}");
        assert_eq!(app.get_ok(&format!("{FEED}?after={after}"), &token).await["items"], json!([]));
        assert_eq!(app.get_ok(FEED, &token).await["items"], json!([]));
    }

    async fn a_long_or_repeated_types_filter_reads_each_type_once_and_past_the_cap_is_refused(app) {
        let token = app.token(integrator("AR")).await;
        let start = head(&app, &token).await;
        let farmer = first_id(&app, &token, "/api/v3/third_party/farmers").await;
        let establishment = json_of(app.post("/api/v3/third_party/establishments", &token,
            &json!({ "name": "Filtrada", "farmer_id": farmer })).await, StatusCode::CREATED).await;
        let plot = json_of(app.post("/api/v3/third_party/plots", &token,
            &json!({ "name": "Lote filtrado", "establishment_id": establishment["id"], "area": 3.5 })).await, StatusCode::CREATED).await;
        let both = [format!("establishment.created {}", establishment["id"]), format!("plot.created {}", plot["id"])];
        let (events, _) = wait_for(&app, &token, &start, "", 2).await;
        assert_eq!(types(&events), both);

        // 999 entries, over and over the same three: one statement, read as the three (SQLite's was 500 past ~600).
        let long = ["plot.*", "tag.*", "job.*"].iter().cycle().take(999).copied().collect::<Vec<_>>().join(",");
        let (plots, _) = drain(&app, &token, &start, &format!("&types={long}")).await;
        assert_eq!(types(&plots), both[1..]);
        let repeated = "establishment.created,establishment.*,plot.created,establishment.created,plot.created";
        let (repeats, _) = drain(&app, &token, &start, &format!("&types={repeated}")).await;
        assert_eq!(repeats, events, "each event once, as without the repeats");

        // One entry past the cap is refused, naming the cap in the caller's language.
        let cap = domain::events::MAX_FEED_TYPES;
        let over = vec!["tag.*"; cap + 1].join(",");
        for (lang, words) in [("es", "a lo sumo 1000"), ("pt", "no máximo 1000"), ("en", "at most 1000")] {
            let response = app.request(Method::GET, &format!("{FEED}?types={over}"))
                .bearer_auth(&token).header("Accept-Language", lang).send().await.expect("GET");
            let (code, message) = error_envelope(response, StatusCode::BAD_REQUEST).await;
            assert_eq!(code, 400);
            assert!(message.contains(words), "{lang}: {message}");
        }
        let at_the_cap = vec!["tag.*"; cap].join(",");
        assert_eq!(app.get_ok(&format!("{FEED}?after={start}&types={at_the_cap}"), &token).await["items"], json!([]));
    }

    async fn the_database_itself_keeps_each_event_to_a_society_that_exists(app) {
        // Every writer of the feed names a society that exists. The database refuses any other way in (another
        // program, a future writer) and keeps a society that events name: a foreign key on both backends.
        let society = 990_001;
        let event = |owner: &str, record: i64| format!("({owner}, 0, 0, 'establishment', {record}, 'created', 0, '{{}}')");
        let insert = |rows: &[String]| {
            format!(
                "INSERT INTO events (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
                 VALUES {}",
                rows.join(", ")
            )
        };
        let count = "SELECT COUNT(*) FROM events WHERE society_id = $1";
        assert!(app.execute(&insert(&[event("$1", 1)]), society).await.is_err(), "a society that does not exist");
        app.execute(
            "INSERT INTO societies (id, legal_name, country, time_zone, created_at, updated_at) \
             VALUES ($1, 'Sin Datos S.A.', 'AR', 'America/Argentina/Buenos_Aires', 0, 0)",
            society,
        )
        .await
        .expect("a society");
        assert_eq!(app.execute(&insert(&[event("$1", 1)]), society).await.expect("an event of a society that exists"), 1);
        let mixed = insert(&[event("$1", 2), event("$1 + 1", 3)]);
        assert!(app.execute(&mixed, society).await.is_err(), "one of a statement's events names no society");
        assert_eq!(app.integers(count, society).await, [1], "nothing of a refused statement is stored");
        let moved = "UPDATE events SET society_id = $1 + 1 WHERE society_id = $1";
        assert!(app.execute(moved, society).await.is_err(), "an event moved to a society that does not exist");
        let remove = "DELETE FROM societies WHERE id = $1";
        assert!(app.execute(remove, society).await.is_err(), "a society that an event names");
        assert_eq!(app.execute("DELETE FROM events WHERE society_id = $1", society).await.expect("its event"), 1);
        assert_eq!(app.execute(remove, society).await.expect("a society that no event names"), 1);
    }

    async fn the_schema_has_no_trigger_and_nothing_pauses_events(app) {
        // Changes, events and counters are written by the store's write transaction: no trigger takes part, on either
        // backend (a PostgreSQL foreign key's own triggers are internal), and there is no pause to forget.
        let triggers = match app.backend {
            Backend::Sqlite => "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND $1 = $1",
            Backend::Postgres => "SELECT COUNT(*) FROM pg_trigger WHERE NOT tgisinternal AND $1 = $1",
        };
        assert_eq!(app.integers(triggers, 0).await, [0]);
        let paused = match app.backend {
            Backend::Sqlite => "SELECT COUNT(*) FROM sqlite_master WHERE name = 'events_paused' AND $1 = $1",
            Backend::Postgres => "SELECT COUNT(*) FROM pg_class WHERE relname = 'events_paused' AND $1 = $1",
        };
        assert_eq!(app.integers(paused, 0).await, [0]);
    }

    async fn a_society_sees_only_its_own_events(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let start = head(&app, &brazil).await;
        let farmer = first_id(&app, &argentina, "/api/v3/third_party/farmers").await;
        let theirs = head(&app, &argentina).await;
        app.post("/api/v3/third_party/establishments", &argentina, &json!({ "name": "Ajena", "farmer_id": farmer })).await;
        let (ours, _) = wait_for(&app, &argentina, &theirs, "", 1).await;
        assert_eq!(ours.len(), 1);
        let (events, _) = drain(&app, &brazil, &start, "").await;
        assert_eq!(events, Vec::<Value>::new());
        // One event by id: the feed's item for its own society, 404 for another.
        let path = format!("{FEED}/{}", ours[0]["id"]);
        assert_eq!(app.get_ok(&path, &argentina).await, ours[0]);
        let (code, message) = error_envelope(app.get(&path, &brazil).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404);
        assert!(message.contains(&ours[0]["id"].to_string()), "{message}");
    }

    async fn concurrent_writers_on_two_processes_lose_and_repeat_nothing(app) {
        let second = app.sibling().await;
        let token = app.token(integrator("AR")).await;
        let start = head(&app, &token).await;
        let farmer = first_id(&app, &token, "/api/v3/third_party/farmers").await;
        let writers = (0..40).map(|n| {
            let server = if n % 2 == 0 { &app } else { &second };
            let token = token.clone();
            async move {
                let created = json_of(server.post("/api/v3/third_party/establishments", &token,
                    &json!({ "name": format!("Concurrente {n}"), "farmer_id": farmer })).await, StatusCode::CREATED).await;
                created["id"].as_i64().expect("id")
            }
        });
        // A reader follows the feed while the writers commit, on the other process.
        let reader = async {
            let mut seen = Vec::new();
            let mut cursor = start.clone();
            for _ in 0..30 {
                let (events, next) = drain(&second, &token, &cursor, "").await;
                seen.extend(events);
                cursor = next;
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
            }
            (seen, cursor)
        };
        let (mut created, (mut seen, cursor)) = tokio::join!(join_all(writers), reader);
        let missing = 40_usize.saturating_sub(seen.len());
        seen.extend(wait_for(&app, &token, &cursor, "", missing).await.0);
        let mut counts: BTreeMap<i64, usize> = BTreeMap::new();
        for event in &seen {
            assert_eq!(event["type"], "establishment.created");
            *counts.entry(event["resource_id"].as_i64().expect("id")).or_default() += 1;
        }
        created.sort_unstable();
        assert_eq!(counts.keys().copied().collect::<Vec<_>>(), created, "every write, once");
        assert!(counts.values().all(|count| *count == 1), "{counts:?}");
    }
}

/// PostgreSQL hands out transaction ids as writers start, not as they commit: a transaction that took its id early
/// and commits late must still be read, once, by a client that kept reading meanwhile.
#[tokio::test]
async fn a_transaction_that_commits_late_is_not_skipped() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let login = app.login_as(integrator("AR")).await;
    let token = login["access_token"].as_str().expect("token").to_owned();
    let society = login["society"]["id"].as_i64().expect("society");
    let start = head(&app, &token).await;
    let farmer = first_id(&app, &token, "/api/v3/third_party/farmers").await;
    let mut early = { testkit::postgres::connect(&app.url).await.expect("connect") };
    sqlx::query("BEGIN").execute(&mut early).await.expect("begin");
    let late_id: i64 = sqlx::query_scalar(
        "INSERT INTO establishments (society_id, farmer_id, name, active, created_at, updated_at) \
         VALUES ($1, $2, 'Tardía', TRUE, 0, 0) RETURNING id",
    )
    .bind(society)
    .bind(farmer)
    .fetch_one(&mut early)
    .await
    .expect("insert");
    // Its event, as a write transaction's commit writes it: positioned at the transaction's id.
    sqlx::query(
        "INSERT INTO events (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
         SELECT $1, x.tx, x.tx, 'establishment', $2, 'created', 0, '{}' \
         FROM (SELECT pg_current_xact_id()::text::bigint AS tx) x",
    )
    .bind(society)
    .bind(late_id)
    .execute(&mut early)
    .await
    .expect("its event");
    let later = json_of(
        app.post(
            "/api/v3/third_party/establishments",
            &token,
            &json!({ "name": "Temprana", "farmer_id": farmer }),
        )
        .await,
        StatusCode::CREATED,
    )
    .await;
    // While the early transaction runs, the later commit is held back: handing it out now would let the early one
    // land behind the client's cursor.
    let (held, cursor) = drain(&app, &token, &start, "").await;
    assert_eq!(held, Vec::<Value>::new());
    sqlx::query("COMMIT").execute(&mut early).await.expect("commit");
    let (events, _) = wait_for(&app, &token, &cursor, "", 2).await;
    let mut ids: Vec<i64> = events
        .iter()
        .map(|event| event["resource_id"].as_i64().expect("id"))
        .collect();
    ids.sort_unstable();
    let mut expected = vec![late_id, later["id"].as_i64().expect("id")];
    expected.sort_unstable();
    assert_eq!(ids, expected);
}

/// Events' payloads are compressed with lz4 where the server has it (migration 19), pglz otherwise: a payload of a
/// few kilobytes, as a work order's is, is stored compressed with it.
#[tokio::test]
async fn event_payloads_are_compressed_with_lz4_where_the_server_has_it() {
    let app = TestApp::spawn(Backend::Postgres).await;
    let login = app.login_as(integrator("AR")).await;
    let society = login["society"]["id"].as_i64().expect("society");
    let mut connection = testkit::postgres::connect(&app.url).await.expect("connect");
    // The setting accepts lz4 only where the server was built with it.
    let has_lz4 = sqlx::query("SET default_toast_compression = 'lz4'")
        .execute(&mut connection)
        .await
        .is_ok();
    sqlx::query("RESET default_toast_compression")
        .execute(&mut connection)
        .await
        .expect("reset");
    let mut transaction = connection.begin().await.expect("begin");
    let payload = json!({ "lines": vec![json!({ "campaign_id": 1, "area_applied": 40.5 }); 100] }).to_string();
    assert!(
        payload.len() > 2_000,
        "large enough to be compressed: {}",
        payload.len()
    );
    let id: i64 = sqlx::query_scalar(
        "INSERT INTO events (society_id, position, tx, resource, resource_id, action, occurred_at, payload) \
         VALUES ($1, 1, 1, 'work_order', 1, 'created', 0, $2) RETURNING id",
    )
    .bind(society)
    .bind(&payload)
    .fetch_one(&mut *transaction)
    .await
    .expect("insert");
    let compression: Option<String> =
        sqlx::query_scalar("SELECT pg_column_compression(payload) FROM events WHERE society_id = $1 AND id = $2")
            .bind(society)
            .bind(id)
            .fetch_one(&mut *transaction)
            .await
            .expect("its payload");
    transaction.rollback().await.expect("rollback");
    let expected = if has_lz4 { "lz4" } else { "pglz" };
    assert_eq!(compression.as_deref(), Some(expected));
}
