//! Background jobs on campaigns: an objective-yield update or an import is accepted at once, worked by a server's
//! worker, and reports each refused row; jobs stay within their society; and a job whose worker died half-way is
//! finished by a restarted server without applying any row twice; claims take turns between societies, and claimers at
//! once never take one job.

use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};
use server::i18n::jobs::row_reason;
use server::{Application, ServerConfig};
use store::jobs::Progress;
use store::Store;

use crate::helpers::{error_envelope, integrator, Setup, TestApp};

const OBJECTIVE_YIELD: &str = "/api/v2/third_party/campaigns/update_objective_yield";
const OBJECTIVE_YIELD_JOBS: &str = "/api/v2/third_party/campaigns/update_objective_yield/jobs";
const IMPORT: &str = "/api/v2/third_party/campaigns/import";
const IMPORT_JOBS: &str = "/api/v2/third_party/campaigns/import/jobs";
const CAMPAIGNS: &str = "/api/v3/third_party/campaigns";

/// A worker that picks work up quickly and in small chunks, so a test sees several chunks without waiting.
fn quick_worker(mut config: ServerConfig) -> ServerConfig {
    config.jobs.enabled = true;
    config.jobs.poll_interval = Duration::from_millis(50);
    config.jobs.lease = Duration::from_secs(2);
    config.jobs.chunk_size = 2;
    config
}

fn quick() -> Setup {
    let mut setup = Setup::default();
    setup.server = quick_worker(setup.server);
    setup
}

/// A server whose process works no jobs: what is queued stays queued until a test works it by hand.
fn without_worker() -> Setup {
    let mut setup = Setup::default();
    setup.server.jobs.enabled = false;
    setup
}

/// A filter value for "now", in the form the API renders (and so accepts) timestamps.
fn now_filter() -> String {
    chrono::Utc::now()
        .format("%Y-%m-%dT%H:%M:%S+00:00")
        .to_string()
        .replace('+', "%2B")
}

fn ids(items: &[Value], key: &str) -> Vec<i64> {
    let mut ids: Vec<i64> = items.iter().filter_map(|item| item[key].as_i64()).collect();
    ids.sort_unstable();
    ids
}

fn rows(list: &Value) -> Vec<i64> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|r| r["row"].as_i64().expect("a row number"))
        .collect()
}

async fn first_id(app: &TestApp, token: &str, path: &str) -> i64 {
    app.get_ok(path, token).await["items"][0]["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("{path} has an item"))
}

async fn sync_check(app: &TestApp, country: &str) -> Value {
    app.login_as(integrator(country)).await["society"]["syncCheck"].clone()
}

/// Starts a job and checks the 202 answer: the job's status, and a `Location` that names its detail.
async fn start(app: &TestApp, token: &str, path: &str, body: &Value) -> Value {
    let response = app.post(path, token, body).await;
    let status = response.status();
    let location = response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let job: Value = response.json().await.expect("JSON");
    assert_eq!(status, StatusCode::ACCEPTED, "{job}");
    assert_eq!(location, Some(format!("{path}/jobs/{}", job["id"])));
    let total = body["campaigns"].as_array().map(Vec::len);
    assert_eq!(job["total_items"].as_u64(), total.map(|n| n as u64));
    assert!(
        ["pending", "running", "finished"].contains(&job["status"].as_str().unwrap_or("")),
        "{job}"
    );
    job
}

/// Polls a job's detail (on the server at `base`) until it has finished; at most 20 seconds.
async fn finished_at(app: &TestApp, base: &str, token: &str, path: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let response = app
            .client
            .get(format!("{base}{path}"))
            .header("X-SVC-SYSTEM-ID", "8")
            .bearer_auth(token)
            .send()
            .await
            .expect("GET the job");
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        let job: Value = response.json().await.expect("JSON");
        match job["status"].as_str() {
            Some("finished") => return job,
            Some("pending" | "running") if Instant::now() < deadline => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            _ => panic!("the job did not finish in time: {job}"),
        }
    }
}

async fn finished(app: &TestApp, token: &str, path: &str) -> Value {
    finished_at(app, &app.base, token, path).await
}

async fn campaign(app: &TestApp, token: &str, id: i64) -> Value {
    app.get_ok(&format!("{CAMPAIGNS}/{id}"), token).await
}

