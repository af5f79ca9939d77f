//! End-to-end tests of `tranquera sync`: the real binary against the real server, started in-process on a temporary
//! SQLite database seeded with a small demo.

mod sandbox;

use std::collections::BTreeMap;
use std::path::Path;

use client::Filters;
use futures_util::TryStreamExt as _;
use serde_json::Value;
use sqlx::Connection as _;

use sandbox::{sandbox, scratch, Sandbox};

/// What one run of the binary printed.
struct Run {
    stdout: String,
    stderr: String,
    summary: Value,
}

impl Sandbox {
    /// Runs `tranquera sync` into `out` with `extra` arguments, in English; stdout is a pipe, so output must be plain
    /// lines.
    async fn sync(&self, out: &Path, extra: &[&str]) -> Run {
        let summary = out.with_extension("summary.json");
        let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_tranquera"))
            .arg("sync")
            .args(["--lang", "en", "--base-url", &self.base])
            .arg("--out")
            .arg(out)
            .arg("--summary-json")
            .arg(&summary)
            .args(extra)
            .env("TRANQUERA_EMAIL", self.email)
            .env("TRANQUERA_PASSWORD", self.password)
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .expect("run tranquera sync");
        let stdout = String::from_utf8(output.stdout).expect("UTF-8 output");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            output.status.success(),
            "sync failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
        );
        let written = std::fs::read(&summary).expect("the summary file");
        // Beside `out`, not in it: the caller deletes `out` alone.
        let _ = std::fs::remove_file(&summary);
        let summary = serde_json::from_slice(&written).expect("JSON");
        Run {
            stdout,
            stderr,
            summary,
        }
    }
}

