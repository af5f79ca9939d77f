//! At-least-once webhook delivery across a crash, on SQLite and on PostgreSQL: the real binary delivers the events of
//! a burst of changes to a slow receiver, is killed with SIGKILL while deliveries are in flight, and once restarted
//! on the same database delivers every event at least once, and records every delivery as received: the ones the
//! dead process had sent but not recorded are sent again once their lease runs out.

mod killed;

use std::collections::{BTreeMap, BTreeSet};

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use demo::DEMO_ACCOUNTS;
use reqwest::StatusCode;
use serde_json::{json, Value};
use testkit::scratch::Scratch;

use killed::{seed, serve};

/// Changes made, each one event.
const CHANGES: usize = 200;
/// Deliveries received before the kill, so that it lands mid-stream.
const RECEIVED_BEFORE_KILL: usize = 8;
/// How long the receiver takes to answer: long enough that deliveries are surely still in flight when the server
/// dies, however busy the machine.
const RECEIVER_DELAY: Duration = Duration::from_secs(2);
/// The lease the servers hold deliveries under: the restarted server resends a dead one's deliveries after it.
const LEASE_SECONDS: &str = "11";
/// Deliveries to the test's receiver on loopback, over http, under that lease.
const WEBHOOK_ARGS: [&str; 4] = [
    "--webhooks-allow-http",
    "--webhooks-allow-private-addresses",
    "--webhooks-lease",
    LEASE_SECONDS,
];

/// Every `webhook-id` that arrived, with how many times.
type Received = Arc<Mutex<BTreeMap<String, usize>>>;

