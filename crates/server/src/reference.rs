//! The reference document in the reader's language: a translation layer over the one English document. Each
//! language has a table, `assets/reference/<lang>.json`, a JSON object from every English text of the document (the
//! full string as the document holds it; of an operation's description, only the prose before its code samples) to
//! its translation. What is translated: every `summary` and `description` (operations, parameters, request bodies,
//! answers and their headers, schemas and their properties, security schemes, tags, the document's own) and the
//! labels of the code samples. What is not: names (paths, operation ids, tags, schema and property names, which
//! generated clients and deep links use), examples, and the code of the samples. A text the table lacks stays
//! English, so the document is always whole; a test lists what each table lacks and what it holds for no text.

use std::collections::{BTreeSet, HashMap};

use domain::Lang;
use serde_json::Value;

use crate::code_samples::{HEADING, LABELS};

/// The translations of Spanish and Portuguese, built into the binary.
const SPANISH: &str = include_str!("../assets/reference/es.json");
const PORTUGUESE: &str = include_str!("../assets/reference/pt.json");

/// The keys whose string values are read by people.
const PROSE: [&str; 2] = ["summary", "description"];
/// What holds values, not prose: a `description` inside an example is the example's data.
const DATA: [&str; 5] = ["example", "examples", "default", "enum", "const"];
/// Where the samples' labels are.
const SAMPLES: &str = "x-codeSamples";

/// One language's table: English text → translation.
pub type Table = HashMap<String, String>;

/// The table of `lang`: empty for English, and for a table that is not a JSON object of strings (which the test
/// refuses, so only a broken build can ship one).
pub fn table(lang: Lang) -> Table {
    let source = match lang {
        Lang::Es => SPANISH,
        Lang::Pt => PORTUGUESE,
        Lang::En => return Table::new(),
    };
    serde_json::from_str(source).unwrap_or_else(|error| {
        tracing::error!(?lang, %error, "the reference's translation table is not a JSON object of strings");
        Table::new()
    })
}

/// The table of `lang` as written, for the test that checks it: an error names what is wrong with it.
pub fn raw_table(lang: Lang) -> Result<Table, String> {
    let source = match lang {
        Lang::Es => SPANISH,
        Lang::Pt => PORTUGUESE,
        Lang::En => return Ok(Table::new()),
    };
    serde_json::from_str(source).map_err(|error| error.to_string())
}

/// Every text of `document` a table translates.
pub fn texts(document: &Value) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut collect = |text: &str| {
        if !text.is_empty() {
            found.insert(text.to_owned());
        }
        None
    };
    let mut copy = document.clone();
    walk(&mut copy, &mut collect);
    found.insert(HEADING_TEXT.to_owned());
    found.extend(LABELS.iter().map(|label| (*label).to_owned()));
    // A command's name, the same in every language.
    found.remove("curl");
    found
}

/// `document` in the language of `table`.
pub fn translate(document: &Value, table: &Table) -> Value {
    let mut translated = document.clone();
    walk(&mut translated, &mut |text| table.get(text).cloned());
    translated
}

/// The heading of the samples, as a table keys it (without its Markdown).
const HEADING_TEXT: &str = "Code samples";

