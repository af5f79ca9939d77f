//! The integrators' guides (`docs/guides/{es,pt,en}/<slug>.md`) run as written, so that none can go stale.
//!
//! A guide marks the fenced blocks a reader runs: ```` ```bash run ````, ```` ```python run ````,
//! ```` ```js run ```` and ```` ```rust run ````. A ```` ```text output ```` block right after one is what that
//! block must print. Each guide is run in its own scratch folder against its own fresh `tranquera demo`, its blocks
//! in order, with the variables the guides document (`TRANQUERA_BASE_URL`, `TRANQUERA_EMAIL`,
//! `TRANQUERA_PASSWORD`):
//! - a shell block runs in `bash` with `errexit`, `nounset` and `pipefail`, and what it exports is seen by the
//!   next shell block, as in a reader's terminal;
//! - a Python block runs in `python3`, a JavaScript block in `node` (as an ES module); each is a whole program;
//! - a Rust block is a function of this test (see `guides/`), compiled with it against the `client` crate; its
//!   text must be the guide's, byte for byte, and the guide's own test calls it.
//!
//! The three languages of a guide share their code: their runnable and output blocks must be the same.

#[path = "guides/verify_webhook.rs"]
mod verify_webhook;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use testkit::process::ServerProcess;
use testkit::scratch::Scratch;

/// The guides, in reading order: each is in every language.
const SLUGS: [&str; 5] = [
    "getting-started",
    "incremental-sync",
    "work-orders",
    "retries-and-errors",
    "webhooks",
];
const LANGUAGES: [&str; 3] = ["es", "pt", "en"];
const DEMO_EMAIL: &str = "integrador@lapampa.com.ar";
const DEMO_PASSWORD: &str = "LaPampa-2026";

/// The Rust blocks, as the guides must show them: the files this test compiles.
const RUST_BLOCKS: [&str; 1] = [include_str!("guides/verify_webhook.rs")];

