//! Two server processes on one PostgreSQL database, as a scaled-out deployment runs: a token issued by one works on
//! the other, a write through one is read through the other, and each background job is worked by exactly one of
//! them, its rows applied once.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};
use server::ServerConfig;

use crate::helpers::{integrator, Backend, Setup, TestApp};

const IMPORT: &str = "/api/v2/third_party/campaigns/import";
const IMPORT_JOBS: &str = "/api/v2/third_party/campaigns/import/jobs";
const CAMPAIGNS: &str = "/api/v3/third_party/campaigns";
const EVENTS: &str = "/api/v3/third_party/device_events";

/// A worker that polls often and commits two rows at a time, so that both processes compete for every job.
fn eager_worker() -> ServerConfig {
    let mut config = Setup::default().server;
    config.jobs.poll_interval = Duration::from_millis(20);
    config.jobs.lease = Duration::from_secs(5);
    config.jobs.chunk_size = 2;
    config
}

async fn first_id(app: &TestApp, token: &str, path: &str) -> i64 {
    app.get_ok(path, token).await["items"][0]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{path} has an item"))
}

/// Each job's claims and the workers seen holding it, read straight from the database.
async fn job_rows(connection: &mut sqlx::PgConnection, ids: &[i64]) -> Vec<(i64, String, i64, Option<String>)> {
    sqlx::query_as("SELECT id, status, attempts, locked_by FROM jobs WHERE id = ANY($1) ORDER BY id")
        .bind(ids)
        .fetch_all(connection)
        .await
        .expect("the jobs")
}

#[tokio::test]
async fn two_servers_share_tokens_and_writes_and_work_each_job_once() {
    let first = TestApp::spawn_with(
        Backend::Postgres,
        Setup {
            server: eager_worker(),
            ..Setup::default()
        },
    )
    .await;
    let second = first.sibling_with(eager_worker()).await;

    let issued_by_first = first.token(integrator("AR")).await;
    let issued_by_second = second.token(integrator("BR")).await;
    second.get_ok(CAMPAIGNS, &issued_by_first).await;
    first.get_ok(CAMPAIGNS, &issued_by_second).await;
    let revoked = first.login_as(integrator("AR")).await;
    let refreshed = second
        .request(reqwest::Method::POST, "/api/v2/login/refresh")
        .json(&json!({ "refresh_token": revoked["refresh_token"] }))
        .send()
        .await
        .expect("refresh");
    assert_eq!(
        refreshed.status(),
        StatusCode::OK,
        "a refresh token of one works on the other"
    );
    let old = revoked["access_token"].as_str().expect("a token");
    assert_eq!(
        first.get(CAMPAIGNS, old).await.status(),
        StatusCode::UNAUTHORIZED,
        "and revokes on both"
    );

    let device = first_id(&first, &issued_by_first, "/api/v3/third_party/devices").await;
    let event_type = first_id(&first, &issued_by_first, "/api/v3/third_party/device_event_types").await;
    let reading = json!({ "device_id": device, "device_event_type_id": event_type,
                          "recorded_at": "2024-03-01T09:30:00-03:00", "value": 17.25 });
    let written = first.post(EVENTS, &issued_by_first, &reading).await;
    assert_eq!(written.status(), StatusCode::CREATED);
    let written: Value = written.json().await.expect("JSON");
    let read = second
        .get_ok(&format!("{EVENTS}/{}", written["id"]), &issued_by_first)
        .await;
    assert_eq!(read, written, "a write through one is read through the other");

    let plot = first_id(&first, &issued_by_first, "/api/v2/third_party/plots").await;
    let master = first_id(&first, &issued_by_first, "/api/v3/third_party/master_campaigns").await;
    let mut jobs = Vec::new();
    let mut codes = Vec::new();
    for job in 0..6 {
        let rows: Vec<Value> = (0..5)
            .map(|row| {
                let code = format!("TWO-{job}-{row}");
                codes.push(code.clone());
                json!({ "plot_id": plot, "master_campaign_id": master, "name": code, "external_code": code,
                        "area": 10.0, "planting_date": "2025-11-03", "objective_yield": 3.0 })
            })
            .collect();
        let via = if job % 2 == 0 { &first } else { &second };
        let response = via.post(IMPORT, &issued_by_first, &json!({ "campaigns": rows })).await;
        assert_eq!(response.status(), StatusCode::ACCEPTED);
        jobs.push(
            response.json::<Value>().await.expect("JSON")["id"]
                .as_i64()
                .expect("a job id"),
        );
    }

    // Watch who holds each job until all are finished: never two workers for one job.
    let mut database = testkit::postgres::connect(&first.url).await.expect("connect");
    let mut holders: HashMap<i64, HashSet<String>> = HashMap::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let rows = job_rows(&mut database, &jobs).await;
        for (id, _, _, locked_by) in &rows {
            if let Some(worker) = locked_by {
                holders.entry(*id).or_default().insert(worker.clone());
            }
        }
        if rows.iter().all(|(_, status, _, _)| status == "finished") {
            for (id, _, attempts, _) in &rows {
                assert_eq!(*attempts, 1, "job {id} was claimed once");
            }
            break;
        }
        assert!(Instant::now() < deadline, "the jobs did not finish: {rows:?}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for (id, workers) in &holders {
        assert_eq!(workers.len(), 1, "job {id} had one owner: {workers:?}");
    }
    let owners: HashSet<&String> = holders.values().flatten().collect();
    eprintln!("{} jobs worked by {} distinct worker(s)", jobs.len(), owners.len());

    for id in &jobs {
        let done = second.get_ok(&format!("{IMPORT_JOBS}/{id}"), &issued_by_first).await;
        assert_eq!(
            (done["processed_items"].clone(), done["failed_items"].clone()),
            (json!(5), json!(0)),
            "{done}"
        );
    }
    let campaigns = first.all_items(CAMPAIGNS, &issued_by_first).await;
    for code in &codes {
        let found = campaigns.iter().filter(|c| c["external_code"] == code.as_str()).count();
        assert_eq!(found, 1, "row {code} applied exactly once");
    }
}
