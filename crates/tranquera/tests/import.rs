//! `tranquera admin import` and `export`, black-box: the real binary on an empty database, once on SQLite and once on
//! the harness's PostgreSQL (one cluster for the whole file), loading the sample farm of `examples/master-data/`.
//! Re-running a file changes nothing; a corrected file updates in place and moves `updated_at` and `syncCheck`; only
//! the `deleted` column deletes; export then import changes nothing; every kind of bad file is refused whole, naming
//! its rows; and on PostgreSQL an import racing API writes and another import loses nothing and stores no code twice.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use reqwest::StatusCode;
use serde_json::{json, Value};
use server::{Application, ServerConfig};
use sqlx::Connection as _;
use store::{Store, StoreConfig};
use testkit::scratch::Scratch;

/// The sample files, in the order a farm is onboarded.
const SAMPLES: [&str; 7] = [
    "farmers",
    "establishments",
    "plots",
    "contractors",
    "machines",
    "master_campaigns",
    "campaigns",
];

const PASSWORD: &str = "import-test-2026";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Backend {
    Sqlite,
    Postgres,
}

/// An operator's view of one fresh database: the binary, a Paraguayan society with its integrator, an Argentine one.
struct Operator {
    url: String,
    backend: Backend,
    files: Scratch,
    society: i64,
    other: i64,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn sample(resource: &str) -> PathBuf {
    workspace().join(format!("examples/master-data/{resource}.csv"))
}

impl Operator {
    async fn new(backend: Backend) -> Operator {
        let files = Scratch::new("tranquera-import");
        let url = match backend {
            Backend::Sqlite => format!("sqlite://{}", files.join("db.sqlite").display()),
            Backend::Postgres => testkit::postgres::new_database("tranquera_import").await,
        };
        let mut operator = Operator {
            url,
            backend,
            files,
            society: 0,
            other: 0,
        };
        let society = |name: &str, country: &str| {
            ["society", "create", "--legal-name", name, "--country", country].map(str::to_owned)
        };
        operator.society = operator
            .ok(&society("Agroganadera Itapúa S.A.", "PY"))
            .trim()
            .parse()
            .expect("an id");
        operator.other = operator
            .ok(&society("Estancia La Pampa S.A.", "AR"))
            .trim()
            .parse()
            .expect("an id");
        let user = [
            "user",
            "create",
            "--society",
            &operator.society.to_string(),
            "--email",
            "erp@itapua.com.py",
        ];
        operator.ok(&[&user[..], &["--name", "ERP", "--role", "api_integrated"]].concat());
        operator
    }

    /// `tranquera admin …`, with no locale of the machine's in its way.
    fn admin(&self, args: &[impl AsRef<std::ffi::OsStr>]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_tranquera"))
            .args(["admin", "--database", &self.url])
            .args(args)
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("LANG")
            .env("TRANQUERA_PASSWORD", PASSWORD)
            .output()
            .expect("run tranquera admin")
    }

    fn ok(&self, args: &[impl AsRef<std::ffi::OsStr>]) -> String {
        let output = self.admin(args);
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "stdout:\n{stdout}\nstderr:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        stdout
    }

    fn import_args(&self, resource: &str, file: &Path, extra: &[&str]) -> Vec<String> {
        let mut args = vec!["import".to_owned(), resource.to_owned(), file.display().to_string()];
        args.extend([
            "--society".to_owned(),
            self.society.to_string(),
            "--lang".to_owned(),
            "en".to_owned(),
        ]);
        args.extend(extra.iter().map(|arg| (*arg).to_owned()));
        args
    }

    /// Imports a file, which must load; answers the summary line.
    fn import(&self, resource: &str, file: &Path) -> String {
        let stdout = self.ok(&self.import_args(resource, file, &[]));
        stdout.lines().last().unwrap_or_default().to_owned()
    }

    /// Imports a file, which must be refused; answers the report.
    fn refused(&self, resource: &str, file: &Path, extra: &[&str]) -> String {
        let output = self.admin(&self.import_args(resource, file, extra));
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            !output.status.success(),
            "{resource} {} was loaded:\n{stderr}",
            file.display()
        );
        assert!(stderr.contains("nothing was stored"), "{stderr}");
        stderr
    }

    fn write(&self, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.files.join(name);
        std::fs::write(&path, content).expect("write a file");
        path
    }

    fn load_samples(&self) {
        for resource in SAMPLES {
            let summary = self.import(resource, &sample(resource));
            assert!(
                summary.contains(" created, 0 updated, 0 unchanged, 0 deleted"),
                "{summary}"
            );
        }
    }

    /// Integers a query answers, straight from the database; `$1`, where it has one, is the Paraguayan society.
    async fn integers(&self, sql: &str) -> Vec<i64> {
        let society = sql.contains("$1").then_some(self.society);
        match self.backend {
            Backend::Sqlite => {
                let mut connection = sqlx::SqliteConnection::connect(&self.url).await.expect("connect");
                let query = sqlx::query_scalar(sql);
                let query = if let Some(society) = society {
                    query.bind(society)
                } else {
                    query
                };
                query.fetch_all(&mut connection).await.expect("a query")
            }
            Backend::Postgres => {
                let mut connection = testkit::postgres::connect(&self.url).await.expect("connect");
                let query = sqlx::query_scalar(sql);
                let query = if let Some(society) = society {
                    query.bind(society)
                } else {
                    query
                };
                query.fetch_all(&mut connection).await.expect("a query")
            }
        }
    }