/// A block a reader runs, and what it must print, if the guide says.
#[derive(Debug, Clone, PartialEq)]
struct Block {
    language: String,
    code: String,
    output: Option<String>,
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn guide(lang: &str, slug: &str) -> String {
    let path = workspace().join(format!("docs/guides/{lang}/{slug}.md"));
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The runnable blocks of a guide, in order, each with the output block that follows it.
fn blocks(markdown: &str) -> Vec<Block> {
    let mut found: Vec<Block> = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        let Some(info) = line.strip_prefix("```") else {
            continue;
        };
        let mut code = String::new();
        for line in lines.by_ref() {
            if line.starts_with("```") {
                break;
            }
            code.push_str(line);
            code.push('\n');
        }
        let words: Vec<&str> = info.split_whitespace().collect();
        match words.as_slice() {
            [language, "run"] => found.push(Block {
                language: (*language).to_owned(),
                code,
                output: None,
            }),
            ["text", "output"] => {
                let last = found.last_mut().expect("an output block follows a runnable block");
                assert!(last.output.is_none(), "two output blocks for one runnable block");
                last.output = Some(code);
            }
            _ => {}
        }
    }
    found
}

#[test]
fn every_guide_exists_in_every_language_with_the_same_code() {
    for slug in SLUGS {
        let english = blocks(&guide("en", slug));
        assert!(!english.is_empty(), "{slug} has runnable blocks");
        for lang in LANGUAGES {
            let markdown = guide(lang, slug);
            assert!(markdown.starts_with("# "), "{lang}/{slug} opens with its title");
            assert_eq!(
                blocks(&markdown),
                english,
                "{lang}/{slug} runs the English guide's code"
            );
        }
    }
    let listed: Vec<String> = LANGUAGES
        .iter()
        .flat_map(|lang| {
            std::fs::read_dir(workspace().join("docs/guides").join(lang))
                .expect("a folder per language")
                .map(move |entry| format!("{lang}/{}", entry.expect("an entry").file_name().to_string_lossy()))
        })
        .collect();
    assert_eq!(
        listed.len(),
        SLUGS.len() * LANGUAGES.len(),
        "no guide outside the list: {listed:?}"
    );
}

#[test]
fn the_guides_rust_is_this_tests_rust() {
    let shown: Vec<String> = SLUGS
        .iter()
        .flat_map(|slug| blocks(&guide("en", slug)))
        .filter(|block| block.language == "rust")
        .map(|block| block.code)
        .collect();
    assert_eq!(shown, RUST_BLOCKS.map(str::to_owned).to_vec());
}

/// Runs one block in `folder`; answers what it printed.
fn run(block: &Block, folder: &Path, base: &str) -> String {
    let (program, args): (&str, Vec<String>) = match block.language.as_str() {
        "bash" => {
            // What the previous blocks exported, as a terminal would still have it.
            let script = format!(
                "set -euo pipefail\n[ -f .guide-env ] && . ./.guide-env\n{}\nexport -p > .guide-env\n",
                block.code
            );
            std::fs::write(folder.join("block.sh"), script).expect("write the block");
            ("bash", vec!["block.sh".into()])
        }
        "python" => {
            std::fs::write(folder.join("block.py"), &block.code).expect("write the block");
            ("python3", vec!["block.py".into()])
        }
        "js" => {
            std::fs::write(folder.join("block.mjs"), &block.code).expect("write the block");
            ("node", vec!["block.mjs".into()])
        }
        // Compiled with this test, and called by the guide's own test below.
        "rust" => return String::new(),
        other => panic!("a runnable block in a language this runner does not know: {other}"),
    };
    let output = Command::new(program)
        .args(&args)
        .current_dir(folder)
        .env("TRANQUERA_BASE_URL", base)
        .env("TRANQUERA_EMAIL", DEMO_EMAIL)
        .env("TRANQUERA_PASSWORD", DEMO_PASSWORD)
        .output()
        .unwrap_or_else(|error| panic!("run {program}: {error}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "this {} block failed ({}):\n{}\nstdout:\n{stdout}\nstderr:\n{}",
        block.language,
        output.status,
        block.code,
        String::from_utf8_lossy(&output.stderr)
    );
    if let Some(expected) = &block.output {
        assert_eq!(
            stdout.trim_end(),
            expected.trim_end(),
            "what this block printed:\n{}",
            block.code
        );
    }
    stdout
}

/// Runs every block of the English guide `slug` against a fresh demo server; answers the server, still running.
fn run_guide(slug: &str) -> (Scratch, ServerProcess) {
    let scratch = Scratch::new(&format!("tranquera-guide-{slug}"));
    // On a Citus cluster of the tester's own (`testkit::citus`), the demo seeds a database spread over it.
    let database = if testkit::citus::requested() {
        let runtime = tokio::runtime::Runtime::new().expect("a runtime");
        runtime.block_on(testkit::postgres::new_database("tranquera_guide"))
    } else {
        format!("sqlite://{}", scratch.join("demo.sqlite").display())
    };
    let server = ServerProcess::start(
        Path::new(env!("CARGO_BIN_EXE_tranquera")),
        &["demo", "--database", &database],
        &scratch.join("demo.log"),
    );
    let folder = scratch.join("reader");
    std::fs::create_dir_all(&folder).expect("the reader's folder");
    let started = Instant::now();
    for block in blocks(&guide("en", slug)) {
        run(&block, &folder, &server.base);
    }
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "{slug} took {:?}: keep each guide quick to run",
        started.elapsed()
    );
    (scratch, server)
}

#[test]
fn getting_started_runs() {
    run_guide("getting-started");
}

#[test]
fn incremental_sync_runs() {
    run_guide("incremental-sync");
}

#[test]
fn work_orders_runs() {
    run_guide("work-orders");
}

#[test]
fn retries_and_errors_runs() {
    run_guide("retries-and-errors");
}

#[test]
fn webhooks_runs() {
    let (scratch, _server) = run_guide("webhooks");
    // The guide's Python receiver kept what it verified: the Rust function must accept the same delivery.
    let folder = scratch.join("reader");
    let read = |name: &str| std::fs::read(folder.join(name)).unwrap_or_else(|error| panic!("{name}: {error}"));
    let secret = String::from_utf8(read("secret.txt")).expect("UTF-8");
    let headers: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&read("delivery-headers.json")).expect("the delivery's headers");
    let body = read("delivery-body.json");
    let mut map = client::webhooks::HeaderMap::new();
    for (name, value) in &headers {
        let name: reqwest::header::HeaderName = name.parse().expect("a header name");
        map.insert(
            name,
            value.as_str().expect("a text value").parse().expect("a header value"),
        );
    }
    let event = verify_webhook::handle_delivery(secret.trim(), &map, &body).expect("the Rust check accepts it");
    assert_eq!(event.kind, "establishment.created");
    let mut forged = body.clone();
    forged.push(b' ');
    assert!(verify_webhook::handle_delivery(secret.trim(), &map, &forged).is_err());
}
