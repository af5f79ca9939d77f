//! The server the binary tests talk to: the real API, started in-process on a temporary SQLite database seeded
//! with a small demo, and a logged-in SDK client for the writes a test makes.

use std::path::PathBuf;
use std::time::Duration;

use client::Client;
use demo::{DemoOptions, DEMO_ACCOUNTS};
use server::{Application, ServerConfig};
use store::auth::AuthConfig;
use store::{PoolOptions, Store, StoreConfig};

/// A few farmers: enough for several pages of the bigger lists, quick to seed.
const DEMO: DemoOptions = DemoOptions {
    scale: 1,
    farmers: 3,
    seed: 11,
};

/// The server, its database files (deleted at the end), a logged-in SDK client for writes, and the store, for what
/// only the operator's side does (pruning the feed).
pub struct Sandbox {
    pub base: String,
    #[allow(dead_code, reason = "the language test makes no writes")]
    pub api: Client,
    #[allow(
        dead_code,
        reason = "the sync tests prune the feed through it; the listen test does not"
    )]
    pub store: Store,
    pub email: &'static str,
    pub password: &'static str,
    files: PathBuf,
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.files);
    }
}

pub fn scratch(tag: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!("tranquera-sync-{tag}-{}-{nanos}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

pub async fn sandbox(tag: &str) -> Sandbox {
    let files = scratch(tag);
    let url = format!("sqlite://{}", files.join("api.sqlite").display());
    let config = StoreConfig {
        pool: PoolOptions {
            max_connections: 4,
            acquire_timeout: Duration::from_secs(10),
            ..PoolOptions::default()
        },
        auth: AuthConfig::throwaway(),
        ..StoreConfig::default()
    };
    let store = Store::connect(&url, config).await.expect("connect");
    store.migrate().await.expect("migrate");
    demo::demo(&store, &DEMO).await.expect("seed");
    let server = ServerConfig {
        listen: ([127, 0, 0, 1], 0).into(),
        ..ServerConfig::default()
    };
    let app = Application::build(store.clone(), server).await.expect("bind");
    let base = format!("http://{}", app.local_addr().expect("address"));
    tokio::spawn(app.run_until(std::future::pending()));
    let account = DEMO_ACCOUNTS
        .iter()
        .find(|a| a.country == "AR" && a.api_role)
        .expect("an Argentine integrator");
    let api = Client::builder(base.clone()).build().expect("client");
    api.login(account.email, account.password).await.expect("login");
    Sandbox {
        base,
        api,
        store,
        email: account.email,
        password: account.password,
        files,
    }
}
