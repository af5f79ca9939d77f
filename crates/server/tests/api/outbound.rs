//! The server makes requests of its own in one place only (OWASP API7, server-side request forgery): webhook
//! deliveries, from `server/src/webhooks/`, to the URLs its endpoints registered, under the address rules that
//! `webhooks.rs` tests. Nothing else it is built from, by the manifests of its crates and of our crates it uses, is
//! an HTTP client, and no other module of the server names one. URLs in its data, such as a waypoint's
//! `file_storage_url`, are stored and answered, never fetched.

use std::collections::BTreeSet;
use std::path::Path;

const HTTP_CLIENTS: &[&str] = &["reqwest", "ureq", "isahc", "surf", "curl", "attohttpc", "awc", "client"];

/// The names under `[dependencies]` of a manifest (not dev- or build-dependencies).
fn dependencies(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_dependencies = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_dependencies = line == "[dependencies]";
        } else if in_dependencies && !line.is_empty() && !line.starts_with('#') {
            if let Some(name) = line.split(['.', '=']).next() {
                names.push(name.trim().to_owned());
            }
        }
    }
    names
}

/// The one module of the server that may make requests, and the HTTP client it makes them with.
const DELIVERIES: &str = "src/webhooks";
const DELIVERY_CLIENT: &str = "reqwest";

/// The module that writes the reference's code samples: it names HTTP clients in the text of programs for
/// integrators to run, and makes no request itself (it has no HTTP client to make one with: see the next test).
const SAMPLES: &str = "src/code_samples.rs";

#[test]
fn only_webhook_deliveries_make_requests() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut pending = vec![crates.join("server").join("src")];
    let mut naming = Vec::new();
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("a source folder") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if HTTP_CLIENTS.iter().any(|client| {
                std::fs::read_to_string(&path)
                    .expect("a source file")
                    .contains(&format!("{client}::"))
            }) {
                naming.push(path);
            }
        }
    }
    let deliveries = crates.join("server").join(DELIVERIES);
    let samples = crates.join("server").join(SAMPLES);
    assert!(!naming.is_empty(), "the delivery worker names its client");
    for path in naming {
        assert!(
            path.starts_with(&deliveries) || path == samples,
            "{} names an HTTP client",
            path.display()
        );
    }
}

#[test]
fn no_crate_the_server_is_built_from_is_an_http_client() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut visited = BTreeSet::new();
    let mut pending = vec!["server".to_owned()];
    while let Some(name) = pending.pop() {
        if !visited.insert(name.clone()) {
            continue;
        }
        let manifest = std::fs::read_to_string(crates.join(&name).join("Cargo.toml")).expect("a manifest");
        for dependency in dependencies(&manifest) {
            if name == "server" && dependency == DELIVERY_CLIENT {
                continue;
            }
            assert!(
                !HTTP_CLIENTS.contains(&dependency.as_str()),
                "crate {name} depends on the HTTP client {dependency}"
            );
            if crates.join(&dependency).join("Cargo.toml").is_file() {
                pending.push(dependency);
            }
        }
    }
    let expected: BTreeSet<String> = ["server", "store", "domain", "wire"].map(String::from).into();
    assert_eq!(visited, expected, "the server's own crates were all read");
}

#[test]
fn dependencies_are_read_from_their_section_only() {
    let manifest = "[package]\nname = \"x\"\n[dependencies]\naxum.workspace = true\nserde = { version = \"1\" }\n\
                    [dev-dependencies]\nreqwest.workspace = true\n";
    assert_eq!(dependencies(manifest), ["axum", "serde"]);
}
