//! The Rust SDK (`client` crate) against the real server, black-box: its streams and filters must give what raw HTTP
//! gives, its errors must carry the decoded envelope, and its refresh, retries and idempotency keys must hide token
//! expiry, outages and lost answers from the caller. Stubs and proxies listen on loopback only.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::{DateTime, FixedOffset};
use client::futures_util::TryStreamExt;
use client::wire::auth::LoginResponse;
use client::wire::establishments::NewEstablishment;
use client::wire::Timestamp;
use client::{Client, Error, Filters, Generation, RetryPolicy, WorkOrderStates};
use reqwest::{Method, StatusCode};
use serde::Serialize;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::helpers::{error_envelope, integrator, Setup, TestApp};
use crate::{on_both_backends, on_both_backends_with};

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";

/// Quick retries, so a test that needs them stays short.
fn fast_retries() -> RetryPolicy {
    RetryPolicy {
        max_attempts: 3,
        initial_backoff: Duration::from_millis(50),
        max_backoff: Duration::from_secs(3),
    }
}

fn sdk(base: &str) -> Client {
    Client::builder(base)
        .retry_policy(fast_retries())
        .build()
        .expect("a client")
}

async fn logged_in(app: &TestApp) -> Client {
    let api = sdk(&app.base);
    let account = integrator("AR");
    api.login(account.email, account.password).await.expect("SDK login");
    api
}

/// Items as the JSON the SDK would send them, to compare with raw answers.
fn values<T: Serialize>(items: &[T]) -> Vec<Value> {
    items
        .iter()
        .map(|item| serde_json::to_value(item).expect("JSON"))
        .collect()
}

fn instant(value: &Value) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(value.as_str().expect("a timestamp")).expect("an RFC 3339 timestamp")
}

/// An instant as a query value: the API's pattern with the `+` percent-encoded.
fn query_instant(at: DateTime<FixedOffset>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%:z").to_string().replace('+', "%2B")
}

async fn raw_login(app: &TestApp) -> LoginResponse {
    serde_json::from_value(app.login_as(integrator("AR")).await).expect("a login response")
}

async fn raw_refresh(app: &TestApp, refresh_token: &str) -> reqwest::Response {
    app.request(Method::POST, "/api/v2/login/refresh")
        .json(&json!({ "refresh_token": refresh_token }))
        .send()
        .await
        .expect("refresh request")
}

async fn first_farmer(api: &Client) -> i64 {
    api.farmers(&Filters::new())
        .try_next()
        .await
        .expect("farmers")
        .expect("a farmer")
        .id
}

/// Reads one HTTP/1.1 request, head and body, from a connection; empty when the peer closed first.
async fn read_request(stream: &mut TcpStream) -> Vec<u8> {
    let mut request = Vec::new();
    let mut buffer = [0u8; 4096];
    let head_end = loop {
        if let Some(at) = request.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => return Vec::new(),
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    };
    let head = String::from_utf8_lossy(&request[..head_end]).to_ascii_lowercase();
    let length = head
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse::<usize>().ok())
        .unwrap_or(0);
    while request.len() < head_end + length {
        match stream.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => request.extend_from_slice(&buffer[..n]),
        }
    }
    request
}

/// A loopback proxy in front of `upstream` that loses one answer: the first request starting with `lose` is
/// forwarded, and once the server has answered, both connections are closed without passing the answer on. Every
/// other connection is piped through. Returns the proxy's base URL and whether it has lost an answer yet.
async fn lossy_proxy(upstream: &str, lose: &'static str) -> (String, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the proxy");
    let address = listener.local_addr().expect("the proxy's address");
    let upstream = upstream.trim_start_matches("http://").to_owned();
    let lost = Arc::new(AtomicBool::new(false));
    let lost_any = lost.clone();
    tokio::spawn(async move {
        while let Ok((mut inbound, _)) = listener.accept().await {
            let upstream = upstream.clone();
            let lost = lost.clone();
            tokio::spawn(async move {
                let Ok(mut outbound) = TcpStream::connect(&upstream).await else {
                    return;
                };
                let request = read_request(&mut inbound).await;
                if outbound.write_all(&request).await.is_err() {
                    return;
                }
                if request.starts_with(lose.as_bytes()) && !lost.swap(true, Ordering::SeqCst) {
                    // The first bytes of the answer mean the server has committed and remembered the create.
                    let mut answer = [0u8; 1024];
                    let _ = outbound.read(&mut answer).await;
                    return;
                }
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            });
        }
    });
    (format!("http://{address}"), lost_any)
}

