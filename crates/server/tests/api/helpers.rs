//! `TestApp`: the real server on a random port over a fresh database, and one helper per kind of call.

use std::time::Duration;

use demo::{DemoAccount, DemoOptions, DEMO_ACCOUNTS};
use reqwest::{Method, RequestBuilder, Response, StatusCode};
use serde_json::Value;
use server::{Application, ServerConfig};
use sqlx::Connection;
use store::auth::AuthConfig;
use store::pages::PagesConfig;
use store::{PoolOptions, SqliteSync, Store, StoreConfig};

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A running server over its own database, seeded with a small demo data set.
pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
    pub store: Store,
    pub url: String,
    pub backend: Backend,
    _database: Option<Throwaway>,
}

/// A test's own database, deleted when the test ends: a run makes hundreds.
enum Throwaway {
    /// The SQLite file's path.
    Sqlite(String),
    /// The PostgreSQL server's admin URL, and the database's URL.
    Postgres { admin_url: String, url: String },
}

impl Drop for Throwaway {
    fn drop(&mut self) {
        match self {
            Throwaway::Sqlite(path) => {
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{path}{suffix}"));
                }
            }
            Throwaway::Postgres { admin_url, url } => testkit::postgres::drop_database(admin_url, url),
        }
    }
}

/// Settings a test may change before the server starts.
pub struct Setup {
    pub server: ServerConfig,
    pub store: StoreConfig,
    pub seed: bool,
}

impl Default for Setup {
    fn default() -> Self {
        let server = ServerConfig {
            listen: ([127, 0, 0, 1], 0).into(),
            ..ServerConfig::default()
        };
        let store = StoreConfig {
            pool: PoolOptions {
                max_connections: 4,
                acquire_timeout: Duration::from_secs(10),
                // What the tests check does not depend on flushing each commit to the disk.
                sqlite_sync: SqliteSync::Normal,
            },
            auth: AuthConfig::throwaway(),
            pages: PagesConfig::default(),
        };
        Self {
            server,
            store,
            seed: true,
        }
    }
}

/// The demo account of a country that holds the API role.
pub fn integrator(country: &str) -> &'static DemoAccount {
    DEMO_ACCOUNTS
        .iter()
        .find(|a| a.country == country && a.api_role)
        .expect("a demo integrator per country")
}

/// The Argentine demo account without the API role.
pub fn agronomist() -> &'static DemoAccount {
    DEMO_ACCOUNTS
        .iter()
        .find(|a| !a.api_role)
        .expect("a demo account without the API role")
}

/// A small but pageable demo data set.
pub const TEST_DEMO: DemoOptions = DemoOptions {
    scale: 1,
    farmers: 8,
    seed: 7,
};

/// A fresh database of the test's own: a copy of the seeded template when `seeded`, else empty.
async fn new_database(backend: Backend, seeded: bool) -> (String, Throwaway) {
    match backend {
        Backend::Sqlite => {
            let name = format!("tranquera_test_{}", uuid::Uuid::new_v4().simple());
            let path = std::env::temp_dir()
                .join(format!("{name}.sqlite"))
                .to_string_lossy()
                .into_owned();
            if seeded {
                std::fs::copy(sqlite_template().await, &path).expect("copy the seeded template");
            }
            (format!("sqlite://{path}"), Throwaway::Sqlite(path))
        }
        Backend::Postgres => {
            let template = if seeded { Some(postgres_template().await) } else { None };
            let admin_url = tokio::task::spawn_blocking(testkit::postgres::admin_url)
                .await
                .expect("the cluster starts");
            let url = testkit::postgres::create_database_from(&admin_url, "tranquera_test", template).await;
            (url.clone(), Throwaway::Postgres { admin_url, url })
        }
    }
}

/// The migrated database seeded with [`TEST_DEMO`] that tests start from, made once per test process and per backend:
/// seeding takes seconds (most of a test's time on PostgreSQL), and copying the result a fraction of that. SQLite's
/// is a file's path, PostgreSQL's a database's name on the server of [`testkit::postgres::direct_admin_url`].
static SQLITE_SEEDED: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();
static POSTGRES_SEEDED: tokio::sync::OnceCell<String> = tokio::sync::OnceCell::const_new();

/// Migrates and seeds the database at `url`, with the store's settings of [`Setup::default`], and closes it.
async fn seed(url: &str) {
    let store = Store::connect(url, Setup::default().store)
        .await
        .expect("connect to the seeded template");
    store.migrate().await.expect("migrate the seeded template");
    demo::demo(&store, &TEST_DEMO).await.expect("seed the seeded template");
    store.close().await;
}

