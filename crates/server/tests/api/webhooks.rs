//! Webhook endpoints and signed deliveries: real deliveries to a receiver in the test, verified with the Standard
//! Webhooks libraries (PyPI and crates.io), the URL rules against server-side request forgery, secret rotation,
//! retries with back-off on tokio's paused clock, disabling after the give-up window, the most endpoints a society
//! may have, the pace of attempts to one endpoint, claims shared between societies and never taken twice, and secrets
//! kept out of idempotency records.
//!
//! Names are only ever `localhost` and the names of `/etc/hosts`: no test makes the server ask a DNS server.

use std::collections::VecDeque;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode as AxumStatus};
use domain::webhooks::{UrlPolicy, GIVE_UP_AFTER, MAX_ENDPOINTS, MIN_RETRY_DELAY};
use reqwest::StatusCode;
use serde_json::{json, Value};
use server::webhooks::{Deliverer, WebhooksConfig};
use store::webhooks::deliveries::{Attempt, Recorded};

use crate::helpers::{error_envelope, integrator, Setup, TestApp};
use crate::{on_both_backends, on_both_backends_with};

const ENDPOINTS: &str = "/api/v3/third_party/webhook_endpoints";

/// One request a receiver got.
#[derive(Debug, Clone)]
struct Received {
    headers: Vec<(String, String)>,
    body: String,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, value)| value.as_str())
    }

    fn header_map(&self) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in &self.headers {
            map.insert(
                axum::http::HeaderName::try_from(name.as_str()).expect("a header name"),
                value.parse().expect("a header value"),
            );
        }
        map
    }
}

/// A webhook receiver on a local port: records every request and answers the statuses it is told, then 200.
#[derive(Clone, Default)]
struct Receiver {
    received: Arc<Mutex<Vec<Received>>>,
    answers: Arc<Mutex<VecDeque<u16>>>,
}

async fn receive(State(receiver): State<Receiver>, headers: HeaderMap, body: Bytes) -> (AxumStatus, &'static str) {
    let headers = headers
        .iter()
        .map(|(name, value)| (name.to_string(), value.to_str().unwrap_or_default().to_owned()))
        .collect();
    let body = String::from_utf8_lossy(&body).into_owned();
    receiver
        .received
        .lock()
        .expect("the lock")
        .push(Received { headers, body });
    let status = receiver.answers.lock().expect("the lock").pop_front().unwrap_or(200);
    (AxumStatus::from_u16(status).expect("a status"), "thanks, received")
}

impl Receiver {
    async fn start(answers: &[u16]) -> (Receiver, SocketAddr) {
        let receiver = Receiver::default();
        receiver.answers.lock().expect("the lock").extend(answers);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the receiver");
        let address = listener.local_addr().expect("the receiver's address");
        let app = axum::Router::new()
            .route("/hooks", axum::routing::post(receive))
            .with_state(receiver.clone());
        tokio::spawn(async move { axum::serve(listener, app).await });
        (receiver, address)
    }

    fn received(&self) -> Vec<Received> {
        self.received.lock().expect("the lock").clone()
    }