/// An import row that the caller's society accepts.
fn import_row(plot: i64, master: i64, name: &str, code: Option<&str>) -> Value {
    json!({ "plot_id": plot, "master_campaign_id": master, "name": name, "external_code": code, "area": 35.5,
            "planting_date": "2025-11-03", "objective_yield": 3.2 })
}

mod worked {
    use super::*;

    crate::on_both_backends_with! {
        quick();

        async fn an_objective_yield_update_applies_and_is_seen_by_incremental_sync(app) {
            let token = app.token(integrator("AR")).await;
            let campaigns = app.get_ok(CAMPAIGNS, &token).await["items"].as_array().expect("items").clone();
            let (first, second) = (campaigns[0]["id"].as_i64().expect("id"), campaigns[1]["id"].as_i64().expect("id"));
            let check = sync_check(&app, "AR").await;
            // Timestamps have second precision: wait so nothing seeded shares the sync's second.
            tokio::time::sleep(Duration::from_millis(1100)).await;
            let since = now_filter();

            let body = json!({ "campaigns": [
                { "campaign_id": first, "objective_yield": 4.5 },
                { "campaign_id": second, "objective_yield": 7.25 },
            ] });
            let job = start(&app, &token, OBJECTIVE_YIELD, &body).await;
            let done = finished(&app, &token, &format!("{OBJECTIVE_YIELD_JOBS}/{}", job["id"])).await;
            assert_eq!((done["processed_items"].clone(), done["failed_items"].clone()), (json!(2), json!(0)));
            assert_eq!(done["result"], json!({ "updated": 2, "refused": [] }));
            assert!(done["started_at"].is_string() && done["finished_at"].is_string() && done["error"].is_null());

            assert_eq!(campaign(&app, &token, first).await["objective_yield"], 4.5);
            assert_eq!(campaign(&app, &token, second).await["objective_yield"], 7.25);
            let changed = app.all_items(&format!("{CAMPAIGNS}?updated_at_from={since}"), &token).await;
            let mut expected = vec![first, second];
            expected.sort_unstable();
            assert_eq!(ids(&changed, "id"), expected, "exactly the updated campaigns changed since");
            assert_ne!(sync_check(&app, "AR").await, check, "a job's writes change syncCheck like any write");
            let listed = app.all_items(OBJECTIVE_YIELD_JOBS, &token).await;
            assert!(listed.contains(&done), "the list shows the job as its detail does");
        }

        async fn bad_rows_are_refused_by_number_while_good_rows_apply(app) {
            let token = app.token(integrator("AR")).await;
            let brazil = app.token(integrator("BR")).await;
            let campaigns = app.get_ok(CAMPAIGNS, &token).await["items"].as_array().expect("items").clone();
            let [a, b, c] = [0, 1, 2].map(|n| campaigns[n]["id"].as_i64().expect("id"));
            let before_b = campaign(&app, &token, b).await["objective_yield"].clone();
            let foreign = first_id(&app, &brazil, CAMPAIGNS).await;
            let foreign_before = campaign(&app, &brazil, foreign).await;

            let body = json!({ "campaigns": [
                { "campaign_id": a, "objective_yield": 5.0 },
                { "campaign_id": 999_999_999, "objective_yield": 5.0 },
                { "campaign_id": foreign, "objective_yield": 5.0 },
                { "campaign_id": b, "objective_yield": 0.0 },
                { "campaign_id": b, "objective_yield": 30.5 },
                { "campaign_id": c, "objective_yield": 30.0 },
            ] });
            let job = start(&app, &token, OBJECTIVE_YIELD, &body).await;
            let done = finished(&app, &token, &format!("{OBJECTIVE_YIELD_JOBS}/{}", job["id"])).await;
            assert_eq!((done["processed_items"].clone(), done["failed_items"].clone()), (json!(6), json!(4)));
            assert_eq!(done["result"]["updated"], 2);
            let refused = &done["result"]["refused"];
            assert_eq!(rows(refused), [2, 3, 4, 5]);
            let reasons: Vec<&str> = refused.as_array().expect("refused").iter().map(|r| r["reason"].as_str().expect("a reason")).collect();
            assert!(reasons[0].contains("campaign_id: 999999999"), "{}", reasons[0]);
            assert!(reasons[1].contains(&format!("campaign_id: {foreign}")), "another society's campaign is unknown here: {}", reasons[1]);
            assert!(reasons[2].contains("objective_yield") && reasons[3].contains("objective_yield"), "{reasons:?}");
            assert_eq!(refused[1]["campaign_id"], foreign);

            assert_eq!(campaign(&app, &token, a).await["objective_yield"], 5.0);
            assert_eq!(campaign(&app, &token, c).await["objective_yield"], 30.0);
            assert_eq!(campaign(&app, &token, b).await["objective_yield"], before_b, "a refused row writes nothing");
            assert_eq!(campaign(&app, &brazil, foreign).await, foreign_before, "another society's campaign is untouched");
        }

        async fn rows_are_refused_in_the_language_of_the_request_that_started_the_job(app) {
            let token = app.token(integrator("AR")).await;
            let campaign = first_id(&app, &token, CAMPAIGNS).await;
            let body = json!({ "campaigns": [
                { "campaign_id": 999_999_999, "objective_yield": 5.0 },
                { "campaign_id": campaign, "objective_yield": 0.0 },
            ] });
            let mut reasons = Vec::new();
            for language in [None, Some("pt-BR"), Some("en")] {
                let mut request = app.request(reqwest::Method::POST, OBJECTIVE_YIELD).bearer_auth(&token).json(&body);
                if let Some(language) = language {
                    request = request.header("Accept-Language", language);
                }
                let response = request.send().await.expect("POST");
                assert_eq!(response.status(), StatusCode::ACCEPTED);
                let job: Value = response.json().await.expect("JSON");
                let done = finished(&app, &token, &format!("{OBJECTIVE_YIELD_JOBS}/{}", job["id"])).await;
                let refused = done["result"]["refused"].as_array().expect("refused").clone();
                reasons.push(refused.iter().map(|r| r["reason"].as_str().expect("a reason").to_owned()).collect::<Vec<_>>());
            }
            // Without Accept-Language, the language of the caller's society (Argentina: Spanish), as its errors are.
            assert_eq!(reasons[0][0], "campaign_id: 999999999 no existe o no está disponible para su sociedad.");
            assert_eq!(reasons[0][1], "objective_yield debe ser mayor que cero (se recibió 0).");
            assert_eq!(reasons[1][0], "campaign_id: 999999999 não existe ou não está disponível para a sua sociedade.");
            assert_eq!(reasons[2][1], "objective_yield must be greater than zero (got 0).");
        }

        async fn a_job_needs_between_one_and_the_maximum_rows(app) {
            let token = app.token(integrator("AR")).await;
            let campaign = first_id(&app, &token, CAMPAIGNS).await;
            let before = app.get_ok(OBJECTIVE_YIELD_JOBS, &token).await["total_items"].clone();
            let too_many: Vec<Value> = (0..=domain::jobs::MAX_JOB_ROWS)
                .map(|_| json!({ "campaign_id": campaign, "objective_yield": 3.0 }))
                .collect();
            for body in [json!({ "campaigns": [] }), json!({ "campaigns": too_many })] {
                let (code, message) = error_envelope(app.post(OBJECTIVE_YIELD, &token, &body).await, StatusCode::UNPROCESSABLE_ENTITY).await;
                assert_eq!(code, 422);
                assert!(message.contains("10000"), "{message}");
            }
            error_envelope(app.post(IMPORT, &token, &json!({ "campaigns": [] })).await, StatusCode::UNPROCESSABLE_ENTITY).await;
            let malformed = json!({ "campaigns": [{ "campaign_id": "uno", "objective_yield": 3.0 }] });
            error_envelope(app.post(OBJECTIVE_YIELD, &token, &malformed).await, StatusCode::BAD_REQUEST).await;
            assert_eq!(app.get_ok(OBJECTIVE_YIELD_JOBS, &token).await["total_items"], before, "nothing was queued");
            assert_eq!(app.get_ok(IMPORT_JOBS, &token).await["total_items"], 0);
        }

        async fn an_import_creates_campaigns_and_reports_refused_rows(app) {
            let token = app.token(integrator("AR")).await;
            let brazil = app.token(integrator("BR")).await;
            let plot = first_id(&app, &token, "/api/v2/third_party/plots").await;
            let master = first_id(&app, &token, "/api/v3/third_party/master_campaigns").await;
            let foreign_plot = first_id(&app, &brazil, "/api/v2/third_party/plots").await;
            let before = app.get_ok(CAMPAIGNS, &token).await["total_items"].as_u64().expect("total");

            let body = json!({ "campaigns": [
                import_row(plot, master, "Soja 1ra Lote 4", Some("ERP-CAMP-1")),
                import_row(999_999_999, master, "Lote fantasma", None),
                import_row(plot, master, "Soja repetida", Some(" ERP-CAMP-1 ")),
                import_row(plot, master, "   ", Some("ERP-CAMP-3")),
                import_row(plot, master, "Maíz 2da Lote 4", None),
                import_row(foreign_plot, master, "Lote ajeno", None),
            ] });
            let job = start(&app, &token, IMPORT, &body).await;
            let done = finished(&app, &token, &format!("{IMPORT_JOBS}/{}", job["id"])).await;
            assert_eq!((done["processed_items"].clone(), done["failed_items"].clone()), (json!(6), json!(4)));
            let created = done["result"]["created"].as_array().expect("created").clone();
            assert_eq!(rows(&done["result"]["created"]), [1, 5]);
            let refused = &done["result"]["refused"];
            assert_eq!(rows(refused), [2, 3, 4, 6]);
            let reason = |n: usize| refused[n]["reason"].as_str().expect("a reason").to_owned();
            assert!(reason(0).contains("plot_id: 999999999"), "{}", reason(0));
            let holder = created[0]["campaign_id"].as_i64().expect("id");
            assert!(reason(1).contains("external_code") && reason(1).contains(&format!("campaña {holder} ")), "{}", reason(1));
            assert!(reason(2).contains("name"), "{}", reason(2));
            assert!(reason(3).contains(&format!("plot_id: {foreign_plot}")), "{}", reason(3));

            let first = campaign(&app, &token, created[0]["campaign_id"].as_i64().expect("id")).await;
            assert_eq!((first["name"].clone(), first["external_code"].clone()), (json!("Soja 1ra Lote 4"), json!("ERP-CAMP-1")));
            assert_eq!((first["plot_id"].clone(), first["master_campaign_id"].clone()), (json!(plot), json!(master)));
            assert_eq!((first["area"].clone(), first["objective_yield"].clone()), (json!(35.5), json!(3.2)));
            assert_eq!(first["planting_date"], "2025-11-03");
            let second = campaign(&app, &token, created[1]["campaign_id"].as_i64().expect("id")).await;
            assert_eq!((second["name"].clone(), second["external_code"].clone()), (json!("Maíz 2da Lote 4"), Value::Null));
            assert_eq!(app.get_ok(CAMPAIGNS, &token).await["total_items"].as_u64(), Some(before + 2));

            let imports = app.all_items(IMPORT_JOBS, &token).await;
            assert_eq!(imports, vec![done.clone()]);
            let updates = app.all_items(OBJECTIVE_YIELD_JOBS, &token).await;
            assert!(!ids(&updates, "id").contains(&done["id"].as_i64().expect("id")), "the kinds' lists are apart");
            let (code, _) = error_envelope(app.get(&format!("{OBJECTIVE_YIELD_JOBS}/{}", done["id"]), &token).await, StatusCode::NOT_FOUND).await;
            assert_eq!(code, 404, "an import is not an objective-yield job");
        }

        async fn the_database_itself_refuses_a_second_live_campaign_with_one_external_code(app) {
            // The import looks before it writes; two imports worked at once by two processes would both find the code
            // free, so the database must refuse the second.
            let token = app.token(integrator("AR")).await;
            let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("a society id");
            let plot = first_id(&app, &token, "/api/v2/third_party/plots").await;
            let master = first_id(&app, &token, "/api/v3/third_party/master_campaigns").await;
            let insert = format!(
                "INSERT INTO campaigns (society_id, master_campaign_id, plot_id, name, external_code, area, created_at, \
                 updated_at) VALUES ($1, {master}, {plot}, 'Soja', 'ERP-CAMP-DB', 10, 0, 0)"
            );
            assert_eq!(app.execute(&insert, society).await.expect("the first"), 1);
            assert!(app.execute(&insert, society).await.is_err(), "a second live campaign with the code");
            let delete = "UPDATE campaigns SET deleted_at = 1 WHERE society_id = $1 AND external_code = 'ERP-CAMP-DB'";
            assert_eq!(app.execute(delete, society).await.expect("deleted"), 1);
            assert_eq!(app.execute(&insert, society).await.expect("the code of a deleted campaign is free"), 1);
        }

        async fn a_retried_start_with_the_same_idempotency_key_queues_one_job(app) {
            let token = app.token(integrator("AR")).await;
            let campaign = first_id(&app, &token, CAMPAIGNS).await;
            let before = app.get_ok(OBJECTIVE_YIELD_JOBS, &token).await["total_items"].as_u64().expect("total");
            let body = json!({ "campaigns": [{ "campaign_id": campaign, "objective_yield": 6.0 }] });
            let mut answers = Vec::new();
            for _ in 0..2 {
                let response = app
                    .request(reqwest::Method::POST, OBJECTIVE_YIELD)
                    .bearer_auth(&token)
                    .header("Idempotency-Key", "erp-batch-2025-11-03")
                    .json(&body)
                    .send()
                    .await
                    .expect("POST");
                assert_eq!(response.status(), StatusCode::ACCEPTED);
                answers.push(response.json::<Value>().await.expect("JSON")["id"].clone());
            }
            assert_eq!(answers[0], answers[1], "the retry is answered with the first job");
            let after = app.get_ok(OBJECTIVE_YIELD_JOBS, &token).await["total_items"].as_u64();
            assert_eq!(after, Some(before + 1));
        }

        async fn another_society_never_sees_a_job(app) {
            let token = app.token(integrator("AR")).await;
            let brazil = app.token(integrator("BR")).await;
            let campaign = first_id(&app, &token, CAMPAIGNS).await;
            let plot = first_id(&app, &token, "/api/v2/third_party/plots").await;
            let master = first_id(&app, &token, "/api/v3/third_party/master_campaigns").await;
            let update = start(&app, &token, OBJECTIVE_YIELD, &json!({ "campaigns": [{ "campaign_id": campaign, "objective_yield": 2.0 }] })).await;
            let import = start(&app, &token, IMPORT, &json!({ "campaigns": [import_row(plot, master, "Trigo", None)] })).await;
            for detail in [format!("{OBJECTIVE_YIELD_JOBS}/{}", update["id"]), format!("{IMPORT_JOBS}/{}", import["id"])] {
                app.get_ok(&detail, &token).await;
                let (code, _) = error_envelope(app.get(&detail, &brazil).await, StatusCode::NOT_FOUND).await;
                assert_eq!(code, 404, "{detail}");
            }
            let theirs = ids(&app.all_items(OBJECTIVE_YIELD_JOBS, &brazil).await, "id");
            assert!(!theirs.contains(&update["id"].as_i64().expect("id")));
            assert!(app.all_items(IMPORT_JOBS, &brazil).await.is_empty());
            let ours = ids(&app.all_items(OBJECTIVE_YIELD_JOBS, &token).await, "id");
            assert!(theirs.iter().all(|id| !ours.contains(id)), "each society sees only its own jobs");
        }
    }
}