/// The SQLite template's path, made on first use.
async fn sqlite_template() -> &'static str {
    SQLITE_SEEDED
        .get_or_init(|| async {
            remove_templates_of_ended_runs();
            let path = std::env::temp_dir()
                .join(format!("{SQLITE_TEMPLATE_PREFIX}{}.sqlite", std::process::id()))
                .to_string_lossy()
                .into_owned();
            for suffix in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(format!("{path}{suffix}"));
            }
            seed(&format!("sqlite://{path}")).await;
            // Into the main file, so that the file alone is the whole database.
            let mut connection = sqlx::SqliteConnection::connect(&format!("sqlite://{path}"))
                .await
                .expect("open the seeded template");
            sqlx::query("PRAGMA wal_checkpoint(TRUNCATE)")
                .execute(&mut connection)
                .await
                .expect("checkpoint the seeded template");
            connection.close().await.expect("close the seeded template");
            path
        })
        .await
}

/// The PostgreSQL template's database name, made on first use.
async fn postgres_template() -> &'static str {
    POSTGRES_SEEDED
        .get_or_init(|| async {
            let direct = tokio::task::spawn_blocking(testkit::postgres::direct_admin_url)
                .await
                .expect("the cluster starts");
            let url = testkit::postgres::create_database(&direct, "tranquera_seeded").await;
            seed(&url).await;
            url.rsplit_once('/')
                .map(|(_, name)| name.to_owned())
                .unwrap_or_default()
        })
        .await
}

const SQLITE_TEMPLATE_PREFIX: &str = "tranquera_seeded_";

