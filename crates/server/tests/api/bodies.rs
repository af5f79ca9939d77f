//! Request bodies are read strictly, and a refused body's message names the field by its JSON path and the JSON type
//! expected there, in the caller's language, without parser text or Rust type names. The cases are generated from
//! the OpenAPI document: every operation with a JSON body, its example, and mutations of that example.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator, TestApp};

/// An operation that takes a JSON body, with the example the document gives for it.
struct Write {
    method: Method,
    /// The path, with `1` for its parameter.
    path: String,
    example: Value,
    /// The body's schema, with `$ref`s left as they are.
    schema: Value,
}

fn document() -> Value {
    serde_json::to_value(server::openapi_document("SVC")).expect("the document as JSON")
}

fn writes(document: &Value) -> Vec<Write> {
    let mut writes = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for method in ["post", "put", "patch"] {
            let content = &item[method]["requestBody"]["content"]["application/json"];
            if content.is_null() {
                continue;
            }
            let concrete: Vec<&str> = path
                .split('/')
                .map(|segment| if segment.starts_with('{') { "1" } else { segment })
                .collect();
            writes.push(Write {
                method: Method::from_bytes(method.to_uppercase().as_bytes()).expect("a method"),
                path: concrete.join("/"),
                example: content["example"].clone(),
                schema: content["schema"].clone(),
            });
        }
    }
    assert!(writes.len() >= 14, "every write is found: {}", writes.len());
    writes
}

/// The schema a `$ref` points to, or the schema itself.
fn resolved<'d>(document: &'d Value, schema: &'d Value) -> &'d Value {
    match schema["$ref"]
        .as_str()
        .and_then(|name| name.strip_prefix("#/components/schemas/"))
    {
        Some(name) => &document["components"]["schemas"][name],
        None => schema,
    }
}

/// The caller's language, and a phrase of the body message's template in it.
const LANGUAGES: [(&str, &str); 3] = [("es", "no es válido"), ("pt", "não é válido"), ("en", "is not valid")];

/// serde's phrasing and Rust type names, none of which may reach an integrator.
const PARSER_WORDS: [&str; 16] = [
    "expected",
    "invalid type",
    "invalid length",
    "missing field",
    "unknown variant",
    "unknown field",
    "i64",
    "f64",
    "u64",
    "u32",
    "i32",
    "usize",
    "struct",
    "String",
    "Vec<",
    "Option<",
];

/// The words that name `value`'s JSON type in `lang`; any one of them will do.
fn kind_words(value: &Value, lang: &str) -> &'static [&'static str] {
    match (value, lang) {
        (Value::Object(_), "en") => &["object"],
        (Value::Object(_), _) => &["objeto"],
        (Value::Array(_), "es") => &["arreglo"],
        (Value::Array(_), "pt") => &["lista"],
        (Value::Array(_), _) => &["array"],
        (Value::String(_), "en") => &["string"],
        (Value::String(_), _) => &["texto"],
        (Value::Number(n), "en") if n.is_f64() => &["number"],
        (Value::Number(_), "en") => &["integer", "number"],
        (Value::Number(_), _) => &["número"],
        (Value::Bool(_), "en") => &["boolean"],
        (Value::Bool(_), _) => &["booleano"],
        (Value::Null, _) => &["null"],
    }
}

/// Sends `body` as `lang` asks and expects a 400 in the envelope; answers its message.
async fn refused(app: &TestApp, token: &str, write: &Write, body: &Value, lang: &str) -> String {
    let response = app
        .request(write.method.clone(), &write.path)
        .bearer_auth(token)
        .header("accept-language", lang)
        .json(body)
        .send()
        .await
        .expect("send");
    let status = response.status();
    assert_eq!(
        status,
        StatusCode::BAD_REQUEST,
        "{} {} with {body}",
        write.method,
        write.path
    );
    let (code, message) = error_envelope(response, StatusCode::BAD_REQUEST).await;
    assert_eq!(code, 400);
    message
}

