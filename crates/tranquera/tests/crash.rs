//! Crash safety of the real binary, on SQLite and on PostgreSQL: a burst of concurrent writes (work orders with
//! lines, batches of device events), SIGKILL in the middle of it, a restart on the same database, and then every
//! acknowledged write is there, whole, and no write is there in part.
//!
//! Keyed writes too: after SIGKILL mid-burst and a restart, the retry of every write sent with an `Idempotency-Key`
//! is answered within a lease (replayed, run anew, or refused as written), and none is written twice.
//!
//! And of its database: a PostgreSQL primary with a synchronous standby, behind PgBouncer, killed with SIGKILL under
//! a steady load of work-order creates; the standby promoted and PgBouncer repointed, and the same server process
//! answers again, having answered 503 with `Retry-After` only during the switch, with every acknowledged create on
//! the promoted standby, whole.

mod killed;

use std::collections::{HashMap, HashSet};

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use demo::DEMO_ACCOUNTS;
use reqwest::StatusCode;
use serde_json::{json, Value};
use testkit::pgbouncer::{PgBouncer, PreparedStatements};
use testkit::process::ServerProcess;
use testkit::replication::ReplicatedPair;
use testkit::scratch::Scratch;

use killed::{seed, serve};

/// Writers at once.
const WRITERS: usize = 12;
/// Acknowledged writes to wait for before the kill, so that it lands mid-burst.
const ACKS_BEFORE_KILL: usize = 60;
const EVENTS_PER_BATCH: usize = 50;
/// Device event values from here up are this test's: `MARK + batch * 100 + index`.
const MARK: f64 = 1_000_000.0;
const WORK_ORDERS: &str = "/api/v3/third_party/work_orders";
const DEVICE_EVENTS: &str = "/api/v3/third_party/device_events";

/// An API client of one server and one token.
#[derive(Clone)]
struct Api {
    http: reqwest::Client,
    base: String,
    token: String,
}

impl Api {
    fn request(&self, method: reqwest::Method, path: &str) -> reqwest::RequestBuilder {
        self.http
            .request(method, format!("{}{path}", self.base))
            .header("X-SVC-SYSTEM-ID", "8")
            .bearer_auth(&self.token)
            .timeout(Duration::from_secs(20))
    }

    async fn get(&self, path: &str) -> Value {
        let response = self.request(reqwest::Method::GET, path).send().await.expect("GET");
        assert_eq!(response.status(), StatusCode::OK, "GET {path}");
        response.json().await.expect("JSON")
    }

    async fn first_id(&self, path: &str) -> i64 {
        self.get(path).await["items"][0]["id"]
            .as_i64()
            .unwrap_or_else(|| panic!("{path} has an item"))
    }

    async fn all_items(&self, path: &str) -> Vec<Value> {
        let mut items = Vec::new();
        let mut page = 1;
        loop {
            let body = self.get(&format!("{path}?size=500&page={page}")).await;
            items.extend(body["items"].as_array().expect("items").iter().cloned());
            match body["next_page"].as_u64() {
                Some(next) if next > page => page = next,
                _ => return items,
            }
        }
    }
}

/// A logged-in client of the Argentine integrator, and its society's id.
async fn log_in(base: &str) -> (Api, i64) {
    let account = DEMO_ACCOUNTS
        .iter()
        .find(|a| a.country == "AR" && a.api_role)
        .expect("an Argentine integrator");
    let http = reqwest::Client::new();
    let login: Value = http
        .post(format!("{base}/api/v2/login"))
        .header("X-SVC-SYSTEM-ID", "8")
        .json(&json!({ "email": account.email, "password": account.password }))
        .send()
        .await
        .expect("login")
        .json()
        .await
        .expect("login JSON");
    let api = Api {
        http,
        base: base.to_owned(),
        token: login["access_token"].as_str().expect("a token").to_owned(),
    };
    (api, login["society"]["id"].as_i64().expect("a society id"))
}

/// What a work order needs from the caller's society.
struct Refs {
    society: i64,
    campaign: i64,
    formulated: i64,
    voucher_type: i64,
    labour_type: i64,
    contractor: i64,
    machine: i64,
    applicator: i64,
    devices: Vec<i64>,
    event_type: i64,
}