/// Deletes the SQLite templates of test processes that have ended: a process cannot delete its own as it exits.
fn remove_templates_of_ended_runs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(process) = name
            .strip_prefix(SQLITE_TEMPLATE_PREFIX)
            .and_then(|rest| rest.split('.').next())
        else {
            continue;
        };
        if !std::path::Path::new(&format!("/proc/{process}")).exists() {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

impl TestApp {
    /// A server over a fresh, seeded database.
    pub async fn spawn(backend: Backend) -> Self {
        Self::spawn_with(backend, Setup::default()).await
    }

    /// A server over a fresh database, configured by `setup`. A seeded one is a copy of the seeded template, unless
    /// the test hashes passwords at another cost than the template's users were seeded with.
    pub async fn spawn_with(backend: Backend, setup: Setup) -> Self {
        let copied = setup.seed && setup.store.auth.password_cost == Setup::default().store.auth.password_cost;
        let (url, database) = new_database(backend, copied).await;
        let seed = setup.seed && !copied;
        Self::spawn_over(url, database, backend, Setup { seed, ..setup }).await
    }

    /// A server over a fresh database on the PostgreSQL server of `admin_url` (a cluster the test may stop).
    pub async fn spawn_on_postgres(admin_url: &str, setup: Setup) -> Self {
        let url = testkit::postgres::create_database(admin_url, "tranquera_test").await;
        let database = Throwaway::Postgres {
            admin_url: admin_url.to_owned(),
            url: url.clone(),
        };
        Self::spawn_over(url, database, Backend::Postgres, setup).await
    }

    /// A server over `url`, migrated (a no-op on a copy of the seeded template), and seeded if `setup` says so.
    async fn spawn_over(url: String, database: Throwaway, backend: Backend, setup: Setup) -> Self {
        let store = Store::connect(&url, setup.store.clone())
            .await
            .expect("connect to the test database");
        store.migrate().await.expect("migrate the test database");
        if setup.seed {
            demo::demo(&store, &TEST_DEMO).await.expect("seed the test database");
        }
        let mut app = Self::serve(&store, setup.server).await;
        app.url = url;
        app.backend = backend;
        app._database = Some(database);
        app
    }

    /// Another server process over the same database (as in a scaled-out deployment).
    pub async fn sibling(&self) -> TestApp {
        self.sibling_with(Setup::default().server).await
    }

    /// Another server process over the same database, configured by `config`.
    pub async fn sibling_with(&self, config: ServerConfig) -> TestApp {
        let store = Store::connect(&self.url, Setup::default().store)
            .await
            .expect("connect to the shared database");
        let mut sibling = Self::serve(&store, config).await;
        sibling.url = self.url.clone();
        sibling.backend = self.backend;
        sibling
    }

    async fn serve(store: &Store, config: ServerConfig) -> TestApp {
        let app = Application::build(store.clone(), config)
            .await
            .expect("bind the test server");
        let address = app.local_addr().expect("the bound address");
        tokio::spawn(app.run_until(std::future::pending()));
        TestApp {
            base: format!("http://{address}"),
            client: reqwest::Client::new(),
            store: store.clone(),
            url: String::new(),
            backend: Backend::Sqlite,
            _database: None,
        }
    }

    /// Runs `sql` (binding `society_id` as `$1`) straight on the test database, bypassing the API: the integers
    /// it selects, to check answers against.
    pub async fn integers(&self, sql: &str, society_id: i64) -> Vec<i64> {
        match self.backend {
            Backend::Sqlite => {
                let mut connection = sqlx::SqliteConnection::connect(&self.url).await.expect("connect");
                sqlx::query_scalar(sql)
                    .bind(society_id)
                    .fetch_all(&mut connection)
                    .await
                    .expect("a query straight on the database")
            }
            Backend::Postgres => {
                let mut connection = testkit::postgres::connect(&self.url).await.expect("connect");
                sqlx::query_scalar(sql)
                    .bind(society_id)
                    .fetch_all(&mut connection)
                    .await
                    .expect("a query straight on the database")
            }
        }
    }

    /// Runs the write `sql` (binding `society_id` as `$1`) straight on the test database, bypassing the API: the rows
    /// it changed, or the database's refusal.
    pub async fn execute(&self, sql: &str, society_id: i64) -> Result<u64, sqlx::Error> {
        match self.backend {
            Backend::Sqlite => {
                let mut connection = sqlx::SqliteConnection::connect(&self.url).await.expect("connect");
                let done = sqlx::query(sql).bind(society_id).execute(&mut connection).await?;
                Ok(done.rows_affected())
            }
            Backend::Postgres => {
                let mut connection = testkit::postgres::connect(&self.url).await.expect("connect");
                let done = sqlx::query(sql).bind(society_id).execute(&mut connection).await?;
                Ok(done.rows_affected())
            }
        }
    }

    /// A request with the system-id header, as every API call needs.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        self.client
            .request(method, format!("{}{path}", self.base))
            .header("X-SVC-SYSTEM-ID", "8")
    }

    /// `POST /api/v2/login`.
    pub async fn login(&self, email: &str, password: &str) -> Response {
        self.request(Method::POST, "/api/v2/login")
            .json(&serde_json::json!({ "email": email, "password": password }))
            .send()
            .await
            .expect("login request")
    }

    /// The login response of a demo account, which must succeed.
    pub async fn login_as(&self, account: &DemoAccount) -> Value {
        let response = self.login(account.email, account.password).await;
        assert_eq!(response.status(), StatusCode::OK, "login of {}", account.email);
        response.json().await.expect("login JSON")
    }

    /// An access token of a demo account.
    pub async fn token(&self, account: &DemoAccount) -> String {
        let login = self.login_as(account).await;
        login["access_token"].as_str().expect("an access token").to_owned()
    }

    /// An authenticated GET.
    pub async fn get(&self, path: &str, token: &str) -> Response {
        self.request(Method::GET, path)
            .bearer_auth(token)
            .send()
            .await
            .expect("GET request")
    }

    /// An authenticated GET that must answer 200 with JSON.
    pub async fn get_ok(&self, path: &str, token: &str) -> Value {
        let response = self.get(path, token).await;
        let status = response.status();
        let body: Value = response.json().await.expect("JSON body");
        assert_eq!(status, StatusCode::OK, "GET {path}: {body}");
        body
    }

    /// The OpenAPI document as this server serves it at `/openapi.json`.
    pub async fn served_document(&self) -> Value {
        self.client
            .get(format!("{}/openapi.json", self.base))
            .send()
            .await
            .expect("GET /openapi.json")
            .json()
            .await
            .expect("the document in JSON")
    }

    /// An authenticated POST of JSON.
    pub async fn post(&self, path: &str, token: &str, body: &Value) -> Response {
        self.request(Method::POST, path)
            .bearer_auth(token)
            .json(body)
            .send()
            .await
            .expect("POST request")
    }

    /// An authenticated DELETE.
    pub async fn delete(&self, path: &str, token: &str) -> Response {
        self.request(Method::DELETE, path)
            .bearer_auth(token)
            .send()
            .await
            .expect("DELETE request")
    }

    /// Every item of a list, following `next_page` with pages of `size`.
    pub async fn all_items(&self, path: &str, token: &str) -> Vec<Value> {
        let separator = if path.contains('?') { '&' } else { '?' };
        let mut items = Vec::new();
        let mut page = 1;
        loop {
            let body = self.get_ok(&format!("{path}{separator}page={page}"), token).await;
            items.extend(body["items"].as_array().expect("items").iter().cloned());
            match body["next_page"].as_u64() {
                Some(next) if next > page => page = next,
                _ => return items,
            }
        }
    }
}

