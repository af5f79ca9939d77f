//! Every curl sample of the reference, as `tranquera demo` serves it at `/openapi.json` (so calling the address the
//! document was asked at), run with bash against that demo, over a throwaway database: each answers 2xx. The login
//! sample gives the tokens the others send. Reads run first, against the demo as seeded; then the writes, creates
//! first (so that the records only a create makes, a webhook endpoint and an import job, exist for the samples that
//! name them), then changes, then deletions.

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use testkit::process::ServerProcess;
use testkit::scratch::Scratch;

/// The output of `script` run by bash with `TOKEN` and `REFRESH_TOKEN` set to `tokens`.
fn bash(script: &str, tokens: (&str, &str)) -> (bool, String, String) {
    let output = Command::new("bash")
        .arg("-c")
        .arg(script)
        .env("TOKEN", tokens.0)
        .env("REFRESH_TOKEN", tokens.1)
        .output()
        .expect("bash runs");
    (
        output.status.success(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The order a sample runs in: reads of lists, creates, reads of one record, changes, deletions, and the refresh
/// last, since it retires the login's tokens.
fn phase(method: &str, path: &str) -> u8 {
    match (method, path.contains('{')) {
        _ if path == "/api/v2/login/refresh" => 5,
        ("get", false) => 0,
        ("post", false) => 1,
        ("get", true) => 2,
        ("post", true) | ("put", _) | ("patch", _) => 3,
        _ => 4,
    }
}

#[test]
fn every_curl_sample_of_the_reference_answers_success_against_the_demo() {
    let scratch = Scratch::new("tranquera-reference-samples");
    let database = format!("sqlite://{}", scratch.join("demo.sqlite").display());
    let server = ServerProcess::start(
        Path::new(env!("CARGO_BIN_EXE_tranquera")),
        &["demo", "--database", &database],
        &scratch.join("demo.log"),
    );
    let (ok, text, error) = bash(&format!("curl -sS --fail '{}/openapi.json'", server.base), ("", ""));
    assert!(ok, "GET /openapi.json: {error}");
    let document: Value = serde_json::from_str(&text).expect("the document");
    assert!(
        !text.contains("127.0.0.1:8080"),
        "the samples call the demo's own address, {}",
        server.base
    );

    let mut samples = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("an item") {
            let curl = operation["x-codeSamples"]
                .as_array()
                .into_iter()
                .flatten()
                .find(|sample| sample["lang"] == "Shell")
                .and_then(|sample| sample["source"].as_str())
                .unwrap_or_else(|| panic!("{method} {path} has a curl sample"))
                .to_owned();
            samples.push((phase(method, path), method.to_uppercase(), path.clone(), curl));
        }
    }
    samples.sort_by(|a, b| (a.0, &a.2).cmp(&(b.0, &b.2)));

    let login = samples
        .iter()
        .find(|(_, method, path, _)| method == "POST" && path == "/api/v2/login")
        .map(|(_, _, _, curl)| curl.clone())
        .expect("a login sample");
    let (ok, tokens, error) = bash(
        &format!("set -euo pipefail\n{login}\nprintf '%s %s' \"$TOKEN\" \"$REFRESH_TOKEN\""),
        ("", ""),
    );
    let tokens = tokens.split_once(' ').unwrap_or_default();
    assert!(
        ok && tokens.0.len() > 20 && tokens.1.len() > 20 && !tokens.1.contains("null"),
        "the login sample keeps both tokens: {tokens:?} {error}"
    );

    let mut failed = Vec::new();
    let mut ran = 0;
    for (_, method, path, curl) in &samples {
        if path == "/api/v2/login" {
            continue;
        }
        let (_, status, error) = bash(&format!("{curl} -o /dev/null -w '%{{http_code}}'"), tokens);
        if !status.starts_with('2') {
            failed.push(format!("{method} {path}: {status} {error}\n{curl}"));
        }
        ran += 1;
    }
    assert!(ran > 100, "every sample ran: {ran}");
    assert!(
        failed.is_empty(),
        "{} of {ran} curl samples did not answer 2xx:\n\n{}\n\nthe demo's log:\n{}",
        failed.len(),
        failed.join("\n\n"),
        server.log_text()
    );
}