/// Checks a message is in `lang`, names `path` and holds no parser text nor any schema name of the document.
fn check_message(message: &str, lang: &str, path: &str, document: &Value) {
    let template = LANGUAGES
        .iter()
        .find(|(l, _)| *l == lang)
        .map(|(_, phrase)| *phrase)
        .expect("a language");
    assert!(message.contains(template), "in {lang}: {message}");
    assert!(message.contains(path), "names {path}: {message}");
    for word in PARSER_WORDS {
        assert!(!message.contains(word), "no parser text {word:?}: {message}");
    }
    for name in document["components"]["schemas"].as_object().expect("schemas").keys() {
        assert!(!message.contains(name.as_str()), "no schema name {name}: {message}");
    }
}

/// Every place of `value` below its root, with its path as messages write it.
fn places(value: &Value, path: &str, into: &mut Vec<(String, Value)>) {
    let children: Vec<(String, &Value)> = match value {
        Value::Object(fields) => fields
            .iter()
            .map(|(key, child)| {
                (
                    if path.is_empty() {
                        key.clone()
                    } else {
                        format!("{path}.{key}")
                    },
                    child,
                )
            })
            .collect(),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, child)| (format!("{path}[{i}]"), child))
            .collect(),
        _ => Vec::new(),
    };
    for (child_path, child) in children {
        into.push((child_path.clone(), child.clone()));
        places(child, &child_path, into);
    }
}

/// `value` with the place at `path` replaced by `replacement`.
fn replaced(value: &Value, path: &str, replacement: &Value) -> Value {
    let mut copy = value.clone();
    let mut pointer = String::new();
    for part in path.split('.') {
        let (key, indexes) = part.split_once('[').map_or((part, ""), |(key, rest)| (key, rest));
        if !key.is_empty() {
            pointer.push('/');
            pointer.push_str(key);
        }
        for index in indexes.split('[').filter(|i| !i.is_empty()) {
            pointer.push('/');
            pointer.push_str(index.trim_end_matches(']'));
        }
    }
    *copy.pointer_mut(&pointer).expect("the place exists") = replacement.clone();
    copy
}

/// A value of another JSON type than `value`'s, which no schema of `value`'s place takes.
fn other_type(value: &Value) -> Value {
    match value {
        Value::Object(_) => json!([]),
        Value::Array(_) => json!({}),
        Value::String(_) => json!(true),
        _ => json!("x"),
    }
}

async fn token(app: &TestApp) -> String {
    app.token(integrator("AR")).await
}