async fn references(api: &Api, society: i64) -> Refs {
    let devices = api.get("/api/v3/third_party/devices?size=500").await["items"]
        .as_array()
        .expect("devices")
        .iter()
        .filter_map(|d| d["id"].as_i64())
        .collect();
    Refs {
        society,
        campaign: api.first_id("/api/v3/third_party/campaigns").await,
        formulated: api.first_id("/api/v3/third_party/formulateds").await,
        voucher_type: api.first_id("/api/v3/third_party/voucher_types").await,
        labour_type: api.first_id("/api/v3/third_party/application_order_labour_types").await,
        contractor: api.first_id("/api/v3/third_party/contractors").await,
        machine: api.first_id("/api/v3/third_party/machines").await,
        applicator: api.first_id("/api/v3/third_party/applicators").await,
        devices,
        event_type: api.first_id("/api/v3/third_party/device_event_types").await,
    }
}

/// A work order named by its shape: `CRASH-<writer>-<n>-<supplies>-<labours>`.
fn work_order(refs: &Refs, external_id: &str, supplies: usize, labours: usize) -> Value {
    let state = json!({ "pending": true, "executed": false, "confirmed": false });
    let supply = json!({ "cultivation": { "local_id": refs.campaign }, "formulated": { "local_id": refs.formulated },
                         "area_applied": 10.0, "total_applied": 20.0, "date": "2025-10-02T08:00:00-03:00", "state": state });
    let labour = json!({ "cultivation": { "local_id": refs.campaign }, "labour_type": { "local_id": refs.labour_type },
                         "area_applied": 10.0, "contractors": [{ "local_id": refs.contractor }],
                         "machines": [{ "local_id": refs.machine }], "applicators": [{ "local_id": refs.applicator }],
                         "date": "2025-10-02T08:00:00-03:00", "state": state });
    json!({
        "header": {
            "external_id": external_id,
            "system_id": "third_party",
            "name": external_id,
            "date": "2025-10-02T08:00:00-03:00",
            "voucher_date": "2025-10-01T00:00:00-03:00",
            "state": state,
            "extra_fields": { "company": { "local_id": refs.society }, "voucher_type": { "local_id": refs.voucher_type } }
        },
        "supplies": vec![supply; supplies],
        "labours": vec![labour; labours],
    })
}

fn event_batch(refs: &Refs, batch: usize) -> Value {
    let events: Vec<Value> = (0..EVENTS_PER_BATCH)
        .map(|index| {
            json!({ "device_id": refs.devices[(batch + index) % refs.devices.len()],
                    "device_event_type_id": refs.event_type, "recorded_at": "2024-03-01T09:30:00-03:00",
                    "value": MARK + (batch * 100 + index) as f64 })
        })
        .collect();
    Value::Array(events)
}

/// What the writers saw before the server died.
#[derive(Default)]
struct Acknowledged {
    orders: Vec<(String, usize, usize)>,
    batches: Vec<usize>,
    /// Answers other than success; none is expected.
    refusals: Vec<String>,
}

