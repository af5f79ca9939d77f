//! `GET /metrics` as an operator's Prometheus scrapes it, from the real `tranquera serve` with `--metrics-listen`, on
//! SQLite and on PostgreSQL: after requests of several kinds (a route with an id, a path no route has, requests past
//! the address's rate limit), the text passes Prometheus's own `promtool check metrics`, counts requests by route
//! template, and names no id. The API's port serves no metrics.

use std::io::Write;
use std::process::{Command, Stdio};

use reqwest::StatusCode;
use testkit::process::{free_port, ServerProcess};
use testkit::scratch::Scratch;

/// An id no label may show.
const PLOT_ID: &str = "987654321";
/// A path segment no label may show.
const UNKNOWN: &str = "no-such-path-123456789";

/// What `promtool check metrics` says of `text`: `Ok` when it finds no problem.
fn promtool_check(text: &str) -> Result<(), String> {
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| {
            format!("promtool did not start ({error}): install Debian's prometheus package, as scripts/test does")
        })?;
    child
        .stdin
        .take()
        .ok_or("promtool's input")?
        .write_all(text.as_bytes())
        .map_err(|error| error.to_string())?;
    let output = child.wait_with_output().map_err(|error| error.to_string())?;
    match output.status.success() {
        true => Ok(()),
        false => Err(format!(
            "promtool check metrics failed ({}):\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn on_sqlite_metrics_are_served_apart_by_route_template_and_pass_promtool() {
    let scratch = Scratch::new("metrics");
    let database = format!("sqlite://{}", scratch.join("metrics.sqlite").display());
    scrape_after_traffic(&scratch, &database, &[("read", None), ("write", Some(1))]).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn on_postgres_metrics_are_served_apart_by_route_template_and_pass_promtool() {
    let scratch = Scratch::new("metrics-pg");
    let database = testkit::postgres::new_database("tranquera_metrics").await;
    scrape_after_traffic(
        &scratch,
        &database,
        &[("main", Some(8)), ("read", Some(8)), ("token", Some(4))],
    )
    .await;
}

/// Serves `database` with metrics, sends the requests, scrapes and checks; `pools` are the pool labels expected,
/// with the most connections each opens when the defaults fix it.
async fn scrape_after_traffic(scratch: &Scratch, database: &str, pools: &[(&str, Option<u32>)]) {
    let metrics_address = format!("127.0.0.1:{}", free_port());
    let server = ServerProcess::start(
        env!("CARGO_BIN_EXE_tranquera").as_ref(),
        &[
            "serve",
            "--database",
            database,
            "--metrics-listen",
            &metrics_address,
            "--rate-limit-address",
            "10",
            "--rate-limit-address-burst",
            "10",
        ],
        &scratch.join("server.log"),
    );
    let client = reqwest::Client::new();
    let plot = client
        .get(format!("{}/api/v3/third_party/plots/{PLOT_ID}", server.base))
        .send()
        .await
        .expect("the plot's GET");
    assert!(plot.status().is_client_error(), "{}", plot.status());
    let unknown = client
        .get(format!("{}/{UNKNOWN}", server.base))
        .send()
        .await
        .expect("the unknown path");
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    let mut refused = 0;
    for _ in 0..30 {
        let answer = client
            .get(format!("{}/health", server.base))
            .send()
            .await
            .expect("a health check");
        refused += usize::from(answer.status() == StatusCode::TOO_MANY_REQUESTS);
    }
    assert!(refused > 0, "30 requests at once past a burst of 10 were all accepted");
    let public = client
        .get(format!("{}/metrics", server.base))
        .send()
        .await
        .expect("the API's /metrics");
    assert_ne!(
        public.status(),
        StatusCode::OK,
        "the API's own port must not serve the metrics"
    );

    let scrape = client
        .get(format!("http://{metrics_address}/metrics"))
        .send()
        .await
        .expect("the scrape");
    assert_eq!(scrape.status(), StatusCode::OK);
    let content_type = scrape.headers()[reqwest::header::CONTENT_TYPE]
        .to_str()
        .unwrap_or_default()
        .to_owned();
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    let text = scrape.text().await.expect("the scrape's text");
    for expected in [
        r#"tranquera_http_requests_total{route="/api/v3/third_party/plots/{id}",method="GET",status="#,
        r#"tranquera_http_requests_total{route="unmatched",method="GET",status="404"}"#,
        r#"tranquera_http_requests_total{route="/health",method="GET",status="429"}"#,
        r#"tranquera_http_request_duration_seconds_bucket{route="/health",method="GET",le="0.005"}"#,
        r#"tranquera_rate_limited_requests_total{limit="address"}"#,
        "tranquera_jobs_queued 0",
        "tranquera_jobs_oldest_queued_age_seconds 0",
        "tranquera_webhook_deliveries_pending 0",
        r#"tranquera_build_info{version=""#,
    ] {
        assert!(text.contains(expected), "the scrape lacks {expected}:\n{text}");
    }
    for (pool, max) in pools {
        for state in ["in_use", "idle"] {
            let expected = format!(r#"tranquera_db_pool_connections{{pool="{pool}",state="{state}"}}"#);
            assert!(text.contains(&expected), "the scrape lacks {expected}:\n{text}");
        }
        let expected = format!(r#"tranquera_db_pool_waiting{{pool="{pool}"}} 0"#);
        assert!(text.contains(&expected), "the scrape lacks {expected}:\n{text}");
        if let Some(max) = max {
            let expected = format!(r#"tranquera_db_pool_max_connections{{pool="{pool}"}} {max}"#);
            assert!(text.contains(&expected), "the scrape lacks {expected}:\n{text}");
        }
    }
    // The scrape's own read of the queues took a connection of the pool that reads (before the text was rendered).
    let reader = pools[0].0;
    let expected = format!(r#"tranquera_db_pool_acquire_wait_seconds_bucket{{pool="{reader}",le="30"}}"#);
    assert!(text.contains(&expected), "the scrape lacks {expected}:\n{text}");
    for private in [PLOT_ID, UNKNOWN] {
        assert!(!text.contains(private), "a label shows {private}:\n{text}");
    }
    if let Err(problems) = promtool_check(&text) {
        panic!("{problems}\n{text}");
    }
}