    /// Texts a query answers, as [`Operator::integers`] does.
    async fn texts(&self, sql: &str) -> Vec<String> {
        let society = sql.contains("$1").then_some(self.society);
        match self.backend {
            Backend::Sqlite => {
                let mut connection = sqlx::SqliteConnection::connect(&self.url).await.expect("connect");
                let query = sqlx::query_scalar(sql);
                let query = if let Some(society) = society {
                    query.bind(society)
                } else {
                    query
                };
                query.fetch_all(&mut connection).await.expect("a query")
            }
            Backend::Postgres => {
                let mut connection = testkit::postgres::connect(&self.url).await.expect("connect");
                let query = sqlx::query_scalar(sql);
                let query = if let Some(society) = society {
                    query.bind(society)
                } else {
                    query
                };
                query.fetch_all(&mut connection).await.expect("a query")
            }
        }
    }

    /// Every live record of the society's imported tables, with its `updated_at`, in one comparable list.
    async fn snapshot(&self) -> Vec<String> {
        let mut rows = Vec::new();
        for table in SAMPLES {
            let sql = format!(
                "SELECT external_code || ' ' || CAST(id AS TEXT) || ' ' || CAST(updated_at AS TEXT) FROM {table} \
                 WHERE society_id = $1 AND deleted_at IS NULL ORDER BY id"
            );
            rows.extend(self.texts(&sql).await.into_iter().map(|row| format!("{table} {row}")));
        }
        rows
    }

    /// The API over this database, in this process.
    async fn serve(&self) -> String {
        let store = Store::connect(&self.url, StoreConfig::default())
            .await
            .expect("connect");
        let config = ServerConfig {
            listen: ([127, 0, 0, 1], 0).into(),
            ..ServerConfig::default()
        };
        let app = Application::build(store, config).await.expect("bind");
        let base = format!("http://{}", app.local_addr().expect("an address"));
        tokio::spawn(app.run_until(std::future::pending()));
        base
    }

    /// The integrator's login: its access token and its society's `syncCheck`.
    async fn login(&self, base: &str) -> (String, String) {
        let login: Value = reqwest::Client::new()
            .post(format!("{base}/api/v2/login"))
            .header("X-SVC-SYSTEM-ID", "8")
            .json(&json!({ "email": "erp@itapua.com.py", "password": PASSWORD }))
            .send()
            .await
            .expect("login")
            .json()
            .await
            .expect("JSON");
        let token = login["access_token"].as_str().expect("a token").to_owned();
        let sync_check = login["society"]["syncCheck"].as_str().expect("syncCheck").to_owned();
        (token, sync_check)
    }
}

/// The JSON answer to the integrator's `GET` of `path`.
async fn get(base: &str, token: &str, path: &str) -> Value {
    reqwest::Client::new()
        .get(format!("{base}{path}"))
        .header("X-SVC-SYSTEM-ID", "8")
        .bearer_auth(token)
        .send()
        .await
        .expect("GET")
        .json()
        .await
        .expect("JSON")
}

/// Every event after `cursor`, following the feed's pages; and the cursor after them.
async fn events_after(base: &str, token: &str, cursor: &str) -> (Vec<Value>, String) {
    let mut cursor = cursor.to_owned();
    let mut events = Vec::new();
    loop {
        let page = get(
            base,
            token,
            &format!("/api/v3/third_party/events?after={cursor}&size=1000"),
        )
        .await;
        events.extend(page["items"].as_array().expect("items").iter().cloned());
        cursor = page["next_cursor"].as_str().expect("a cursor").to_owned();
        if page["has_more"] != true {
            return (events, cursor);
        }
    }
}

/// How many records an import's summary line says it created and updated.
fn created_and_updated(summary: &str) -> (usize, usize) {
    let count = |word: &str| {
        summary
            .split(", ")
            .map(|part| part.rsplit(": ").next().unwrap_or(part))
            .find_map(|part| part.strip_suffix(word).and_then(|n| n.trim().parse().ok()))
            .unwrap_or_else(|| panic!("no {word} in {summary}"))
    };
    (count(" created"), count(" updated"))
}

/// Imports `file` into `resource` with the API serving at `base`, and checks the feed after `cursor` holds exactly
/// one event per record the import created or updated, each with the record as its `GET` answers it; answers the
/// cursor after them and the actions seen.
async fn imported_as_read(
    operator: &Operator,
    (base, token): (&str, &str),
    resource: &str,
    file: &Path,
    cursor: String,
) -> (String, Vec<String>) {
    let summary = operator.import(resource, file);
    let (created, updated) = created_and_updated(&summary);
    let expected = created + updated;
    assert!(expected > 0, "{resource}: the file changes something: {summary}");
    // The import committed before its process ended; the feed may still hold its commit back while an older
    // transaction of the database runs, so this waits a little for it.
    let (mut events, mut cursor) = events_after(base, token, &cursor).await;
    for _ in 0..100 {
        if events.len() >= expected {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        let (more, next) = events_after(base, token, &cursor).await;
        events.extend(more);
        cursor = next;
    }
    assert_eq!(
        events.len(),
        expected,
        "{resource}: one event per record ({summary}): {events:#?}"
    );
    let mut actions = Vec::new();
    let mut records = std::collections::BTreeSet::new();
    for event in &events {
        let id = event["resource_id"].as_i64().expect("a record id");
        assert!(records.insert(id), "{resource}: record {id} has one event: {events:#?}");
        let singular = event["resource"].as_str().expect("a resource");
        assert_eq!(format!("{singular}s"), resource, "{resource}: {event}");
        let action = event["type"]
            .as_str()
            .and_then(|t| t.strip_prefix(&format!("{singular}.")))
            .expect("a type");
        actions.push(action.to_owned());
        let read = get(base, token, &format!("/api/v3/third_party/{resource}/{id}")).await;
        assert_eq!(
            event["data"], read,
            "{resource} {id}: the event's data is the record as its GET answers it"
        );
    }
    assert_eq!(
        actions.iter().filter(|a| *a == "created").count(),
        created,
        "{resource}: {actions:?}"
    );
    assert_eq!(
        actions.iter().filter(|a| *a == "updated").count(),
        updated,
        "{resource}: {actions:?}"
    );
    (cursor, actions)
}

/// Runs each test on SQLite and on PostgreSQL. The runtime has worker threads of its own: a test blocks its thread
/// while `tranquera admin` runs, and a server it started in-process on a one-thread runtime then froze, inside a
/// write transaction when a background task had just begun one, so the import waited out SQLite's busy time-out
/// ("database is locked", seen once under the whole suite's load).
macro_rules! on_both_backends {
    ($(async fn $name:ident($operator:ident) $body:block)*) => {
        mod sqlite {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let $operator = Operator::new(Backend::Sqlite).await;
                    $body
                }
            )*
        }
        mod postgres {
            use super::*;
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let $operator = Operator::new(Backend::Postgres).await;
                    $body
                }
            )*
        }
    };
}