async fn receiver() -> (Received, String) {
    let received = Received::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}/hooks", listener.local_addr().expect("an address"));
    let record = received.clone();
    let app = axum::Router::new().route(
        "/hooks",
        axum::routing::post(move |headers: HeaderMap| {
            let record = record.clone();
            async move {
                let id = headers
                    .get("webhook-id")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                // Counted as it arrives: a delivery counted before the kill was still unanswered when it came.
                *record.lock().expect("the lock").entry(id).or_default() += 1;
                tokio::time::sleep(RECEIVER_DELAY).await;
                "ok"
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (received, url)
}

async fn token(base: &str) -> String {
    let account = DEMO_ACCOUNTS
        .iter()
        .find(|a| a.country == "AR" && a.api_role)
        .expect("an integrator");
    let login: Value = reqwest::Client::new()
        .post(format!("{base}/api/v2/login"))
        .header("X-SVC-SYSTEM-ID", "8")
        .json(&json!({ "email": account.email, "password": account.password }))
        .send()
        .await
        .expect("login")
        .json()
        .await
        .expect("login JSON");
    login["access_token"].as_str().expect("a token").to_owned()
}

async fn post(base: &str, token: &str, path: &str, body: &Value) -> Value {
    let response = reqwest::Client::new()
        .post(format!("{base}{path}"))
        .header("X-SVC-SYSTEM-ID", "8")
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .expect("POST");
    assert_eq!(response.status(), StatusCode::CREATED, "POST {path}");
    response.json().await.expect("JSON")
}

/// How many of an endpoint's deliveries are recorded as received.
async fn succeeded(base: &str, token: &str, endpoint: i64) -> usize {
    let page: Value = reqwest::Client::new()
        .get(format!(
            "{base}/api/v3/third_party/webhook_endpoints/{endpoint}/deliveries?size=500"
        ))
        .header("X-SVC-SYSTEM-ID", "8")
        .bearer_auth(token)
        .send()
        .await
        .expect("the deliveries")
        .json()
        .await
        .expect("JSON");
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|d| d["status"] == "succeeded")
        .count()
}

async fn every_event_is_delivered_after_sigkill(url: &str, scratch: &Scratch) {
    seed(url).await;
    let log = scratch.join("server.log");
    let mut server = serve(url, &log, &WEBHOOK_ARGS);
    let token = token(&server.base).await;
    let (received, hooks) = receiver().await;
    let endpoints = "/api/v3/third_party/webhook_endpoints";
    let endpoint = post(
        &server.base,
        &token,
        endpoints,
        &json!({ "url": hooks, "types": ["applicator.created"] }),
    )
    .await;
    let changes: Vec<_> = (0..CHANGES)
        .map(|n| {
            let (base, token) = (server.base.clone(), token.clone());
            tokio::spawn(async move {
                post(
                    &base,
                    &token,
                    "/api/v2/third_party/applicators",
                    &json!({ "name": format!("Crash {n}") }),
                )
                .await
            })
        })
        .collect();
    // The demo's own applicators have events of their own; these are the ones to deliver.
    let mut created = BTreeSet::new();
    for change in changes {
        created.insert(change.await.expect("a change")["id"].as_i64().expect("an id"));
    }
    let deadline = Instant::now() + Duration::from_secs(60);
    while received.lock().expect("the lock").len() < RECEIVED_BEFORE_KILL {
        assert!(Instant::now() < deadline, "no deliveries before the kill");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    server.kill();
    let before_restart = received.lock().expect("the lock").len();

    let restarted = serve(url, &log, &WEBHOOK_ARGS);
    let feed: Value = reqwest::Client::new()
        .get(format!(
            "{}/api/v3/third_party/events?types=applicator.created&size=1000",
            restarted.base
        ))
        .header("X-SVC-SYSTEM-ID", "8")
        .bearer_auth(&token)
        .send()
        .await
        .expect("the feed")
        .json()
        .await
        .expect("JSON");
    let events: BTreeSet<String> = feed["items"]
        .as_array()
        .expect("items")
        .iter()
        .filter(|event| event["resource_id"].as_i64().is_some_and(|id| created.contains(&id)))
        .map(|event| format!("evt_{}", event["id"]))
        .collect();
    assert_eq!(events.len(), CHANGES, "{feed}");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let seen = received.lock().expect("the lock").clone();
        let missing: Vec<&String> = events.iter().filter(|id| !seen.contains_key(*id)).collect();
        let recorded = succeeded(&restarted.base, &token, endpoint["id"].as_i64().expect("an id")).await;
        if missing.is_empty() && recorded == CHANGES {
            let repeated = seen.values().filter(|&&times| times > 1).count();
            assert!(repeated > 0, "deliveries unanswered at the kill are sent again");
            eprintln!(
                "{before_restart} events delivered before SIGKILL, all {CHANGES} after the restart; {repeated} delivered more than once"
            );
            break;
        }
        assert!(
            Instant::now() < deadline,
            "never delivered after the restart: {missing:?}\n{}",
            restarted.log_text()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_sqlite_every_event_is_delivered_at_least_once_across_sigkill() {
    let scratch = Scratch::new("tranquera-webhooks-sqlite");
    let url = format!("sqlite://{}", scratch.join("api.sqlite").display());
    every_event_is_delivered_after_sigkill(&url, &scratch).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgres_every_event_is_delivered_at_least_once_across_sigkill() {
    let scratch = Scratch::new("tranquera-webhooks-postgres");
    let url = testkit::postgres::new_database("tranquera_webhooks").await;
    every_event_is_delivered_after_sigkill(&url, &scratch).await;
}

/// Runs `tranquera admin --database url <args>`: its standard output, or the test fails with its error.
fn admin(url: &str, args: &[&str]) -> Result<String, String> {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_tranquera"))
        .args(["admin", "--database", url])
        .args(args)
        .output()
        .expect("run tranquera admin");
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

#[test]
fn an_operator_registers_lists_rotates_and_deletes_a_societys_endpoints() {
    let scratch = Scratch::new("tranquera-admin-webhooks");
    let url = format!("sqlite://{}", scratch.join("admin.sqlite").display());
    let society = admin(
        &url,
        &["society", "create", "--legal-name", "Campo SA", "--country", "AR"],
    )
    .expect("a society");
    let society = society.trim();
    let refused = admin(
        &url,
        &[
            "webhook",
            "create",
            "--society",
            society,
            "--url",
            "https://169.254.169.254/",
        ],
    )
    .expect_err("the metadata address is refused");
    assert!(refused.contains("169.254.169.254"), "{refused}");
    let created = admin(
        &url,
        &[
            "webhook",
            "create",
            "--society",
            society,
            "--url",
            "https://erp.example.com/hooks",
            "--type",
            "plot.*",
        ],
    )
    .expect("an endpoint");
    let (id, secret) = created.trim().split_once('\t').expect("id and secret");
    assert!(secret.starts_with("whsec_"), "{created}");
    let listed = admin(&url, &["webhook", "list", "--society", society]).expect("a list");
    assert_eq!(
        listed,
        format!("{id}\tenabled\thttps://erp.example.com/hooks\tplot.*\t\n")
    );
    assert!(!listed.contains(secret), "a list never shows the secret");
    let rotated = admin(&url, &["webhook", "rotate", "--society", society, "--id", id]).expect("a rotation");
    assert!(
        rotated.starts_with(&format!("{id}\twhsec_")) && !rotated.contains(secret),
        "{rotated}"
    );
    admin(&url, &["webhook", "delete", "--society", society, "--id", id]).expect("a deletion");
    assert_eq!(
        admin(&url, &["webhook", "list", "--society", society]).expect("a list"),
        ""
    );
    let other = admin(&url, &["webhook", "rotate", "--society", society, "--id", "999"]).expect_err("no such endpoint");
    assert!(other.contains("999"), "{other}");
}
