//! The operators' walkthrough (docs/operations.md), run as it is written, with the real binary on an empty database, on
//! SQLite and on the harness's PostgreSQL: `migrate`, a Paraguayan society and its integrator's account, the sample
//! master data of `examples/master-data/` imported, `serve`; then the integrator logs in, reads its plots and
//! campaigns, and creates, PATCHes and deletes a work order with Paraguay's products.

use std::path::{Path, PathBuf};
use std::process::Command;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};
use testkit::process::ServerProcess;
use testkit::scratch::Scratch;

/// The fenced block of docs/operations.md that is the walkthrough (opened with this line).
const FENCE: &str = "```sh walkthrough";

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One line of the walkthrough.
#[derive(Debug)]
enum Step {
    /// `export NAME=value`.
    Export(String, String),
    /// `tranquera …`, its arguments.
    Run(Vec<String>),
}

/// The walkthrough's lines, split as a shell splits them; comments dropped.
fn walkthrough() -> Vec<Step> {
    let readme = std::fs::read_to_string(workspace().join("docs/operations.md")).expect("docs/operations.md");
    let block = readme
        .split_once(FENCE)
        .and_then(|(_, rest)| rest.split_once("\n```"))
        .map(|(block, _)| block)
        .expect("docs/operations.md has the walkthrough block");
    block
        .lines()
        .map(|line| line.split_once(" #").map_or(line, |(command, _)| command).trim())
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let words = shell_words::split(line).unwrap_or_else(|error| panic!("{line}: {error}"));
            match words.as_slice() {
                [export, assignment] if export == "export" => {
                    let (name, value) = assignment.split_once('=').expect("NAME=value");
                    Step::Export(name.to_owned(), value.to_owned())
                }
                [tranquera, rest @ ..] if tranquera == "tranquera" => Step::Run(rest.to_vec()),
                _ => panic!("the walkthrough has a line this test cannot run: {line}"),
            }
        })
        .collect()
}