    async fn wait_for(&self, count: usize) -> Vec<Received> {
        for _ in 0..200 {
            let received = self.received();
            if received.len() >= count {
                return received;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the receiver got {} of {count} deliveries", self.received().len());
    }
}

/// A server as `demo` runs it: http and loopback allowed.
fn demo_setup() -> Setup {
    let mut setup = Setup::default();
    setup.server.webhooks.policy = UrlPolicy::DEMO;
    setup.server.webhooks.poll_interval = Duration::from_millis(20);
    setup
}

/// A server as `demo` runs it, whose worker the test drives itself.
fn driven_setup() -> Setup {
    let mut setup = demo_setup();
    setup.server.webhooks.enabled = false;
    setup.server.jobs.enabled = false;
    setup
}

/// Registers an endpoint for applicators' events; answers it with its secret.
async fn register(app: &TestApp, token: &str, url: &str) -> Value {
    register_for(app, token, url, &["applicator.*"]).await
}

/// Registers an endpoint for events of `types`; answers it with its secret.
async fn register_for(app: &TestApp, token: &str, url: &str, types: &[&str]) -> Value {
    let body = json!({ "url": url, "types": types, "description": "test receiver" });
    let response = app.post(ENDPOINTS, token, &body).await;
    let status = response.status();
    let body: Value = response.json().await.expect("JSON");
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body
}

/// Creates an applicator through the API, whose event the endpoints for applicators receive; answers its id.
/// Registers `url` with English messages, for a test that reads a refusal's words.
async fn register_in_english(app: &TestApp, token: &str, url: &str) -> reqwest::Response {
    app.request(reqwest::Method::POST, ENDPOINTS)
        .bearer_auth(token)
        .header("accept-language", "en")
        .json(&json!({ "url": url }))
        .send()
        .await
        .expect("POST")
}

async fn change(app: &TestApp, token: &str, name: &str) -> i64 {
    let response = app
        .post("/api/v2/third_party/applicators", token, &json!({ "name": name }))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.expect("JSON");
    created["id"].as_i64().expect("an id")
}

/// Now, in epoch milliseconds, as the worker's clock reads it.
fn now_millis() -> i64 {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("a clock after 1970");
    i64::try_from(since_epoch.as_millis()).expect("milliseconds that fit")
}

/// One step of `worker`, the very one production takes, then its attempts awaited and recorded; answers how many it
/// started. A step that finds the database unavailable is taken again a moment later, as production's loop does: a
/// test that moves the paused clock can run out a connection's time-out while it opens, and the pool then reports
/// the server away until its probe finds it.
async fn step(worker: &Deliverer) -> usize {
    let mut tries = 0;
    let step = loop {
        match worker.step().await {
            Ok(step) => break step,
            Err(store::StoreError::Unavailable(_)) if tries < 50 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("a step: {error:?}"),
        }
    };
    worker.settle().await;
    step.started
}

/// How many times, 100 ms apart, a test looks again for the deliveries or events it expects before it fails: what a
/// worker or a job writes commits after the request that caused it was answered.
const HELD_BACK_ROUNDS: usize = 300;

/// Fans out until `expected` deliveries are queued (see [`HELD_BACK_ROUNDS`]), then checks that nothing more is.
async fn fan_out_all(store: &store::Store, now: i64, expected: usize) {
    let mut queued = 0;
    for _ in 0..HELD_BACK_ROUNDS {
        queued += store.fan_out_webhooks(100, now).await.expect("a fan-out");
        if queued >= expected {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(queued, expected, "deliveries queued");
    assert_eq!(
        store.fan_out_webhooks(100, now).await.expect("a fan-out"),
        0,
        "each event is queued once"
    );
}

/// The feed's first page of `types` once one of its events has `value` in `field` (see [`HELD_BACK_ROUNDS`]).
async fn feed_with(app: &TestApp, token: &str, types: &str, field: &str, value: &Value) -> Value {
    let path = format!("/api/v3/third_party/events?types={types}");
    let mut feed = app.get_ok(&path, token).await;
    for _ in 0..HELD_BACK_ROUNDS {
        let items = feed["items"].as_array().map_or(&[][..], Vec::as_slice);
        if items.iter().any(|item| &item[field] == value) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        feed = app.get_ok(&path, token).await;
    }
    feed
}

/// A name `/etc/hosts` gives this host, other than `localhost` (`vm`, `ip6-localhost`): one the server resolves
/// without asking a DNS server, and that is not refused for its spelling. `localhost` when there is none.
fn loopback_name_in_etc_hosts() -> String {
    let hosts = std::fs::read_to_string("/etc/hosts").unwrap_or_default();
    hosts
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('#').next().unwrap_or_default().split_whitespace();
            let address: std::net::IpAddr = fields.next()?.parse().ok()?;
            let mut names = fields.filter(|name| *name != "localhost" && !name.ends_with(".localhost"));
            address.is_loopback().then(|| names.next()).flatten().map(str::to_owned)
        })
        .next()
        .unwrap_or_else(|| "localhost".to_owned())
}

/// The attempts made to endpoint `endpoint` of `society`, by when (epoch ms), in order.
async fn attempt_times(app: &TestApp, society: i64, endpoint: i64) -> Vec<i64> {
    let sql = format!(
        "SELECT a.attempted_at FROM webhook_attempts a JOIN webhook_deliveries d \
         ON d.society_id = a.society_id AND d.id = a.delivery_id \
         WHERE a.society_id = $1 AND d.endpoint_id = {endpoint} ORDER BY a.attempted_at"
    );
    app.integers(&sql, society).await
}

async fn society_of(app: &TestApp, country: &str) -> i64 {
    app.login_as(integrator(country)).await["society"]["id"]
        .as_i64()
        .expect("a society id")
}

fn verify_with_rust(secret: &str, received: &Received) -> Result<(), String> {
    standardwebhooks::Webhook::new(secret)
        .map_err(|error| error.to_string())?
        .verify(received.body.as_bytes(), &received.header_map())
        .map_err(|error| error.to_string())
}

/// In `demo`: deliveries to a receiver on this machine.
mod in_demo {
    use super::*;

    on_both_backends_with! {
        demo_setup();

        async fn a_delivery_is_signed_as_standard_webhooks_says_and_verifies_with_its_python_and_rust_libraries(app) {
            let (receiver, address) = Receiver::start(&[]).await;
            let token = app.token(integrator("AR")).await;

            let endpoint = register(&app, &token, &format!("http://{address}/hooks")).await;
            let secret = endpoint["secret"].as_str().expect("the secret, shown at creation");
            assert!(secret.starts_with("whsec_"), "{secret}");
            let id = endpoint["id"].as_i64().expect("an id");
            let (elsewhere, other_address) = Receiver::start(&[]).await;
            register_for(&app, &token, &format!("http://{other_address}/hooks"), &["plot.created"]).await;
            let applicator = change(&app, &token, "Aplicador ñandú").await;

            let delivery = receiver.wait_for(1).await.remove(0);
            let event: Value = serde_json::from_str(&delivery.body).expect("an event in JSON");
            assert_eq!(event["type"], "applicator.created", "{event}");
            assert_eq!(event["resource_id"], applicator);
            assert_eq!(event["data"]["name"], "Aplicador ñandú");
            let feed = feed_with(&app, &token, "applicator.created", "id", &event["id"]).await;
            let item = feed["items"].as_array().expect("items").iter().find(|item| item["id"] == event["id"]).expect("the event in the feed");
            assert_eq!(item, &event, "a delivery carries the event as the feed serves it");
            assert_eq!(delivery.header("webhook-id"), format!("evt_{}", event["id"]));
            assert_eq!(delivery.header("content-type"), "application/json");
            assert_eq!(delivery.header("user-agent"), "Tranquera-Webhooks/1");
            assert!(delivery.header("authorization").is_empty(), "deliveries carry no tokens");
            let timestamp: i64 = delivery.header("webhook-timestamp").parse().expect("seconds");
            assert!((timestamp - store::now_millis() / 1000).abs() < 60);
            verify_with_rust(secret, &delivery).expect("the Rust library verifies the delivery");
            testkit::python::verify_standard_webhook(secret, &delivery.headers, &delivery.body)
                .expect("the PyPI library verifies the delivery");
            let other = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
            assert!(verify_with_rust(other, &delivery).is_err(), "another secret does not verify it");
            assert!(testkit::python::verify_standard_webhook(other, &delivery.headers, &delivery.body).is_err());
            assert!(elsewhere.received().is_empty(), "an endpoint receives only the types it asked for");

            // The delivery's attempt is on record, and the secret is never read back.
            let mut page = Value::Null;
            for _ in 0..100 {
                page = app.get_ok(&format!("{ENDPOINTS}/{id}/deliveries"), &token).await;
                if page["items"][0]["status"] == "succeeded" {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            assert_eq!(page["total_items"], 1, "{page}");
            let attempt = &page["items"][0]["attempts"][0];
            assert_eq!(page["items"][0]["status"], "succeeded", "{page}");
            assert_eq!(attempt["status_code"], 200, "{page}");
            assert_eq!(attempt["response_head"], "thanks, received");
            assert!(attempt["latency_ms"].as_i64().is_some_and(|ms| ms >= 0));
            let read = app.get_ok(&format!("{ENDPOINTS}/{id}"), &token).await;
            assert!(read.get("secret").is_none(), "{read}");
            assert_eq!(read["state"], "enabled");
            let listed = app.get_ok(ENDPOINTS, &token).await;
            assert!(!listed.to_string().contains(secret), "{listed}");
        }

        async fn during_a_rotation_a_delivery_verifies_with_the_old_secret_and_with_the_new(app) {
            let (receiver, address) = Receiver::start(&[]).await;
            let token = app.token(integrator("AR")).await;
            let endpoint = register(&app, &token, &format!("http://{address}/hooks")).await;
            let id = endpoint["id"].as_i64().expect("an id");
            let old = endpoint["secret"].as_str().expect("a secret").to_owned();
            let response = app.post(&format!("{ENDPOINTS}/{id}/rotate_secret"), &token, &json!({})).await;
            assert_eq!(response.status(), StatusCode::OK);
            let rotated: Value = response.json().await.expect("JSON");
            let new = rotated["secret"].as_str().expect("the new secret").to_owned();
            assert_ne!(old, new);

            change(&app, &token, "Rotado").await;
            let delivery = receiver.wait_for(1).await.remove(0);
            assert_eq!(delivery.header("webhook-signature").split(' ').count(), 2, "one signature per secret");
            verify_with_rust(&old, &delivery).expect("the old secret still verifies during the overlap");
            verify_with_rust(&new, &delivery).expect("the new secret verifies");
            testkit::python::verify_standard_webhook(&old, &delivery.headers, &delivery.body).expect("old, in Python");
            testkit::python::verify_standard_webhook(&new, &delivery.headers, &delivery.body).expect("new, in Python");

            let missing = app.post(&format!("{ENDPOINTS}/999999/rotate_secret"), &token, &json!({})).await;
            error_envelope(missing, StatusCode::NOT_FOUND).await;
        }

        async fn demo_accepts_http_and_loopback_urls(app) {
            let token = app.token(integrator("AR")).await;
            for url in ["http://127.0.0.1:9/hooks", "http://localhost:9/hooks", "http://[::1]:9/hooks"] {
                register(&app, &token, url).await;
            }
        }

        async fn a_society_has_at_most_ten_endpoints_even_when_creates_race(app) {
            let token = app.token(integrator("AR")).await;
            let url = "http://127.0.0.1:9/hooks";
            for _ in 0..MAX_ENDPOINTS - 2 {
                register(&app, &token, url).await;
            }
            // Five creates at once for the last two places: two are made, three refused.
            let body = json!({ "url": url });
            let racing = (0..5).map(|_| app.post(ENDPOINTS, &token, &body));
            let statuses: Vec<StatusCode> = futures_util::future::join_all(racing).await.iter().map(|r| r.status()).collect();
            assert_eq!(statuses.iter().filter(|s| **s == StatusCode::CREATED).count(), 2, "{statuses:?}");
            assert_eq!(statuses.iter().filter(|s| **s == StatusCode::CONFLICT).count(), 3, "{statuses:?}");
            let listed = app.all_items(ENDPOINTS, &token).await;
            assert_eq!(listed.len(), MAX_ENDPOINTS);

            let english = register_in_english(&app, &token, url).await;
            let (_, message) = error_envelope(english, StatusCode::CONFLICT).await;
            assert!(message.contains(&format!("already has {MAX_ENDPOINTS} webhook endpoints")), "{message}");
            // Another society is not counted with this one, and a deleted endpoint frees its place.
            register(&app, &app.token(integrator("BR")).await, url).await;
            let first = listed[0]["id"].as_i64().expect("an id");
            assert_eq!(app.delete(&format!("{ENDPOINTS}/{first}"), &token).await.status(), StatusCode::OK);
            register(&app, &token, url).await;
        }

        async fn answers_that_carry_a_secret_are_never_kept_for_an_idempotent_replay(app) {
            let token = app.token(integrator("AR")).await;
            let society = society_of(&app, "AR").await;
            let send = |path: String, key: &'static str| {
                app.request(reqwest::Method::POST, &path)
                    .bearer_auth(&token)
                    .header("idempotency-key", key)
                    .json(&json!({ "url": "http://127.0.0.1:9/hooks" }))
                    .send()
            };
            // The first create answers its secret; its retry is told the create happened, and creates nothing.
            let response = send(ENDPOINTS.to_owned(), "create-once").await.expect("POST");
            assert_eq!(response.status(), StatusCode::CREATED);
            let body: Value = response.json().await.expect("JSON");
            let mut secrets = vec![body["secret"].as_str().expect("a secret").to_owned()];
            let id = body["id"].as_i64().expect("an id");
            let retry = send(ENDPOINTS.to_owned(), "create-once").await.expect("POST");
            assert!(retry.headers().get("retry-after").is_none(), "retrying cannot help");
            let (_, message) = error_envelope(retry, StatusCode::CONFLICT).await;
            assert!(message.contains("Idempotency-Key"), "{message}");
            let endpoints = app
                .integers("SELECT COUNT(*) FROM webhook_endpoints WHERE society_id = $1 AND deleted_at IS NULL", society)
                .await;
            assert_eq!(endpoints, [1], "the retried create made no second endpoint");
            // A rotation is the same: one rotation, and its retry rotates nothing.
            let response = send(format!("{ENDPOINTS}/{id}/rotate_secret"), "rotate-once").await.expect("POST");
            assert_eq!(response.status(), StatusCode::OK);
            let body: Value = response.json().await.expect("JSON");
            secrets.push(body["secret"].as_str().expect("a secret").to_owned());
            let retry = send(format!("{ENDPOINTS}/{id}/rotate_secret"), "rotate-once").await.expect("POST");
            error_envelope(retry, StatusCode::CONFLICT).await;
            // After one rotation the first secret is the previous one; a second rotation would have replaced it.
            let first_is_previous = format!(
                "SELECT COUNT(*) FROM webhook_endpoints WHERE id = $1 AND secret = '{}' AND previous_secret = '{}'",
                secrets[1], secrets[0]
            );
            assert_eq!(app.integers(&first_is_previous, id).await, [1], "the retried rotation rotated nothing");
            assert_ne!(secrets[0], secrets[1], "the rotation made a new secret");
            let kept = app
                .integers("SELECT COUNT(*) FROM idempotency_keys WHERE society_id = $1 AND body LIKE '%whsec_%'", society)
                .await;
            assert_eq!(kept, [0], "no stored answer holds a secret");
        }
    }
}

/// In `serve`: the URL rules against server-side request forgery.
mod in_serve {
    use super::*;

    on_both_backends! {
        async fn serve_refuses_http_and_every_internal_address_in_the_callers_language(app) {
            let token = app.token(integrator("AR")).await;
            let urls = vec![
                "http://erp.example.com/hooks".to_owned(),
                "https://127.0.0.1/hooks".to_owned(),
                "https://10.0.0.8/hooks".to_owned(),
                "https://169.254.169.254/latest/meta-data/".to_owned(),
                "https://localhost:8443/hooks".to_owned(),
                "https://[::ffff:127.0.0.1]/hooks".to_owned(),
                "https://[::ffff:a00:1]/hooks".to_owned(),
                "https://[fd12::1]/hooks".to_owned(),
                // A name that resolves to this host without being spelled `localhost`.
                format!("https://{}/hooks", loopback_name_in_etc_hosts()),
            ];
            for url in &urls {
                let response = app.post(ENDPOINTS, &token, &json!({ "url": url })).await;
                let (_, message) = error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
                assert!(message.contains("url"), "{url}: {message}");
            }
            let english = register_in_english(&app, &token, "https://169.254.169.254/").await;
            let (_, message) = error_envelope(english, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert!(message.contains("link-local") && message.contains("169.254.169.254"), "{message}");
            let spanish = app.post(ENDPOINTS, &token, &json!({ "url": "http://erp.example.com/" })).await;
            let (_, message) = error_envelope(spanish, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert!(message.contains("solo entrega a URL https"), "{message}");
            let types = app.post(ENDPOINTS, &token, &json!({ "url": "https://erp.example.com/", "types": ["plot.exploded"] })).await;
            let (_, message) = error_envelope(types, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert!(message.contains("plot.exploded"), "{message}");
            assert!(app.all_items(ENDPOINTS, &token).await.is_empty(), "nothing refused was registered");
        }

        async fn serve_refuses_the_special_purpose_addresses_and_ipv4_written_as_ipv6_of_the_attack(app) {
            let token = app.token(integrator("AR")).await;
            // What `serve` accepted in issue 50; the domain's unit test walks every range of the registries.
            for host in [
                "[::127.0.0.1]", "[::a9fe:a9fe]", "[::ffff:0:127.0.0.1]", "[2002:7f00:1::1]", "[64:ff9b:1::7f00:1]",
                "[2001::]", "[100::1]", "198.18.0.1", "192.0.0.1", "192.0.2.1", "198.51.100.1", "203.0.113.1",
            ] {
                let url = format!("https://{host}/hooks");
                let response = register_in_english(&app, &token, &url).await;
                let (_, message) = error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
                assert!(message.contains("webhooks are delivered to public addresses only"), "{url}: {message}");
            }
            assert!(app.all_items(ENDPOINTS, &token).await.is_empty(), "nothing refused was registered");
        }

        async fn a_refusal_names_the_host_and_the_rule_never_the_addresses_it_resolves_to(app) {
            let token = app.token(integrator("AR")).await;
            let name = loopback_name_in_etc_hosts();
            let response = register_in_english(&app, &token, &format!("https://{name}/h")).await;
            let (_, message) = error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert!(message.contains(&name) && message.contains("loopback"), "{message}");
            assert!(!message.contains("127.0.0.1") && !message.contains("::1"), "no resolved address: {message}");
        }
    }
}

/// A worker the test drives itself, through retries and the give-up window.
mod driven {
    use super::*;

    on_both_backends_with! {
        driven_setup();

        async fn a_failing_delivery_is_retried_with_back_off_on_the_paused_clock_until_it_is_received(app) {
            let (receiver, address) = Receiver::start(&[500, 503, 502]).await;
            let token = app.token(integrator("AR")).await;
            let society = society_of(&app, "AR").await;
            let id = register(&app, &token, &format!("http://{address}/hooks")).await["id"].as_i64().expect("an id");
            change(&app, &token, "Reintentos").await;
            let worker = Deliverer::new(app.store.clone(), WebhooksConfig { policy: UrlPolicy::DEMO, ..WebhooksConfig::default() })
                .expect("a worker");

            // The clock is paused only to move it: while paused, tokio would skip ahead whenever the test waits for
            // the database, and time out its queries.
            let started = std::time::Instant::now();
            let mut steps = 0;
            while receiver.received().len() < 4 {
                step(&worker).await;
                tokio::time::pause();
                tokio::time::advance(Duration::from_millis(500)).await;
                tokio::time::resume();
                steps += 1;
                assert!(steps < 200, "still not delivered after {steps} half-seconds of back-off");
            }
            // Three failures wait at most 5 s, 10 s and 20 s (full jitter, at least 1 s each): 35 s of back-off,
            // gone through without waiting it.
            assert!(steps <= 72, "{steps} half-seconds");
            assert!(started.elapsed() < Duration::from_secs(30));

            // The server's timers ran on the moved clock too: past its header read time-out (30 s), it closes the
            // client's idle keep-alive connection, which the client might not have noticed yet. A new client asks.
            let page: serde_json::Value = reqwest::Client::new()
                .get(format!("{}{ENDPOINTS}/{id}/deliveries", app.base))
                .header("X-SVC-SYSTEM-ID", "8")
                .bearer_auth(&token)
                .send()
                .await
                .expect("GET request")
                .json()
                .await
                .expect("a JSON page");
            let delivery = &page["items"][0];
            assert_eq!(delivery["status"], "succeeded", "{page}");
            let codes: Vec<i64> = delivery["attempts"].as_array().expect("attempts").iter().map(|a| a["status_code"].as_i64().expect("a status")).collect();
            assert_eq!(codes, [500, 503, 502, 200]);
            let times: Vec<i64> = app
                .integers("SELECT attempted_at FROM webhook_attempts WHERE society_id = $1 ORDER BY id", society)
                .await;
            let minimum = i64::try_from(MIN_RETRY_DELAY.as_millis()).expect("millis");
            assert!(times.windows(2).all(|pair| pair[1] - pair[0] >= minimum), "attempts spaced by the back-off: {times:?}");
            let bodies: Vec<String> = receiver.received().into_iter().map(|r| r.body).collect();
            assert!(bodies.windows(2).all(|pair| pair[0] == pair[1]), "every retry sends the same bytes");
        }

        async fn an_endpoint_failing_for_three_days_is_disabled_and_its_deliveries_abandoned(app) {
            let token = app.token(integrator("AR")).await;

            let id = register(&app, &token, "http://127.0.0.1:9/hooks").await["id"].as_i64().expect("an id");
            change(&app, &token, "Uno").await;
            change(&app, &token, "Dos").await;
            let failure = |at| Attempt { attempted_at: at, status_code: Some(500), latency: Duration::from_millis(3), response_head: Some("down".into()), error: None };
            let store = &app.store;
            let lease = Duration::from_secs(60);
            let start = store::now_millis();
            fan_out_all(store, start, 2).await;
            let first = store.claim_webhook_deliveries("w", lease, 1, start).await.expect("claim").remove(0);
            let outcome = store.record_webhook_attempt(&first, "w", &failure(start), start, 0.5).await.expect("record");
            assert!(matches!(outcome, Recorded::Retrying(at) if at > start), "{outcome:?}");
            let read = app.get_ok(&format!("{ENDPOINTS}/{id}"), &token).await;
            assert_eq!(read["state"], "enabled");

            // Three days later, still failing.
            let later = start + i64::try_from(GIVE_UP_AFTER.as_millis()).expect("millis");
            let again = store.claim_webhook_deliveries("w", lease, 1, later).await.expect("claim").remove(0);
            let outcome = store.record_webhook_attempt(&again, "w", &failure(later), later, 0.5).await.expect("record");
            assert_eq!(outcome, Recorded::EndpointDisabled);
            let read = app.get_ok(&format!("{ENDPOINTS}/{id}"), &token).await;
            assert_eq!(read["state"], "disabled", "{read}");
            assert!(read["disabled_at"].is_string(), "{read}");
            assert!(store.claim_webhook_deliveries("w", lease, 10, later + 1).await.expect("claim").is_empty());
            let page = app.get_ok(&format!("{ENDPOINTS}/{id}/deliveries"), &token).await;
            let statuses: Vec<&str> = page["items"].as_array().expect("items").iter().map(|d| d["status"].as_str().expect("a status")).collect();
            assert_eq!(statuses, ["abandoned", "abandoned"], "{page}");
            let feed = feed_with(&app, &token, "webhook_endpoint.disabled", "resource_id", &json!(id)).await;
            assert_eq!(feed["items"].as_array().map(Vec::len), Some(1), "{feed}");
            assert_eq!(feed["items"][0]["resource_id"], id);
            assert_eq!(feed["items"][0]["data"]["state"], "disabled", "{feed}");
            assert!(feed["items"][0]["data"].get("secret").is_none());
        }

        async fn deliveries_queued_for_an_endpoint_deleted_since_are_abandoned_unsent(app) {
            let (receiver, address) = Receiver::start(&[]).await;
            let token = app.token(integrator("AR")).await;
            let society = society_of(&app, "AR").await;
            let url = format!("http://{address}/hooks");
            let gone = register(&app, &token, &url).await["id"].as_i64().expect("an id");
            let kept = register(&app, &token, &url).await["id"].as_i64().expect("an id");
            change(&app, &token, "Borrada").await;
            let worker = Deliverer::new(app.store.clone(), driven_setup().server.webhooks).expect("a worker");
            fan_out_all(&app.store, now_millis(), 2).await;
            assert_eq!(app.delete(&format!("{ENDPOINTS}/{gone}"), &token).await.status(), StatusCode::OK);
            assert_eq!(step(&worker).await, 1, "only the live endpoint's delivery is claimed");
            assert_eq!(receiver.wait_for(1).await.len(), 1);
            let statuses = |endpoint: i64| {
                format!("SELECT COUNT(*) FROM webhook_deliveries WHERE society_id = $1 AND endpoint_id = {endpoint} \
                         AND status = 'abandoned'")
            };
            assert_eq!(app.integers(&statuses(gone), society).await, [1]);
            assert_eq!(app.integers(&statuses(kept), society).await, [0]);
        }

        async fn a_worker_that_refuses_internal_addresses_does_not_connect_to_one_registered_earlier(app) {
            let (receiver, address) = Receiver::start(&[]).await;
            let token = app.token(integrator("AR")).await;
            // Registered while loopback was allowed; the worker's policy no longer allows it.
            let id = register(&app, &token, &format!("http://{address}/hooks")).await["id"].as_i64().expect("an id");
            change(&app, &token, "Interno").await;
            let policy = UrlPolicy { allow_http: true, allow_private_addresses: false };
            let worker = Deliverer::new(app.store.clone(), WebhooksConfig { policy, ..WebhooksConfig::default() })
                .expect("a worker");
            assert_eq!(step(&worker).await, 1);
            assert!(receiver.received().is_empty(), "nothing reached the internal address");
            let page = app.get_ok(&format!("{ENDPOINTS}/{id}/deliveries"), &token).await;
            let attempt = &page["items"][0]["attempts"][0];
            assert!(attempt["status_code"].is_null(), "{page}");
            assert!(attempt["error"].as_str().is_some_and(|e| e.contains("not a URL this server delivers to")), "{page}");
            assert_eq!(page["items"][0]["status"], "pending", "retried later: {page}");
        }

        async fn a_delivery_to_a_name_that_resolves_inside_records_the_rule_never_the_address(app) {
            let (receiver, address) = Receiver::start(&[]).await;
            let token = app.token(integrator("AR")).await;
            let name = loopback_name_in_etc_hosts();
            // Registered while loopback was allowed; the worker's policy no longer allows it.
            let url = format!("http://{name}:{}/hooks", address.port());
            let id = register(&app, &token, &url).await["id"].as_i64().expect("an id");
            change(&app, &token, "Por nombre").await;
            let policy = UrlPolicy { allow_http: true, allow_private_addresses: false };
            let worker = Deliverer::new(app.store.clone(), WebhooksConfig { policy, ..WebhooksConfig::default() })
                .expect("a worker");
            let mut page = Value::Null;
            for _ in 0..HELD_BACK_ROUNDS {
                step(&worker).await;
                page = app.get_ok(&format!("{ENDPOINTS}/{id}/deliveries"), &token).await;
                if !page["items"][0]["attempts"][0].is_null() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            assert!(receiver.received().is_empty(), "nothing reached the internal address");
            let error = page["items"][0]["attempts"][0]["error"].as_str().unwrap_or_default().to_owned();
            assert!(error.contains(&name), "{page}");
            assert!(!error.contains("127.0.0.1") && !error.contains("::1"), "no resolved address: {error}");
        }

        async fn attempts_to_one_endpoint_are_paced_and_other_endpoints_are_not_held_behind_it(app) {
            let (busy, busy_address) = Receiver::start(&[]).await;
            let (other, other_address) = Receiver::start(&[]).await;
            let token = app.token(integrator("AR")).await;
            let society = society_of(&app, "AR").await;
            let busy_id = register(&app, &token, &format!("http://{busy_address}/hooks")).await["id"].as_i64().expect("an id");
            register(&app, &token, &format!("http://{other_address}/hooks")).await;
            let changes = 8;
            for n in 0..changes {
                change(&app, &token, &format!("Ráfaga {n}")).await;
            }
            fan_out_all(&app.store, now_millis(), 2 * changes).await;
            // Two attempts a second to each endpoint: one every 500 ms.
            let rate = 2;
            let worker = Deliverer::new(
                app.store.clone(),
                WebhooksConfig { policy: UrlPolicy::DEMO, per_endpoint_rate: rate, ..WebhooksConfig::default() },
            )
            .expect("a worker");
            assert_eq!(step(&worker).await, 2, "one attempt to each endpoint now, the rest handed back");
            assert_eq!(busy.wait_for(1).await.len(), 1);
            assert_eq!(other.wait_for(1).await.len(), 1, "the second endpoint is not held behind the first one's burst");
            let due = app
                .integers(&format!("SELECT next_attempt_at FROM webhook_deliveries WHERE society_id = $1 \
                                    AND endpoint_id = {busy_id} AND status = 'pending' ORDER BY next_attempt_at"), society)
                .await;
            assert_eq!(due.len(), changes - 1, "{due:?}");
            assert!(due.windows(2).all(|pair| pair[1] - pair[0] >= 500), "due one slot apart: {due:?}");

            // On the paused clock, 50 ms at a time.
            let mut steps = 0;
            while busy.received().len() < changes || other.received().len() < changes {
                tokio::time::pause();
                tokio::time::advance(Duration::from_millis(50)).await;
                tokio::time::resume();
                step(&worker).await;
                steps += 1;
                assert!(steps < 400, "still not delivered after {steps} steps");
            }
            let times = attempt_times(&app, society, busy_id).await;
            assert_eq!(times.len(), changes, "each delivered once");
            let span = 500 * (i64::try_from(changes).expect("few") - 1);
            assert!(times[changes - 1] - times[0] >= span - 250, "{times:?}");
            let per_second = usize::try_from(rate).expect("small");
            for window in times.windows(per_second + 1) {
                assert!(window[per_second] - window[0] >= 750, "at most {rate} a second: {times:?}");
            }
        }

        async fn two_processes_deliver_each_event_once_between_them(app) {
            let (receiver, address) = Receiver::start(&[]).await;
            let token = app.token(integrator("AR")).await;
            register(&app, &token, &format!("http://{address}/hooks")).await;
            let other = store::Store::connect(&app.url, Setup::default().store).await.expect("a second process's store");
            let config = WebhooksConfig { policy: UrlPolicy::DEMO, batch: 8, ..WebhooksConfig::default() };
            let first = Deliverer::new(app.store.clone(), config.clone()).expect("a worker");
            let second = Deliverer::new(other, config).expect("another worker");
            let changes = 60;
            let writing = async {
                for n in 0..changes {
                    change(&app, &token, &format!("Dos procesos {n}")).await;
                }
            };
            let delivering = |worker: Deliverer| {
                let receiver = receiver.clone();
                async move {
                    let deadline = std::time::Instant::now() + Duration::from_secs(60);
                    while receiver.received().len() < changes && std::time::Instant::now() < deadline {
                        if step(&worker).await == 0 {
                            tokio::time::sleep(Duration::from_millis(5)).await;
                        }
                    }
                    worker
                }
            };
            let ((), first, second) = tokio::join!(writing, delivering(first), delivering(second));
            // Both look again once everything is delivered: nothing is left to send twice.
            step(&first).await;
            step(&second).await;
            let ids: Vec<String> = receiver.received().iter().map(|r| r.header("webhook-id").to_owned()).collect();
            let distinct: std::collections::BTreeSet<&String> = ids.iter().collect();
            assert_eq!(distinct.len(), changes, "every event delivered");
            assert_eq!(ids.len(), changes, "no event delivered twice: {ids:?}");
        }

        async fn a_retried_delivery_is_due_at_once_and_another_society_cannot_retry_it(app) {
            let (receiver, address) = Receiver::start(&[]).await;
            let token = app.token(integrator("AR")).await;

            let id = register(&app, &token, &format!("http://{address}/hooks")).await["id"].as_i64().expect("an id");
            change(&app, &token, "Reenviado").await;
            let worker = Deliverer::new(app.store.clone(), WebhooksConfig { policy: UrlPolicy::DEMO, ..WebhooksConfig::default() })
                .expect("a worker");
            step(&worker).await;
            assert_eq!(receiver.received().len(), 1);
            let page = app.get_ok(&format!("{ENDPOINTS}/{id}/deliveries"), &token).await;
            let delivery = page["items"][0]["id"].as_i64().expect("a delivery");
            let retry = format!("{ENDPOINTS}/{id}/deliveries/{delivery}/retry");
            let other = app.token(integrator("BR")).await;
            error_envelope(app.post(&retry, &other, &json!({})).await, StatusCode::NOT_FOUND).await;
            let response = app.post(&retry, &token, &json!({})).await;
            assert_eq!(response.status(), StatusCode::ACCEPTED);
            let retried: Value = response.json().await.expect("JSON");
            assert_eq!(retried["status"], "pending", "{retried}");
            // Due at once, but no sooner than the endpoint's pace allows after the first attempt.
            let pace = Duration::from_secs(1) / WebhooksConfig::default().per_endpoint_rate;
            tokio::time::sleep(pace).await;
            step(&worker).await;
            assert_eq!(receiver.received().len(), 2, "redelivered");
        }
    }
}

/// Claims when several societies have deliveries due: their share of a worker's slots, and several claimers at once.
mod between_societies {
    use super::*;

    /// Registers an endpoint for the society of `country` that nothing will answer, and queues `count` deliveries to
    /// it; answers the endpoint's id.
    async fn endpoint_with_deliveries(app: &TestApp, country: &str, count: usize) -> i64 {
        let token = app.token(integrator(country)).await;
        let id = register(app, &token, "http://127.0.0.1:9/hooks").await["id"]
            .as_i64()
            .expect("an id");
        for n in 0..count {
            change(app, &token, &format!("Reparto {country} {n}")).await;
        }
        id
    }

    on_both_backends_with! {
        driven_setup();

        async fn one_claim_serves_every_society_with_deliveries_due(app) {
            let busy = endpoint_with_deliveries(&app, "AR", 6).await;
            let quiet = endpoint_with_deliveries(&app, "BR", 1).await;
            let now = store::now_millis();
            fan_out_all(&app.store, now, 7).await;
            let lease = Duration::from_secs(60);
            let claimed = app.store.claim_webhook_deliveries("w", lease, 2, now).await.expect("claim");
            let mut endpoints: Vec<i64> = claimed.iter().map(|delivery| delivery.endpoint_id).collect();
            endpoints.sort_unstable();
            let mut expected = vec![busy, quiet];
            expected.sort_unstable();
            assert_eq!(endpoints, expected, "the society with a backlog leaves a slot to the other");
            let rest = app.store.claim_webhook_deliveries("w", lease, 128, now).await.expect("claim");
            assert_eq!(rest.len(), 5, "then the rest of the backlog");
            assert!(rest.iter().all(|delivery| delivery.endpoint_id == busy));
        }

        async fn claimers_at_once_never_take_the_same_delivery(app) {
            endpoint_with_deliveries(&app, "AR", 6).await;
            endpoint_with_deliveries(&app, "BR", 6).await;
            let now = store::now_millis();
            fan_out_all(&app.store, now, 12).await;
            let claimer = |worker: &'static str| {
                let store = app.store.clone();
                async move {
                    let mut taken = Vec::new();
                    loop {
                        let claimed = store.claim_webhook_deliveries(worker, Duration::from_secs(60), 2, now).await.expect("claim");
                        if claimed.is_empty() {
                            return taken;
                        }
                        taken.extend(claimed.into_iter().map(|delivery| (delivery.society_id, delivery.id)));
                    }
                }
            };
            let (first, second, third) = tokio::join!(claimer("a"), claimer("b"), claimer("c"));
            let mut taken = [first, second, third].concat();
            taken.sort_unstable();
            let count = taken.len();
            taken.dedup();
            assert_eq!((count, taken.len()), (12, 12), "every delivery claimed once, by one claimer");
        }
    }
}
