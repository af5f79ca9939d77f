//! The integrators' guides (`docs/guides/{es,pt,en}/<slug>.md`) run as written, for the societies of their
//! language, so that none can go stale.
//!
//! A guide marks the fenced blocks a reader runs: ```` ```bash run ````, ```` ```python run ````,
//! ```` ```js run ```` and ```` ```rust run ````. A ```` ```text output ```` block right after one is what that
//! block must print. Each guide is run against its own fresh `tranquera demo`, once per reading (a language and a
//! society of the demo, each in its own scratch folder), its blocks in order, with the variables the guides document
//! (`TRANQUERA_BASE_URL`, `TRANQUERA_EMAIL`, `TRANQUERA_PASSWORD`: the society's integrator):
//! - a shell block runs in `bash` with `errexit`, `nounset` and `pipefail`, and what it exports is seen by the
//!   next shell block, as in a reader's terminal;
//! - a Python block runs in `python3`, a JavaScript block in `node` (as an ES module); each is a whole program;
//! - a Rust block is a function of this test (see `guides/`), compiled with it against the `client` crate; its
//!   text must be the guide's, byte for byte, and the guide's own test calls it.
//!
//! A guide finds the ids it works on, so its output blocks hold for every society. The Spanish guides run as the
//! Argentine society and one more Spanish-speaking one, the Portuguese ones as the Brazilian, the English ones as
//! another: the other six societies take turns over the guides, so that each runs some. With
//! `TRANQUERA_GUIDES_EVERY_SOCIETY=1`, every guide runs for every society of its language (every society in English).
//!
//! The three languages of a guide take the same steps (the same kinds of blocks, in the same order), each in its own
//! words: a guide's calls and programs ask for answers in its language (`Accept-Language`), and its output blocks
//! hold no word of the other two.

#[path = "guides/verify_webhook_en.rs"]
mod verify_webhook_en;
#[path = "guides/verify_webhook_es.rs"]
mod verify_webhook_es;
#[path = "guides/verify_webhook_pt.rs"]
mod verify_webhook_pt;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use demo::DemoAccount;
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

/// The demo's Spanish-speaking societies, by country: the Argentine one reads every Spanish guide.
const SPANISH_SPEAKING: [&str; 7] = ["AR", "MX", "PY", "BO", "CO", "UY", "VE"];

/// Words that mark a language, so that an output block of another language's guide cannot hold them.
const MARKERS: [(&str, &[&str]); 3] = [("es", SPANISH_WORDS), ("pt", PORTUGUESE_WORDS), ("en", ENGLISH_WORDS)];
const SPANISH_WORDS: &[&str] = &["el", "la", "los", "las", "del", "y", "una", "es", "con", "sin"];
const PORTUGUESE_WORDS: &[&str] = &[
    "não", "é", "um", "uma", "do", "da", "dos", "das", "com", "em", "sem", "ao",
];
const ENGLISH_WORDS: &[&str] = &["the", "and", "is", "not", "with", "of", "was", "in", "on", "by"];

/// The Rust blocks of each language's guides: the files this test compiles.
const RUST_BLOCKS: [(&str, &str); 3] = [
    ("es", include_str!("guides/verify_webhook_es.rs")),
    ("pt", include_str!("guides/verify_webhook_pt.rs")),
    ("en", include_str!("guides/verify_webhook_en.rs")),
];

/// A block a reader runs, and what it must print, if the guide says.
#[derive(Debug, Clone, PartialEq)]
struct Block {
    language: String,
    code: String,
    output: Option<String>,
}