/// Calls `change` on every translatable text of `value`, replacing the text with what it answers.
fn walk(value: &mut Value, change: &mut dyn FnMut(&str) -> Option<String>) {
    match value {
        Value::Object(fields) => {
            for (key, field) in fields.iter_mut() {
                if DATA.contains(&key.as_str()) {
                    continue;
                }
                match field {
                    Value::String(text) if PROSE.contains(&key.as_str()) => {
                        if let Some(changed) = prose(text, change) {
                            *text = changed;
                        }
                    }
                    Value::Array(samples) if key == SAMPLES => {
                        for sample in samples {
                            if let Some(Value::String(label)) = sample.get_mut("label") {
                                if let Some(changed) = change(label) {
                                    *label = changed;
                                }
                            }
                        }
                    }
                    _ => walk(field, change),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|item| walk(item, change)),
        _ => {}
    }
}

/// A text changed by `change`: an operation's description is its prose, then its code samples, whose heading and
/// labels change but not their code.
fn prose(text: &str, change: &mut dyn FnMut(&str) -> Option<String>) -> Option<String> {
    let Some(at) = text.find(HEADING) else {
        return change(text);
    };
    let (before, samples) = text.split_at(at);
    let body = before.trim_end();
    let mut samples = samples.to_owned();
    if let Some(heading) = change(HEADING_TEXT) {
        samples = samples.replacen(HEADING, &format!("**{heading}**"), 1);
    }
    for label in LABELS {
        if let Some(translated) = change(label) {
            samples = samples.replace(&format!("\n\n{label}:\n\n"), &format!("\n\n{translated}:\n\n"));
        }
    }
    let body = match body {
        "" => String::new(),
        body => format!("{}\n\n", change(body).unwrap_or_else(|| body.to_owned())),
    };
    Some(format!("{body}{samples}"))
}

/// The language `/openapi.json` answers in: the `lang` query parameter's when it names one we write, else the one
/// `Accept-Language` prefers among ours, else English, so that a tool that sends neither gets a stable document.
pub fn language(lang_parameter: Option<&str>, accept_language: Option<&str>) -> Lang {
    if let Some(lang) = lang_parameter.and_then(Lang::from_locale) {
        return lang;
    }
    match accept_language {
        Some(header) if speaks_ours(header) => Lang::negotiate(Some(header)),
        _ => Lang::En,
    }
}

/// Whether `Accept-Language` accepts any of our languages.
fn speaks_ours(header: &str) -> bool {
    header.split(',').any(|entry| {
        let mut parts = entry.trim().split(';');
        let tag = parts.next().unwrap_or_default();
        let refused = parts.any(|part| {
            part.trim()
                .strip_prefix("q=")
                .and_then(|q| q.parse::<f32>().ok())
                .is_some_and(|q| q <= 0.0)
        });
        !refused && Lang::from_locale(tag).is_some()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The `code` spans of a text, which a translation keeps as they are.
    fn code_spans(text: &str) -> Vec<&str> {
        text.split('`').skip(1).step_by(2).collect()
    }

    #[test]
    fn every_text_of_the_document_has_a_translation_and_no_translation_is_stale() {
        let document = serde_json::to_value(crate::openapi_document("SVC")).expect("the document as JSON");
        let wanted = texts(&document);
        let mut report = String::new();
        for (lang, file) in [(Lang::Es, "es.json"), (Lang::Pt, "pt.json")] {
            let table = match raw_table(lang) {
                Ok(table) => table,
                Err(error) => {
                    report.push_str(&format!(
                        "\ncrates/server/assets/reference/{file} is not a JSON object of strings: {error}\n"
                    ));
                    continue;
                }
            };
            let missing: Vec<&String> = wanted.iter().filter(|text| !table.contains_key(*text)).collect();
            let mut stale: Vec<&String> = table.keys().filter(|key| !wanted.contains(*key)).collect();
            stale.sort();
            let mut changed: Vec<&String> = table
                .iter()
                .filter(|(english, translated)| code_spans(english) != code_spans(translated))
                .map(|(english, _)| english)
                .collect();
            changed.sort();
            let lines = |texts: &[&String]| {
                texts
                    .iter()
                    .map(|text| format!("  {}: \"\",\n", Value::String((*text).clone())))
                    .collect::<String>()
            };
            if !missing.is_empty() {
                report.push_str(&format!(
                    "\n{file} lacks {} texts of the document (add them):\n{}",
                    missing.len(),
                    lines(&missing)
                ));
            }
            if !stale.is_empty() {
                report.push_str(&format!(
                    "\n{file} holds {} keys that are no text of the document (remove or rekey them):\n{}",
                    stale.len(),
                    lines(&stale)
                ));
            }
            if !changed.is_empty() {
                report.push_str(&format!(
                    "\n{file} changes the `code` spans of {} texts (keep them as in English):\n{}",
                    changed.len(),
                    lines(&changed)
                ));
            }
        }
        assert!(
            report.is_empty(),
            "the reference's translations are out of step:{report}"
        );
    }

    #[test]
    fn the_parameter_wins_then_accept_language_then_english() {
        assert_eq!(language(Some("pt"), Some("es-AR")), Lang::Pt);
        assert_eq!(language(None, Some("es-AR,es;q=0.9")), Lang::Es);
        assert_eq!(language(Some("fr"), Some("pt-BR")), Lang::Pt);
        assert_eq!(language(None, Some("fr, de;q=0.5")), Lang::En);
        assert_eq!(language(None, Some("es;q=0")), Lang::En);
        assert_eq!(language(None, None), Lang::En);
    }

    #[test]
    fn prose_is_translated_and_names_examples_and_code_are_not() {
        let document = json!({
            "paths": {"/farmers": {"get": {
                "summary": "List farmers",
                "tags": ["Master data"],
                "description": "Every farmer.\n\n**Code samples**\n\ncurl:\n\n```bash\ncurl 'List farmers'\n```\n\nRust SDK:\n\n```rust\n```",
                "x-codeSamples": [{"lang": "Rust", "label": "Rust SDK", "source": "List farmers"}],
                "requestBody": {"content": {"application/json": {"example": {"description": "List farmers"}}}}
            }}},
            "components": {"schemas": {"Farmer": {"properties": {"description": {
                "type": "string", "description": "List farmers", "examples": ["List farmers"]
            }}}}}
        });
        let table: Table = [
            ("List farmers", "Listar productores"),
            ("Every farmer.", "Cada productor."),
            ("Code samples", "Ejemplos de código"),
            ("Rust SDK", "SDK de Rust"),
        ]
        .into_iter()
        .map(|(english, spanish)| (english.to_owned(), spanish.to_owned()))
        .collect();
        let translated = translate(&document, &table);
        let operation = &translated["paths"]["/farmers"]["get"];
        assert_eq!(operation["summary"], "Listar productores");
        assert_eq!(operation["tags"][0], "Master data");
        assert_eq!(
            operation["description"],
            "Cada productor.\n\n**Ejemplos de código**\n\ncurl:\n\n```bash\ncurl 'List farmers'\n```\n\nSDK de Rust:\n\n```rust\n```"
        );
        assert_eq!(operation["x-codeSamples"][0]["label"], "SDK de Rust");
        assert_eq!(operation["x-codeSamples"][0]["source"], "List farmers");
        let example = &operation["requestBody"]["content"]["application/json"]["example"];
        assert_eq!(example["description"], "List farmers");
        let property = &translated["components"]["schemas"]["Farmer"]["properties"]["description"];
        assert_eq!(property["description"], "Listar productores");
        assert_eq!(property["examples"][0], "List farmers");
        let found = texts(&document);
        assert!(found.contains("Every farmer.") && found.contains("List farmers") && found.contains("Rust SDK"));
        assert!(!found.iter().any(|text| text.contains("```")), "{found:?}");
    }
}