mod restart {
    use super::*;

    /// A second server process over the same database, like the first one restarted, with a quick worker.
    async fn restarted(app: &TestApp) -> String {
        let store = Store::connect(&app.url, Setup::default().store)
            .await
            .expect("connect to the shared database");
        let server = Application::build(store, quick_worker(Setup::default().server))
            .await
            .expect("bind the restarted server");
        let address = server.local_addr().expect("the bound address");
        tokio::spawn(server.run_until(std::future::pending()));
        format!("http://{address}")
    }

    crate::on_both_backends_with! {
        without_worker();

        async fn a_job_whose_worker_died_half_way_is_finished_once_after_a_restart(app) {
            let token = app.token(integrator("AR")).await;
            let plot = first_id(&app, &token, "/api/v2/third_party/plots").await;
            let master = first_id(&app, &token, "/api/v3/third_party/master_campaigns").await;
            let codes: Vec<String> = (1..=5).map(|n| format!("RESTART-{n}")).collect();
            let body = json!({ "campaigns": codes.iter().map(|code| import_row(plot, master, code, Some(code))).collect::<Vec<_>>() });
            let job = start(&app, &token, IMPORT, &body).await;
            assert_eq!(job["status"], "pending", "no process works jobs yet");
            let detail = format!("{IMPORT_JOBS}/{}", job["id"]);

            // A worker claims the job, commits one row, and dies holding a lease that will run out.
            let claimed = app.store.claim_job("dead-worker", Duration::from_millis(500)).await.expect("claim").expect("a job to claim");
            assert_eq!(Some(claimed.id), job["id"].as_i64());
            let progress = app.store.work_job(&claimed, "dead-worker", 1, Duration::from_millis(500), row_reason).await.expect("one chunk");
            assert_eq!(progress, Progress::More);
            let half = app.get_ok(&detail, &token).await;
            assert_eq!((half["status"].clone(), half["processed_items"].clone()), (json!("running"), json!(1)));

            let base = restarted(&app).await;
            let done = finished_at(&app, &base, &token, &detail).await;
            assert_eq!((done["processed_items"].clone(), done["total_items"].clone(), done["failed_items"].clone()), (json!(5), json!(5), json!(0)));
            assert_eq!(rows(&done["result"]["created"]), [1, 2, 3, 4, 5], "each row reported once, the dead worker's included");
            let created = ids(done["result"]["created"].as_array().expect("created"), "campaign_id");
            let mut distinct = created.clone();
            distinct.dedup();
            assert_eq!(distinct, created);

            // Each row created exactly one campaign: none lost with the dead worker, none redone by its successor.
            let campaigns = app.all_items(CAMPAIGNS, &token).await;
            for code in &codes {
                let found: Vec<&Value> = campaigns.iter().filter(|c| c["external_code"] == code.as_str()).collect();
                assert_eq!(found.len(), 1, "{code}");
            }
            // The dead worker, were it to wake, can no longer write to the job.
            let late = app.store.work_job(&claimed, "dead-worker", 1, Duration::from_millis(500), row_reason).await.expect("a late chunk");
            assert_eq!(late, Progress::LostLease);
            assert_eq!(app.get_ok(&detail, &token).await, done);
        }

        async fn a_row_the_worker_cannot_read_is_refused_in_the_callers_language_naming_the_field(app) {
            // A start's body is checked before it is queued, so only a job input written by something else (an older
            // server, an operator) holds rows the worker cannot read: each is refused naming its field and what it
            // should hold, in the words of every other refusal, never the parser's.
            let token = app.token(integrator("AR")).await;
            let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("a society id");
            let campaign = first_id(&app, &token, CAMPAIGNS).await;
            let body = json!({ "campaigns": [
                { "campaign_id": campaign, "objective_yield": 4.25 },
                { "campaign_id": campaign, "objective_yield": 5.75 },
                { "campaign_id": campaign, "objective_yield": 6.5 },
            ] });
            let job = start(&app, &token, OBJECTIVE_YIELD, &body).await;
            let mangle = format!(
                "UPDATE jobs SET input = REPLACE(REPLACE(REPLACE(input, '\"objective_yield\":4.25', '\"objective_yield\":\"cuatro\"'), \
                 ',\"objective_yield\":5.75', ''), '\"campaign_id\":{campaign},\"objective_yield\":6.5', '\"campaign_id\":[{campaign}],\"objective_yield\":6.5') \
                 WHERE society_id = $1 AND id = {}",
                job["id"]
            );
            assert_eq!(app.execute(&mangle, society).await.expect("the input rewritten"), 1);

            let base = restarted(&app).await;
            let done = finished_at(&app, &base, &token, &format!("{OBJECTIVE_YIELD_JOBS}/{}", job["id"])).await;
            assert_eq!((done["processed_items"].clone(), done["failed_items"].clone()), (json!(3), json!(3)));
            let refused = &done["result"]["refused"];
            assert_eq!(rows(refused), [1, 2, 3]);
            let reasons: Vec<&str> = refused.as_array().expect("refused").iter().map(|r| r["reason"].as_str().expect("a reason")).collect();
            assert_eq!(reasons[0], "objective_yield debe ser un número (se recibió \"cuatro\").", "{reasons:?}");
            assert_eq!(reasons[1], "objective_yield es obligatorio y no puede estar vacío.", "{reasons:?}");
            assert!(reasons[2].starts_with("campaign_id debe ser un número entero"), "{reasons:?}");
            for reason in &reasons {
                for parser in ["invalid type", "expected", "at line", "missing field", "f64", "i64"] {
                    assert!(!reason.contains(parser), "{reason}");
                }
            }
        }

        async fn a_chunk_under_way_is_not_taken_over_when_its_lease_runs_out(app) {
            let token = app.token(integrator("AR")).await;
            let plot = first_id(&app, &token, "/api/v2/third_party/plots").await;
            let master = first_id(&app, &token, "/api/v3/third_party/master_campaigns").await;
            let count = 2_000;
            let body = json!({ "campaigns": (1..=count).map(|n| import_row(plot, master, &format!("Lote {n}"), None)).collect::<Vec<_>>() });
            let before = app.get_ok(CAMPAIGNS, &token).await["total_items"].as_u64().expect("total");
            start(&app, &token, IMPORT, &body).await;

            // A worker whose lease runs out at once works every row in one chunk, while another claims over and over:
            // the rows must be created once, by whichever worker held the job when its chunk began.
            let slow = app.store.claim_job("slow-worker", Duration::ZERO).await.expect("claim").expect("a job to claim");
            let slow_done = std::sync::atomic::AtomicBool::new(false);
            let slow_work = async {
                let progress = app.store.work_job(&slow, "slow-worker", count, Duration::ZERO, row_reason).await;
                slow_done.store(true, std::sync::atomic::Ordering::SeqCst);
                progress
            };
            let rival_work = async {
                while !slow_done.load(std::sync::atomic::Ordering::SeqCst) {
                    if let Some(job) = app.store.claim_job("rival", Duration::from_secs(60)).await.expect("claim") {
                        return Some(app.store.work_job(&job, "rival", count, Duration::from_secs(60), row_reason).await.expect("work"));
                    }
                    tokio::time::sleep(Duration::from_millis(1)).await;
                }
                None
            };
            let (slow_progress, rival_progress) = tokio::join!(slow_work, rival_work);
            let outcome = (slow_progress.expect("the slow chunk"), rival_progress);
            assert!(
                matches!(outcome, (Progress::Finished, None) | (Progress::LostLease, Some(Progress::Finished))),
                "one worker did the job, the other found it taken or done: {outcome:?}"
            );
            let after = app.get_ok(CAMPAIGNS, &token).await["total_items"].as_u64().expect("total");
            assert_eq!(after, before + count as u64, "every row created once");
        }
    }
}