async fn burst(api: &Api, refs: Arc<Refs>, server: &mut ServerProcess) -> Acknowledged {
    let acknowledged = Arc::new(Mutex::new(Acknowledged::default()));
    let count = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let (api, refs, acknowledged, count) = (api.clone(), refs.clone(), acknowledged.clone(), count.clone());
            tokio::spawn(async move {
                for n in 0.. {
                    let (supplies, labours) = (1 + n % 4, 1 + n % 3);
                    let external_id = format!("CRASH-{writer}-{n}-{supplies}-{labours}");
                    let batch = writer * 10_000 + n;
                    let (path, body) = if (writer + n) % 2 == 0 {
                        (
                            "/integration/api/v1/workOrders",
                            work_order(&refs, &external_id, supplies, labours),
                        )
                    } else {
                        (DEVICE_EVENTS, event_batch(&refs, batch))
                    };
                    let Ok(response) = api.request(reqwest::Method::POST, path).json(&body).send().await else {
                        return; // The server is gone.
                    };
                    let status = response.status();
                    let mut seen = acknowledged.lock().expect("the acknowledgements");
                    if status != StatusCode::CREATED {
                        seen.refusals.push(format!("{path}: {status}"));
                    } else if path == DEVICE_EVENTS {
                        seen.batches.push(batch);
                    } else {
                        seen.orders.push((external_id, supplies, labours));
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    while count.load(Ordering::Relaxed) < ACKS_BEFORE_KILL {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.kill();
    for writer in writers {
        writer.await.expect("a writer");
    }
    Arc::try_unwrap(acknowledged)
        .ok()
        .expect("no writer left")
        .into_inner()
        .expect("the acknowledgements")
}

async fn acknowledged_writes_survive_sigkill(url: &str, scratch: &Scratch) {
    seed(url).await;
    let log = scratch.join("server.log");
    let mut server = serve(url, &log, &[]);
    let (api, society) = log_in(&server.base).await;
    let refs = Arc::new(references(&api, society).await);
    let acknowledged = burst(&api, refs, &mut server).await;
    assert!(
        acknowledged.refusals.is_empty(),
        "refused writes: {:?}",
        acknowledged.refusals
    );

    let restarted = serve(url, &log, &[]);
    let api = Api {
        base: restarted.base.clone(),
        ..api
    };
    let mut orders: HashMap<String, usize> = HashMap::new();
    for order in api.all_items(WORK_ORDERS).await {
        let external_id = order["header"]["external_id"].as_str().unwrap_or_default().to_owned();
        let Some(shape) = external_id.strip_prefix("CRASH-") else {
            continue;
        };
        let numbers: Vec<usize> = shape.split('-').filter_map(|n| n.parse().ok()).collect();
        let lines = |key: &str| order[key].as_array().map_or(0, Vec::len);
        assert_eq!(
            (lines("supplies"), lines("labours")),
            (numbers[2], numbers[3]),
            "{external_id} is whole"
        );
        *orders.entry(external_id).or_default() += 1;
    }
    assert!(orders.values().all(|&n| n == 1), "an order stored twice: {orders:?}");
    for (external_id, _, _) in &acknowledged.orders {
        assert!(orders.contains_key(external_id), "acknowledged {external_id} is lost");
    }

    let mut batches: HashMap<usize, HashSet<usize>> = HashMap::new();
    for event in api.all_items(DEVICE_EVENTS).await {
        let Some(value) = event["value"].as_f64().filter(|v| *v >= MARK) else {
            continue;
        };
        let offset = (value - MARK) as usize;
        batches.entry(offset / 100).or_default().insert(offset % 100);
    }
    for (batch, events) in &batches {
        assert_eq!(events.len(), EVENTS_PER_BATCH, "batch {batch} is whole");
    }
    for batch in &acknowledged.batches {
        assert!(batches.contains_key(batch), "acknowledged batch {batch} is lost");
    }
    eprintln!(
        "{} orders and {} event batches acknowledged before SIGKILL; {} orders and {} batches found after the restart",
        acknowledged.orders.len(),
        acknowledged.batches.len(),
        orders.len(),
        batches.len()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_sqlite_acknowledged_writes_survive_sigkill_whole() {
    let scratch = Scratch::new("tranquera-crash-sqlite");
    let url = format!("sqlite://{}", scratch.join("api.sqlite").display());
    acknowledged_writes_survive_sigkill(&url, &scratch).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgres_acknowledged_writes_survive_sigkill_whole() {
    let scratch = Scratch::new("tranquera-crash-postgres");
    let url = testkit::postgres::new_database("tranquera_crash").await;
    acknowledged_writes_survive_sigkill(&url, &scratch).await;
}

/// A keyed write sent before the kill: its key, path and body, to send again after the restart.
struct Keyed {
    key: String,
    path: &'static str,
    body: Value,
    /// For a batch of device events, its number ([`event_batch`]).
    batch: Option<usize>,
}

/// Keyed writes (work orders and batches of device events, each with a fresh `Idempotency-Key`) sent by [`WRITERS`]
/// until [`ACKS_BEFORE_KILL`] are answered, then SIGKILL: every write sent, answered or not.
async fn keyed_burst(api: &Api, refs: Arc<Refs>, server: &mut ServerProcess) -> Vec<Keyed> {
    let sent = Arc::new(Mutex::new(Vec::<Keyed>::new()));
    let count = Arc::new(AtomicUsize::new(0));
    let writers: Vec<_> = (0..WRITERS)
        .map(|writer| {
            let (api, refs, sent, count) = (api.clone(), refs.clone(), sent.clone(), count.clone());
            tokio::spawn(async move {
                for n in 0.. {
                    let key = format!("KEYED-{writer}-{n}");
                    let batch = writer * 10_000 + n;
                    let (path, body, batch) = if (writer + n) % 2 == 0 {
                        ("/integration/api/v1/workOrders", work_order(&refs, &key, 2, 1), None)
                    } else {
                        (DEVICE_EVENTS, event_batch(&refs, batch), Some(batch))
                    };
                    sent.lock().expect("the writes").push(Keyed {
                        key: key.clone(),
                        path,
                        body: body.clone(),
                        batch,
                    });
                    let answered = api
                        .request(reqwest::Method::POST, path)
                        .header("Idempotency-Key", &key)
                        .json(&body)
                        .send()
                        .await;
                    if answered.is_err() {
                        return; // The server is gone.
                    }
                    count.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    while count.load(Ordering::Relaxed) < ACKS_BEFORE_KILL {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    server.kill();
    for writer in writers {
        writer.await.expect("a writer");
    }
    let writes = std::mem::take(&mut *sent.lock().expect("the writes"));
    writes
}

/// How a keyed write's retry after the restart was answered.
#[derive(Debug, Default)]
struct Retried {
    replayed: usize,
    ran: usize,
    answer_lost: usize,
}

/// Sends `write` again with its key until it is answered other than "still in progress" (409 with `Retry-After`),
/// which may last a lease; answers the stored order's id for a work order.
async fn retry_keyed(api: &Api, write: &Keyed, retried: &mut Retried) -> Option<i64> {
    let began = Instant::now();
    loop {
        let response = api
            .request(reqwest::Method::POST, write.path)
            .header("Idempotency-Key", &write.key)
            .json(&write.body)
            .send()
            .await
            .expect("the retry is answered");
        let status = response.status();
        if status == StatusCode::CONFLICT && response.headers().contains_key("retry-after") {
            assert!(
                began.elapsed() < Duration::from_millis(store::idempotency::LEASE_MS as u64) + Duration::from_secs(10),
                "{} is still held by the killed process",
                write.key
            );
            tokio::time::sleep(Duration::from_millis(250)).await;
            continue;
        }
        if status == StatusCode::CONFLICT {
            // Written, but the process died before recording the answer: refused, never written again.
            retried.answer_lost += 1;
            return None;
        }
        assert_eq!(status, StatusCode::CREATED, "the retry of {}", write.key);
        if response.headers().contains_key("idempotent-replayed") {
            retried.replayed += 1;
        } else {
            retried.ran += 1;
        }
        let body: Value = response.json().await.expect("JSON");
        return body["header"]["local_id"].as_i64();
    }
}

async fn keyed_writes_are_never_stuck_nor_written_twice_after_sigkill(url: &str, scratch: &Scratch) {
    seed(url).await;
    let log = scratch.join("server.log");
    let mut server = serve(url, &log, &[]);
    let (api, society) = log_in(&server.base).await;
    let refs = Arc::new(references(&api, society).await);
    let sent = keyed_burst(&api, refs, &mut server).await;

    let restarted = serve(url, &log, &[]);
    let api = Api {
        base: restarted.base.clone(),
        ..api
    };
    let mut retried = Retried::default();
    let mut answered_ids = HashMap::new();
    for write in &sent {
        if let Some(id) = retry_keyed(&api, write, &mut retried).await {
            answered_ids.insert(write.key.clone(), id);
        }
    }

    let mut orders: HashMap<String, Vec<i64>> = HashMap::new();
    for order in api.all_items(WORK_ORDERS).await {
        let external_id = order["header"]["external_id"].as_str().unwrap_or_default().to_owned();
        if external_id.starts_with("KEYED-") {
            let id = order["header"]["local_id"].as_i64().expect("an id");
            orders.entry(external_id).or_default().push(id);
        }
    }
    let mut readings: HashMap<usize, usize> = HashMap::new();
    for event in api.all_items(DEVICE_EVENTS).await {
        if let Some(value) = event["value"].as_f64().filter(|v| *v >= MARK) {
            *readings.entry((value - MARK) as usize / 100).or_default() += 1;
        }
    }
    for write in &sent {
        match write.batch {
            Some(batch) => assert_eq!(
                readings.get(&batch).copied().unwrap_or_default(),
                EVENTS_PER_BATCH,
                "{}: its batch is stored once, whole",
                write.key
            ),
            None => {
                let stored = orders.get(&write.key).cloned().unwrap_or_default();
                assert_eq!(stored.len(), 1, "{}: stored once", write.key);
                if let Some(id) = answered_ids.get(&write.key) {
                    assert_eq!(stored[0], *id, "{}: the answer names the stored order", write.key);
                }
            }
        }
    }
    eprintln!(
        "{} keyed writes sent before SIGKILL; after the restart {} retries were replayed, {} ran anew, {} were \
         written without a recorded answer",
        sent.len(),
        retried.replayed,
        retried.ran,
        retried.answer_lost
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_sqlite_keyed_writes_are_never_stuck_nor_written_twice_after_sigkill() {
    let scratch = Scratch::new("tranquera-crash-keys-sqlite");
    let url = format!("sqlite://{}", scratch.join("api.sqlite").display());
    keyed_writes_are_never_stuck_nor_written_twice_after_sigkill(&url, &scratch).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgres_keyed_writes_are_never_stuck_nor_written_twice_after_sigkill() {
    let scratch = Scratch::new("tranquera-crash-keys-postgres");
    let url = testkit::postgres::new_database("tranquera_crash_keys").await;
    keyed_writes_are_never_stuck_nor_written_twice_after_sigkill(&url, &scratch).await;
}

/// The lines of a server's log that say why it answered 500.
fn server_errors(log: &str) -> String {
    log.lines()
        .filter(|line| line.contains("internal error"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Writers of the failover's steady load: each sends its next create once the last is answered.
const STEADY_WRITERS: usize = 4;
/// Acknowledged creates before the primary is killed, and again after the first one on the promoted standby.
const ACKS_AROUND_SWITCH: usize = 40;

/// One answer to a create during the failover.
struct Answer {
    sent: Instant,
    at: Instant,
    external_id: String,
    shape: (usize, usize),
    status: StatusCode,
    retry_after: bool,
    code: Option<Value>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_postgres_a_failover_to_a_synchronous_standby_loses_no_acknowledged_create() {
    let scratch = Scratch::new("tranquera-failover");
    let mut pair = tokio::task::spawn_blocking(ReplicatedPair::start)
        .await
        .expect("the clusters start")
        .expect("a primary and its synchronous standby");
    let pooler = PgBouncer::start(pair.primary_port(), PreparedStatements::Tracked).expect("PgBouncer starts");
    let direct = testkit::postgres::create_database(&pair.primary_admin_url(), "tranquera_failover").await;
    seed(&direct).await;
    let name = direct
        .rsplit_once('/')
        .map(|(_, name)| name.to_owned())
        .expect("a database name");
    let server = serve(&pooler.url(&name), &scratch.join("server.log"), &[]);
    let (api, society) = log_in(&server.base).await;
    let refs = Arc::new(references(&api, society).await);

    let answers = Arc::new(Mutex::new(Vec::<Answer>::new()));
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers: Vec<_> = (0..STEADY_WRITERS)
        .map(|writer| {
            let (api, refs, answers, stop) = (api.clone(), refs.clone(), answers.clone(), stop.clone());
            tokio::spawn(async move {
                for n in 0.. {
                    if stop.load(Ordering::Relaxed) {
                        return;
                    }
                    let shape = (1 + n % 4, 1 + n % 3);
                    let external_id = format!("FAILOVER-{writer}-{n}-{}-{}", shape.0, shape.1);
                    let sent = Instant::now();
                    let answered = api
                        .request(reqwest::Method::POST, "/integration/api/v1/workOrders")
                        .json(&work_order(&refs, &external_id, shape.0, shape.1))
                        .send()
                        .await;
                    let Ok(response) = answered else {
                        panic!("the server stopped answering: {answered:?}");
                    };
                    let status = response.status();
                    let retry_after = response.headers().contains_key("retry-after");
                    let body: Value = response.json().await.unwrap_or(Value::Null);
                    let code = (status != StatusCode::CREATED).then(|| body["error"]["code"].clone());
                    answers.lock().expect("the answers").push(Answer {
                        sent,
                        at: Instant::now(),
                        external_id,
                        shape,
                        status,
                        retry_after,
                        code,
                    });
                    if status != StatusCode::CREATED {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                    }
                }
            })
        })
        .collect();
    let created = |answers: &Mutex<Vec<Answer>>, after: Instant| {
        let answers = answers.lock().expect("the answers");
        answers
            .iter()
            .filter(|a| a.status == StatusCode::CREATED && a.sent > after)
            .count()
    };
    let began = Instant::now();
    while created(&answers, began) < ACKS_AROUND_SWITCH {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // The kill takes a few milliseconds (`pgrep`, then `kill`), and writers may be answered 503 from its first: a
    // 503 counts as inside the switch from when the kill began, a create as after it from when it returned.
    let kill_began = Instant::now();
    pair.kill_primary().expect("the primary is killed");
    let killed = Instant::now();
    let pair = tokio::task::spawn_blocking(move || pair.promote_standby().map(|()| pair))
        .await
        .expect("the promotion runs")
        .expect("the standby is promoted");
    pooler.repoint(pair.standby_port()).expect("PgBouncer is repointed");
    let repointed = Instant::now();
    while created(&answers, killed) < ACKS_AROUND_SWITCH {
        assert!(
            killed.elapsed() < Duration::from_secs(90),
            "no create succeeded within 90 s of the kill"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.await.expect("a writer");
    }

    let answers = std::mem::take(&mut *answers.lock().expect("the answers"));
    let first_success = answers
        .iter()
        .filter(|a| a.status == StatusCode::CREATED && a.sent > killed)
        .map(|a| a.at)
        .min()
        .expect("a create after the kill");
    for answer in answers.iter().filter(|a| a.status != StatusCode::CREATED) {
        assert_eq!(
            answer.status,
            StatusCode::SERVICE_UNAVAILABLE,
            "{}: {:?}; the server's errors:\n{}",
            answer.external_id,
            answer.code,
            server_errors(&server.log_text())
        );
        assert!(answer.retry_after, "{}: a 503 without Retry-After", answer.external_id);
        assert_eq!(
            answer.code,
            Some(json!(503)),
            "{}: not in the envelope",
            answer.external_id
        );
        assert!(
            answer.at > kill_began && answer.at <= first_success + Duration::from_secs(1),
            "{}: a 503 outside the switch, {} ms after the kill began, the first success {} ms after it",
            answer.external_id,
            answer.at.saturating_duration_since(kill_began).as_millis(),
            first_success.duration_since(kill_began).as_millis()
        );
    }

    let stored: HashMap<String, (usize, usize)> = api
        .all_items(WORK_ORDERS)
        .await
        .into_iter()
        .filter_map(|order| {
            let external_id = order["header"]["external_id"].as_str()?.to_owned();
            let lines = |key: &str| order[key].as_array().map_or(0, Vec::len);
            Some((external_id, (lines("supplies"), lines("labours"))))
        })
        .collect();
    let acknowledged: Vec<&Answer> = answers.iter().filter(|a| a.status == StatusCode::CREATED).collect();
    for answer in &acknowledged {
        assert_eq!(
            stored.get(&answer.external_id),
            Some(&answer.shape),
            "acknowledged {} is on the promoted standby, whole",
            answer.external_id
        );
    }
    eprintln!(
        "failover: {} creates acknowledged, {} answered 503 during the switch; the standby was promoted and \
         PgBouncer repointed {} ms after the kill; the first create succeeded {} ms after the kill",
        acknowledged.len(),
        answers.len() - acknowledged.len(),
        repointed.duration_since(killed).as_millis(),
        first_success.duration_since(killed).as_millis()
    );
}
