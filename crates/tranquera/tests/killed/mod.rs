//! What the crash tests share: a database seeded with a small demo, and the real binary serving it as a child
//! process that the test may kill.

use std::path::Path;

use demo::DemoOptions;
use store::auth::AuthConfig;
use store::{PoolOptions, Store, StoreConfig};
use testkit::process::ServerProcess;

/// A few farmers: enough for the writes a crash test makes, quick to seed.
pub const DEMO: DemoOptions = DemoOptions {
    scale: 1,
    farmers: 3,
    seed: 5,
};

/// Migrates and seeds `url`, with cheap password hashes (their cost is stored with them, so logins stay cheap).
pub async fn seed(url: &str) {
    let config = StoreConfig {
        pool: PoolOptions::default(),
        auth: AuthConfig::throwaway(),
        ..StoreConfig::default()
    };
    let store = Store::connect(url, config).await.expect("connect");
    store.migrate().await.expect("migrate");
    demo::demo(&store, &DEMO).await.expect("seed");
    store.close().await;
}

/// `tranquera serve` over `url`, without jobs or rate limits, with `extra` arguments, logging to `log`.
pub fn serve(url: &str, log: &Path, extra: &[&str]) -> ServerProcess {
    let mut args = vec![
        "serve",
        "--database",
        url,
        "--no-jobs",
        "--rate-limit-token",
        "0",
        "--rate-limit-address",
        "0",
    ];
    args.extend_from_slice(extra);
    ServerProcess::start(Path::new(env!("CARGO_BIN_EXE_tranquera")), &args, log)
}