/// Per resource, the summary's counters.
fn counters(summary: &Value) -> BTreeMap<String, Value> {
    summary["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .map(|r| (r["name"].as_str().expect("name").to_owned(), r.clone()))
        .collect()
}

fn jsonl(out: &Path, resource: &str) -> Vec<Value> {
    std::fs::read_to_string(out.join(format!("{resource}.jsonl")))
        .expect("a JSONL file")
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON object a line"))
        .collect()
}

fn id(record: &Value) -> i64 {
    record["id"]
        .as_i64()
        .or_else(|| record["header"]["local_id"].as_i64())
        .expect("an id")
}

/// The id of the society's first farmer.
async fn first_farmer(api: &client::Client) -> i64 {
    api.farmers(&Filters::new())
        .try_next()
        .await
        .expect("farmers")
        .expect("a farmer")
        .id
}

/// A new live establishment of `farmer`, with no code.
fn establishment_of(farmer: i64, name: &str) -> client::wire::establishments::NewEstablishment {
    client::wire::establishments::NewEstablishment {
        name: name.to_owned(),
        farmer_id: farmer,
        external_code: None,
        active: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_sync_transfers_exactly_what_changed() {
    let sandbox = sandbox("incremental").await;
    let api = &sandbox.api;
    let farmer = first_farmer(api).await;
    let new_establishment = |name: &str| establishment_of(farmer, name);
    // Created before the first sync so its deletion later has something to remove from the mirror.
    let doomed = api
        .create_establishment(&new_establishment("Para borrar"))
        .await
        .expect("create");

    let out = scratch("incremental-out");
    let first = sandbox.sync(&out, &[]).await;
    assert!(
        !first.stdout.contains('\u{1b}'),
        "no terminal escapes when stdout is a pipe"
    );
    assert!(first.stdout.contains("sync establishments: done"), "{}", first.stdout);
    let first_counts = counters(&first.summary);
    assert_eq!(first_counts.len(), 47, "every list resource is synced");
    for (name, counts) in &first_counts {
        assert_eq!(counts["mode"], "full", "{name}");
        assert_eq!(
            counts["updated"], counts["total_items"],
            "{name}: everything listed was received"
        );
        assert_eq!(counts["deleted"], 0, "{name}");
        let lines = jsonl(&out, name).len() as u64;
        assert_eq!(
            Some(lines),
            counts["total_items"].as_u64(),
            "{name}: one line per record"
        );
    }
    let live = api.count(api.establishments(&Filters::new())).await.expect("count");
    assert_eq!(first_counts["establishments"]["total_items"], live as u64);

    // Writes between the runs: one establishment created, one deleted, one work order replaced.
    let created = api
        .create_establishment(&new_establishment("Nueva"))
        .await
        .expect("create");
    api.delete_establishment(doomed.id).await.expect("delete");
    let orders: Vec<_> = api
        .work_orders(&Filters::new(), Default::default())
        .try_collect()
        .await
        .expect("work orders");
    let order = orders
        .iter()
        .find(|o| !o.header.is_read_only)
        .expect("a writable work order");
    let mut write = client::work_order_write(order);
    write.header.name = "Renombrada por la prueba".to_owned();
    api.replace_work_order(order.header.local_id, &write, None)
        .await
        .expect("replace");

    let second = sandbox.sync(&out, &[]).await;
    let counts = counters(&second.summary);
    for (name, c) in &counts {
        assert_eq!(c["mode"], "incremental", "{name}");
        let (updated, deleted) = match name.as_str() {
            "establishments" => (1, 1),
            "work_orders" => (1, 0),
            _ => (0, 0),
        };
        assert_eq!(
            (c["updated"].as_u64(), c["deleted"].as_u64()),
            (Some(updated), Some(deleted)),
            "{name}"
        );
    }
    assert_eq!(second.summary["transferred"], 3);

    let establishments: Vec<i64> = jsonl(&out, "establishments").iter().map(id).collect();
    assert!(
        establishments.contains(&created.id),
        "the new establishment is mirrored"
    );
    assert!(!establishments.contains(&doomed.id), "the deleted one is gone");
    assert_eq!(
        Some(establishments.len() as u64),
        counts["establishments"]["live"].as_u64()
    );
    let renamed = jsonl(&out, "work_orders")
        .into_iter()
        .find(|o| id(o) == order.header.local_id)
        .expect("the order is mirrored");
    assert_eq!(renamed["header"]["name"], "Renombrada por la prueba");
    let _ = std::fs::remove_dir_all(out);
}

/// The first characters that make a spreadsheet run a cell as a formula (OWASP's list).
const FORMULA_STARTS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// A CSV cell as `tranquera sync` writes it: a text that a spreadsheet would run gets a `'` before it, unless it is
/// a number.
fn cell(value: Option<&Value>) -> String {
    match value {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) if text.starts_with(FORMULA_STARTS) && text.parse::<f64>().is_err() => {
            format!("'{text}")
        }
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
    }
}

/// A minimal RFC 4180 reader: enough for what the sync writes.
fn read_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = vec![];
    let mut row = vec![];
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_and_sqlite_hold_the_same_records_as_jsonl() {
    let sandbox = sandbox("formats").await;
    let resources = [
        "--resource",
        "establishments",
        "--resource",
        "work_orders",
        "--resource",
        "plots",
    ];
    let dirs = [scratch("jsonl"), scratch("csv"), scratch("sqlite")];
    for (dir, format) in dirs.iter().zip(["jsonl", "csv", "sqlite"]) {
        let mut args = vec!["--format", format, "--quiet"];
        args.extend(resources);
        let run = sandbox.sync(dir, &args).await;
        assert_eq!(
            run.stdout.lines().count(),
            1,
            "--quiet prints only the summary: {}",
            run.stdout
        );
    }
    // Read as any consumer of the file would: with SQL of its own, not through the sync's code.
    let mut mirror =
        sqlx::SqliteConnection::connect(&format!("sqlite://{}", dirs[2].join("tranquera.sqlite").display()))
            .await
            .expect("the mirror");
    for resource in ["establishments", "work_orders", "plots"] {
        let expected = jsonl(&dirs[0], resource);
        assert!(!expected.is_empty(), "{resource}");
        let stored: Vec<Value> = sqlx::query_scalar::<_, String>(&format!(
            "SELECT record FROM \"{resource}\" WHERE deleted_at IS NULL ORDER BY id"
        ))
        .fetch_all(&mut mirror)
        .await
        .expect("live records")
        .into_iter()
        .map(|text| serde_json::from_str(&text).expect("JSON"))
        .collect();
        assert_eq!(stored, expected, "{resource}: SQLite holds what JSONL holds");

        let text = std::fs::read_to_string(dirs[1].join(format!("{resource}.csv"))).expect("a CSV file");
        let rows = read_csv(&text);
        let (header, rows) = rows.split_first().expect("a header");
        assert_eq!(rows.len(), expected.len(), "{resource}: one row per record");
        for (row, record) in rows.iter().zip(&expected) {
            for (column, value) in header.iter().zip(row) {
                assert_eq!(*value, cell(record.get(column)), "{resource}.{column}");
            }
        }
    }
    mirror.close().await.expect("close the mirror");
    for dir in dirs {
        let _ = std::fs::remove_dir_all(dir);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_cells_that_a_spreadsheet_would_run_are_neutralised() {
    let sandbox = sandbox("formulas").await;
    let farmer = first_farmer(&sandbox.api).await;
    // A tenant's names, through the API, beginning with each character a spreadsheet starts a formula with that a
    // name keeps (the API trims a leading tab or carriage return; `sync/export.rs`'s unit test has those).
    let names = [
        "=HYPERLINK(\"http://127.0.0.1/x\",\"ver\")",
        "=cmd|' /C calc'!A0",
        "+1+1",
        "-2+3",
        "@SUM(A1:A9)",
    ];
    for name in names {
        sandbox
            .api
            .create_establishment(&establishment_of(farmer, name))
            .await
            .unwrap_or_else(|error| panic!("create {name:?}: {error}"));
    }
    let out = scratch("formulas-out");
    sandbox
        .sync(&out, &["--format", "csv", "--quiet", "--resource", "establishments"])
        .await;
    let text = std::fs::read_to_string(out.join("establishments.csv")).expect("a CSV file");
    let rows = read_csv(&text);
    let (header, rows) = rows.split_first().expect("a header");
    let column = header.iter().position(|name| name == "name").expect("a name column");
    let written: Vec<&str> = rows.iter().map(|row| row[column].as_str()).collect();
    for name in names {
        let neutralised = format!("'{name}");
        assert!(written.contains(&neutralised.as_str()), "{name:?} as {written:?}");
        // Quoted too, so that a `;` or tab inside cannot start a cell of its own.
        assert!(
            text.contains(&format!("\"'{}\"", name.replace('"', "\"\""))),
            "{name:?} quoted"
        );
    }
    assert!(
        !written.iter().any(|cell| cell.starts_with(FORMULA_STARTS)),
        "no cell starts a formula: {written:?}"
    );
    let _ = std::fs::remove_dir_all(out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_cut_short_resumes_without_refetching_finished_resources() {
    let sandbox = sandbox("resume").await;
    let out = scratch("resume-out");
    // A run that got as far as two resources, as an interrupted one leaves the state file.
    sandbox
        .sync(&out, &["--resource", "units", "--resource", "establishments"])
        .await;
    let state: Value =
        serde_json::from_slice(&std::fs::read(out.join(".tranquera-sync.json")).expect("state")).expect("JSON");
    assert!(state["resources"]["units"]["since"].is_string(), "{state}");
    let resumed = counters(&sandbox.sync(&out, &[]).await.summary);
    for (name, c) in &resumed {
        let finished = name == "units" || name == "establishments";
        assert_eq!(c["mode"], if finished { "incremental" } else { "full" }, "{name}");
        if finished {
            assert_eq!(c["updated"], 0, "{name} is not fetched again");
        }
    }
    let _ = std::fs::remove_dir_all(out);
}

/// Every resource's JSONL file in `out`, by name.
fn folder(out: &Path) -> BTreeMap<String, Vec<Value>> {
    std::fs::read_dir(out)
        .expect("the folder")
        .filter_map(|entry| {
            let name = entry
                .expect("an entry")
                .file_name()
                .into_string()
                .expect("a UTF-8 name");
            let resource = name.strip_suffix(".jsonl")?.to_owned();
            Some((resource.clone(), jsonl(out, &resource)))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_over_the_feed_ends_with_the_mirror_a_walk_ends_with() {
    let sandbox = sandbox("feed").await;
    let api = &sandbox.api;
    let farmer = first_farmer(api).await;
    let new_establishment = |name: &str| establishment_of(farmer, name);
    // Created before the first syncs so that its deletion has something to remove from the mirrors.
    let doomed = api
        .create_establishment(&new_establishment("Borrada en el feed"))
        .await
        .expect("create");
    let (feed, walk) = (scratch("feed-out"), scratch("walk-out"));
    let first = sandbox.sync(&feed, &[]).await;
    assert_eq!(first.summary["feed"], "head", "{}", first.summary);
    sandbox.sync(&walk, &["--no-feed"]).await;

    let created = api
        .create_establishment(&new_establishment("Vista por el feed"))
        .await
        .expect("create");
    api.delete_establishment(doomed.id).await.expect("delete");
    let orders: Vec<_> = api
        .work_orders(&Filters::new(), Default::default())
        .try_collect()
        .await
        .expect("work orders");
    let order = orders
        .iter()
        .find(|o| !o.header.is_read_only)
        .expect("a writable work order");
    let mut write = client::work_order_write(order);
    write.header.name = "Renombrada para el feed".to_owned();
    api.replace_work_order(order.header.local_id, &write, None)
        .await
        .expect("replace");

    let second = sandbox.sync(&feed, &[]).await;
    assert_eq!(second.summary["feed"], "read", "{}", second.summary);
    assert!(second.summary["feed_events"].as_u64() >= Some(3), "{}", second.summary);
    let counts = counters(&second.summary);
    for name in ["establishments", "work_orders"] {
        assert_eq!(counts[name]["walked"], true, "{name} had events");
    }
    for name in ["farmers", "plots", "device_events", "scouting"] {
        assert_eq!(counts[name]["walked"], false, "{name} had none: {}", counts[name]);
        assert_eq!(counts[name]["pages"], 0, "{name}");
    }
    assert_eq!(second.summary["transferred"], 3);
    sandbox.sync(&walk, &["--no-feed"]).await;

    let (by_feed, by_walk) = (folder(&feed), folder(&walk));
    assert_eq!(by_feed.len(), 47);
    assert_eq!(by_feed, by_walk, "the feed's folder is the walk's");
    let establishments: Vec<i64> = by_feed["establishments"].iter().map(id).collect();
    assert!(establishments.contains(&created.id) && !establishments.contains(&doomed.id));

    // Nothing changed: a third run reads the feed and walks only the lists that have no events.
    let third = sandbox.sync(&feed, &[]).await;
    assert_eq!(third.summary["transferred"], 0);
    assert!(
        counters(&third.summary)
            .values()
            .filter(|c| c["walked"] == true)
            .count()
            < 20
    );

    // A deletion whose event is pruned before the next run: the feed answers 410 for the saved cursor, and the run
    // walks every list, deletions included, so the folder still ends as the walk's.
    api.delete_establishment(created.id).await.expect("delete");
    let later = chrono::Utc::now().timestamp_millis() + 1000;
    assert!(sandbox.store.prune_events(later).await.expect("prune") > 0);
    let expired = sandbox.sync(&feed, &[]).await;
    assert_eq!(expired.summary["feed"], "expired", "{}", expired.summary);
    assert!(
        expired.stdout.contains("older than the feed keeps"),
        "{}",
        expired.stdout
    );
    assert!(counters(&expired.summary)["establishments"]["deleted"].as_u64() >= Some(1));
    sandbox.sync(&walk, &["--no-feed"]).await;
    let (by_feed, by_walk) = (folder(&feed), folder(&walk));
    assert_eq!(by_feed, by_walk, "after a resync too");
    assert!(by_feed["establishments"].iter().all(|e| id(e) != created.id));
    for dir in [feed, walk] {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// An instant as the API writes it: to the second, with the society's offset.
fn api_instant(text: &str) -> bool {
    text.len() == 25 && chrono::DateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%:z").is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_mirror_keeps_every_value_as_the_api_sent_it_and_names_lists_by_their_paths() {
    let sandbox = sandbox("as-sent").await;
    let api = &sandbox.api;
    let farmer = first_farmer(api).await;
    let doomed = api
        .create_establishment(&establishment_of(farmer, "Borrada para el espejo"))
        .await
        .expect("create");
    let out = scratch("as-sent-out");
    let first = sandbox.sync(&out, &["--format", "sqlite"]).await;
    let names: Vec<String> = counters(&first.summary).into_keys().collect();
    for renamed in [
        "scouting",
        "application_order_labour_types",
        "adversity",
        "weather_anomaly",
    ] {
        assert!(names.iter().any(|name| name == renamed), "{renamed} in {names:?}");
    }
    for former in ["scoutings", "labour_types", "adversities", "weather_anomalies"] {
        assert!(!names.iter().any(|name| name == former), "{former} in {names:?}");
    }
    let since = chrono::Utc::now().fixed_offset() - chrono::Duration::seconds(60);
    api.delete_establishment(doomed.id).await.expect("delete");
    let second = sandbox.sync(&out, &["--format", "sqlite"]).await;
    assert_eq!(counters(&second.summary)["establishments"]["deleted"], 1);

    // The API's own words for the deleted record, as it sends them.
    let query = Filters::new().deleted_from(since).query(client::Generation::V3);
    let deleted: Value = api
        .get("/api/v3/third_party/establishments", query)
        .await
        .expect("the deleted establishments");
    let sent = deleted["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|item| item["id"] == doomed.id)
        .expect("the deleted establishment is listed")
        .clone();
    let sent_at = sent["deleted_at"].as_str().expect("a deleted_at").to_owned();
    assert!(sent_at.ends_with("-03:00"), "the society's offset: {sent_at}");

    let mut mirror = sqlx::SqliteConnection::connect(&format!("sqlite://{}", out.join("tranquera.sqlite").display()))
        .await
        .expect("the mirror");
    let (record, updated_at, deleted_at): (String, Option<String>, Option<String>) =
        sqlx::query_as("SELECT record, updated_at, deleted_at FROM establishments WHERE id = ?")
            .bind(doomed.id)
            .fetch_one(&mut mirror)
            .await
            .expect("the deleted establishment is mirrored");
    assert_eq!(
        deleted_at.as_deref(),
        Some(sent_at.as_str()),
        "deleted_at as the API sent it"
    );
    assert_eq!(updated_at.as_deref(), sent["updated_at"].as_str(), "updated_at as sent");
    assert_eq!(
        serde_json::from_str::<Value>(&record).expect("JSON"),
        sent,
        "the record as sent"
    );

    // Every table's instants are the record's own, to the second with an offset, never rewritten.
    let tables: Vec<String> = sqlx::query_scalar("SELECT name FROM sqlite_master WHERE type = 'table'")
        .fetch_all(&mut mirror)
        .await
        .expect("the tables");
    assert_eq!(tables.len(), 47);
    for table in &tables {
        let rows: Vec<(String, Option<String>, Option<String>)> =
            sqlx::query_as(&format!("SELECT record, updated_at, deleted_at FROM \"{table}\""))
                .fetch_all(&mut mirror)
                .await
                .expect("rows");
        for (record, updated_at, deleted_at) in rows {
            let record: Value = serde_json::from_str(&record).expect("JSON");
            let audit = if record["header"].is_object() {
                &record["header"]
            } else {
                &record
            };
            assert_eq!(updated_at.as_deref(), audit["updated_at"].as_str(), "{table}: {record}");
            if let Some(at) = &deleted_at {
                assert!(api_instant(at), "{table}: {at}");
            }
        }
    }
    mirror.close().await.expect("close the mirror");
    let _ = std::fs::remove_dir_all(out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_synced_under_former_names_carries_on_under_the_paths_names() {
    let sandbox = sandbox("renamed").await;
    let out = scratch("renamed-out");
    sandbox
        .sync(&out, &["--resource", "scouting", "--resource", "units"])
        .await;
    // The folder as a former release left it: the list's table, state entry and file under its former name.
    let mut mirror = sqlx::SqliteConnection::connect(&format!("sqlite://{}", out.join("tranquera.sqlite").display()))
        .await
        .expect("the mirror");
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM scouting")
        .fetch_one(&mut mirror)
        .await
        .expect("rows");
    assert!(rows > 0, "the demo has scoutings");
    sqlx::query("ALTER TABLE scouting RENAME TO scoutings")
        .execute(&mut mirror)
        .await
        .expect("rename");
    mirror.close().await.expect("close");
    let state_path = out.join(".tranquera-sync.json");
    let mut state: Value = serde_json::from_slice(&std::fs::read(&state_path).expect("state")).expect("JSON");
    let entry = state["resources"]
        .as_object_mut()
        .expect("resources")
        .remove("scouting")
        .expect("scouting's state");
    state["resources"]["scoutings"] = entry;
    std::fs::write(&state_path, serde_json::to_vec(&state).expect("JSON")).expect("write state");
    std::fs::rename(out.join("scouting.jsonl"), out.join("scoutings.jsonl")).expect("rename the file");

    let again = sandbox.sync(&out, &["--resource", "scoutings"]).await;
    assert!(
        again.stderr.contains("--resource scoutings is now scouting"),
        "{}",
        again.stderr
    );
    assert!(
        again.stdout.contains("scoutings is now scouting, as its path names it"),
        "the user is told: {}",
        again.stdout
    );
    let counts = counters(&again.summary);
    assert_eq!(counts.keys().collect::<Vec<_>>(), ["scouting"]);
    assert_eq!(
        counts["scouting"]["mode"], "incremental",
        "carried on, not started afresh"
    );
    assert_eq!(counts["scouting"]["updated"], 0);
    assert_eq!(counts["scouting"]["live"].as_i64(), Some(rows));
    assert!(!out.join("scoutings.jsonl").exists());
    assert_eq!(jsonl(&out, "scouting").len() as i64, rows);
    let state: Value = serde_json::from_slice(&std::fs::read(&state_path).expect("state")).expect("JSON");
    assert!(state["resources"]["scouting"].is_object() && state["resources"]["scoutings"].is_null());
    let _ = std::fs::remove_dir_all(out);
}
