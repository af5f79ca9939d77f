//! Limits: rate limits per token and per client address (429 in the envelope, with `Retry-After` and the
//! `RateLimit-Policy` / `RateLimit` headers), counted across processes, whom `X-Forwarded-For` is believed from, and
//! the time-outs that keep a slow client from holding a connection. A request's limits are decided in the HTTP layer,
//! before any query, so these tests run on SQLite only, but for the one of two processes sharing their buckets
//! through the database, which runs on both. The page-size maximum and the body limit are tested in `pipeline.rs`
//! (`bad_page_and_size_values_are_400`, `oversized_bodies_are_413_in_the_envelope`).

use std::net::IpAddr;
use std::time::{Duration, Instant};

use reqwest::{Method, StatusCode};
use server::ratelimit::{parse_network, Rate};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::helpers::{error_envelope, integrator, Backend, Setup, TestApp};

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";

/// Three requests, then one a minute: a test never sees the bucket refill.
const THREE: Option<Rate> = Some(Rate {
    burst: 3,
    replenish: Duration::from_secs(60),
});

/// Twenty requests a second, twenty at once.
const TWENTY: Option<Rate> = Some(Rate {
    burst: 20,
    replenish: Duration::from_millis(50),
});

fn limits(per_token: Option<Rate>, per_address: Option<Rate>, trusted: &[&str]) -> Setup {
    let mut setup = Setup::default();
    setup.server.rate_limits.per_token = per_token;
    setup.server.rate_limits.per_address = per_address;
    setup.server.rate_limits.trusted_proxies = trusted.iter().map(|n| parse_network(n).expect("a network")).collect();
    setup
}

fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn each_token_has_its_own_bucket_and_past_it_gets_429_in_the_envelope() {
    let app = TestApp::spawn_with(Backend::Sqlite, limits(THREE, None, &[])).await;
    let argentina = app.token(integrator("AR")).await;
    let brazil = app.token(integrator("BR")).await;
    for remaining in [2, 1, 0] {
        let response = app.get(ESTABLISHMENTS, &argentina).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(header(&response, "ratelimit-policy"), r#""token";q=3;w=180"#);
        let reset = 60 * (3 - remaining);
        assert_eq!(
            header(&response, "ratelimit"),
            format!(r#""token";r={remaining};t={reset}"#)
        );
    }
    let refused = app
        .request(Method::GET, ESTABLISHMENTS)
        .bearer_auth(&argentina)
        .header("accept-language", "en")
        .send()
        .await
        .expect("send");
    let retry_after: u64 = header(&refused, "retry-after").parse().expect("Retry-After in seconds");
    assert!((1..=60).contains(&retry_after), "Retry-After {retry_after}");
    assert_eq!(header(&refused, "ratelimit"), r#""token";r=0;t=180"#);
    assert_eq!(header(&refused, "ratelimit-policy"), r#""token";q=3;w=180"#);
    let (code, message) = error_envelope(refused, StatusCode::TOO_MANY_REQUESTS).await;
    assert_eq!(code, 429);
    assert_eq!(
        message,
        format!("Too many requests. Try again in {retry_after} seconds.")
    );

    assert_eq!(
        app.get(ESTABLISHMENTS, &brazil).await.status(),
        StatusCode::OK,
        "another token's bucket is full"
    );
    let login = app.login_as(integrator("AR")).await;
    let fresh = login["access_token"].as_str().expect("a token");
    assert_eq!(
        app.get(ESTABLISHMENTS, fresh).await.status(),
        StatusCode::OK,
        "a new token, a new bucket"
    );
    let health = app
        .client
        .get(format!("{}/health", app.base))
        .send()
        .await
        .expect("send");
    assert_eq!(
        health.status(),
        StatusCode::OK,
        "a call without a token is not limited per token"
    );
    assert!(health.headers().get("ratelimit").is_none());
}

#[tokio::test]
async fn each_address_has_its_own_bucket_whatever_the_token() {
    let app = TestApp::spawn_with(Backend::Sqlite, limits(None, THREE, &[])).await;
    for _ in 0..3 {
        let response = app
            .client
            .get(format!("{}/health", app.base))
            .send()
            .await
            .expect("send");
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(header(&response, "ratelimit-policy"), r#""address";q=3;w=180"#);
    }
    let refused = app
        .request(Method::GET, ESTABLISHMENTS)
        .bearer_auth("any-token")
        .send()
        .await
        .expect("send");
    assert!(header(&refused, "retry-after").parse::<u64>().is_ok_and(|s| s >= 1));
    let (code, message) = error_envelope(refused, StatusCode::TOO_MANY_REQUESTS).await;
    assert_eq!(code, 429);
    assert!(message.starts_with("Demasiadas solicitudes"), "{message}");
    let refused_login = app.login(integrator("AR").email, integrator("AR").password).await;
    error_envelope(refused_login, StatusCode::TOO_MANY_REQUESTS).await;

    let elsewhere = reqwest::Client::builder()
        .local_address("127.0.0.2".parse::<IpAddr>().expect("an address"))
        .build()
        .expect("a client on another loopback address");
    let response = elsewhere
        .get(format!("{}/health", app.base))
        .send()
        .await
        .expect("send");
    assert_eq!(response.status(), StatusCode::OK, "another address's bucket is full");
    assert_eq!(header(&response, "ratelimit"), r#""address";r=2;t=60"#);
}

#[tokio::test]
async fn forwarded_addresses_are_believed_only_from_trusted_proxies() {
    let one = Some(Rate {
        burst: 1,
        replenish: Duration::from_secs(60),
    });
    let forwarded = |app: &TestApp, client: &'static str| {
        app.client
            .get(format!("{}/health", app.base))
            .header("x-forwarded-for", client)
            .send()
    };
    let behind_proxy = TestApp::spawn_with(Backend::Sqlite, limits(None, one, &["127.0.0.0/8"])).await;
    assert_eq!(
        forwarded(&behind_proxy, "203.0.113.7").await.expect("send").status(),
        StatusCode::OK
    );
    let again = forwarded(&behind_proxy, "203.0.113.7").await.expect("send");
    error_envelope(again, StatusCode::TOO_MANY_REQUESTS).await;
    let other_client = forwarded(&behind_proxy, "198.51.100.1, 203.0.113.8")
        .await
        .expect("send");
    assert_eq!(
        other_client.status(),
        StatusCode::OK,
        "the proxy's last hop names the client"
    );

    let exposed = TestApp::spawn_with(Backend::Sqlite, limits(None, one, &[])).await;
    assert_eq!(
        forwarded(&exposed, "203.0.113.7").await.expect("send").status(),
        StatusCode::OK
    );
    let spoofed = forwarded(&exposed, "203.0.113.8").await.expect("send");
    error_envelope(spoofed, StatusCode::TOO_MANY_REQUESTS).await;
}

#[tokio::test]
async fn by_default_successful_answers_say_where_the_client_stands() {
    let app = TestApp::spawn(Backend::Sqlite).await;
    let token = app.token(integrator("AR")).await;
    let response = app.get(ESTABLISHMENTS, &token).await;
    assert_eq!(response.status(), StatusCode::OK);
    assert_eq!(
        header(&response, "ratelimit-policy"),
        r#""address";q=4000;w=2, "token";q=2000;w=2"#
    );
    let state = header(&response, "ratelimit");
    let (address, token) = state.split_once(", ").expect("two limits");
    let remaining: u32 = address
        .strip_prefix(r#""address";r="#)
        .and_then(|rest| rest.split(';').next())
        .and_then(|r| r.parse().ok())
        .expect("the address's remaining requests");
    assert!((3990..4000).contains(&remaining), "{state}");
    assert!(
        token.starts_with(r#""token";r=1999;t="#),
        "a fresh token's first request: {state}"
    );
}

/// The rows of the shared buckets of `limit` on `app`'s database.
async fn shared_buckets(app: &TestApp, limit: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM rate_limit_buckets WHERE limit_name = '{limit}' AND tat_us >= $1");
    app.integers(&sql, 0).await.first().copied().unwrap_or_default()
}

/// Long enough for every request sent before it to be shared.
async fn after_a_share() {
    tokio::time::sleep(server::ratelimit::SHARE_EVERY * 3).await;
}

/// Every request with a random bearer token used to become a bucket, and a row of `rate_limit_buckets` at the next
/// share: an anonymous client could grow the database without bound. A bucket of a minute's refill, so that none is
/// spent before it is counted.
async fn only_tokens_that_authenticate_get_a_bucket(backend: Backend) {
    let minute = Some(Rate {
        burst: 1_000,
        replenish: Duration::from_secs(60),
    });
    let app = TestApp::spawn_with(backend, limits(minute, minute, &[])).await;
    let forged: Vec<String> = (0..300).map(|n| format!("1.{n:0>43}")).collect();
    let answers =
        client::futures_util::future::join_all(forged.iter().map(|token| app.get(ESTABLISHMENTS, token))).await;
    for answer in &answers {
        assert_eq!(answer.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            header(answer, "ratelimit-policy"),
            r#""address";q=1000;w=60000"#,
            "an invalid token counts against its address only"
        );
    }
    let token = app.token(integrator("AR")).await;
    let response = app.get(ESTABLISHMENTS, &token).await;
    assert_eq!(
        header(&response, "ratelimit-policy"),
        r#""address";q=1000;w=60000, "token";q=1000;w=60000"#
    );
    after_a_share().await;
    assert_eq!(
        shared_buckets(&app, "token").await,
        1,
        "one bucket: the token that authenticated"
    );
    assert_eq!(shared_buckets(&app, "address").await, 1);
}

#[tokio::test]
async fn on_sqlite_only_tokens_that_authenticate_get_a_bucket() {
    only_tokens_that_authenticate_get_a_bucket(Backend::Sqlite).await;
}

#[tokio::test]
async fn on_postgres_only_tokens_that_authenticate_get_a_bucket() {
    only_tokens_that_authenticate_get_a_bucket(Backend::Postgres).await;
}

/// Clients from many addresses (here named by a trusted proxy) each leave a bucket; once full again, they go at the
/// next share rather than waiting for housekeeping's rounds, so the table holds only the last moments' clients.
async fn spent_buckets_leave_the_table_at_the_next_share(backend: Backend) {
    let brief = Some(Rate {
        burst: 5,
        replenish: Duration::from_millis(20),
    });
    let app = TestApp::spawn_with(backend, limits(None, brief, &["127.0.0.0/8"])).await;
    let from = |client: String| {
        let app = &app;
        async move {
            let response = app
                .client
                .get(format!("{}/health", app.base))
                .header("x-forwarded-for", client)
                .send()
                .await
                .expect("send");
            assert_eq!(response.status(), StatusCode::OK);
        }
    };
    let clients = (0..300).map(|n| from(format!("203.0.{}.{}", n / 250, n % 250 + 1)));
    client::futures_util::future::join_all(clients).await;
    after_a_share().await;
    from("198.51.100.1".to_owned()).await;
    after_a_share().await;
    assert_eq!(
        shared_buckets(&app, "address").await,
        1,
        "the last client's bucket, and none of the 300 spent before it came"
    );
}

#[tokio::test]
async fn on_sqlite_spent_buckets_leave_the_table_at_the_next_share() {
    spent_buckets_leave_the_table_at_the_next_share(Backend::Sqlite).await;
}

#[tokio::test]
async fn on_postgres_spent_buckets_leave_the_table_at_the_next_share() {
    spent_buckets_leave_the_table_at_the_next_share(Backend::Postgres).await;
}

fn impatient() -> Setup {
    let mut setup = Setup::default();
    setup.server.header_read_timeout = Duration::from_millis(300);
    setup.server.body_read_timeout = Duration::from_millis(300);
    setup
}

/// Everything the server sends on `stream` until it closes the connection; a server that never closes fails the test.
async fn until_closed(stream: &mut TcpStream) -> String {
    let mut received = Vec::new();
    let read = tokio::time::timeout(Duration::from_secs(15), async {
        let mut buffer = [0; 4096];
        loop {
            match stream.read(&mut buffer).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&buffer[..n]),
            }
        }
    })
    .await;
    assert!(read.is_ok(), "the server kept a slow client's connection open");
    String::from_utf8_lossy(&received).into_owned()
}

async fn connect(app: &TestApp) -> TcpStream {
    TcpStream::connect(app.base.trim_start_matches("http://"))
        .await
        .expect("connect")
}

#[tokio::test]
async fn a_client_that_sends_half_a_head_or_nothing_is_disconnected() {
    let app = TestApp::spawn_with(Backend::Sqlite, impatient()).await;
    let mut silent = connect(&app).await;
    let mut half = connect(&app).await;
    half.write_all(b"GET /health HTTP/1.1\r\nHost: tranquera\r\nX-SVC-SYS")
        .await
        .expect("write");
    assert_eq!(until_closed(&mut half).await, "", "closed without an answer");
    assert_eq!(until_closed(&mut silent).await, "");

    let mut kept_alive = connect(&app).await;
    kept_alive
        .write_all(b"GET /health HTTP/1.1\r\nHost: tranquera\r\n\r\n")
        .await
        .expect("write");
    let answered = until_closed(&mut kept_alive).await;
    assert!(
        answered.starts_with("HTTP/1.1 200"),
        "an idle kept-alive connection is closed after its answer: {answered}"
    );
}

#[tokio::test]
async fn a_body_that_stalls_is_answered_408_in_the_envelope() {
    let app = TestApp::spawn_with(Backend::Sqlite, impatient()).await;
    let token = app.token(integrator("AR")).await;
    let head = |path: &str, extra: &str| {
        format!(
            "POST {path} HTTP/1.1\r\nHost: tranquera\r\nX-SVC-SYSTEM-ID: 8\r\nContent-Type: application/json\r\n\
             Accept-Language: en\r\nContent-Length: 200\r\n{extra}\r\n{{\"email\": "
        )
    };
    let with_key = format!("Authorization: Bearer {token}\r\nIdempotency-Key: slow-1\r\n");
    for request in [head("/api/v2/login", ""), head(ESTABLISHMENTS, &with_key)] {
        let mut stream = connect(&app).await;
        stream.write_all(request.as_bytes()).await.expect("write");
        let answer = until_closed(&mut stream).await;
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
        let envelope: serde_json::Value = serde_json::from_str(body).expect("a JSON body");
        assert_eq!(envelope["error"]["code"], 408, "{envelope}");
        assert_eq!(
            envelope["error"]["message"],
            "The request body stopped arriving for more than 1 seconds."
        );
    }
}

/// A client sending at twice its limit, its requests spread over two processes by turns, gets about its limit
/// accepted in total, and 429 with `Retry-After` for the rest. Each process alone sees only the limit's rate, and
/// would accept every request.
async fn two_processes_give_a_client_its_limit_in_total(backend: Backend) {
    let first = TestApp::spawn_with(backend, limits(TWENTY, None, &[])).await;
    let second = first.sibling_with(limits(TWENTY, None, &[]).server).await;
    let token = first.token(integrator("AR")).await;
    let mut sends = tokio::time::interval(Duration::from_millis(25));
    let started = Instant::now();
    let (mut accepted, mut refused) = (0_u32, 0_u32);
    for turn in 0..160 {
        sends.tick().await;
        let app = if turn % 2 == 0 { &first } else { &second };
        let response = app.get(ESTABLISHMENTS, &token).await;
        match response.status() {
            StatusCode::OK => accepted += 1,
            StatusCode::TOO_MANY_REQUESTS => {
                assert!(
                    !header(&response, "retry-after").is_empty(),
                    "a 429 says when to try again"
                );
                refused += 1;
            }
            other => panic!("an answer of {other}"),
        }
    }
    // The burst, then twenty a second: about 100 of the 160 over the 4 seconds.
    let allowed = 20.0 + 20.0 * started.elapsed().as_secs_f64();
    let share = f64::from(accepted) / allowed;
    eprintln!("{backend:?}: {accepted} accepted and {refused} refused of 160; the limit allows {allowed:.0}");
    assert!(
        (0.85..=1.2).contains(&share),
        "{accepted} accepted where the limit allows {allowed:.0}"
    );
}

#[tokio::test]
async fn on_sqlite_two_processes_give_a_client_its_limit_in_total() {
    two_processes_give_a_client_its_limit_in_total(Backend::Sqlite).await;
}

#[tokio::test]
async fn on_postgres_two_processes_give_a_client_its_limit_in_total() {
    two_processes_give_a_client_its_limit_in_total(Backend::Postgres).await;
}
