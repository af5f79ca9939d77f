//! Graceful shutdown of the real binary: on SIGTERM it stops accepting connections at once, lets a request in flight
//! finish and answer, and exits 0; a request that would outlast the shutdown time-out is dropped and the process
//! exits all the same.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use demo::{DemoOptions, DEMO_ACCOUNTS};
use store::auth::AuthConfig;
use store::{PoolOptions, Store, StoreConfig};
use testkit::process::ServerProcess;
use testkit::scratch::Scratch;

/// A seeded SQLite database (cheap password hashes keep logins quick) and a server on it started with `flags`.
fn server(tag: &str, flags: &[&str]) -> (ServerProcess, Scratch) {
    let scratch = Scratch::new(&format!("tranquera-shutdown-{tag}"));
    let url = format!("sqlite://{}", scratch.join("api.sqlite").display());
    let config = StoreConfig {
        pool: PoolOptions::default(),
        auth: AuthConfig::throwaway(),
        ..StoreConfig::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        let store = Store::connect(&url, config).await.expect("connect");
        store.migrate().await.expect("migrate");
        let demo = DemoOptions {
            scale: 1,
            farmers: 1,
            seed: 3,
        };
        demo::demo(&store, &demo).await.expect("seed");
        store.close().await;
    });
    let mut args = vec!["serve", "--database", &url, "--no-jobs"];
    args.extend_from_slice(flags);
    let server = ServerProcess::start(
        Path::new(env!("CARGO_BIN_EXE_tranquera")),
        &args,
        &scratch.join("server.log"),
    );
    (server, scratch)
}

/// A login whose body is sent in two halves: the head and the first half now, the rest when asked.
struct SlowLogin {
    stream: TcpStream,
    rest: Vec<u8>,
}

impl SlowLogin {
    fn start(port: u16) -> Self {
        let account = DEMO_ACCOUNTS.iter().find(|a| a.api_role).expect("an integrator");
        let body = format!(
            r#"{{"email": "{}", "password": "{}"}}"#,
            account.email, account.password
        )
        .into_bytes();
        let head = format!(
            "POST /api/v2/login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-SVC-SYSTEM-ID: 8\r\n\
             Content-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("a read time-out");
        let (first, rest) = body.split_at(body.len() / 2);
        stream.write_all(head.as_bytes()).expect("send the head");
        stream.write_all(first).expect("send half the body");
        // Let the server read the head and start waiting for the body.
        std::thread::sleep(Duration::from_millis(300));
        Self {
            stream,
            rest: rest.to_vec(),
        }
    }

    /// Sends the rest of the body and reads the answer until the server closes the connection.
    fn finish(mut self) -> String {
        // A server that dropped the request may have closed the connection already.
        let _ = self.stream.write_all(&self.rest);
        let mut answer = Vec::new();
        let _ = self.stream.read_to_end(&mut answer);
        String::from_utf8_lossy(&answer).into_owned()
    }
}

/// Whether new connections are refused, within a few seconds of asking.
fn refuses_connections(port: u16) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        match TcpStream::connect(("127.0.0.1", port)) {
            Err(error) if error.kind() == ErrorKind::ConnectionRefused => return true,
            _ => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    false
}

#[test]
fn sigterm_finishes_the_request_in_flight_refuses_new_ones_and_exits_zero() {
    let (mut server, _scratch) = server("graceful", &["--shutdown-timeout", "20"]);
    let in_flight = SlowLogin::start(server.port);
    server.terminate();
    assert!(
        refuses_connections(server.port),
        "new connections are refused once SIGTERM arrived"
    );
    let answer = in_flight.finish();
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "the request in flight is answered: {answer}"
    );
    assert!(answer.contains("\"access_token\""), "{answer}");
    let status = server.exit_within(Duration::from_secs(20));
    assert!(
        status.is_some_and(|s| s.success()),
        "exited with {status:?}:\n{}",
        server.log_text()
    );
}

#[test]
fn a_request_that_outlasts_the_shutdown_timeout_is_dropped() {
    let flags = [
        "--shutdown-timeout",
        "1",
        "--body-read-timeout",
        "120",
        "--request-timeout",
        "120",
    ];
    let (mut server, _scratch) = server("bounded", &flags);
    let stalled = SlowLogin::start(server.port);
    server.terminate();
    // The stalled request would take two minutes; the process must not wait for it.
    let status = server.exit_within(Duration::from_secs(30));
    assert!(
        status.is_some_and(|s| s.success()),
        "exited with {status:?}:\n{}",
        server.log_text()
    );
    assert!(server.log_text().contains("requests still in flight are dropped"));
    assert!(
        !stalled.finish().starts_with("HTTP/1.1 200"),
        "the stalled request got no answer"
    );
}
