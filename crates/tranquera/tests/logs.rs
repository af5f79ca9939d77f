//! Secrets never reach the logs: the real `tranquera demo`, at the most verbose level (`RUST_LOG=trace`), once with
//! text logs and once with JSON logs, serves a login, a failed login, calls with the access token and a bogus one, an
//! API key, a refresh and a reused refresh token; its whole standard output and error must then hold none of the
//! password, the wrong password, the tokens (or their secret halves) or the API key.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

const EMAIL: &str = "logs-probe@lapampa.com.ar";

/// A demo server process and everything it has printed so far.
struct Demo {
    child: Child,
    base: String,
    output: Arc<Mutex<String>>,
    readers: Vec<JoinHandle<()>>,
}

fn collect(stream: impl AsyncRead + Unpin + Send + 'static, output: Arc<Mutex<String>>) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut lines = BufReader::new(stream).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if let Ok(mut output) = output.lock() {
                output.push_str(&line);
                output.push('\n');
            }
        }
    })
}

impl Demo {
    async fn start(database: &str, json_logs: bool) -> Demo {
        let mut command = Command::new(env!("CARGO_BIN_EXE_tranquera"));
        command
            .args(["demo", "--database", database, "--listen", "127.0.0.1:0"])
            .env("RUST_LOG", "trace")
            .env_remove("TRANQUERA_LOG_JSON")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if json_logs {
            // As docs/operations.md sets it: a switch's variable takes 1 as well as true.
            command.env("TRANQUERA_LOG_JSON", "1");
        }
        let mut child = command.spawn().expect("start tranquera demo");
        let output = Arc::new(Mutex::new(String::new()));
        let readers = vec![
            collect(child.stdout.take().expect("stdout"), output.clone()),
            collect(child.stderr.take().expect("stderr"), output.clone()),
        ];
        let mut demo = Demo {
            child,
            base: String::new(),
            output,
            readers,
        };
        for _ in 0..1200 {
            let announced = demo
                .printed()
                .split("integration API is at ")
                .nth(1)
                .and_then(|rest| rest.split_whitespace().next().map(str::to_owned));
            if let Some(base) = announced {
                demo.base = base;
                return demo;
            }
            if let Ok(Some(status)) = demo.child.try_wait() {
                panic!("the demo exited with {status}:\n{}", demo.printed());
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the demo never announced its address:\n{}", demo.printed());
    }

    fn printed(&self) -> String {
        self.output.lock().map(|output| output.clone()).unwrap_or_default()
    }

    /// Stops the server and answers everything it printed.
    async fn stop(mut self) -> String {
        self.child.kill().await.expect("stop the demo");
        for reader in self.readers.drain(..) {
            reader.await.expect("the output reader");
        }
        self.printed()
    }
}

fn scratch() -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("tranquera-logs-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Runs `tranquera admin …` on the demo's database; answers its standard output.
async fn admin(database: &str, arguments: &[&str], password: Option<&str>) -> String {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tranquera"));
    command
        .args(["admin", "--database", database])
        .args(arguments)
        .stdin(Stdio::null());
    if let Some(password) = password {
        command.env("TRANQUERA_PASSWORD", password);
    }
    let output = command.output().await.expect("run tranquera admin");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "admin {arguments:?}: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// An account and an API key of the Argentine demo society, made outside the server, so their secrets are known
/// only to this test (the demo's banner prints the demo accounts' passwords, on purpose).
async fn probe_account(database: &str, password: &str) -> String {
    let societies = admin(database, &["society", "list"], None).await;
    let argentina = societies
        .lines()
        .find(|line| line.split('\t').nth(1) == Some("AR"))
        .and_then(|line| line.split('\t').next())
        .expect("the Argentine demo society")
        .to_owned();
    let role = ["--role", "api_integrated"];
    let user = [
        "user",
        "create",
        "--society",
        &argentina,
        "--email",
        EMAIL,
        "--name",
        "Probe",
    ];
    admin(database, &[&user[..], &role[..]].concat(), Some(password)).await;
    let key = admin(
        database,
        &["api-key", "create", "--society", &argentina, "--label", "logs"],
        None,
    )
    .await;
    key.trim().to_owned()
}

/// Exercises every path a secret travels through; answers the secrets used.
async fn use_secrets(base: &str, password: &str, api_key: &str) -> Vec<String> {
    let http = reqwest::Client::new();
    let post = |path: &str, body: Value| {
        http.post(format!("{base}{path}"))
            .header("X-SVC-SYSTEM-ID", "8")
            .json(&body)
    };
    let get = |path: &str, token: &str| {
        http.get(format!("{base}{path}"))
            .header("X-SVC-SYSTEM-ID", "8")
            .bearer_auth(token)
    };
    let wrong_password = format!("{password}-wrong");
    let refused = post("/api/v2/login", json!({ "email": EMAIL, "password": wrong_password }))
        .send()
        .await
        .expect("login");
    assert_eq!(refused.status(), StatusCode::UNAUTHORIZED);
    let login: Value = post("/api/v2/login", json!({ "email": EMAIL, "password": password }))
        .send()
        .await
        .expect("login")
        .json()
        .await
        .expect("JSON");
    let access = login["access_token"].as_str().expect("an access token").to_owned();
    let refresh = login["refresh_token"].as_str().expect("a refresh token").to_owned();
    let farmers = get("/api/v3/third_party/farmers", &access).send().await.expect("GET");
    assert_eq!(farmers.status(), StatusCode::OK);
    let bogus = format!("{access}x");
    let rejected = get("/api/v3/third_party/farmers", &bogus).send().await.expect("GET");
    assert_eq!(rejected.status(), StatusCode::UNAUTHORIZED);
    let with_key = http
        .post(format!("{base}/api/v3/third_party/silobag_campaigns"))
        .header("X-SVC-SYSTEM-ID", "8")
        .header("X-SVC-APIKEY", api_key)
        .bearer_auth(&access)
        .json(
            &json!({ "silobag_id": 0, "campaign_id": 0, "quantity_tn": 1.0, "grain_humidity_percent": 13.0,
                       "grain_quality_semaphore": 1, "observations": "" }),
        )
        .send()
        .await
        .expect("POST");
    assert_ne!(with_key.status(), StatusCode::UNAUTHORIZED, "the API key was accepted");
    let renewed: Value = post("/api/v2/login/refresh", json!({ "refresh_token": refresh }))
        .send()
        .await
        .expect("refresh")
        .json()
        .await
        .expect("JSON");
    let new_access = renewed["access_token"].as_str().expect("an access token").to_owned();
    let new_refresh = renewed["refresh_token"].as_str().expect("a refresh token").to_owned();
    assert_eq!(
        get("/api/v3/third_party/farmers", &new_access)
            .send()
            .await
            .expect("GET")
            .status(),
        StatusCode::OK
    );
    let reused = post("/api/v2/login/refresh", json!({ "refresh_token": refresh }))
        .send()
        .await
        .expect("refresh");
    assert_eq!(
        reused.status(),
        StatusCode::UNAUTHORIZED,
        "a reused refresh token revokes its family"
    );
    let mut secrets = vec![password.to_owned(), wrong_password, api_key.to_owned()];
    for token in [access, refresh, new_access, new_refresh] {
        let secret_half = token
            .split_once('.')
            .map(|(_, secret)| secret.to_owned())
            .expect("<society>.<secret>");
        secrets.push(token);
        secrets.push(secret_half);
    }
    secrets
}

/// `text` without ANSI colour sequences, which the text format puts between a field's name and its value.
fn without_colours(text: &str) -> String {
    let mut plain = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            chars.by_ref().find(|c| c.is_ascii_alphabetic());
        } else {
            plain.push(c);
        }
    }
    plain
}

fn assert_no_secret(log: &str, secrets: &[String], what: &str) {
    let log = without_colours(log);
    assert!(
        log.contains("/api/v2/login/refresh"),
        "{what}: requests are logged:\n{log}"
    );
    assert!(log.contains("TRACE"), "{what}: the log is at trace level");
    for secret in secrets {
        assert!(
            !log.contains(secret.as_str()),
            "{what}: the log holds the secret {secret:?}"
        );
    }
}

#[test]
fn colours_are_stripped_and_text_kept() {
    assert_eq!(
        without_colours("\u{1b}[3mtoken\u{1b}[0m\u{1b}[2m=\u{1b}[0m1.abc"),
        "token=1.abc"
    );
}

fn remove(dir: &Path) {
    let _ = std::fs::remove_dir_all(dir);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn passwords_tokens_and_api_keys_never_reach_the_logs() {
    let dir = scratch();
    let database = format!("sqlite://{}", dir.join("demo.sqlite").display());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let password = format!("Zorzal-{nanos}-Pampa");

    let text = Demo::start(&database, false).await;
    let api_key = probe_account(&database, &password).await;
    let secrets = use_secrets(&text.base, &password, &api_key).await;
    let log = text.stop().await;
    assert_no_secret(&log, &secrets, "text logs");

    let json = Demo::start(&database, true).await;
    let secrets = use_secrets(&json.base, &password, &api_key).await;
    let log = json.stop().await;
    assert!(
        log.lines()
            .any(|line| line.starts_with('{') && line.contains("\"level\":\"TRACE\"")),
        "JSON lines"
    );
    assert_no_secret(&log, &secrets, "JSON logs");
    remove(&dir);
}