on_both_backends! {
    async fn the_sample_farm_loads_and_loading_it_again_changes_nothing(operator) {
        let output = operator.admin(&operator.import_args("farmers", &sample("farmers"), &[]));
        let stdout = String::from_utf8_lossy(&output.stdout);
        // Standard output is a pipe, so progress is plain lines, not a bar.
        assert!(stdout.contains("import farmers: page 1, 2/2 items"), "{stdout}");
        assert!(stdout.contains("farmers: 2 created, 0 updated, 0 unchanged, 0 deleted."), "{stdout}");
        for resource in &SAMPLES[1..] {
            operator.import(resource, &sample(resource));
        }
        assert_eq!(operator.integers("SELECT COUNT(*) FROM plots WHERE society_id = $1").await, [7]);
        let base = operator.serve().await;
        let (_, sync_check) = operator.login(&base).await;
        let before = operator.snapshot().await;
        for resource in SAMPLES {
            let summary = operator.import(resource, &sample(resource));
            assert!(summary.contains(": 0 created, 0 updated, "), "{summary}");
            assert!(summary.ends_with("unchanged, 0 deleted."), "{summary}");
        }
        assert_eq!(operator.snapshot().await, before, "no record and no updated_at moved");
        assert_eq!(operator.login(&base).await.1, sync_check, "syncCheck did not move");
    }

    async fn a_corrected_file_updates_in_place_and_moves_updated_at_and_sync_check(operator) {
        operator.load_samples();
        let base = operator.serve().await;
        let (token, sync_check) = operator.login(&base).await;
        let before = operator.snapshot().await;
        let corrected = std::fs::read_to_string(sample("plots"))
            .expect("the sample")
            .replace("PY-LOT-0003,PY-EST-0001,Lote 3 - Bajo,96.4", "PY-LOT-0003,PY-EST-0001,Lote 3 - Bajo del arroyo,97.15");
        let summary = operator.import("plots", &operator.write("plots.csv", corrected));
        assert_eq!(summary, "plots: 0 created, 1 updated, 6 unchanged, 0 deleted.");
        let after = operator.snapshot().await;
        let changed: Vec<_> = after.iter().filter(|row| !before.contains(row)).collect();
        assert_eq!(changed.len(), 1, "{changed:?}");
        assert!(changed[0].starts_with("plots PY-LOT-0003 "), "{changed:?}");
        let same_id = |rows: &[String]| rows.iter().find(|r| r.starts_with("plots PY-LOT-0003 ")).map(|r| r.split(' ').nth(2).map(str::to_owned));
        assert_eq!(same_id(&before), same_id(&after), "updated in place");
        assert_ne!(operator.login(&base).await.1, sync_check, "syncCheck moved");
        let plot = get(&base, &token, "/api/v2/third_party/plots").await;
        let listed = plot["items"].as_array().expect("items").iter().find(|p| p["external_code"] == "PY-LOT-0003").cloned();
        assert_eq!(listed.map(|p| (p["name"].clone(), p["area"].clone())), Some((json!("Lote 3 - Bajo del arroyo"), json!("97.15"))));
    }

    async fn only_the_deleted_column_deletes_and_never_a_record_others_depend_on(operator) {
        operator.load_samples();
        let live = "SELECT COUNT(*) FROM plots WHERE society_id = $1 AND deleted_at IS NULL";
        let fewer = operator.write("some.csv", "external_code,establishment_external_code,name,area\nPY-LOT-0001,PY-EST-0001,Lote 1 - Tajamar,148.5\n");
        assert_eq!(operator.import("plots", &fewer), "plots: 0 created, 0 updated, 1 unchanged, 0 deleted.");
        assert_eq!(operator.integers(live).await, [7], "a row missing from a file is not a deletion");
        let deletions = operator.write("gone.csv", "external_code,deleted\nPY-LOT-0001,sí\nPY-LOT-0003,0\n");
        let report = operator.refused("plots", &deletions, &[]);
        assert!(report.contains("row 2: Cannot delete: it still has 2 live campaigns (campaigns)."), "{report}");
        assert!(report.contains("row 3: establishment_id|establishment_external_code is required"), "{report}");
        let campaigns = operator.write("campaigns.csv", "external_code,deleted\nPY-CMP-000001,true\nPY-CMP-000005,yes\n");
        assert_eq!(operator.import("campaigns", &campaigns), "campaigns: 0 created, 0 updated, 0 unchanged, 2 deleted.");
        let plot = operator.write("plot.csv", "external_code,deleted\nPY-LOT-0001,1\n");
        assert_eq!(operator.import("plots", &plot), "plots: 0 created, 0 updated, 0 unchanged, 1 deleted.");
        assert_eq!(operator.integers(live).await, [6]);
        assert_eq!(
            operator.import("plots", &plot),
            "plots: 0 created, 0 updated, 0 unchanged, 0 deleted (1 deletions of codes with no live record)."
        );
        // The code is free again: loading it makes a new record.
        assert_eq!(operator.import("plots", &fewer), "plots: 1 created, 0 updated, 0 unchanged, 0 deleted.");
    }

    async fn every_resource_exported_and_imported_again_is_unchanged(operator) {
        operator.load_samples();
        let tag = operator.write("tags.csv", "external_code,name,parent_external_code\nT-2,Lotes bajos,T-1\nT-1,Zona norte,\n");
        assert_eq!(operator.import("tags", &tag), "tags: 2 created, 0 updated, 0 unchanged, 0 deleted.");
        let extra = operator.write("others.jsonl", "{\"external_code\": \"W-1\", \"name\": \"Depósito central\", \"establishment_external_code\": \"PY-EST-0001\"}\n");
        operator.import("warehouses", &extra);
        let applicator = operator.write("applicators.csv", "external_code,name,email\nA-1,Juan Benítez,jb@example.com.py\n");
        operator.import("applicators", &applicator);
        let before = operator.snapshot().await;
        let society = operator.society.to_string();
        for resource in store::import::resources() {
            for extension in ["csv", "jsonl"] {
                let owner = match resource.ownership {
                    store::import::Ownership::Society => ["--society", society.as_str()],
                    store::import::Ownership::Country => ["--country", "PY"],
                };
                let file = operator.files.join(format!("{}.{extension}", resource.name));
                operator.ok(&[&["export", resource.name, &file.display().to_string()][..], &owner[..]].concat());
                let exported = std::fs::read_to_string(&file).expect("the export");
                assert!(exported.lines().count() >= 2 - usize::from(extension == "jsonl"), "{}: {exported}", resource.name);
                let mut args = vec!["import".to_owned(), resource.name.to_owned(), file.display().to_string(), "--lang".to_owned(), "en".to_owned()];
                args.extend(owner.iter().map(|arg| (*arg).to_owned()));
                let summary = operator.ok(&args);
                assert!(summary.contains(": 0 created, 0 updated, "), "{} {extension}: {summary}", resource.name);
                operator.ok(&[&["export", resource.name, &file.display().to_string()][..], &owner[..]].concat());
                assert_eq!(std::fs::read_to_string(&file).expect("the export"), exported, "{}", resource.name);
            }
        }
        assert_eq!(operator.snapshot().await, before);
    }

    async fn exported_formulas_are_neutralised_and_load_back_as_they_were(operator) {
        // An operator's file with a formula in each name: the import keeps them as written.
        let formulas = [
            ("F-EQ", "=cmd|' /C calc'!A0"),
            ("F-LINK", "=HYPERLINK(\"http://127.0.0.1/x\",\"ver\")"),
            ("F-PLUS", "+1+1"),
            ("F-MINUS", "-2+3"),
            ("F-AT", "@SUM(A1:A9)"),
            ("F-NUMBER", "-3.5"),
        ];
        let mut file = String::from("external_code,name\n");
        for (code, name) in formulas {
            file.push_str(&format!("{code},\"{}\"\n", name.replace('"', "\"\"")));
        }
        operator.import("farmers", &operator.write("formulas.csv", file));
        // A name that already begins with a quote before a formula, and names with a tab and a carriage return first,
        // which an import trims but the API does not.
        operator.import("farmers", &operator.write("quoted.jsonl", "{\"external_code\": \"F-QUOTED\", \"name\": \"'=1+1\"}\n"));
        let names = "SELECT name FROM farmers WHERE society_id = $1 AND external_code LIKE 'F-%' ORDER BY external_code";
        let stored = operator.texts(names).await;
        let mut expected: Vec<(&str, &str)> = formulas.to_vec();
        expected.push(("F-QUOTED", "'=1+1"));
        expected.sort();
        assert_eq!(stored, expected.iter().map(|(_, name)| *name).collect::<Vec<_>>(), "stored as written");

        let society = operator.society.to_string();
        let exported = operator.files.join("farmers-out.csv");
        let export = ["export", "farmers", &exported.display().to_string(), "--society", society.as_str()];
        operator.ok(&export);
        let text = std::fs::read_to_string(&exported).expect("the export");
        for (code, written) in [
            ("F-EQ", "\"'=cmd|' /C calc'!A0\""),
            ("F-LINK", "\"'=HYPERLINK(\"\"http://127.0.0.1/x\"\",\"\"ver\"\")\""),
            ("F-PLUS", "\"'+1+1\""),
            ("F-MINUS", "\"'-2+3\""),
            ("F-AT", "\"'@SUM(A1:A9)\""),
            ("F-NUMBER", ",-3.5,"),
            ("F-QUOTED", "\"''=1+1\""),
        ] {
            let line = text.lines().find(|line| line.starts_with(&format!("\"{code}\""))).unwrap_or_else(|| panic!("{code}: {text}"));
            assert!(line.contains(written), "{code}: {line}");
        }
        // Loading the export back gives each name as it was, and exporting again writes the same file.
        let before = operator.snapshot().await;
        let summary = operator.import("farmers", &exported);
        assert!(summary.contains(": 0 created, 0 updated, "), "{summary}");
        assert_eq!(operator.texts(names).await, stored);
        assert_eq!(operator.snapshot().await, before);
        operator.ok(&export);
        assert_eq!(std::fs::read_to_string(&exported).expect("the export"), text);

        // A tab or carriage return first (which the import's trimming cannot bring) is neutralised too.
        let tabbed = "UPDATE farmers SET name = '\t=1+1' WHERE society_id = $1 AND external_code = 'F-EQ' RETURNING id";
        assert_eq!(operator.integers(tabbed).await.len(), 1);
        let returned = "UPDATE farmers SET name = '\r=1+1' WHERE society_id = $1 AND external_code = 'F-AT' RETURNING id";
        assert_eq!(operator.integers(returned).await.len(), 1);
        operator.ok(&export);
        let text = std::fs::read_to_string(&exported).expect("the export");
        assert!(text.contains("\"F-EQ\",\"'\t=1+1\""), "{text}");
        assert!(text.contains("\"F-AT\",\"'\r=1+1\""), "{text}");
    }

    async fn bad_files_are_refused_whole_naming_each_row_field_and_reason(operator) {
        operator.load_samples();
        let plots = "SELECT COUNT(*) FROM plots WHERE society_id = $1";
        let header = "external_code,establishment_external_code,name,area\n";
        // An unknown column, and a wrong type.
        let report = operator.refused("plots", &operator.write("a.csv", "external_code,name,area,colour\nX-1,Lote,3,red\n"), &[]);
        assert!(report.contains("row 1: there is no column colour; the columns are: external_code, establishment_id,"), "{report}");
        let report = operator.refused("plots", &operator.write("b.csv", format!("{header}X-1,PY-EST-0001,Lote,3\nX-2,PY-EST-0001,Lote,diez\n")), &[]);
        assert!(report.contains("row 3: area must be a number (got \"diez\")."), "{report}");
        // Another society's records, by id and by code, and a code no record has.
        operator.ok(&["import", "farmers", &sample("farmers").display().to_string(), "--society", &operator.other.to_string()]);
        let theirs = operator.integers(&format!("SELECT id FROM farmers WHERE society_id = {} ORDER BY id", operator.other)).await;
        let file = operator.write("c.csv", format!("external_code,farmer_id,farmer_external_code,name\nE-1,{},,Uno\nE-2,,PY-PROD-0404,Dos\n", theirs[0]));
        let report = operator.refused("establishments", &file, &[]);
        assert!(report.contains(&format!("row 2: farmer_id: {} does not exist or is not available to your society.", theirs[0])), "{report}");
        assert!(report.contains("row 3: farmer_external_code: \"PY-PROD-0404\" does not exist"), "{report}");
        let file = operator.write("c2.csv", format!("external_code,farmer_id,farmer_external_code,name\nE-1,{},PY-PROD-0001,Uno\n", theirs[0]));
        let report = operator.refused("establishments", &file, &[]);
        assert!(report.contains(&format!("row 2: farmer_id: id {} and code \"PY-PROD-0001\" are not the same record.", theirs[0])), "{report}");
        // A cycle of another country, by code and by id.
        let argentine = operator.integers("SELECT id FROM master_campaign_cycles WHERE country = 'AR' ORDER BY id").await;
        let file = operator.write("d.csv", format!(
            "external_code,name,cultivation_reference_key,planting_time_external_code,cycle_external_code,cycle_id\n\
             MC-1,Soja,soja,py.planting.zafra,ar.cycle.2025-2026,\nMC-2,Soja,soja,py.planting.zafra,,{}\n", argentine[0]));
        let report = operator.refused("master_campaigns", &file, &[]);
        assert!(report.contains("row 2: cycle_external_code: \"ar.cycle.2025-2026\" does not exist or is not available"), "{report}");
        assert!(report.contains(&format!("row 3: cycle_id: {} does not exist", argentine[0])), "{report}");
        // One code twice in a file: both rows are named.
        let report = operator.refused("plots", &operator.write("e.csv", format!("{header}X-1,PY-EST-0001,A,3\nX-2,PY-EST-0001,B,3\nX-1,PY-EST-0001,C,3\n")), &[]);
        assert!(report.contains("row 2: external_code \"X-1\" is also in row 4."), "{report}");
        assert!(report.contains("row 4: external_code \"X-1\" is also in row 2."), "{report}");
        // A 0-byte file.
        let report = operator.refused("plots", &operator.write("f.csv", ""), &[]);
        assert!(report.contains("file: the file is empty (0 bytes)."), "{report}");
        // JSONL: a wrong type, an unknown key, a line that is no object.
        let jsonl = "{\"external_code\": \"X-1\", \"establishment_external_code\": \"PY-EST-0001\", \"name\": \"A\", \"area\": \"x\"}\n\
                     {\"external_code\": \"X-2\", \"establishment_external_code\": \"PY-EST-0001\", \"name\": \"B\", \"area\": 2, \"size\": 3}\n[1]\n";
        let report = operator.refused("plots", &operator.write("g.jsonl", jsonl), &[]);
        assert!(report.contains("row 1: area must be a number (got \"x\")."), "{report}");
        assert!(report.contains("row 2: there is no column size"), "{report}");
        assert!(report.contains("row 3: the line is not a JSON object."), "{report}");
        assert_eq!(operator.integers(plots).await, [7], "no refused file wrote anything");
    }

    async fn legacy_encodings_and_spreadsheet_separators_are_read_correctly(operator) {
        // Latin-1 from an old ERP: read as Windows-1252, which it is a subset of.
        let latin1 = b"external_code;name;lastname;cuit\nPY-PROD-0009;Jos\xe9;Ben\xedtez Ca\xf1ete;1234567-8\n";
        let file = operator.write("latin1.csv", latin1);
        assert_eq!(operator.import("farmers", &file), "farmers: 1 created, 0 updated, 0 unchanged, 0 deleted; read as windows-1252.");
        let stored = operator.texts("SELECT name || ' ' || lastname FROM farmers WHERE society_id = $1").await;
        assert_eq!(stored, ["José Benítez Cañete"]);
        let report = operator.refused("farmers", &file, &["--encoding", "utf-8"]);
        assert!(report.contains("row 2: the row is not valid UTF-8 text."), "{report}");
        assert_eq!(operator.import("farmers", &file), "farmers: 0 created, 0 updated, 1 unchanged, 0 deleted; read as windows-1252.");
        // UTF-8 with a BOM, `;`-separated with decimal commas, as a spreadsheet in Spanish saves it.
        operator.import("farmers", &sample("farmers"));
        operator.import("establishments", &sample("establishments"));
        let spreadsheet = "\u{feff}external_code;establishment_external_code;name;area\r\nL-1;PY-EST-0001;\"Lote A; norte\";12,5\r\nL-2;PY-EST-0001;Lote B;7\r\n;;;\r\n";
        let summary = operator.import("plots", &operator.write("excel.csv", spreadsheet));
        assert_eq!(summary, "plots: 2 created, 0 updated, 0 unchanged, 0 deleted.");
        let names = operator.texts("SELECT name FROM plots WHERE society_id = $1 ORDER BY id").await;
        assert_eq!(names, ["Lote A; norte", "Lote B"]);
        let areas = operator.integers("SELECT CAST(ROUND(area * 100) AS BIGINT) FROM plots WHERE society_id = $1 ORDER BY id").await;
        assert_eq!(areas, [1250, 700]);
    }

    async fn nothing_is_half_loaded_and_long_reports_are_capped(operator) {
        operator.import("farmers", &sample("farmers"));
        operator.import("establishments", &sample("establishments"));
        let mut rows = String::from("external_code,establishment_external_code,name,area\n");
        for n in 0..5_000 {
            rows.push_str(&format!("B-{n},PY-EST-0002,Lote {n},{}\n", 1 + n % 90));
        }
        // The last row is bad, several chunks after the first were staged.
        rows.push_str("B-X,PY-EST-0002,Lote X,0\n");
        let report = operator.refused("plots", &operator.write("big.csv", &rows), &[]);
        assert!(report.contains("row 5002: area must be greater than zero (got 0)."), "{report}");
        assert_eq!(operator.integers("SELECT COUNT(*) FROM plots WHERE society_id = $1").await, [0]);
        // The rows it staged went with it.
        assert_eq!(operator.integers("SELECT COUNT(*) FROM import_staging_plots WHERE society_id = $1").await, [0]);
        let mut bad = String::from("external_code,establishment_external_code,name,area\n");
        for n in 0..250 {
            bad.push_str(&format!("C-{n},PY-EST-0404,Lote {n},3\n"));
        }
        let report = operator.refused("plots", &operator.write("bad.csv", &bad), &[]);
        assert_eq!(report.lines().filter(|line| line.starts_with("row ")).count(), 200, "{report}");
        assert!(report.contains("… and 50 more problems"), "{report}");
        assert!(report.contains("it has 250 problems"), "{report}");
    }

    async fn every_event_of_a_large_import_gets_its_payload(operator) {
        operator.import("farmers", &sample("farmers"));
        operator.import("establishments", &sample("establishments"));
        // More records than the commit renders at a time.
        let mut rows = String::from("external_code,establishment_external_code,name,area\n");
        for n in 0..5_000 {
            rows.push_str(&format!("E-{n},PY-EST-0002,Lote {n},{}\n", 1 + n % 90));
        }
        let summary = operator.import("plots", &operator.write("large.csv", &rows));
        assert_eq!(summary, "plots: 5000 created, 0 updated, 0 unchanged, 0 deleted.");
        assert_eq!(operator.integers("SELECT COUNT(*) FROM import_staging_plots WHERE society_id = $1").await, [0]);
        // Ids come from one sequence (on Citus, the coordinator's; a worker's own range starts at 2^48).
        let ids = "SELECT COUNT(*) FROM plots WHERE society_id = $1 AND id >= 281474976710656";
        assert_eq!(operator.integers(ids).await, [0]);
        let events = "SELECT COUNT(*) FROM events WHERE society_id = $1 AND resource = 'plot' AND action = 'created' \
                      AND payload LIKE '{\"id\":%'";
        assert_eq!(operator.integers(events).await, [5_000]);
        assert_eq!(operator.integers("SELECT COUNT(*) FROM events WHERE payload IS NULL AND society_id >= $1 - $1").await, [0]);
    }

    async fn an_imports_creations_updates_and_deletions_are_events_with_the_records_as_read(operator) {
        operator.load_samples();
        let base = operator.serve().await;
        let (token, _) = operator.login(&base).await;
        let feed = "/api/v3/third_party/events?types=plot.created,plot.updated,plot.deleted&size=100";
        let cursor = get(&base, &token, feed).await["next_cursor"].as_str().expect("a cursor").to_owned();
        let changes = operator.write(
            "changes.csv",
            "external_code,establishment_external_code,name,area\n\
             PY-LOT-0003,PY-EST-0001,Lote 3 - Bajo del arroyo,97.15\nPY-LOT-0100,PY-EST-0002,Lote 100,12.5\n",
        );
        assert_eq!(operator.import("plots", &changes), "plots: 1 created, 1 updated, 0 unchanged, 0 deleted.");
        let mut read = Vec::new();
        for code in ["PY-LOT-0100", "PY-LOT-0003"] {
            let sql = format!("SELECT id FROM plots WHERE society_id = $1 AND external_code = '{code}'");
            let id = operator.integers(&sql).await[0];
            read.push(get(&base, &token, &format!("/api/v3/third_party/plots/{id}")).await);
        }
        let (created, updated) = (read[0].clone(), read[1].clone());
        let gone = operator.write("gone.csv", "external_code,deleted\nPY-LOT-0100,1\n");
        assert_eq!(operator.import("plots", &gone), "plots: 0 created, 0 updated, 0 unchanged, 1 deleted.");
        let page = get(&base, &token, &format!("{feed}&after={cursor}")).await;
        let events: Vec<(String, Value)> = page["items"]
            .as_array()
            .expect("items")
            .iter()
            .map(|event| (event["type"].as_str().unwrap_or_default().to_owned(), event["data"].clone()))
            .collect();
        assert_eq!(events.len(), 3, "{events:?}");
        let (kinds, data): (Vec<_>, Vec<_>) = events.into_iter().unzip();
        // PY-LOT-0003 comes first in the file and by id, whichever of the two orders a backend keeps.
        assert_eq!(kinds[..2], ["plot.updated", "plot.created"]);
        assert_eq!(data[0], updated, "the updated record as its read shows it");
        assert_eq!(data[1], created, "the created record as its read shows it");
        assert_eq!(kinds[2], "plot.deleted");
        assert_eq!(data[2]["id"], created["id"]);
        assert!(data[2]["deleted_at"].is_string(), "{:?}", data[2]);
    }

    async fn every_imported_resource_has_its_events_with_the_records_as_read(operator) {
        // Each import resource of a society is created from a file, then one of its records renamed by an edited
        // export: each time, the feed holds exactly one event per record written, with the record as its GET shows.
        let base = operator.serve().await;
        let (token, _) = operator.login(&base).await;
        let api = (base.as_str(), token.as_str());
        let mut cursor = events_after(&base, &token, "now").await.1;
        let mut files: Vec<(&str, PathBuf)> = SAMPLES.iter().map(|resource| (*resource, sample(resource))).collect();
        files.push(("tags", operator.write("tags.csv", "external_code,name,parent_external_code\nT-2,Lotes bajos,T-1\nT-1,Zona norte,\n")));
        files.push(("warehouses", operator.write("warehouses.jsonl",
            "{\"external_code\": \"W-1\", \"name\": \"Depósito central\", \"establishment_external_code\": \"PY-EST-0001\"}\n")));
        files.push(("applicators", operator.write("applicators.csv", "external_code,name,email\nA-1,Juan Benítez,jb@example.com.py\n")));
        let mut seen: Vec<(String, String)> = Vec::new();
        for (resource, file) in &files {
            let (next, actions) = imported_as_read(&operator, api, resource, file, cursor).await;
            cursor = next;
            seen.extend(actions.into_iter().map(|action| ((*resource).to_owned(), action)));
        }
        let society = operator.society.to_string();
        let mut expected = Vec::new();
        for resource in store::import::resources() {
            if resource.ownership == store::import::Ownership::Country {
                // A country's catalogue belongs to no society: no society's feed has its events.
                continue;
            }
            let export = operator.files.join(format!("{}-export.jsonl", resource.name));
            operator.ok(&["export", resource.name, &export.display().to_string(), "--society", society.as_str()]);
            let text = std::fs::read_to_string(&export).expect("the export");
            let mut record: Value = serde_json::from_str(text.lines().next().expect("a record")).expect("a JSON line");
            let name = record["name"].as_str().expect("a name").to_owned();
            record["name"] = json!(format!("{name} (corregido)"));
            let file = operator.write(&format!("{}-renamed.jsonl", resource.name), format!("{record}\n"));
            let (next, actions) = imported_as_read(&operator, api, resource.name, &file, cursor).await;
            assert_eq!(actions, ["updated"], "{}", resource.name);
            cursor = next;
            seen.extend(actions.into_iter().map(|action| (resource.name.to_owned(), action)));
            expected.extend(["created", "updated"].map(|action| (resource.name.to_owned(), action.to_owned())));
        }
        let missing: Vec<_> = expected.iter().filter(|pair| !seen.contains(pair)).collect();
        assert!(missing.is_empty(), "import resources whose writes were not shown as events: {missing:?}");
    }

    async fn reports_speak_the_operators_language(operator) {
        let file = operator.write("x.csv", "external_code,name\nF-1,\n");
        let spanish = String::from_utf8_lossy(&operator.admin(&["import", "farmers", &file.display().to_string(), "--society", &operator.society.to_string()]).stderr).into_owned();
        assert!(spanish.contains("fila 2: name es obligatorio y no puede estar vacío."), "{spanish}");
        assert!(spanish.contains("no se guardó nada"), "{spanish}");
        let output = Command::new(env!("CARGO_BIN_EXE_tranquera"))
            .args(["admin", "--database", &operator.url, "import", "farmers", &file.display().to_string(), "--society", &operator.society.to_string()])
            .env_remove("LC_ALL")
            .env("LANG", "pt_BR.UTF-8")
            .output()
            .expect("run tranquera");
        let portuguese = String::from_utf8_lossy(&output.stderr);
        assert!(portuguese.contains("linha 2: name é obrigatório e não pode estar vazio."), "{portuguese}");
    }

    async fn a_countrys_catalogue_is_loaded_with_country(operator) {
        let file = operator.write("products.csv", "external_code,name,active_ingredient,formulation_type_reference_key,unit_reference_key\n\
                                                   SENAVE-99001,Glifosato Chaco 48,Glifosato 48%,formulation.sl,unit.l\n");
        let output = operator.admin(&["import", "formulateds", &file.display().to_string(), "--society", &operator.society.to_string()]);
        assert!(String::from_utf8_lossy(&output.stderr).contains("give --country"), "a catalogue is a country's");
        let summary = operator.ok(&["import", "formulateds", &file.display().to_string(), "--country", "PY", "--lang", "en"]);
        assert!(summary.contains("formulateds: 1 created"), "{summary}");
        let countries = operator.texts("SELECT country FROM formulateds WHERE external_code = 'SENAVE-99001'").await;
        assert_eq!(countries, ["PY"]);
        let cycles = operator.write("cycles.csv", "external_code,name,start_date,end_date\npy.cycle.zafra-2026-27,Zafra 2026/27,2026-09-01,2027-04-30\n");
        let summary = operator.ok(&["import", "cycles", &cycles.display().to_string(), "--country", "PY", "--lang", "en"]);
        assert!(summary.contains("master_campaign_cycles: 1 created"), "{summary}");
    }

    async fn users_and_societies_are_listed_without_secrets(operator) {
        let base = operator.serve().await;
        let (token, _) = operator.login(&base).await;
        let users = operator.ok(&["user", "list", "--society", &operator.society.to_string()]);
        let line = users.lines().next().expect("the integrator");
        let columns: Vec<&str> = line.split('\t').collect();
        assert_eq!(columns[1..], [operator.society.to_string().as_str(), "erp@itapua.com.py", "ERP", "api_integrated", "active"]);
        assert!(!users.contains(PASSWORD) && !users.contains("argon2") && !users.contains(&token), "{users}");
        let hashes = operator.texts("SELECT password_hash FROM users").await;
        assert!(hashes.iter().all(|hash| !users.contains(hash.as_str())));
        assert_eq!(operator.ok(&["user", "list"]).lines().count(), 1);
        let societies = operator.ok(&["society", "list"]);
        let paraguay = societies.lines().find(|line| line.starts_with(&format!("{}\t", operator.society))).expect("the society");
        assert_eq!(paraguay.split('\t').collect::<Vec<_>>(), [operator.society.to_string().as_str(), "PY", "America/Asuncion", "Agroganadera Itapúa S.A."]);
    }
}