/// The values of `column` in a sample file.
fn sample_column(file: &str, column: &str) -> Vec<String> {
    let path = workspace().join("examples/master-data").join(file);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(b',')
        .from_path(&path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    let position = reader
        .headers()
        .expect("a header")
        .iter()
        .position(|name| name == column)
        .unwrap_or_else(|| panic!("{file} has a column {column}"));
    reader
        .records()
        .map(|record| record.expect("a record")[position].to_owned())
        .collect()
}

/// The integrator's side, over HTTP.
struct Integrator {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Integrator {
    fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .header("X-SVC-SYSTEM-ID", "8")
            .bearer_auth(&self.token)
    }

    async fn items(&self, path: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let mut page = 1;
        loop {
            let separator = if path.contains('?') { '&' } else { '?' };
            let response = self
                .request(Method::GET, &format!("{path}{separator}page={page}"))
                .send()
                .await
                .expect("GET");
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            let body: Value = response.json().await.expect("JSON");
            items.extend(body["items"].as_array().expect("items").iter().cloned());
            if body["current_page"] == body["total_pages"] {
                return items;
            }
            page += 1;
        }
    }
}

fn ids(items: &[Value]) -> Vec<i64> {
    items.iter().filter_map(|item| item["id"].as_i64()).collect()
}

async fn run_walkthrough(database_url: &str, tag: &str) {
    let scratch = Scratch::new(&format!("tranquera-walkthrough-{tag}"));
    let binary = Path::new(env!("CARGO_BIN_EXE_tranquera"));
    let mut env: Vec<(String, String)> = Vec::new();
    let mut serve = None;
    let mut society = None;
    for step in walkthrough() {
        match step {
            // The database is this test's, whatever the walkthrough exports.
            Step::Export(name, _) if name == "DATABASE_URL" => {}
            Step::Export(name, value) => env.push((name, value)),
            Step::Run(args) if args.first().is_some_and(|command| command == "serve") => {
                serve = Some(ServerProcess::start(
                    binary,
                    &["serve", "--database", database_url],
                    &scratch.join("serve.log"),
                ));
            }
            Step::Run(args) => {
                let output = Command::new(binary)
                    .args(&args)
                    .current_dir(workspace())
                    .envs(env.iter().map(|(name, value)| (name.as_str(), value.as_str())))
                    .env("DATABASE_URL", database_url)
                    .output()
                    .expect("run tranquera");
                let stdout = String::from_utf8_lossy(&output.stdout);
                assert!(
                    output.status.success(),
                    "tranquera {}\nstdout:\n{stdout}\nstderr:\n{}",
                    args.join(" "),
                    String::from_utf8_lossy(&output.stderr)
                );
                if args.starts_with(&["admin".to_owned(), "society".to_owned(), "create".to_owned()]) {
                    society = stdout.trim().parse::<i64>().ok();
                }
            }
        }
    }
    let server = serve.expect("the walkthrough ends by serving");
    assert_eq!(
        society,
        Some(1),
        "on an empty database the walkthrough's society is 1, as its commands say"
    );
    let (email, password) = {
        let password = env
            .iter()
            .find(|(name, _)| name == "TRANQUERA_PASSWORD")
            .map(|(_, value)| value.clone())
            .expect("the walkthrough exports the password");
        (readme_email(), password)
    };

    let http = reqwest::Client::new();
    let login: Value = http
        .post(format!("{}/api/v2/login", server.base))
        .header("X-SVC-SYSTEM-ID", "8")
        .json(&json!({ "email": email, "password": password }))
        .send()
        .await
        .expect("login")
        .json()
        .await
        .expect("JSON");
    let token = login["access_token"].as_str().expect("an access token").to_owned();
    assert_eq!(login["society"]["id"], 1);
    let api = Integrator {
        http,
        base: server.base.clone(),
        token,
    };

    // The master data the operator imported is what the integrator reads.
    let plots = api.items("/api/v2/third_party/plots").await;
    let mut plot_names: Vec<String> = plots
        .iter()
        .map(|p| p["name"].as_str().expect("name").to_owned())
        .collect();
    let mut sample_plots = sample_column("plots.csv", "name");
    plot_names.sort();
    sample_plots.sort();
    assert_eq!(plot_names, sample_plots);
    let campaigns = api.items("/api/v3/third_party/campaigns").await;
    assert_eq!(campaigns.len(), sample_column("campaigns.csv", "external_code").len());
    // The country's catalogues shipped with the release: Paraguay's products, cycles and planting times.
    let products = api.items("/api/v3/third_party/formulateds").await;
    assert!(products.len() >= 10, "Paraguay's products ship: {}", products.len());
    assert!(
        products.iter().all(|p| p["external_code"]
            .as_str()
            .is_some_and(|code| code.starts_with("SENAVE-"))),
        "a Paraguayan society reads only Paraguay's products"
    );
    assert!(!api.items("/api/v3/third_party/master_campaign_cycles").await.is_empty());

    // A work order on the imported farm, with the country's products, written, corrected and deleted.
    let first = |items: &[Value], what: &str| *ids(items).first().unwrap_or_else(|| panic!("a {what}"));
    let campaign = first(&campaigns, "campaign");
    let product = first(&products, "product");
    let voucher_type = first(&api.items("/api/v3/third_party/voucher_types").await, "voucher type");
    let machine = first(&api.items("/api/v3/third_party/machines").await, "machine");
    let contractor = first(&api.items("/api/v3/third_party/contractors").await, "contractor");
    let state = json!({ "pending": true, "executed": false, "confirmed": false });
    let order = json!({
        "header": {
            "external_id": "ERP-OT-1",
            "system_id": "third_party",
            "name": "Desecación presiembra",
            "date": "2025-09-20T07:30:00-03:00",
            "voucher_date": "2025-09-19T00:00:00-03:00",
            "state": state,
            "extra_fields": { "company": { "local_id": 1 }, "voucher_type": { "local_id": voucher_type } }
        },
        "supplies": [{ "cultivation": { "local_id": campaign }, "formulated": { "local_id": product },
                       "area_applied": 40.0, "total_applied": 80.0, "date": "2025-09-20T07:30:00-03:00", "state": state }],
        "labours": [{ "cultivation": { "local_id": campaign }, "area_applied": 40.0,
                      "contractors": [{ "local_id": contractor }], "machines": [{ "local_id": machine }],
                      "date": "2025-09-20T07:30:00-03:00", "state": state }]
    });
    let created = api
        .request(Method::POST, "/integration/api/v1/workOrders")
        .json(&order)
        .send()
        .await
        .expect("POST");
    let status = created.status();
    let created: Value = created.json().await.expect("JSON");
    assert!(status.is_success(), "create: {status} {created}");
    let id = created["header"]["local_id"]
        .as_i64()
        .unwrap_or_else(|| panic!("an id: {created}"));
    let orders = api.items("/api/v3/third_party/work_orders").await;
    let mut read = orders
        .into_iter()
        .find(|o| o["header"]["local_id"] == id)
        .expect("the order reads back");
    read["header"]["name"] = json!("Desecación presiembra (corregida)");
    read["supplies"][0]["total_applied"] = json!(72.5);
    let patched = api
        .request(Method::PATCH, &format!("/integration/api/v1/workOrders/{id}"))
        .json(&read)
        .send()
        .await
        .expect("PATCH");
    let status = patched.status();
    let patched: Value = patched.json().await.expect("JSON");
    assert!(status.is_success(), "PATCH: {status} {patched}");
    assert_eq!(patched["header"]["name"], "Desecación presiembra (corregida)");
    assert_eq!(patched["supplies"][0]["total_applied"], 72.5);
    let deleted = api
        .request(Method::DELETE, &format!("/integration/api/v1/workOrders/{id}"))
        .send()
        .await
        .expect("DELETE");
    assert!(deleted.status().is_success(), "DELETE: {}", deleted.status());
    let left = api.items("/api/v3/third_party/work_orders").await;
    assert!(left.iter().all(|o| o["header"]["local_id"] != id), "the order is gone");
    drop(server);
}

/// The integrator's email, as the walkthrough's `user create` line gives it.
fn readme_email() -> String {
    walkthrough()
        .into_iter()
        .find_map(|step| match step {
            Step::Run(args) if args.starts_with(&["admin".to_owned(), "user".to_owned(), "create".to_owned()]) => args
                .iter()
                .position(|arg| arg == "--email")
                .and_then(|at| args.get(at + 1).cloned()),
            _ => None,
        })
        .expect("the walkthrough creates a user with --email")
}

#[tokio::test]
async fn the_readme_walkthrough_works_on_sqlite() {
    let scratch = Scratch::new("tranquera-walkthrough-sqlite");
    let url = format!("sqlite://{}", scratch.join("production.sqlite").display());
    run_walkthrough(&url, "sqlite-run").await;
}

#[tokio::test]
async fn the_readme_walkthrough_works_on_postgres() {
    let url = testkit::postgres::new_database("tranquera_walkthrough").await;
    run_walkthrough(&url, "postgres-run").await;
}