/// Reads an error response and checks it is the specification's envelope with this status.
pub async fn error_envelope(response: Response, status: StatusCode) -> (i64, String) {
    let error = error_detail(response, status).await;
    let message = error["message"].as_str().expect("a message").to_owned();
    (error["code"].as_i64().expect("an integer code"), message)
}

/// Reads an error response, checks it is the specification's envelope with this status, and answers its `reason`.
pub async fn error_reason(response: Response, status: StatusCode) -> String {
    let error = error_detail(response, status).await;
    error["reason"].as_str().expect("a reason").to_owned()
}

/// Reads an error response and checks it is the envelope with this status: the specification's `code`, `message`
/// and empty `exception`, a snake_case `reason`, and, on a 400 or 422 only, `errors` listing each problem with its
/// `path`, `reason` and `message`. Answers the `error` object.
pub async fn error_detail(response: Response, status: StatusCode) -> Value {
    assert_eq!(response.status(), status, "status");
    let content_type = response
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    assert!(
        content_type.starts_with("application/json"),
        "content type {content_type}"
    );
    let body: Value = response.json().await.expect("an error body in JSON");
    let error = body["error"].as_object().expect("an `error` object");
    let listed = matches!(status.as_u16(), 400 | 422);
    let mut keys: Vec<&str> = error.keys().map(String::as_str).collect();
    keys.sort_unstable();
    let expected: &[&str] = if listed {
        &["code", "errors", "exception", "message", "reason"]
    } else {
        &["code", "exception", "message", "reason"]
    };
    assert_eq!(keys, expected, "the envelope's fields: {body}");
    assert!(
        error["exception"].as_array().is_some_and(Vec::is_empty),
        "no trace frames: {body}"
    );
    let message = error["message"].as_str().expect("a message");
    assert!(!message.is_empty());
    let snake = |value: &Value| {
        value
            .as_str()
            .is_some_and(|reason| !reason.is_empty() && reason.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
    };
    assert!(snake(&error["reason"]), "a snake_case reason: {body}");
    if listed {
        let problems = error["errors"].as_array().expect("errors is a list");
        assert!(!problems.is_empty(), "a 400 or 422 names its problems: {body}");
        for problem in problems {
            assert!(problem["path"].is_string(), "{body}");
            assert!(snake(&problem["reason"]), "{body}");
            assert!(problem["message"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
        }
    }
    Value::Object(error.clone())
}

/// Defines each test once and runs it on SQLite and on PostgreSQL.
#[macro_export]
macro_rules! on_both_backends {
    ($(async fn $name:ident($app:ident) $body:block)*) => {
        mod sqlite {
            #[allow(unused_imports, reason = "not every test uses its parent's helpers")]
            use super::*;
            $(
                #[tokio::test]
                async fn $name() {
                    let $app = $crate::helpers::TestApp::spawn($crate::helpers::Backend::Sqlite).await;
                    $body
                }
            )*
        }
        mod postgres {
            #[allow(unused_imports, reason = "not every test uses its parent's helpers")]
            use super::*;
            $(
                #[tokio::test]
                async fn $name() {
                    let $app = $crate::helpers::TestApp::spawn($crate::helpers::Backend::Postgres).await;
                    $body
                }
            )*
        }
    };
}

/// Like [`on_both_backends`], for tests that need their own [`Setup`].
#[macro_export]
macro_rules! on_both_backends_with {
    ($setup:expr; $(async fn $name:ident($app:ident) $body:block)*) => {
        mod sqlite {
            #[allow(unused_imports, reason = "not every test uses its parent's helpers")]
            use super::*;
            $(
                #[tokio::test]
                async fn $name() {
                    let $app = $crate::helpers::TestApp::spawn_with($crate::helpers::Backend::Sqlite, $setup).await;
                    $body
                }
            )*
        }
        mod postgres {
            #[allow(unused_imports, reason = "not every test uses its parent's helpers")]
            use super::*;
            $(
                #[tokio::test]
                async fn $name() {
                    let $app = $crate::helpers::TestApp::spawn_with($crate::helpers::Backend::Postgres, $setup).await;
                    $body
                }
            )*
        }
    };
}
