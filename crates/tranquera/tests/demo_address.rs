//! `tranquera demo` on an address already in use fails at once, naming the address and `--listen`, before it creates
//! or seeds any database.

use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use testkit::scratch::Scratch;

/// Far less than a seeding takes.
const AT_ONCE: Duration = Duration::from_secs(10);

#[test]
fn demo_on_an_address_in_use_fails_before_seeding_and_names_the_address_and_the_flag() {
    let taken = TcpListener::bind("127.0.0.1:0").expect("hold a port");
    let address = taken.local_addr().expect("the held address").to_string();
    let scratch = Scratch::new("tranquera-demo-address");
    let database = scratch.join("demo.sqlite");
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_tranquera"))
        .args([
            "demo",
            "--database",
            &format!("sqlite://{}", database.display()),
            "--listen",
            &address,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tranquera demo");
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the demo") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(120) {
            let _ = child.kill();
            panic!("the demo did not exit");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let took = started.elapsed();
    let output = child.wait_with_output().expect("the demo's output");
    let stderr = String::from_utf8_lossy(&output.stderr);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(!status.success(), "the demo cannot serve on a taken address: {stdout}");
    assert!(stderr.contains(&address) && stderr.contains("--listen"), "{stderr}");
    assert!(!stdout.contains("Seeding"), "nothing is seeded: {stdout}");
    assert!(!database.exists(), "no database is created");
    assert!(took < AT_ONCE, "it fails at once, not after {took:?}");
    drop(taken);
}
