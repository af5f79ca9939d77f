//! The change feed: every kind of write yields exactly its event with the record's read shape, the cursor resumes
//! without loss or repetition (also under concurrent writers of one society, on two processes, and behind a writer
//! that commits late), types filter, retention refuses old cursors, a cursor of another database or society or past
//! the head is 400, one written before cursors named their feed still reads, and bad parameters are 400.

use std::collections::BTreeMap;

use client::futures_util::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use sqlx::Connection;

use domain::events::{EventCursor, FeedPlace};

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

/// At least `count` events after `cursor`, waiting for them up to 30 s: a write's events are readable once it
/// commits, which for a job's is after its request was answered.
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

/// A read of the feed after `cursor` is refused as a cursor the server did not answer.
async fn refused(app: &TestApp, token: &str, cursor: &str) {
    let path = format!("{FEED}?after={cursor}");
    let (code, message) = error_envelope(app.get(&path, token).await, StatusCode::BAD_REQUEST).await;
    assert_eq!(code, 400);
    assert!(message.contains("after"), "{message}");
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
        let event = |owner: &str, record: i64| format!("({owner}, 0, 'establishment', {record}, 'created', 0, '{{}}')");
        let insert = |rows: &[String]| {
            format!(
                "INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload) \
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
        // backend (a PostgreSQL foreign key's own triggers are internal, and so are the truncate triggers Citus puts
        // on the tables it distributes, whose function is its extension's), and there is no pause to forget.
        let triggers = match app.backend {
            Backend::Sqlite => "SELECT COUNT(*) FROM sqlite_master WHERE type = 'trigger' AND $1 = $1",
            Backend::Postgres => {
                "SELECT COUNT(*) FROM pg_trigger t WHERE NOT t.tgisinternal AND $1 = $1 AND NOT EXISTS \
                 (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass AND d.objid = t.tgfoid \
                 AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e')"
            }
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

    async fn concurrent_writers_of_one_society_are_read_each_once_while_they_write(app) {
        let token = app.token(integrator("AR")).await;
        let start = head(&app, &token).await;
        let farmer = first_id(&app, &token, "/api/v3/third_party/farmers").await;
        let (tasks, each) = (8, 20);
        let writers = (0..tasks).map(|task| {
            let token = token.clone();
            let app = &app;
            async move {
                let mut ids = Vec::new();
                for n in 0..each {
                    let created = json_of(app.post("/api/v3/third_party/establishments", &token,
                        &json!({ "name": format!("Escritora {task}-{n}"), "farmer_id": farmer })).await,
                        StatusCode::CREATED).await;
                    ids.push(created["id"].as_i64().expect("id"));
                }
                ids
            }
        });
        let done = std::sync::atomic::AtomicBool::new(false);
        // A reader follows the feed by cursor while they write, and once more after.
        let reader = async {
            let mut seen = Vec::new();
            let mut cursor = start.clone();
            loop {
                let finished = done.load(std::sync::atomic::Ordering::SeqCst);
                let (events, next) = drain(&app, &token, &cursor, "").await;
                seen.extend(events);
                cursor = next;
                if finished {
                    return seen;
                }
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        };
        let writing = async {
            let created = join_all(writers).await;
            done.store(true, std::sync::atomic::Ordering::SeqCst);
            created
        };
        let (created, seen) = tokio::join!(writing, reader);
        let mut created: Vec<i64> = created.into_iter().flatten().collect();
        created.sort_unstable();
        let mut read: Vec<i64> = seen.iter().map(|event| event["resource_id"].as_i64().expect("id")).collect();
        assert_eq!(read.len(), tasks * each, "no event missed or repeated");
        read.sort_unstable();
        assert_eq!(read, created, "every write, once");
    }

    async fn a_cursor_of_another_database_or_society_or_past_the_head_is_refused(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let ours = head(&app, &argentina).await;
        // Test databases are copies of one seeded template, and share the feed identity its migration made; another
        // deployment's database has its own, as this one is given.
        let other = TestApp::spawn(app.backend).await;
        other.execute("UPDATE feed_identity SET identity = 'a0b1c2d3e4f5a6b7' WHERE id = $1", 1).await.expect("identity");
        let other_token = other.token(integrator("AR")).await;
        let theirs = head(&other, &other_token).await;
        refused(&app, &argentina, &theirs).await;
        refused(&other, &other_token, &ours).await;
        // Another society's cursor, of this very database.
        refused(&app, &brazil, &ours).await;
        // A cursor past the society's head.
        let Ok(EventCursor::Feed { database, society_id, place }) = ours.parse::<EventCursor>() else {
            panic!("a cursor naming its feed: {ours}");
        };
        let beyond = EventCursor::Feed { database, society_id, place: FeedPlace { position: place.position + 1, id: 0 } };
        refused(&app, &argentina, &beyond.to_string()).await;
        // Each still reads its own.
        assert_eq!(app.get_ok(&format!("{FEED}?after={ours}"), &argentina).await["items"], json!([]));
        assert_eq!(other.get_ok(&format!("{FEED}?after={theirs}"), &other_token).await["items"], json!([]));
    }

    async fn a_cursor_written_before_cursors_named_their_feed_still_reads_on(app) {
        let login = app.login_as(integrator("AR")).await;
        let token = login["access_token"].as_str().expect("token").to_owned();
        let society = login["society"]["id"].as_i64().expect("society");
        let start = head(&app, &token).await;
        let farmer = first_id(&app, &token, "/api/v3/third_party/farmers").await;
        for name in ["Antes", "Después", "Más tarde"] {
            json_of(app.post("/api/v3/third_party/establishments", &token, &json!({ "name": name, "farmer_id": farmer })).await,
                StatusCode::CREATED).await;
        }
        let (events, _) = wait_for(&app, &token, &start, "", 3).await;
        assert_eq!(events.len(), 3);
        // The cursor just after the first event, as it was written before cursors named their feed: "position.id".
        let first = events[0]["id"].as_i64().expect("id");
        let position = app
            .integers(&format!("SELECT position FROM events WHERE society_id = $1 AND id = {first}"), society)
            .await;
        let legacy = EventCursor::Legacy(FeedPlace { position: position[0], id: first }).to_string();
        let page = app.get_ok(&format!("{FEED}?after={legacy}&size=1"), &token).await;
        assert_eq!(page["items"], json!([events[1]]));
        assert_eq!(page["has_more"], true);
        // Its next cursor names the feed, and reads on from there.
        let next = page["next_cursor"].as_str().expect("a cursor");
        assert!(matches!(next.parse::<EventCursor>(), Ok(EventCursor::Feed { .. })), "{next}");
        let (rest, _) = drain(&app, &token, next, "").await;
        assert_eq!(rest, events[2..]);
        // An event written before positions were per society keeps its position, below every later one (0 on SQLite,
        // a transaction id below the heads migration 27 set on PostgreSQL): a cursor before it reads it first, then
        // the society's later events in order.
        app.execute("INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload) \
                     VALUES ($1, 0, 'establishment', 424242, 'created', 0, '{}')", society).await.expect("an older event");
        let older = EventCursor::Legacy(FeedPlace { position: 0, id: 0 }).to_string();
        let page = app.get_ok(&format!("{FEED}?after={older}&size=1"), &token).await;
        assert_eq!(page["items"][0]["resource_id"], 424242, "{page}");
        let next = page["next_cursor"].as_str().expect("a cursor");
        let first_of_its_own = app
            .integers("SELECT id FROM events WHERE society_id = $1 AND position > 0 ORDER BY position, id LIMIT 1", society)
            .await;
        let page = app.get_ok(&format!("{FEED}?after={next}&size=1"), &token).await;
        assert_eq!(page["items"][0]["id"], first_of_its_own[0], "{page}");
    }
}

/// A writer takes its events' positions from its society's feed and holds that row until it commits: a writer that
/// came later waits for it, so it commits after, and a client that kept reading meanwhile reads both, once, in the
/// order they committed.
#[tokio::test]
async fn a_writer_that_commits_late_holds_back_the_writers_after_it() {
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
    // Its event, as a write transaction's commit writes it: at the next position of its society's feed.
    sqlx::query(
        "WITH feed AS (INSERT INTO society_feeds (society_id, head, pruned_position, pruned_id) VALUES ($1, 1, 0, 0) \
         ON CONFLICT (society_id) DO UPDATE SET head = society_feeds.head + EXCLUDED.head RETURNING head) \
         INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload) \
         SELECT $1, feed.head, 'establishment', $2, 'created', 0, '{}' FROM feed",
    )
    .bind(society)
    .bind(late_id)
    .execute(&mut early)
    .await
    .expect("its event");
    let body = json!({ "name": "Temprana", "farmer_id": farmer });
    let create = app.post("/api/v3/third_party/establishments", &token, &body);
    let reader = async {
        // The later create waits for the early writer's feed; nothing of either is readable meanwhile.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        let (held, cursor) = drain(&app, &token, &start, "").await;
        assert_eq!(held, Vec::<Value>::new());
        sqlx::query("COMMIT").execute(&mut early).await.expect("commit");
        cursor
    };
    let (later, cursor) = tokio::join!(create, reader);
    let later = json_of(later, StatusCode::CREATED).await;
    let (events, _) = wait_for(&app, &token, &cursor, "", 2).await;
    let ids: Vec<i64> = events
        .iter()
        .map(|event| event["resource_id"].as_i64().expect("id"))
        .collect();
    assert_eq!(
        ids,
        [late_id, later["id"].as_i64().expect("id")],
        "in the order they committed"
    );
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
        "INSERT INTO events (society_id, position, resource, resource_id, action, occurred_at, payload) \
         VALUES ($1, 1, 'work_order', 1, 'created', 0, $2) RETURNING id",
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

/// A webhook endpoint's cursor, kept as the text the feed answered, across the change of the cursors' form.
mod webhook_cursors {
    use domain::webhooks::UrlPolicy;

    use super::*;
    use crate::helpers::Setup;
    use crate::on_both_backends_with;

    /// A server whose delivery worker the test drives itself, that accepts a receiver on this machine.
    fn driven() -> Setup {
        let mut setup = Setup::default();
        setup.server.webhooks.policy = UrlPolicy::DEMO;
        setup.server.webhooks.enabled = false;
        setup.server.jobs.enabled = false;
        setup
    }

    on_both_backends_with! {
        driven();

        async fn an_endpoint_cursor_written_before_cursors_named_their_feed_moves_on_from_where_it_was(app) {
            let login = app.login_as(integrator("AR")).await;
            let token = login["access_token"].as_str().expect("token").to_owned();
            let society = login["society"]["id"].as_i64().expect("society");
            let body = json!({ "url": "http://127.0.0.1:9/hooks", "types": ["establishment.*"] });
            let endpoint = json_of(app.post("/api/v3/third_party/webhook_endpoints", &token, &body).await,
                StatusCode::CREATED).await["id"].as_i64().expect("an endpoint");
            let farmer = first_id(&app, &token, "/api/v3/third_party/farmers").await;
            let mut created = Vec::new();
            for name in ["Entregada", "Por entregar"] {
                let establishment = json_of(app.post("/api/v3/third_party/establishments", &token,
                    &json!({ "name": name, "farmer_id": farmer })).await, StatusCode::CREATED).await;
                created.push(establishment["id"].as_i64().expect("id"));
            }
            // The endpoint's cursor as an older release left it, just after the first establishment's event.
            let place = |column: &str| format!("SELECT {column} FROM events WHERE society_id = $1 \
                AND resource = 'establishment' AND resource_id = {}", created[0]);
            let (position, id) = (app.integers(&place("position"), society).await[0], app.integers(&place("id"), society).await[0]);
            let legacy = EventCursor::Legacy(FeedPlace { position, id }).to_string();
            app.execute(&format!("UPDATE webhook_progress SET feed_cursor = '{legacy}' WHERE society_id = $1 \
                AND endpoint_id = {endpoint}"), society).await.expect("an older cursor");
            assert_eq!(app.store.fan_out_webhooks(100, 0).await.expect("a fan-out"), 1, "the second event only");
            let queued = app.integers(&format!("SELECT e.resource_id FROM webhook_deliveries d JOIN events e \
                ON e.society_id = d.society_id AND e.id = d.event_id WHERE d.society_id = $1 \
                AND d.endpoint_id = {endpoint}"), society).await;
            assert_eq!(queued, [created[1]]);
            // Moving on wrote a cursor that names its feed, from which nothing more is queued.
            let cursor: Vec<String> = match app.backend {
                Backend::Sqlite => {
                    let mut connection = sqlx::SqliteConnection::connect(&app.url).await.expect("connect");
                    sqlx::query_scalar("SELECT feed_cursor FROM webhook_progress WHERE society_id = $1 AND endpoint_id = $2")
                        .bind(society).bind(endpoint).fetch_all(&mut connection).await.expect("its cursor")
                }
                Backend::Postgres => {
                    let mut connection = testkit::postgres::connect(&app.url).await.expect("connect");
                    sqlx::query_scalar("SELECT feed_cursor FROM webhook_progress WHERE society_id = $1 AND endpoint_id = $2")
                        .bind(society).bind(endpoint).fetch_all(&mut connection).await.expect("its cursor")
                }
            };
            assert!(matches!(cursor[0].parse::<EventCursor>(), Ok(EventCursor::Feed { .. })), "{cursor:?}");
            assert_eq!(app.store.fan_out_webhooks(100, 0).await.expect("a fan-out"), 0);
        }
    }
}