/// One run of a guide: in a language, as a society's integrator, in a folder of its own.
struct Reading {
    lang: &'static str,
    account: &'static DemoAccount,
    folder: PathBuf,
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

/// The steps of a guide: each runnable block's language, and whether the guide says what it prints.
fn steps(blocks: &[Block]) -> Vec<(String, bool)> {
    blocks
        .iter()
        .map(|block| (block.language.clone(), block.output.is_some()))
        .collect()
}

#[test]
fn every_guide_exists_in_every_language_with_the_same_steps() {
    for slug in SLUGS {
        let english = steps(&blocks(&guide("en", slug)));
        assert!(!english.is_empty(), "{slug} has runnable blocks");
        for lang in LANGUAGES {
            let markdown = guide(lang, slug);
            assert!(markdown.starts_with("# "), "{lang}/{slug} opens with its title");
            assert_eq!(
                steps(&blocks(&markdown)),
                english,
                "{lang}/{slug} takes the English guide's steps"
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

/// Each `curl` command of a shell block, with its continuation lines joined.
fn curl_commands(code: &str) -> Vec<String> {
    let joined = code.replace("\\\n", " ");
    joined
        .lines()
        .flat_map(|line| line.split("curl ").skip(1).map(str::to_owned).collect::<Vec<_>>())
        .collect()
}

/// The languages a command's `Accept-Language` header names (`fr-CH, en;q=0.8` names `fr` and `en`).
fn accepted_languages(command: &str) -> Vec<String> {
    let Some((_, value)) = command.split_once("Accept-Language: ") else {
        return Vec::new();
    };
    let value = value.split(['\'', '"']).next().unwrap_or_default();
    value
        .split(',')
        .filter_map(|range| range.split([';', '-']).next())
        .map(|tag| tag.trim().to_lowercase())
        .collect()
}

/// The words of a text, lowercased: letters (and `_`, so that `is_read_only` stays one word).
fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphabetic() || c == '_'))
        .filter(|word| !word.is_empty())
        .map(str::to_lowercase)
        .collect()
}

#[test]
fn every_guide_speaks_its_own_language() {
    for slug in SLUGS {
        for lang in LANGUAGES {
            for block in blocks(&guide(lang, slug)) {
                if block.language == "bash" {
                    for command in curl_commands(&block.code) {
                        assert!(
                            accepted_languages(&command).contains(&lang.to_owned()),
                            "{lang}/{slug}: this call asks for answers in {lang}: curl {command}"
                        );
                    }
                }
                let calls_the_api = block.code.contains("urllib.request") || block.code.contains("fetch(");
                if calls_the_api {
                    assert!(
                        block.code.contains(&format!("\"Accept-Language\": \"{lang}\"")),
                        "{lang}/{slug}: this program asks for answers in {lang}:\n{}",
                        block.code
                    );
                }
                let said = words(block.output.as_deref().unwrap_or_default());
                for (other, markers) in MARKERS.iter().filter(|(other, _)| *other != lang) {
                    let foreign: Vec<&String> = said.iter().filter(|word| markers.contains(&word.as_str())).collect();
                    assert!(
                        foreign.is_empty(),
                        "{lang}/{slug}: an output block says {foreign:?}, words of {other}:\n{}",
                        block.code
                    );
                }
            }
        }
    }
}

#[test]
fn the_guides_rust_is_this_tests_rust() {
    for (lang, file) in RUST_BLOCKS {
        let shown: Vec<String> = SLUGS
            .iter()
            .flat_map(|slug| blocks(&guide(lang, slug)))
            .filter(|block| block.language == "rust")
            .map(|block| block.code)
            .collect();
        assert_eq!(shown, vec![file.to_owned()], "the Rust of the {lang} guides");
    }
}

/// Runs one block in `folder` as `account`; answers what it printed.
fn run(block: &Block, folder: &Path, base: &str, account: &DemoAccount) -> String {
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
        .env("TRANQUERA_EMAIL", account.email)
        .env("TRANQUERA_PASSWORD", account.password)
        .output()
        .unwrap_or_else(|error| panic!("run {program}: {error}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "this {} block failed for {} ({}):\n{}\nstdout:\n{stdout}\nstderr:\n{}",
        block.language,
        account.email,
        output.status,
        block.code,
        String::from_utf8_lossy(&output.stderr)
    );
    if let Some(expected) = &block.output {
        assert_eq!(
            stdout.trim_end(),
            expected.trim_end(),
            "what this block printed for {}:\n{}",
            account.email,
            block.code
        );
    }
    stdout
}

/// The demo's integrator of the society of `country`.
fn integrator(country: &str) -> &'static DemoAccount {
    demo::DEMO_ACCOUNTS
        .iter()
        .find(|account| account.country == country && account.api_role)
        .unwrap_or_else(|| panic!("the demo has an integrator in {country}"))
}

/// Who reads the guide `slug`, in which language (see the module's comment).
fn readers(slug: &str) -> Vec<(&'static str, &'static str)> {
    if std::env::var_os("TRANQUERA_GUIDES_EVERY_SOCIETY").is_some_and(|value| value == "1") {
        let spanish = SPANISH_SPEAKING.iter().map(|country| ("es", *country));
        let english = demo::DEMO_ACCOUNTS
            .iter()
            .filter(|account| account.api_role)
            .map(|account| ("en", account.country));
        return spanish.chain([("pt", "BR")]).chain(english).collect();
    }
    let turn = SLUGS.iter().position(|known| *known == slug).expect("a listed guide");
    let others = &SPANISH_SPEAKING[1..];
    vec![
        ("es", "AR"),
        ("es", others[turn % others.len()]),
        ("pt", "BR"),
        ("en", others[(turn + others.len() - 1) % others.len()]),
    ]
}

#[test]
fn every_society_reads_some_guide_and_each_language_is_read_in_its_own_countries() {
    let mut countries: Vec<&str> = SLUGS
        .iter()
        .flat_map(|slug| readers(slug))
        .map(|(_, country)| country)
        .collect();
    countries.sort_unstable();
    countries.dedup();
    let mut integrators: Vec<&str> = demo::DEMO_ACCOUNTS
        .iter()
        .filter(|account| account.api_role)
        .map(|account| account.country)
        .collect();
    integrators.sort_unstable();
    assert_eq!(countries, integrators, "every demo society runs some guide");
    for slug in SLUGS {
        let read = readers(slug);
        assert!(
            read.contains(&("es", "AR")) && read.contains(&("pt", "BR")),
            "{slug}: {read:?}"
        );
        for lang in LANGUAGES {
            assert!(
                read.iter().any(|(reader, _)| *reader == lang),
                "{slug} is read in {lang}"
            );
        }
        for (lang, country) in read {
            match lang {
                "es" => assert!(SPANISH_SPEAKING.contains(&country), "{slug}: Spanish read in {country}"),
                "pt" => assert_eq!(country, "BR", "{slug}: Portuguese read in {country}"),
                _ => {}
            }
        }
    }
}

/// Runs every block of the guide `slug`, for each of its readers in turn, against one fresh demo server (the
/// societies' data do not meet); answers the server, still running, and the readings.
fn run_guide(slug: &str) -> (Scratch, ServerProcess, Vec<Reading>) {
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
    let mut readings = Vec::new();
    for (lang, country) in readers(slug) {
        let account = integrator(country);
        let folder = scratch.join(format!("reader-{lang}-{country}"));
        std::fs::create_dir_all(&folder).expect("the reader's folder");
        let started = Instant::now();
        for block in blocks(&guide(lang, slug)) {
            run(&block, &folder, &server.base, account);
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "{lang}/{slug} took {:?} for {}: keep each guide quick to run",
            started.elapsed(),
            account.email
        );
        readings.push(Reading { lang, account, folder });
    }
    (scratch, server, readings)
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
    let (_scratch, _server, readings) = run_guide("webhooks");
    for reading in readings {
        // The guide's Python receiver kept what it verified: the guide's Rust function must accept the same delivery.
        let handle_delivery = match reading.lang {
            "es" => verify_webhook_es::handle_delivery,
            "pt" => verify_webhook_pt::handle_delivery,
            _ => verify_webhook_en::handle_delivery,
        };
        let read =
            |name: &str| std::fs::read(reading.folder.join(name)).unwrap_or_else(|error| panic!("{name}: {error}"));
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
        let event = handle_delivery(secret.trim(), &map, &body)
            .unwrap_or_else(|error| panic!("the {} Rust check accepts it: {error}", reading.lang));
        assert_eq!(event.kind, "establishment.created", "for {}", reading.account.email);
        let mut forged = body.clone();
        forged.push(b' ');
        assert!(handle_delivery(secret.trim(), &map, &forged).is_err());
    }
}