on_both_backends! {
    async fn list_streams_are_the_raw_lists_over_every_page(app) {
        let api = logged_in(&app).await;
        let token = app.token(integrator("AR")).await;

        let farmers: Vec<_> = api.farmers(&Filters::new().size(3)).try_collect().await.expect("farmers");
        let raw = app.all_items("/api/v3/third_party/farmers?size=3", &token).await;
        assert!(raw.len() > 3, "several pages");
        assert_eq!(values(&farmers), raw);

        let farmers: Vec<_> = api.farmers_v2(&Filters::new()).try_collect().await.expect("v2 farmers");
        assert_eq!(values(&farmers), app.all_items("/api/v2/third_party/farmers", &token).await);
        let plots: Vec<_> = api.plots(&Filters::new()).try_collect().await.expect("v2 plots");
        assert_eq!(values(&plots), app.all_items("/api/v2/third_party/plots", &token).await);
        let establishments: Vec<_> = api.establishments(&Filters::new().size(2)).try_collect().await.expect("establishments");
        assert_eq!(values(&establishments), app.all_items(&format!("{ESTABLISHMENTS}?size=2"), &token).await);
        let orders: Vec<_> = api.work_orders(&Filters::new(), WorkOrderStates::default()).try_collect().await.expect("orders");
        assert_eq!(values(&orders), app.all_items("/api/v3/third_party/work_orders", &token).await);
        let pending = WorkOrderStates { pending: Some(true), ..WorkOrderStates::default() };
        let orders: Vec<_> = api.work_orders(&Filters::new(), pending).try_collect().await.expect("pending orders");
        assert_eq!(values(&orders), app.all_items("/api/v3/third_party/work_orders?pending=true", &token).await);
        let units: Vec<_> = api.units(&Filters::new()).try_collect().await.expect("units");
        assert_eq!(values(&units), app.all_items("/api/v3/third_party/units", &token).await);

        let first = &establishments[0];
        assert_eq!(&api.establishment(first.id).await.expect("detail"), first);
    }

    async fn filters_give_what_raw_http_gives(app) {
        let api = logged_in(&app).await;
        let token = app.token(integrator("AR")).await;

        let all = app.all_items(ESTABLISHMENTS, &token).await;
        let mut stamps: Vec<_> = all.iter().map(|e| instant(&e["updated_at"])).collect();
        stamps.sort_unstable();
        // In a positive offset, so the `+` must survive the query string.
        let india = FixedOffset::east_opt(5 * 3600 + 1800).expect("an offset");
        let cut = stamps[stamps.len() / 2].with_timezone(&india);
        let changed: Vec<_> = api.establishments(&Filters::new().updated_from(cut)).try_collect().await.expect("changed");
        let raw = app.all_items(&format!("{ESTABLISHMENTS}?updated_at_from={}", query_instant(cut)), &token).await;
        assert!(!raw.is_empty());
        assert_eq!(values(&changed), raw);

        let farmers: Vec<_> = api.farmers_v2(&Filters::new().updated_from(cut).created_from(cut)).try_collect().await.expect("v2");
        let q = query_instant(cut);
        assert_eq!(values(&farmers), app.all_items(&format!("/api/v2/third_party/farmers?updated_from={q}&created_from={q}"), &token).await);

        // A deletion shows up under deleted_from, and only there.
        let since = chrono::Utc::now() - chrono::Duration::seconds(2);
        let body = NewEstablishment { name: "Para borrar por el SDK".into(), farmer_id: first_farmer(&api).await, external_code: None, active: Some(false) };
        let created = api.create_establishment(&body).await.expect("create");
        let inactive: Vec<_> = api.establishments(&Filters::new().active(false)).try_collect().await.expect("inactive");
        assert!(inactive.iter().any(|e| e.id == created.id));
        assert_eq!(values(&inactive), app.all_items(&format!("{ESTABLISHMENTS}?active=false"), &token).await);
        api.delete_establishment(created.id).await.expect("delete");
        let deleted: Vec<_> = api.establishments(&Filters::new().deleted_from(since)).try_collect().await.expect("deleted");
        assert_eq!(deleted.iter().map(|e| e.id).collect::<Vec<_>>(), [created.id]);
        let since = since.fixed_offset();
        assert_eq!(values(&deleted), app.all_items(&format!("{ESTABLISHMENTS}?deleted_at_from={}", query_instant(since)), &token).await);
        let live: Vec<_> = api.establishments(&Filters::new()).try_collect().await.expect("live");
        assert!(live.iter().all(|e| e.id != created.id));
    }

    async fn errors_carry_the_decoded_envelope(app) {
        let api = sdk(&app.base);
        assert!(matches!(api.establishment(1).await, Err(Error::NotLoggedIn)));
        let account = integrator("AR");
        match api.login(account.email, "not-the-password").await {
            Err(Error::Api { status, code, message, reason, errors }) => {
                assert_eq!((status, code), (StatusCode::UNAUTHORIZED, 401));
                assert!(!message.is_empty());
                assert_eq!(reason.as_deref(), Some("bad_credentials"));
                assert!(errors.is_empty(), "only a 400 or 422 lists problems");
            }
            other => panic!("a wrong password must be a 401: {other:?}"),
        }
        api.login(account.email, account.password).await.expect("login");

        let missing = api.establishment(999_999).await.expect_err("no such establishment");
        assert_eq!((missing.status(), missing.code()), (Some(StatusCode::NOT_FOUND), Some(404)));
        assert!(missing.to_string().contains("999999"), "{missing}");
        assert_eq!(missing.reason(), Some("record_not_found"));

        let farmer = first_farmer(&api).await;
        let blank = NewEstablishment { name: "   ".into(), farmer_id: farmer, external_code: None, active: None };
        let refused = api.create_establishment(&blank).await.expect_err("a blank name is refused");
        let token = app.token(account).await;
        let (raw_code, raw_message) = error_envelope(app.post(ESTABLISHMENTS, &token, &json!({ "name": "   ", "farmer_id": farmer })).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        match refused {
            Error::Api { status, code, message, reason, errors } => {
                assert_eq!((status, code), (StatusCode::UNPROCESSABLE_ENTITY, raw_code));
                assert_eq!(message, raw_message);
                assert_eq!(reason.as_deref(), Some("validation_failed"));
                let problems: Vec<(&str, &str)> = errors.iter().map(|p| (p.path.as_str(), p.reason.as_str())).collect();
                assert_eq!(problems, [("name", "blank")]);
            }
            other => panic!("a refusal must be an API error: {other:?}"),
        }

        // A program tells a taken external code from any other refusal by its reason, in any language.
        let coded = NewEstablishment { name: "Sdk coded".into(), farmer_id: farmer, external_code: Some("SDK-REASON-1".into()), active: None };
        api.create_establishment(&coded).await.expect("the first with its code");
        let portuguese = Client::builder(&app.base).accept_language("pt").build().expect("a client");
        portuguese.login(account.email, account.password).await.expect("login");
        for client in [&api, &portuguese] {
            let again = client.create_establishment(&coded).await.expect_err("the code is taken");
            let next_step = match again.reason() {
                Some("external_code_taken") => "look the record up by its code",
                Some("validation_failed") => "fix the body",
                _ => "decide by the status",
            };
            assert_eq!(next_step, "look the record up by its code", "{again}");
            assert_eq!(again.status(), Some(StatusCode::CONFLICT));
        }

        let past = api.get::<Value>("/api/v3/third_party/applicators", vec![("page", "999".into())]).await.expect_err("past the last page");
        assert_eq!((past.status(), past.code()), (Some(StatusCode::NOT_FOUND), Some(0)), "the applicators quirk");

        let english = Client::builder(&app.base).accept_language("en").build().expect("a client");
        english.login(account.email, account.password).await.expect("login");
        let missing_en = english.establishment(999_999).await.expect_err("no such establishment");
        assert_ne!(missing_en.to_string(), missing.to_string(), "messages follow Accept-Language");
    }

    async fn a_work_order_round_trips_through_the_sdk(app) {
        let api = logged_in(&app).await;
        let orders: Vec<_> = api.work_orders(&Filters::new(), WorkOrderStates::default()).try_collect().await.expect("orders");
        let order = orders.iter().find(|o| !o.header.is_read_only && o.header.deleted_at.is_none()).expect("a writable order");
        let id = order.header.local_id;
        let read = api.work_order_tagged(id).await.expect("detail");
        assert_eq!(&read.value, order);
        let etag = read.etag.clone().expect("an ETag");

        // Sent back unchanged, nothing changes but the version.
        let unchanged = api.replace_work_order(id, &client::work_order_write(&read.value), Some(&etag)).await.expect("replace");
        assert_eq!(unchanged.value.supplies, read.value.supplies);
        assert_eq!(unchanged.value.labours, read.value.labours);
        let etag = unchanged.etag.expect("an ETag");

        let mut write = client::work_order_write(&unchanged.value);
        write.header.name = format!("{} (SDK)", write.header.name);
        write.header.state.executed = true;
        let replaced = api.replace_work_order(id, &write, Some(&etag)).await.expect("replace");
        assert_eq!(replaced.value.header.name, write.header.name);
        assert!(replaced.value.header.state.executed);
        assert_ne!(replaced.etag.as_deref(), Some(etag.as_str()));
        assert_eq!(api.work_order(id).await.expect("detail").header.name, write.header.name);

        let stale = api.replace_work_order(id, &write, Some(&etag)).await.expect_err("a stale If-Match");
        assert_eq!(stale.status(), Some(StatusCode::PRECONDITION_FAILED));
    }

    async fn a_create_whose_answer_was_lost_is_not_repeated(app) {
        let (proxy, lost) = lossy_proxy(&app.base, "POST /api/v3/third_party/establishments").await;
        // One connection per request, so the lost answer's connection is never reused.
        let http = reqwest::Client::builder().pool_max_idle_per_host(0).build().expect("an HTTP client");
        let api = Client::builder(&proxy).retry_policy(fast_retries()).http_client(http).build().expect("a client");
        let account = integrator("AR");
        api.login(account.email, account.password).await.expect("login");
        let body = NewEstablishment { name: "Creada una sola vez".into(), farmer_id: first_farmer(&api).await, external_code: Some("ERP-ONCE".into()), active: None };

        let created = tokio::time::timeout(Duration::from_secs(30), api.create_establishment(&body)).await.expect("bounded").expect("the retry succeeds");

        assert!(lost.load(Ordering::SeqCst), "the proxy lost the first answer");
        let direct = logged_in(&app).await;
        let all: Vec<_> = direct.establishments(&Filters::new()).try_collect().await.expect("establishments");
        let named: Vec<_> = all.iter().filter(|e| e.name == body.name).map(|e| e.id).collect();
        assert_eq!(named, [created.id], "one establishment, the one answered");
    }
}

mod refresh {
    use super::*;

    fn short_tokens() -> Setup {
        let mut setup = Setup::default();
        setup.store.auth.access_ttl = Duration::from_secs(2);
        setup
    }

    on_both_backends_with! {
        short_tokens();

        async fn the_access_token_is_refreshed_before_it_expires(app) {
            let grant = raw_login(&app).await;
            let first_refresh_token = grant.refresh_token.clone();
            // A resumed session has no credentials to log in again with, so only refresh can keep it alive.
            let api = sdk(&app.base);
            api.resume(grant).await;
            api.units(&Filters::new()).try_collect::<Vec<_>>().await.expect("units");

            for _ in 0..2 {
                tokio::time::sleep(Duration::from_millis(1700)).await;
                // Concurrent calls share one refresh: two refreshes with one single-use token would revoke them all.
                let calls: Vec<_> = (0..6)
                    .map(|_| {
                        let api = api.clone();
                        tokio::spawn(async move { api.establishments(&Filters::new()).try_collect::<Vec<_>>().await })
                    })
                    .collect();
                for call in calls {
                    call.await.expect("the task").expect("a call with a refreshed token");
                }
            }
            // The SDK used the first refresh token: presenting it again is refused.
            assert_eq!(raw_refresh(&app, &first_refresh_token).await.status(), StatusCode::UNAUTHORIZED);
        }

        async fn a_token_refused_with_401_is_refreshed_once(app) {
            let mut grant = raw_login(&app).await;
            let first_refresh_token = grant.refresh_token.clone();
            // As if the clocks disagreed: the client believes in the token for an hour, the server for 2 s.
            grant.expiration_datetime = Timestamp(grant.expiration_datetime.0 + chrono::Duration::hours(1));
            let api = sdk(&app.base);
            api.resume(grant).await;
            tokio::time::sleep(Duration::from_millis(2500)).await;
            let units: Vec<_> = api.units(&Filters::new()).try_collect().await.expect("units after a 401 and a refresh");
            assert!(!units.is_empty());
            assert_eq!(raw_refresh(&app, &first_refresh_token).await.status(), StatusCode::UNAUTHORIZED);
        }

        async fn a_logged_in_client_outlives_its_tokens(app) {
            let api = logged_in(&app).await;
            tokio::time::sleep(Duration::from_millis(2500)).await;
            api.farmers(&Filters::new()).try_collect::<Vec<_>>().await.expect("farmers");
        }
    }
}

mod repeated_last_page {
    use domain::NextPagePolicy;

    use super::*;

    fn repeating() -> Setup {
        let mut setup = Setup::default();
        setup.server.next_page = NextPagePolicy::Repeat;
        setup
    }

    on_both_backends_with! {
        repeating();

        async fn streams_stop_when_the_last_page_repeats_its_number(app) {
            let api = logged_in(&app).await;
            let token = app.token(integrator("AR")).await;
            let walk = async {
                let farmers: Vec<_> = api.farmers(&Filters::new().size(3)).try_collect().await.expect("farmers");
                let units: Vec<_> = api.units(&Filters::new()).try_collect().await.expect("units");
                (farmers, units)
            };
            let (farmers, units) = tokio::time::timeout(Duration::from_secs(30), walk).await.expect("the streams end");
            assert_eq!(values(&farmers), app.all_items("/api/v3/third_party/farmers?size=3", &token).await);
            assert_eq!(values(&units), app.all_items("/api/v3/third_party/units", &token).await);
        }
    }
}

/// A loopback stub of the API: login succeeds, and every other GET answers 503 with `Retry-After: 1` on even
/// requests and an empty page on odd ones. Returns its base URL and the count of GETs.
async fn flaky_stub() -> (String, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind the stub");
    let address = listener.local_addr().expect("the stub's address");
    let gets = Arc::new(AtomicUsize::new(0));
    let counter = gets.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let counter = counter.clone();
            tokio::spawn(async move {
                let request = read_request(&mut stream).await;
                let (status, extra, body) = if request.starts_with(b"POST /api/v2/login") {
                    let login = json!({ "access_token": "stub-access", "refresh_token": "stub-refresh",
                        "expiration_datetime": "2099-01-01T00:00:00-03:00",
                        "society": { "id": 1, "legalName": "Stub", "syncCheck": "1-1" } });
                    ("200 OK", "", login)
                } else if counter.fetch_add(1, Ordering::SeqCst) & 1 == 0 {
                    let error = json!({ "error": { "code": 503, "message": "En mantenimiento.", "exception": [] } });
                    ("503 Service Unavailable", "Retry-After: 1\r\n", error)
                } else {
                    let page = json!({ "items": [], "current_page": 1, "next_page": null, "total_pages": 1, "total_items": 0 });
                    ("200 OK", "", page)
                };
                let body = body.to_string();
                let answer = format!(
                    "HTTP/1.1 {status}\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = stream.write_all(answer.as_bytes()).await;
            });
        }
    });
    (format!("http://{address}"), gets)
}

#[tokio::test]
async fn a_503_is_retried_after_its_retry_after() {
    let (base, gets) = flaky_stub().await;
    let test = async {
        let api = sdk(&base);
        api.login("integrador@example.com", "secret").await.expect("stub login");
        let started = Instant::now();
        let items: Vec<Value> = api
            .list(Generation::V3, "/api/v3/third_party/units", &Filters::new())
            .try_collect()
            .await
            .expect("the retry succeeds");
        assert!(items.is_empty());
        assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After was honoured");
        assert_eq!(gets.load(Ordering::SeqCst), 2, "one 503, one retry");

        let impatient = Client::builder(&base)
            .retry_policy(RetryPolicy::none())
            .build()
            .expect("a client");
        impatient
            .login("integrador@example.com", "secret")
            .await
            .expect("stub login");
        let error = impatient
            .get::<Value>("/api/v3/third_party/units", Vec::new())
            .await
            .expect_err("no retry");
        assert_eq!(
            (error.status(), error.code()),
            (Some(StatusCode::SERVICE_UNAVAILABLE), Some(503))
        );
    };
    tokio::time::timeout(Duration::from_secs(20), test)
        .await
        .expect("bounded");
}