crate::on_both_backends! {
    async fn bodies_of_another_json_type_than_the_schema_are_refused_on_every_write(app) {
        let document = document();
        let token = token(&app).await;
        for write in writes(&document) {
            let root_is_object = write.example.is_object();
            let as_array = match &write.example {
                Value::Object(fields) => Value::Array(fields.values().cloned().collect()),
                _ => json!(["x"]),
            };
            for body in [as_array, json!("text"), json!(7), Value::Null, json!(true)] {
                for (lang, _) in LANGUAGES {
                    let message = refused(&app, &token, &write, &body, lang).await;
                    let path = if body.is_array() && !root_is_object { "[0]" } else { "" };
                    check_message(&message, lang, path, &document);
                    // An object body, and the items of a body that may be an array, are objects.
                    let words = kind_words(&json!({}), lang);
                    assert!(words.iter().any(|w| message.contains(w)), "names {words:?}: {message}");
                }
            }
        }
    }

    async fn a_value_of_the_wrong_json_type_is_named_by_its_path_and_expected_type(app) {
        let document = document();
        let token = token(&app).await;
        for write in writes(&document) {
            let mut all = Vec::new();
            places(&write.example, "", &mut all);
            for (path, value) in all.into_iter().filter(|(_, value)| !value.is_null()) {
                let body = replaced(&write.example, &path, &other_type(&value));
                for (lang, _) in LANGUAGES {
                    let message = refused(&app, &token, &write, &body, lang).await;
                    check_message(&message, lang, &path, &document);
                    let words = kind_words(&value, lang);
                    assert!(words.iter().any(|w| message.contains(w)), "names {words:?}: {message}");
                }
            }
        }
    }

    async fn missing_required_fields_bad_dates_syntax_errors_and_truncated_bodies_are_named(app) {
        let document = document();
        let token = token(&app).await;
        let (required, date, syntax, truncated) = (
            [("es", "obligatorio"), ("pt", "obrigatório"), ("en", "required")],
            [("es", "fecha y hora"), ("pt", "data e hora"), ("en", "date and time")],
            [("es", "línea 1, columna"), ("pt", "linha 1, coluna"), ("en", "line 1, column")],
            [("es", "termina"), ("pt", "termina"), ("en", "ends")],
        );
        for write in writes(&document) {
            let schema = resolved(&document, &write.schema);
            let first_required = schema["required"].as_array().and_then(|names| names.first()).and_then(Value::as_str);
            if let (Some(name), Some(fields)) = (first_required, write.example.as_object()) {
                let mut body = fields.clone();
                body.remove(name);
                for (lang, word) in required {
                    let message = refused(&app, &token, &write, &Value::Object(body.clone()), lang).await;
                    check_message(&message, lang, name, &document);
                    assert!(message.contains(word), "{message}");
                }
            }
            let mut all = Vec::new();
            places(&write.example, "", &mut all);
            let dates = all.iter().filter(|(_, value)| value.as_str().is_some_and(|text| chrono::DateTime::parse_from_rfc3339(text).is_ok()));
            for (path, _) in dates {
                let body = replaced(&write.example, path, &json!("2025-10-32T08:00:00-03:00"));
                for (lang, word) in date {
                    let message = refused(&app, &token, &write, &body, lang).await;
                    check_message(&message, lang, path, &document);
                    assert!(message.contains(word), "{message}");
                }
            }
            let text = write.example.to_string();
            for (lang, (_, word)) in LANGUAGES.iter().map(|(lang, _)| *lang).zip(syntax) {
                let broken = app.request(write.method.clone(), &write.path).bearer_auth(&token).header("accept-language", lang)
                    .header("content-type", "application/json").body(format!("{text}}}")).send().await.expect("send");
                let (_, message) = error_envelope(broken, StatusCode::BAD_REQUEST).await;
                check_message(&message, lang, "", &document);
                assert!(message.contains(word), "{message}");
            }
            for (lang, word) in truncated {
                let cut = app.request(write.method.clone(), &write.path).bearer_auth(&token).header("accept-language", lang)
                    .header("content-type", "application/json").body(text[..text.len() / 2].to_owned()).send().await.expect("send");
                let (_, message) = error_envelope(cut, StatusCode::BAD_REQUEST).await;
                check_message(&message, lang, "", &document);
                assert!(message.contains(word), "{message}");
            }
        }
    }

    async fn an_array_is_not_read_as_an_object(app) {
        let account = integrator("AR");
        let login = app.request(Method::POST, "/api/v2/login").json(&json!([account.email, account.password])).send().await.expect("send");
        error_envelope(login, StatusCode::BAD_REQUEST).await;
        let token = app.token(account).await;
        let before = app.all_items("/api/v3/third_party/establishments", &token).await.len();
        let establishment = app.post("/api/v3/third_party/establishments", &token, &json!(["name", 1, "code"])).await;
        let (_, message) = error_envelope(establishment, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("objeto") && message.contains("arreglo"), "{message}");
        assert_eq!(app.all_items("/api/v3/third_party/establishments", &token).await.len(), before, "nothing created");
        let refresh = app.request(Method::POST, "/api/v2/login/refresh").json(&json!(["x"])).send().await.expect("send");
        error_envelope(refresh, StatusCode::BAD_REQUEST).await;
    }
}
