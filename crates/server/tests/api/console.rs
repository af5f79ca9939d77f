//! The sandbox console: what it records of a society's requests (and what it never stores), its filters, the ring's
//! bound, its page, and that it does not exist unless turned on. Isolation between societies is also proven, route
//! by route, in `route_isolation.rs`.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use server::console::ConsoleConfig;
use server::ServerConfig;

use crate::helpers::{error_envelope, integrator, Setup, TestApp};
use crate::on_both_backends_with;

const REQUESTS: &str = "/console/api/requests";
const FARMERS: &str = "/api/v3/third_party/farmers";
/// Requests each society's ring keeps in these tests: small, so trimming is seen.
const RING: u32 = 6;

/// A server with the console on and a small ring.
pub fn console_on() -> Setup {
    let defaults = Setup::default();
    Setup {
        server: ServerConfig {
            console: ConsoleConfig {
                enabled: true,
                ring_size: RING,
                ..ConsoleConfig::default()
            },
            ..defaults.server
        },
        ..defaults
    }
}

/// The console's list for `token` with `query`, once it holds at least `count` requests (the writer stores them a
/// moment after they are answered).
pub async fn recorded(app: &TestApp, token: &str, query: &str, count: usize) -> Vec<Value> {
    let mut items = Vec::new();
    for _ in 0..100 {
        let answer = app.get_ok(&format!("{REQUESTS}{query}"), token).await;
        items = answer["items"].as_array().cloned().unwrap_or_default();
        if items.len() >= count {
            return items;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the console never showed {count} requests for {query:?}: {items:#?}");
}

async fn patch(app: &TestApp, path: &str, token: &str, body: &Value) -> StatusCode {
    app.request(Method::PATCH, path)
        .bearer_auth(token)
        .json(body)
        .send()
        .await
        .expect("PATCH request")
        .status()
}

/// Every stored text of a society's ring, straight from the database.
async fn stored_rows(app: &TestApp, society: i64, containing: &str) -> i64 {
    let sql = format!(
        "SELECT COUNT(*) FROM console_requests WHERE society_id = $1 AND (path || COALESCE(query, '') || \
         request_headers || COALESCE(request_body, '') || COALESCE(response_body, '') || \
         COALESCE(error_message, '')) LIKE '%{containing}%'"
    );
    app.integers(&sql, society).await.first().copied().unwrap_or_default()
}

on_both_backends_with! { console_on();
    async fn each_request_is_recorded_with_its_status_latency_id_error_and_reference(app) {
        let token = app.token(integrator("AR")).await;
        let listed = app.get(&format!("{FARMERS}?size=2"), &token).await;
        let farmers_request_id = listed.headers()["x-request-id"].to_str().expect("a request id").to_owned();
        assert_eq!(listed.status(), StatusCode::OK);
        let status = patch(&app, "/integration/api/v1/workOrders/999999999", &token, &json!({"header": {}})).await;
        assert!(status.is_client_error(), "{status}");

        let items = recorded(&app, &token, "", 2).await;
        let (newest, oldest) = (&items[0], &items[1]);
        assert_eq!(newest["method"], "PATCH");
        assert_eq!(newest["path"], "/integration/api/v1/workOrders/999999999");
        assert_eq!(newest["status"], status.as_u16());
        assert!(newest["error_message"].as_str().is_some_and(|m| !m.is_empty()), "{newest}");
        assert_eq!(newest["reference"]["url"], "/docs#/Work%20orders/replaceWorkOrder");
        assert!(newest.get("response_body").is_none(), "a list leaves bodies to the detail: {newest}");

        assert_eq!(oldest["method"], "GET");
        assert_eq!(oldest["path"], FARMERS);
        assert_eq!(oldest["query"], "size=2");
        assert_eq!(oldest["status"], 200);
        assert_eq!(oldest["request_id"], farmers_request_id);
        assert!(oldest["latency_ms"].as_i64().is_some_and(|ms| ms >= 0), "{oldest}");
        assert_eq!(oldest["error_message"], Value::Null);
        assert_eq!(oldest["reference"]["url"], "/docs#/Master%20data/listFarmers");

        let detail = app.get_ok(&format!("{REQUESTS}/{}", oldest["id"]), &token).await;
        assert_eq!(detail["response_body"]["items"].as_array().map(Vec::len), Some(2), "{detail}");
        assert_eq!(detail["request_headers"]["x-svc-system-id"], "8");
        let detail = app.get_ok(&format!("{REQUESTS}/{}", newest["id"]), &token).await;
        assert_eq!(detail["request_body"], json!({"header": {}}));
        assert_eq!(detail["response_body"]["error"]["message"], newest["error_message"]);
    }

    async fn secrets_are_never_stored(app) {
        let login = app.login_as(integrator("AR")).await;
        let token = login["access_token"].as_str().expect("a token").to_owned();
        let refresh = login["refresh_token"].as_str().expect("a refresh token").to_owned();
        let society = login["society"]["id"].as_i64().expect("the society's id");
        // A secret in the answer: a new webhook endpoint's signing secret.
        let created = app
            .post("/api/v3/third_party/webhook_endpoints", &token, &json!({"url": "https://erp.example.com/hooks", "types": ["work_order.*"]}))
            .await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let secret = created.json::<Value>().await.expect("JSON")["secret"].as_str().expect("a secret").to_owned();
        // Secrets in the body, at every depth, and in the query.
        let body = json!({
            "password": "Hunter2-Password",
            "nested": [{"refresh_token": refresh, "apiKey": "key-Hunter2", "kept": "visible-value"}],
            "pass": "Hunter2-pass", "pwd": "Hunter2-pwd", "key": "Hunter2-key", "api_key": "Hunter2-api",
            "auth": {"bearer": "Hunter2-bearer"}, "auth.bearer": "Hunter2-dotted", "credentials": ["Hunter2-cred"],
        });
        // And in headers, by name and by value.
        app.request(Method::PATCH, "/integration/api/v1/workOrders/1?access_token=query-Hunter2&key=Hunter2-q")
            .bearer_auth(&token)
            .header("X-Custom-Auth", "Hunter2-custom")
            .header("Proxy-Authorization", "Basic SHVudGVyMi1wcm94eQ==")
            .header("X-Forwarded-Note", "Bearer Hunter2-by-value")
            .header("Idempotency-Key", "retry-visible")
            .json(&body)
            .send()
            .await
            .expect("PATCH request");

        let items = recorded(&app, &token, "", 2).await;
        let patched = app.get_ok(&format!("{REQUESTS}/{}", items[0]["id"]), &token).await;
        assert_eq!(patched["request_body"]["password"], "[redacted]");
        assert_eq!(patched["request_body"]["nested"][0]["refresh_token"], "[redacted]");
        assert_eq!(patched["request_body"]["nested"][0]["apiKey"], "[redacted]");
        assert_eq!(patched["request_body"]["nested"][0]["kept"], "visible-value");
        for field in ["pass", "pwd", "key", "api_key", "auth", "auth.bearer", "credentials"] {
            assert_eq!(patched["request_body"][field], "[redacted]", "{field}");
        }
        assert_eq!(patched["query"], "access_token=%5Bredacted%5D&key=%5Bredacted%5D");
        for header in ["authorization", "x-custom-auth", "proxy-authorization", "x-forwarded-note"] {
            assert_eq!(patched["request_headers"][header], "[redacted]", "{header}");
        }
        assert_eq!(patched["request_headers"]["idempotency-key"], "retry-visible");
        let created = app.get_ok(&format!("{REQUESTS}/{}", items[1]["id"]), &token).await;
        assert_eq!(created["response_body"]["secret"], "[redacted]", "{created}");
        assert_eq!(created["response_body"]["url"], "https://erp.example.com/hooks");

        for secret in [token.as_str(), refresh.as_str(), secret.as_str(), "Hunter2"] {
            assert_eq!(stored_rows(&app, society, secret).await, 0, "{secret} is stored");
        }
        assert!(stored_rows(&app, society, "visible-value").await > 0, "the search itself finds what is stored");
    }

    async fn requests_are_filtered_by_status_class_exact_status_and_path(app) {
        let token = app.token(integrator("AR")).await;
        app.get_ok(FARMERS, &token).await;
        app.get_ok("/api/v3/third_party/establishments", &token).await;
        app.get(&format!("{FARMERS}/999999999"), &token).await;
        recorded(&app, &token, "", 3).await;

        let statuses = |items: Vec<Value>| items.iter().map(|i| i["status"].as_i64().unwrap_or_default()).collect::<Vec<_>>();
        assert_eq!(statuses(recorded(&app, &token, "?status=4xx", 1).await), [404]);
        assert_eq!(statuses(recorded(&app, &token, "?status=404", 1).await), [404]);
        assert_eq!(statuses(recorded(&app, &token, "?status=2xx", 2).await), [200, 200]);
        assert!(recorded(&app, &token, "?status=5xx", 0).await.is_empty());
        let farmers = recorded(&app, &token, "?path=farmers", 2).await;
        assert_eq!(farmers.len(), 2);
        assert!(farmers.iter().all(|item| item["path"].as_str().is_some_and(|p| p.contains("farmers"))));
        assert_eq!(recorded(&app, &token, "?path=farmers&status=200", 1).await.len(), 1);
        assert_eq!(recorded(&app, &token, "?limit=1", 1).await.len(), 1);

        for wrong in ["?status=6xx", "?status=abc", "?status=99", "?limit=0", "?limit=100000"] {
            let response = app.get(&format!("{REQUESTS}{wrong}"), &token).await;
            error_envelope(response, StatusCode::BAD_REQUEST).await;
        }
    }

    async fn the_ring_keeps_the_newest_requests_of_each_society(app) {
        let token = app.token(integrator("AR")).await;
        let other = app.token(integrator("BR")).await;
        app.get_ok(FARMERS, &other).await;
        let sizes: Vec<u32> = (1..=RING + 4).collect();
        for size in &sizes {
            app.get_ok(&format!("{FARMERS}?size={size}"), &token).await;
        }
        // The last request's capture is stored once its answer has been sent: wait for it to be the newest.
        let newest = format!("size={}", RING + 4);
        let mut items = Vec::new();
        for _ in 0..100 {
            items = recorded(&app, &token, "", 1).await;
            if items[0]["query"] == newest.as_str() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let queries: Vec<String> = items.iter().map(|item| item["query"].as_str().unwrap_or_default().to_owned()).collect();
        let expected: Vec<String> = sizes.iter().rev().take(RING as usize).map(|size| format!("size={size}")).collect();
        assert_eq!(queries, expected, "the newest {RING}, newest first");
        let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("an id");
        let rows = app.integers("SELECT COUNT(*) FROM console_requests WHERE society_id = $1", society).await;
        assert_eq!(rows, [i64::from(RING)], "older requests are deleted, not only hidden");
        // Another society's ring is its own: its one request was not trimmed away by this one's.
        assert_eq!(recorded(&app, &other, "", 1).await.len(), 1);
    }

    async fn a_burst_of_requests_lands_in_the_ring_in_order(app) {
        let token = app.token(integrator("AR")).await;
        // Sent one after another without waiting for the console: the writer stores them in batches.
        let sizes: Vec<u32> = (1..=RING).collect();
        for size in &sizes {
            app.get_ok(&format!("{FARMERS}?size={size}"), &token).await;
        }
        let newest = format!("size={RING}");
        let mut items = Vec::new();
        for _ in 0..100 {
            items = recorded(&app, &token, "", 1).await;
            if items.len() == RING as usize && items[0]["query"] == newest.as_str() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let queries: Vec<&str> = items.iter().filter_map(|item| item["query"].as_str()).collect();
        let expected: Vec<String> = sizes.iter().rev().map(|size| format!("size={size}")).collect();
        assert_eq!(queries, expected, "every request of the burst, newest first");
        let ids: Vec<i64> = items.iter().filter_map(|item| item["id"].as_i64()).collect();
        assert!(ids.windows(2).all(|pair| pair[0] > pair[1]), "stored in the order they were answered: {ids:?}");
        assert_eq!(app.get_ok(REQUESTS, &token).await["dropped"], 0, "none dropped");
    }

    async fn a_society_sees_only_its_own_requests(app) {
        let a = app.token(integrator("AR")).await;
        let b = app.token(integrator("BR")).await;
        app.get_ok(FARMERS, &a).await;
        app.get(&format!("{FARMERS}/999999999"), &a).await;
        let mine = recorded(&app, &a, "", 2).await;
        app.get_ok("/api/v3/third_party/establishments", &b).await;
        let theirs = recorded(&app, &b, "", 1).await;
        assert_eq!(theirs.len(), 1, "B sees its one request only: {theirs:#?}");
        assert_eq!(theirs[0]["path"], "/api/v3/third_party/establishments");
        for item in &mine {
            let response = app.get(&format!("{REQUESTS}/{}", item["id"]), &b).await;
            error_envelope(response, StatusCode::NOT_FOUND).await;
        }
        for query in ["?path=farmers", "?status=4xx", "?status=200"] {
            let items = app.get_ok(&format!("{REQUESTS}{query}"), &b).await["items"].clone();
            assert!(items.as_array().is_some_and(|items| items.iter().all(|i| i["path"] != FARMERS)), "{query}: {items}");
        }
        let unauthenticated = app.client.get(format!("{}{REQUESTS}", app.base)).send().await.expect("GET");
        error_envelope(unauthenticated, StatusCode::UNAUTHORIZED).await;
    }

    async fn every_process_on_the_database_records_into_one_ring(app) {
        let other = app.sibling_with(console_on().server).await;
        let token = app.token(integrator("AR")).await;
        app.get_ok(FARMERS, &token).await;
        other.get_ok("/api/v3/third_party/establishments", &token).await;
        for process in [&app, &other] {
            let items = recorded(process, &token, "", 2).await;
            let paths: Vec<&str> = items.iter().filter_map(|item| item["path"].as_str()).collect();
            assert!(paths.contains(&FARMERS) && paths.contains(&"/api/v3/third_party/establishments"), "{paths:?}");
        }
    }

    async fn the_page_loads_only_its_own_script_and_stylesheet(app) {
        let page = app.client.get(format!("{}/console", app.base)).send().await.expect("GET /console");
        assert_eq!(page.status(), StatusCode::OK);
        let policy = page.headers()["content-security-policy"].to_str().expect("a policy").to_owned();
        assert!(policy.contains("default-src 'self'") && policy.contains("script-src 'self'"), "{policy}");
        assert!(!policy.contains("unsafe-inline") && !policy.contains("http"), "{policy}");
        let html = page.text().await.expect("the page");
        let document = app.served_document().await;
        let described: Vec<&String> = document["paths"].as_object().expect("paths").keys().filter(|p| p.starts_with("/console")).collect();
        assert!(described.is_empty(), "the console is not part of the API's document: {described:?}");
        assert!(html.contains(r#"<script src="/console/console.js" defer></script>"#));
        assert_eq!(html.matches("<script").count(), 1, "no inline script");
        assert!(!html.contains("http://") && !html.contains("https://") && !html.contains("//cdn"), "nothing from elsewhere");
        assert!(html.contains(r#"data-system-id-header="X-SVC-SYSTEM-ID""#));
        for (asset, kind) in [("/console/console.js", "text/javascript"), ("/console/console.css", "text/css")] {
            let response = app.client.get(format!("{}{asset}", app.base)).send().await.expect("an asset");
            assert_eq!(response.status(), StatusCode::OK, "{asset}");
            assert!(response.headers()["content-type"].to_str().is_ok_and(|t| t.starts_with(kind)), "{asset}");
            let text = response.text().await.expect("the asset");
            assert!(!text.contains("http://") && !text.contains("https://"), "{asset} reaches nowhere else");
        }
    }
}

/// The default configuration, as `serve` runs.
mod off {
    use super::*;
    use crate::on_both_backends;

    on_both_backends! {
        async fn the_console_is_off_unless_turned_on_and_then_records_nothing(app) {
            let token = app.token(integrator("AR")).await;
            app.get_ok(FARMERS, &token).await;
            for path in ["/console", "/console/console.js", "/console/api/requests", "/console/api/requests/1"] {
                let response = app.get(path, &token).await;
                error_envelope(response, StatusCode::NOT_FOUND).await;
            }
            tokio::time::sleep(Duration::from_millis(300)).await;
            let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("an id");
            assert_eq!(app.integers("SELECT COUNT(*) FROM console_requests WHERE society_id = $1 OR 1 = 1", society).await, [0]);
        }
    }
}

/// A writer that cannot keep up: captures beyond the channel are dropped and counted, and requests never suffer.
mod full_queue {
    use super::*;

    /// Requests sent at once.
    const BURST: usize = 40;

    fn one_waiting_capture() -> Setup {
        let mut setup = console_on();
        setup.server.console.queue = 1;
        setup.server.console.ring_size = 100;
        setup
    }

    on_both_backends_with! { one_waiting_capture();
        async fn captures_beyond_the_queue_are_dropped_and_counted_and_requests_still_answered(app) {
            let token = app.token(integrator("AR")).await;
            let answers = futures_util::future::join_all((0..BURST).map(|_| app.get(FARMERS, &token))).await;
            assert!(answers.iter().all(|answer| answer.status() == StatusCode::OK), "every request is answered");
            let mut accounted = (0, 0);
            for _ in 0..100 {
                let listed = app.get_ok(REQUESTS, &token).await;
                let stored = listed["items"].as_array().map_or(0, Vec::len);
                accounted = (stored, listed["dropped"].as_u64().unwrap_or_default() as usize);
                if accounted.0 + accounted.1 == BURST {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            assert_eq!(accounted.0 + accounted.1, BURST, "every request is stored or counted as dropped: {accounted:?}");
            assert!(accounted.0 >= 1, "the writer stored some: {accounted:?}");
        }
    }
}

/// The console's JSON is an API call like any other: the system-id header, and no NUL in its filters.
mod as_the_api {
    use super::*;

    on_both_backends_with! { console_on();
        async fn the_consoles_data_needs_the_system_id_header_and_its_page_does_not(app) {
            let token = app.token(integrator("AR")).await;
            let without = app.client.get(format!("{}{REQUESTS}", app.base)).bearer_auth(&token).send().await.expect("GET");
            let (code, message) = error_envelope(without, StatusCode::UNAUTHORIZED).await;
            assert_eq!(code, 401);
            assert!(message.contains("X-SVC-SYSTEM-ID"), "{message}");
            let wrong = app
                .client
                .get(format!("{}{REQUESTS}/1", app.base))
                .bearer_auth(&token)
                .header("X-SVC-SYSTEM-ID", "9")
                .send()
                .await
                .expect("GET");
            error_envelope(wrong, StatusCode::UNAUTHORIZED).await;
            app.get_ok(REQUESTS, &token).await;
            for page in ["/console", "/console/console.js", "/console/console.css"] {
                let response = app.client.get(format!("{}{page}", app.base)).send().await.expect("GET");
                assert_eq!(response.status(), StatusCode::OK, "{page}: a browser loads it without API headers");
            }
            let script = app.client.get(format!("{}/console/console.js", app.base)).send().await.expect("GET");
            let script = script.text().await.expect("the script");
            assert!(script.contains("sent[systemIdHeader] = systemId"), "the page's calls send the header");
        }

        async fn nul_in_the_path_filter_is_400_not_a_database_error(app) {
            let token = app.token(integrator("AR")).await;
            for query in ["?path=%00", "?path=plots%00x", "?status=4xx&path=%00"] {
                let response = app.get(&format!("{REQUESTS}{query}"), &token).await;
                let (code, message) = error_envelope(response, StatusCode::BAD_REQUEST).await;
                assert_eq!(code, 400);
                assert!(message.contains("NUL"), "{query}: {message}");
            }
        }
    }
}

/// "Send again": whether a recorded request can be sent again as it was recorded, and a request sent again is
/// recorded like any other.
mod send_again {
    use super::*;

    /// The detail of the newest recorded request whose path and query hold `part`.
    async fn detail_of(app: &TestApp, token: &str, part: &str) -> Value {
        for _ in 0..100 {
            let items = app.get_ok(REQUESTS, token).await["items"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            let found = items.iter().find(|item| {
                let shown = format!(
                    "{}?{}",
                    item["path"].as_str().unwrap_or(""),
                    item["query"].as_str().unwrap_or("")
                );
                shown.contains(part)
            });
            if let Some(found) = found {
                return app.get_ok(&format!("{REQUESTS}/{}", found["id"]), token).await;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the console never recorded a request to {part}");
    }

    on_both_backends_with! { console_on();
        async fn a_request_holding_a_redacted_secret_or_a_body_not_kept_cannot_be_sent_again(app) {
            let token = app.token(integrator("AR")).await;
            app.get_ok(&format!("{FARMERS}?size=1"), &token).await;
            app.get(&format!("{FARMERS}?size=2&api_key=abc123"), &token).await;
            let applicators = "/api/v2/third_party/applicators";
            app.post(&format!("{applicators}?marca=1"), &token, &json!({"name": "Con secreto", "password": "x"})).await;
            app.request(Method::POST, &format!("{applicators}?texto=1"))
                .bearer_auth(&token)
                .header("content-type", "text/plain")
                .body("no es JSON")
                .send()
                .await
                .expect("POST");

            let plain = detail_of(&app, &token, "farmers?size=1").await;
            assert_eq!(plain["resend"], json!({"allowed": true}), "{plain}");
            let list = app.get_ok(REQUESTS, &token).await;
            assert!(list["items"].as_array().is_some_and(|items| items.iter().all(|item| item.get("resend").is_none())),
                "a list leaves it to the detail: {list}");
            let query = detail_of(&app, &token, "api_key=").await;
            assert_eq!(query["resend"], json!({"allowed": false, "reason": "redacted_secret"}), "{query}");
            let body = detail_of(&app, &token, "marca=1").await;
            assert_eq!(body["request_body"]["password"], "[redacted]", "{body}");
            assert_eq!(body["resend"], json!({"allowed": false, "reason": "redacted_secret"}), "{body}");
            let text = detail_of(&app, &token, "texto=1").await;
            assert_eq!(text["resend"], json!({"allowed": false, "reason": "body_not_kept"}), "{text}");
        }

        async fn a_request_sent_again_as_recorded_is_recorded_like_any_other(app) {
            let token = app.token(integrator("AR")).await;
            app.get_ok(&format!("{FARMERS}?size=1"), &token).await;
            let first = detail_of(&app, &token, "farmers?size=1").await;
            assert_eq!(first["resend"]["allowed"], true, "{first}");
            // What the page does: the same method, path and query, its own token, a request id of its own.
            let path = format!("{}?{}", first["path"].as_str().expect("a path"), first["query"].as_str().expect("a query"));
            let again = app
                .request(Method::GET, &path)
                .bearer_auth(&token)
                .header("x-request-id", "console-resend-test")
                .send()
                .await
                .expect("GET");
            assert_eq!(again.status(), StatusCode::OK);
            let items = recorded(&app, &token, "?path=farmers", 2).await;
            assert_eq!(items[0]["request_id"], "console-resend-test", "{items:#?}");
            assert_eq!(items[0]["query"], first["query"]);
            assert_ne!(items[0]["id"], first["id"]);
        }
    }
}

/// "Redeliver": a delivery is sent again from every final state, to a disabled endpoint too, and its new attempt is
/// listed with the receiver's answer.
mod redeliver {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;

    use domain::webhooks::UrlPolicy;
    use server::webhooks::Deliverer;

    use super::*;

    const ENDPOINTS: &str = "/api/v3/third_party/webhook_endpoints";
    /// What the receiver answers, whose first bytes each attempt keeps.
    const ANSWER: &str = "recibido por el ERP";

    /// The console on, as `demo` runs it (http and loopback receivers), with a delivery worker the test drives.
    fn driven() -> Setup {
        let mut setup = console_on();
        setup.server.webhooks.policy = UrlPolicy::DEMO;
        setup.server.webhooks.enabled = false;
        setup.server.jobs.enabled = false;
        setup
    }

    /// A receiver on a local port that answers every delivery 200 with [`ANSWER`]; answers how many it got.
    async fn receiver() -> (Arc<AtomicUsize>, std::net::SocketAddr) {
        let count = Arc::new(AtomicUsize::new(0));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind the receiver");
        let address = listener.local_addr().expect("the receiver's address");
        let counted = count.clone();
        let app = axum::Router::new().route(
            "/hooks",
            axum::routing::post(move || {
                let counted = counted.clone();
                async move {
                    counted.fetch_add(1, Ordering::SeqCst);
                    ANSWER
                }
            }),
        );
        tokio::spawn(async move { axum::serve(listener, app).await });
        (count, address)
    }

    /// Steps `worker` until `received` reaches `count`.
    async fn deliver_until(worker: &Deliverer, received: &AtomicUsize, count: usize) {
        for _ in 0..200 {
            worker.step().await.expect("a step");
            worker.settle().await;
            if received.load(Ordering::SeqCst) >= count {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "the receiver got {} of {count} deliveries",
            received.load(Ordering::SeqCst)
        );
    }

    on_both_backends_with! { driven();
        async fn a_delivery_is_redelivered_from_every_final_state_and_shows_each_attempt(app) {
            let (received, address) = receiver().await;
            let login = app.login_as(integrator("AR")).await;
            let token = login["access_token"].as_str().expect("a token").to_owned();
            let society = login["society"]["id"].as_i64().expect("a society");
            let body = json!({"url": format!("http://{address}/hooks"), "types": ["applicator.*"]});
            let endpoint: Value = app.post(ENDPOINTS, &token, &body).await.json().await.expect("JSON");
            let endpoint = endpoint["id"].as_i64().expect("an endpoint");
            let created = app.post("/api/v2/third_party/applicators", &token, &json!({"name": "Reenvío"})).await;
            assert_eq!(created.status(), StatusCode::CREATED);
            let worker = Deliverer::new(app.store.clone(), driven().server.webhooks).expect("a worker");
            deliver_until(&worker, &received, 1).await;
            let deliveries = format!("{ENDPOINTS}/{endpoint}/deliveries");
            let delivery = app.get_ok(&deliveries, &token).await["items"][0].clone();
            assert_eq!(delivery["status"], "succeeded", "{delivery}");
            let id = delivery["id"].as_i64().expect("a delivery");

            let settled = [
                ("succeeded", ""),
                ("failed", "UPDATE webhook_deliveries SET status = 'failed' WHERE society_id = $1"),
                // Abandoned because its endpoint was disabled: the redelivery goes to it all the same, once.
                ("abandoned", "UPDATE webhook_endpoints SET state = 'disabled' WHERE society_id = $1"),
            ];
            for (attempts, (state, setup)) in (2..).zip(settled) {
                if !setup.is_empty() {
                    app.execute(setup, society).await.expect("the delivery's state");
                }
                if state == "abandoned" {
                    app.execute("UPDATE webhook_deliveries SET status = 'abandoned' WHERE society_id = $1", society)
                        .await
                        .expect("abandoned");
                }
                let listed = app.get_ok(&deliveries, &token).await;
                assert_eq!(listed["items"][0]["status"], state, "{listed}");
                let retry = app.post(&format!("{deliveries}/{id}/retry"), &token, &json!({})).await;
                assert_eq!(retry.status(), StatusCode::ACCEPTED, "{state}");
                let retried: Value = retry.json().await.expect("JSON");
                assert_eq!(retried["status"], "pending", "{state}: {retried}");
                assert!(retried["next_attempt_at"].is_string(), "a pending delivery says when: {retried}");
                // The endpoint's pace allows one attempt every 40 ms.
                tokio::time::sleep(Duration::from_millis(50)).await;
                deliver_until(&worker, &received, attempts).await;
                let listed = app.get_ok(&deliveries, &token).await;
                let shown = &listed["items"][0];
                assert_eq!(shown["status"], "succeeded", "redelivered from {state}: {shown}");
                assert_eq!(shown["next_attempt_at"], Value::Null, "{shown}");
                let all = shown["attempts"].as_array().expect("attempts");
                assert_eq!(all.len(), attempts, "{shown}");
                let last = &all[attempts - 1];
                assert_eq!(last["status_code"], 200, "{last}");
                assert_eq!(last["response_head"], ANSWER, "{last}");
                assert!(last["latency_ms"].as_i64().is_some_and(|ms| ms >= 0) && last["attempted_at"].is_string(), "{last}");
            }
            let read = app.get_ok(&format!("{ENDPOINTS}/{endpoint}"), &token).await;
            assert_eq!(read["state"], "disabled", "a redelivery does not enable the endpoint again: {read}");
            // The mark went with the claim: due again without a redelivery, the delivery is abandoned unsent, as a
            // disabled endpoint's deliveries are.
            let marked = "SELECT COUNT(*) FROM webhook_deliveries WHERE society_id = $1 AND redelivery";
            assert_eq!(app.integers(marked, society).await, [0]);
            app.execute("UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = 0 WHERE society_id = $1", society).await.expect("due");
            tokio::time::sleep(Duration::from_millis(50)).await;
            worker.step().await.expect("a step");
            worker.settle().await;
            assert_eq!(app.get_ok(&deliveries, &token).await["items"][0]["status"], "abandoned");
            assert_eq!(received.load(Ordering::SeqCst), 4, "nothing more was sent");
        }
    }
}

/// The page's words: every value the API gives a delivery's status or an endpoint's state has a label in each of
/// the page's three languages, and the page offers the three.
mod words {
    use super::*;

    on_both_backends_with! { console_on();
        async fn every_status_and_state_has_its_words_in_es_pt_and_en(app) {
            let page = app.client.get(format!("{}/console", app.base)).send().await.expect("GET").text().await.expect("the page");
            for code in ["es", "pt", "en"] {
                assert!(page.contains(&format!(r#"<option value="{code}">"#)), "the selector offers {code}");
            }
            let script = app.client.get(format!("{}/console/console.js", app.base)).send().await.expect("GET");
            let script = script.text().await.expect("the script");
            let values = ["delivery_pending", "delivery_delivering", "delivery_succeeded", "delivery_failed",
                "delivery_abandoned", "state_enabled", "state_disabled", "resend_redacted_secret", "resend_body_not_kept"];
            for key in values {
                assert_eq!(script.matches(&format!("{key}: \"")).count(), 3, "{key} in each language");
            }
            let spanish = script.split("pt: {").next().expect("the Spanish words");
            for label in ["delivery_succeeded: \"entregada\"", "state_enabled: \"habilitado\"", "delivery_pending: \"pendiente\""] {
                assert!(spanish.contains(label), "{label}");
            }
        }
    }
}
