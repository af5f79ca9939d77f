//! A database outage under load: with PostgreSQL stopped, every request fails fast with 503 in the envelope instead
//! of hanging; when PostgreSQL is back, the same server answers again by itself. The test stops a cluster of its
//! own, never the one the other tests share.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use testkit::postgres::OwnCluster;

use crate::helpers::{error_envelope, integrator, Setup, TestApp};

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";

/// How long a request may wait for a database connection in this test.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(1);

/// Longer than any answer may take: the acquire time-out, plus a wide margin for a loaded machine. A request that
/// outlasts it hangs.
const HANG: Duration = Duration::from_secs(8);

#[tokio::test]
async fn with_postgres_stopped_requests_fail_fast_with_503_and_the_server_recovers_by_itself() {
    let mut cluster = tokio::task::spawn_blocking(OwnCluster::start)
        .await
        .expect("join")
        .expect("a PostgreSQL cluster of the test's own");
    let mut setup = Setup::default();
    setup.store.pool.acquire_timeout = ACQUIRE_TIMEOUT;
    let app = Arc::new(TestApp::spawn_on_postgres(&cluster.admin_url(), setup).await);
    let token = app.token(integrator("AR")).await;
    app.get_ok(ESTABLISHMENTS, &token).await;

    // Load throughout: four clients asking again as soon as they are answered.
    let stop = Arc::new(AtomicBool::new(false));
    let statuses = Arc::new(Mutex::new(Vec::new()));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (app, token, stop, statuses) = (app.clone(), token.clone(), stop.clone(), statuses.clone());
            tokio::spawn(async move {
                while !stop.load(Ordering::Relaxed) {
                    let answer = app
                        .request(reqwest::Method::GET, ESTABLISHMENTS)
                        .bearer_auth(&token)
                        .timeout(HANG)
                        .send()
                        .await
                        .map(|response| response.status());
                    statuses
                        .lock()
                        .expect("statuses")
                        .push(answer.map_err(|e| e.to_string()));
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
            })
        })
        .collect();
    tokio::time::sleep(Duration::from_millis(300)).await;

    let mut cluster = tokio::task::spawn_blocking(move || {
        cluster.stop();
        cluster
    })
    .await
    .expect("join");
    let mut slowest = Duration::ZERO;
    for _ in 0..5 {
        let asked = Instant::now();
        let response = app
            .request(reqwest::Method::GET, ESTABLISHMENTS)
            .bearer_auth(&token)
            .timeout(HANG)
            .send()
            .await
            .expect("an answer, not a hang");
        slowest = slowest.max(asked.elapsed());
        let retry_after = response.headers().get("retry-after").cloned();
        assert_eq!(
            retry_after.as_ref().and_then(|v| v.to_str().ok()),
            Some("1"),
            "503 says when to try again"
        );
        let (code, message) = error_envelope(response, StatusCode::SERVICE_UNAVAILABLE).await;
        assert_eq!(code, 503);
        assert!(message.contains("no está disponible"), "{message}");
    }
    eprintln!("database down: the slowest of five requests was answered 503 in {slowest:?}");

    let mut cluster = tokio::task::spawn_blocking(move || {
        cluster.resume().expect("PostgreSQL starts again");
        cluster
    })
    .await
    .expect("join");
    let back = Instant::now();
    let recovered = loop {
        let response = app.get(ESTABLISHMENTS, &token).await;
        if response.status() == StatusCode::OK {
            break back.elapsed();
        }
        assert_eq!(
            response.status(),
            StatusCode::SERVICE_UNAVAILABLE,
            "only 503 while reconnecting"
        );
        assert!(back.elapsed() < Duration::from_secs(20), "the server never recovered");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    eprintln!("database back: the first request succeeded {recovered:?} after PostgreSQL accepted queries");
    app.get_ok(ESTABLISHMENTS, &token).await;

    stop.store(true, Ordering::Relaxed);
    for client in clients {
        client.await.expect("a load client");
    }
    let statuses = statuses.lock().expect("statuses").clone();
    let unavailable = statuses
        .iter()
        .filter(|s| matches!(s, Ok(StatusCode::SERVICE_UNAVAILABLE)))
        .count();
    let odd: Vec<_> = statuses
        .iter()
        .filter(|s| !matches!(s, Ok(StatusCode::OK | StatusCode::SERVICE_UNAVAILABLE)))
        .collect();
    assert!(odd.is_empty(), "under load, only 200 or 503 (no 500, no hang): {odd:?}");
    assert!(unavailable > 0, "the load saw the outage");
    cluster.stop();
}

/// Far less than the acquire time-out a request waited before the pool knew the database was down.
const AT_ONCE: Duration = Duration::from_millis(1_500);

#[tokio::test]
async fn with_postgres_stopped_health_and_login_answer_at_once_and_come_back_by_themselves() {
    let mut cluster = tokio::task::spawn_blocking(OwnCluster::start)
        .await
        .expect("join")
        .expect("a PostgreSQL cluster of the test's own");
    // The tests' acquire time-out, 10 s: before the pools knew the server was down, each request below waited it out.
    let app = TestApp::spawn_on_postgres(&cluster.admin_url(), Setup::default()).await;
    let account = integrator("AR");
    app.token(account).await;
    let health = || app.client.get(format!("{}/health", app.base)).timeout(HANG).send();

    let mut cluster = tokio::task::spawn_blocking(move || {
        cluster.stop();
        cluster
    })
    .await
    .expect("join");
    for round in 0..4 {
        let asked = Instant::now();
        let response = health().await.expect("an answer, not a hang");
        let took = asked.elapsed();
        assert_eq!(
            response.headers().get("retry-after").and_then(|v| v.to_str().ok()),
            Some("1")
        );
        error_envelope(response, StatusCode::SERVICE_UNAVAILABLE).await;
        assert!(took < AT_ONCE, "health round {round} took {took:?}");

        let asked = Instant::now();
        let response = app.login(account.email, account.password).await;
        let took = asked.elapsed();
        assert_eq!(
            response.headers().get("retry-after").and_then(|v| v.to_str().ok()),
            Some("1")
        );
        error_envelope(response, StatusCode::SERVICE_UNAVAILABLE).await;
        assert!(took < AT_ONCE, "login round {round} took {took:?}");
    }

    let mut cluster = tokio::task::spawn_blocking(move || {
        cluster.resume().expect("PostgreSQL starts again");
        cluster
    })
    .await
    .expect("join");
    let back = Instant::now();
    loop {
        let response = health().await.expect("an answer");
        if response.status() == StatusCode::OK {
            break;
        }
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert!(
            back.elapsed() < Duration::from_secs(20),
            "the server never found the database again"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut logged_in = false;
    for _ in 0..40 {
        if app.login(account.email, account.password).await.status() == StatusCode::OK {
            logged_in = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(logged_in, "logins work again without a restart");
    cluster.stop();
}
