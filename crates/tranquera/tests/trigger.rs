//! `tranquera trigger EVENT_TYPE` emits every event type of the feed: for each type of the one list
//! (`domain::events::event_types`), the command run against a served demo database makes a change, and the API's feed
//! (`GET /api/v3/third_party/events`) shows an event of that type right after it. A type added to the list is
//! covered without this test changing. On SQLite and on PostgreSQL.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};
use store::{Store, StoreConfig};
use testkit::process::ServerProcess;
use testkit::scratch::Scratch;

/// The demo society the command changes by default, and its integrator's account.
const EMAIL: &str = "integrador@lapampa.com.ar";
const PASSWORD: &str = "LaPampa-2026";

/// Seeds a small demo into the SQLite database at `url`.
async fn seed(url: &str) {
    let store = Store::connect(url, StoreConfig::default()).await.expect("open");
    store.migrate().await.expect("migrate");
    let options = demo::DemoOptions {
        scale: 1,
        farmers: 6,
        ..demo::DemoOptions::default()
    };
    demo::demo(&store, &options).await.expect("seed");
    store.close().await;
}

/// A page of the feed after `cursor`, of `types` (all when empty).
async fn feed(http: &reqwest::Client, base: &str, token: &str, cursor: &str, types: &str) -> Value {
    http.get(format!("{base}/api/v3/third_party/events"))
        .query(&[("after", cursor), ("types", types)])
        .header("X-SVC-SYSTEM-ID", "8")
        .bearer_auth(token)
        .send()
        .await
        .expect("read the feed")
        .json()
        .await
        .expect("a feed page")
}

fn trigger(url: &str, event_type: &str) -> String {
    let output = Command::new(env!("CARGO_BIN_EXE_tranquera"))
        .args(["trigger", event_type, "--database", url, "--lang", "en"])
        .output()
        .expect("run tranquera trigger");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "trigger {event_type}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

#[tokio::test]
async fn trigger_emits_each_event_type_and_the_feed_shows_it_on_sqlite() {
    let files = Scratch::new("tranquera-trigger");
    let url = format!("sqlite://{}", files.join("demo.sqlite").display());
    every_type(&files, &url).await;
}

#[tokio::test]
async fn trigger_emits_each_event_type_and_the_feed_shows_it_on_postgres() {
    let files = Scratch::new("tranquera-trigger-pg");
    let url = testkit::postgres::new_database("tranquera_trigger").await;
    every_type(&files, &url).await;
}

/// Seeds a demo at `url`, serves it, and triggers every type in turn, reading the feed after each.
async fn every_type(files: &Scratch, url: &str) {
    seed(url).await;
    let server = ServerProcess::start(
        Path::new(env!("CARGO_BIN_EXE_tranquera")),
        &["serve", "--database", url],
        &files.join("server.log"),
    );
    let http = reqwest::Client::new();
    let login: Value = http
        .post(format!("{}/api/v2/login", server.base))
        .header("X-SVC-SYSTEM-ID", "8")
        .json(&json!({ "email": EMAIL, "password": PASSWORD }))
        .send()
        .await
        .expect("login")
        .json()
        .await
        .expect("JSON");
    let token = login["access_token"].as_str().expect("an access token").to_owned();
    let mut cursor = feed(&http, &server.base, &token, "now", "").await["next_cursor"]
        .as_str()
        .expect("the head's cursor")
        .to_owned();
    let types = domain::events::event_types();
    assert!(types.len() > 70, "every type: {types:?}");
    for event_type in types {
        let printed = trigger(url, &event_type);
        assert!(
            printed.contains("Changed (") && printed.contains(&format!(": {event_type}; next cursor: ")),
            "it says what it changed and names the event: {printed}"
        );
        let page = feed(&http, &server.base, &token, &cursor, &event_type).await;
        let items = page["items"].as_array().expect("the page's events");
        assert!(
            items.iter().any(|event| event["type"] == event_type.as_str()),
            "{event_type}: the feed shows it after the trigger: {page}"
        );
        cursor = page["next_cursor"].as_str().expect("the next cursor").to_owned();
    }
    drop(server);
}