/// On PostgreSQL, two imports of one society's plots (overlapping codes) and API creates of plots (some with the
/// imports' codes) at once: every command ends cleanly (the API answers 201 or 409, never 500), nothing is lost, and
/// no live code is stored twice.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_import_racing_api_writes_and_another_import_loses_nothing_on_postgres() {
    let operator = Operator::new(Backend::Postgres).await;
    operator.import("farmers", &sample("farmers"));
    operator.import("establishments", &sample("establishments"));
    let base = operator.serve().await;
    let (token, _) = operator.login(&base).await;
    let establishment = operator
        .integers("SELECT id FROM establishments WHERE society_id = $1 ORDER BY id")
        .await[0];
    let file = |name: &str, codes: std::ops::Range<usize>, label: &str| {
        let mut rows = String::from("external_code,establishment_external_code,name,area\n");
        for n in codes {
            rows.push_str(&format!("R-{n:05},PY-EST-0001,{label} {n},{}\n", 1 + n % 50));
        }
        operator.write(name, rows)
    };
    let first = file("first.csv", 0..3_000, "Primero");
    let second = file("second.csv", 2_000..5_000, "Segundo");
    let import = |path: PathBuf| {
        let args = operator.import_args("plots", &path, &["--quiet"]);
        let url = operator.url.clone();
        tokio::task::spawn_blocking(move || {
            Command::new(env!("CARGO_BIN_EXE_tranquera"))
                .args(["admin", "--database", &url])
                .args(&args)
                .output()
                .expect("run tranquera")
        })
    };
    let imports = [import(first), import(second)];
    let http = reqwest::Client::new();
    let mut creates = Vec::new();
    for n in 0..150 {
        // Half take codes the imports load, half codes of their own.
        let code = if n % 2 == 0 {
            format!("R-{:05}", 1_900 + n * 10)
        } else {
            format!("API-{n}")
        };
        let request = http
            .post(format!("{base}/api/v3/third_party/plots"))
            .header("X-SVC-SYSTEM-ID", "8")
            .bearer_auth(&token)
            .json(&json!({ "name": "API", "establishment_id": establishment, "area": 5.0, "external_code": code }));
        creates.push(tokio::spawn(async move {
            (code, request.send().await.expect("POST").status())
        }));
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    let mut api_codes = Vec::new();
    for create in creates {
        let (code, status) = create.await.expect("a create");
        assert!(
            status == StatusCode::CREATED || status == StatusCode::CONFLICT,
            "{code}: {status}"
        );
        if status == StatusCode::CREATED {
            api_codes.push(code);
        }
    }
    for import in imports {
        let output = import.await.expect("an import");
        assert!(
            output.status.success(),
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let twice = operator
        .texts("SELECT external_code FROM plots WHERE society_id = $1 AND deleted_at IS NULL GROUP BY external_code HAVING COUNT(*) > 1")
        .await;
    assert!(twice.is_empty(), "{twice:?}");
    let live = operator
        .texts("SELECT external_code FROM plots WHERE society_id = $1 AND deleted_at IS NULL")
        .await;
    let expected: Vec<String> = (0..5_000)
        .map(|n| format!("R-{n:05}"))
        .chain(api_codes.iter().filter(|c| c.starts_with("API-")).cloned())
        .collect();
    let mut live_sorted = live.clone();
    live_sorted.sort();
    let mut expected_sorted = expected;
    expected_sorted.sort();
    expected_sorted.dedup();
    assert_eq!(
        live_sorted, expected_sorted,
        "every imported code and every created plot is there, once"
    );
}
