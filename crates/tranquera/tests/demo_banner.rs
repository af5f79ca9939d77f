//! `tranquera demo`'s first screen is its banner: no log line comes before it on standard output, the migrations log
//! at debug, and the banner names the guides' address beside the reference and the console, which the server
//! serves.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use testkit::scratch::Scratch;

/// A first seeding, in a debug build on a shared machine.
const SEEDED_WITHIN: Duration = Duration::from_secs(600);

/// Stops the demo however the test ends.
struct Running(Child);

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn the_demo_opens_with_its_banner_which_names_the_guides() {
    let scratch = Scratch::new("tranquera-demo-banner");
    let database = format!("sqlite://{}", scratch.join("demo.sqlite").display());
    let mut child = Command::new(env!("CARGO_BIN_EXE_tranquera"))
        .args(["demo", "--database", &database, "--listen", "127.0.0.1:0"])
        .env_remove("RUST_LOG")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tranquera demo");
    let stdout = child.stdout.take().expect("the demo's output");
    let stderr = child.stderr.take().expect("the demo's errors");
    let demo = Running(child);
    let (lines, banner) = mpsc::channel();
    std::thread::spawn(move || {
        // Read to the end, past the banner: a demo whose output pipe closed would fail at its next line.
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = lines.send(line);
        }
    });
    let (errors_sent, errors) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if errors_sent.send(line).is_err() {
                break;
            }
        }
    });
    let mut screen = Vec::new();
    while !screen
        .last()
        .is_some_and(|line: &String| line.starts_with("Ctrl-C stops the server"))
    {
        let line = banner
            .recv_timeout(SEEDED_WITHIN)
            .unwrap_or_else(|_| panic!("the demo printed no whole banner: {screen:#?}"));
        screen.push(line);
    }
    let first = screen.first().expect("a first line");
    let base = first
        .strip_prefix("Tranquera demo: the integration API is at ")
        .unwrap_or_else(|| panic!("the first line is the banner's: {screen:#?}"))
        .to_owned();
    let guides = format!("{base}/docs/guides");
    let names = |address: &str| screen.iter().take(6).any(|line| line.ends_with(address));
    assert!(names(&guides), "the banner names the guides at {guides}: {screen:#?}");
    assert!(names(&format!("{base}/docs")), "and the reference: {screen:#?}");
    assert!(
        screen
            .iter()
            .take(6)
            .any(|line| line.contains(&format!("{base}/console"))),
        "and the console: {screen:#?}"
    );
    let written: Vec<String> = errors.try_iter().collect();
    assert!(
        !screen.iter().chain(&written).any(|line| line.contains("migration")),
        "migrations log at debug: {screen:#?} {written:#?}"
    );
    assert!(
        written.len() <= 1,
        "at most the seeding's one line goes before: {written:#?}"
    );
    let runtime = tokio::runtime::Runtime::new().expect("a runtime for the request");
    let status = runtime
        .block_on(reqwest::get(&guides))
        .expect("ask for the guides")
        .status();
    assert!(status.is_success(), "{guides} answers {status}");
    drop(demo);
}