/// Claims when several societies have jobs waiting, and several claimers at once.
mod between_societies {
    use super::*;

    /// Queues an objective-yield update of one row for the society of `token`; answers the job's id.
    async fn queue(app: &TestApp, token: &str) -> i64 {
        let campaign = first_id(app, token, CAMPAIGNS).await;
        let body = json!({ "campaigns": [{ "campaign_id": campaign, "objective_yield": 4.0 }] });
        let id = start(app, token, OBJECTIVE_YIELD, &body).await["id"]
            .as_i64()
            .expect("a job id");
        // Each job waits since a later millisecond than the one before.
        tokio::time::sleep(Duration::from_millis(3)).await;
        id
    }

    crate::on_both_backends_with! {
        without_worker();

        async fn a_society_with_jobs_waiting_does_not_hold_back_another(app) {
            let busy = app.token(integrator("AR")).await;
            let quiet = app.token(integrator("BR")).await;
            let first = queue(&app, &busy).await;
            let second = queue(&app, &busy).await;
            let third = queue(&app, &busy).await;
            let other = queue(&app, &quiet).await;
            let lease = Duration::from_secs(60);
            let mut claimed = Vec::new();
            for worker in ["w1", "w2", "w3", "w4"] {
                claimed.push(app.store.claim_job(worker, lease).await.expect("claim").expect("a job to claim").id);
            }
            assert_eq!(claimed, [first, other, second, third], "the other society's job before the first's next");
            assert_eq!(app.store.claim_job("w5", lease).await.expect("claim"), None);
        }

        async fn claimers_at_once_never_take_the_same_job(app) {
            let mut jobs = Vec::new();
            for country in ["AR", "BR"] {
                let token = app.token(integrator(country)).await;
                for _ in 0..4 {
                    jobs.push(queue(&app, &token).await);
                }
            }
            let claimer = |worker: &'static str| {
                let store = app.store.clone();
                async move {
                    let mut taken = Vec::new();
                    while let Some(job) = store.claim_job(worker, Duration::from_secs(60)).await.expect("claim") {
                        taken.push(job.id);
                    }
                    taken
                }
            };
            let (first, second, third) = tokio::join!(claimer("a"), claimer("b"), claimer("c"));
            let mut taken = [first, second, third].concat();
            taken.sort_unstable();
            jobs.sort_unstable();
            assert_eq!(taken, jobs, "every job claimed once, by one claimer");
        }
    }
}
