//! The server never makes a request of its own (OWASP API7, server-side request forgery): nothing it is built from,
//! by the manifests of its crates and of our crates it uses, is an HTTP client. URLs in its data, such as a
//! waypoint's `file_storage_url`, are stored and answered, never fetched.

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
