//! Code samples of every operation, made from the operation as the document describes it: curl, the Rust SDK (the
//! `client` crate) and Python with a client generated from `/openapi.json` by `openapi-python-client`. Each
//! operation carries them twice: in `x-codeSamples` (`lang`, `label`, `source`), which tools and tests read, and at
//! the end of its description, as Markdown code blocks, which is how Swagger UI at `/docs` shows them.
//!
//! The samples call [`BASE`], which `/openapi.json` replaces with the address the request reached, and name records
//! of the demo login's society; the SDK's log in with the demo's documented account; curl and Python read the access
//! token from `$TOKEN` (the login's curl sample sets it, and `$REFRESH_TOKEN` for the refresh's).

use serde_json::{json, Value};
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::path::Operation;
use utoipa::openapi::OpenApi;

/// Where the samples send their calls as the document is built: `tranquera demo`'s default address, which
/// `/openapi.json` replaces with the address each request reached.
pub const BASE: &str = "http://127.0.0.1:8080";
/// The Python package `openapi-python-client` makes of the document (from its title).
pub const PYTHON_PACKAGE: &str = "third_party_integration_api_client";
/// The account the Rust samples log in with: the demo's documented integrator.
const DEMO_EMAIL: &str = "integrador@lapampa.com.ar";
const DEMO_PASSWORD: &str = "LaPampa-2026";

/// `document` with the samples of every operation.
pub fn with_samples(mut document: OpenApi) -> OpenApi {
    let components = serde_json::to_value(&document.components).unwrap_or(Value::Null);
    let header = components["securitySchemes"][crate::openapi::SYSTEM_ID]["name"]
        .as_str()
        .unwrap_or("X-SVC-SYSTEM-ID")
        .to_owned();
    for (path, item) in document.paths.paths.iter_mut() {
        let operations = [
            ("GET", &mut item.get),
            ("POST", &mut item.post),
            ("PUT", &mut item.put),
            ("PATCH", &mut item.patch),
            ("DELETE", &mut item.delete),
        ];
        for (method, operation) in operations {
            if let Some(operation) = operation.as_mut() {
                annotate(operation, &Call::of(method, path, operation, &header, &components));
            }
        }
    }
    document
}

/// What opens the samples at the end of a description; [`crate::reference`] translates the prose before it.
pub const HEADING: &str = "**Code samples**";
/// The samples' labels, in order: curl, the Rust SDK, Python.
pub const LABELS: [&str; 3] = ["curl", "Rust SDK", "Python (generated client)"];

fn annotate(operation: &mut Operation, call: &Call) {
    let samples = [
        ("Shell", LABELS[0], curl(call)),
        ("Rust", LABELS[1], rust(call)),
        ("Python", LABELS[2], python(call)),
    ];
    let mut markdown = operation.description.take().unwrap_or_default();
    if !markdown.is_empty() {
        markdown.push_str("\n\n");
    }
    markdown.push_str(HEADING);
    let fences = ["bash", "rust", "python"];
    for ((_, label, source), fence) in samples.iter().zip(fences) {
        markdown.push_str(&format!("\n\n{label}:\n\n```{fence}\n{source}\n```"));
    }
    operation.description = Some(markdown);
    let listed: Vec<Value> = samples
        .into_iter()
        .map(|(lang, label, source)| json!({"lang": lang, "label": label, "source": source}))
        .collect();
    let extensions = operation.extensions.get_or_insert_with(Extensions::default);
    extensions.insert("x-codeSamples".to_owned(), Value::Array(listed));
}

/// The records the samples name where the document's example id (1) is none of the demo login's society's (the
/// Argentine one), or where acting on it would fail: ids of `tranquera demo`'s records, the same in every fresh demo.
/// The reads name seeded records. The changes and deletions name the records the create samples make, which a
/// reader runs first, as the test does: the demo's seeded establishments, plots and orders all have dependants or
/// another `external_id`. `crates/tranquera/tests/reference_samples.rs` runs every curl sample against a fresh demo
/// and finds any that drifts.
const DEMO_IDS: [(&str, &str, &str, i64); 9] = [
    ("GET", "/api/v3/third_party/cultivations/{id}", "id", 1918),
    ("GET", "/api/v3/third_party/harvest_progress/{id}", "id", 4),
    ("GET", "/api/v3/third_party/planting_control/{id}", "id", 2),
    ("GET", "/api/v3/third_party/plant_stand_control/{id}", "id", 3),
    // The job the import sample starts, after the demo's seeded jobs.
    ("GET", "/api/v2/third_party/campaigns/import/jobs/{id}", "id", 25),
    // The establishment, plot and work order the create samples make.
    ("DELETE", "/api/v3/third_party/establishments/{id}", "id", 1421),
    ("DELETE", "/api/v3/third_party/plots/{id}", "id", 7166),
    ("PATCH", "/integration/api/v1/workOrders/{localId}", "localId", 2001),
    ("DELETE", "/integration/api/v1/workOrders/{localId}", "localId", 2001),
];

/// The demo record a sample of `method path` names by its parameter `name`, where it is not the document's example.
fn demo_id(method: &str, path: &str, name: &str) -> Option<i64> {
    DEMO_IDS
        .iter()
        .find(|(verb, template, parameter, _)| *verb == method && *template == path && *parameter == name)
        .map(|(_, _, _, id)| *id)
}

/// What the samples need to know of one operation.
struct Call {
    method: &'static str,
    /// The template, `/api/v3/third_party/farmers/{id}`.
    path: String,
    /// The path with every parameter replaced by its example.
    concrete: String,
    id: String,
    /// The first tag, which names the Python client's module.
    tag: String,
    /// Its path parameters and their examples, in order.
    path_parameters: Vec<(String, Value)>,
    /// The example body; the component whose generated Python class builds it (the body's, or its items' when it is
    /// an array, or the first named choice of a `oneOf`); whether the example is an array of them.
    body: Option<(Value, Option<String>, bool)>,
    needs_token: bool,
    needs_system_id: bool,
    system_id_header: String,
    /// Whether the success answer is a page of the list envelope.
    paged: bool,
}

impl Call {
    fn of(method: &'static str, path: &str, operation: &Operation, system_id_header: &str, components: &Value) -> Self {
        let value = serde_json::to_value(operation).unwrap_or(Value::Null);
        let mut concrete = path.to_owned();
        let mut path_parameters = Vec::new();
        for parameter in value["parameters"].as_array().into_iter().flatten() {
            if parameter["in"] != "path" {
                continue;
            }
            let name = parameter["name"].as_str().unwrap_or_default().to_owned();
            let example = demo_id(method, path, &name)
                .map(|id| json!(id))
                .or_else(|| parameter.get("example").cloned())
                .unwrap_or(json!(1));
            let text = match &example {
                Value::String(text) => text.clone(),
                other => other.to_string(),
            };
            concrete = concrete.replace(&format!("{{{name}}}"), &text);
            path_parameters.push((name, example));
        }
        let content = &value["requestBody"]["content"]["application/json"];
        let body = content.get("example").map(|example| {
            let schema = &content["schema"];
            let choices = schema["oneOf"].as_array().into_iter().flatten();
            let model = std::iter::once(schema).chain(choices).find_map(|choice| {
                python_model(choice, components).or_else(|| python_model(&choice["items"], components))
            });
            (example.clone(), model, example.is_array())
        });
        let schemes: Vec<&str> = value["security"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .flat_map(|requirement| requirement.keys().map(String::as_str))
            .collect();
        let success = value["responses"]
            .as_object()
            .and_then(|responses| responses.iter().find(|(status, _)| status.starts_with('2')))
            .map(|(_, response)| response["content"]["application/json"]["schema"]["$ref"].clone())
            .unwrap_or(Value::Null);
        Self {
            method,
            path: path.to_owned(),
            concrete,
            id: value["operationId"].as_str().unwrap_or_default().to_owned(),
            tag: value["tags"][0].as_str().unwrap_or("default").to_owned(),
            path_parameters,
            body,
            needs_token: schemes.contains(&crate::openapi::BEARER),
            needs_system_id: schemes.contains(&crate::openapi::SYSTEM_ID),
            system_id_header: system_id_header.to_owned(),
            paged: success.as_str().is_some_and(|reference| reference.ends_with("Page")),
        }
    }
}

/// The component whose Python class `openapi-python-client` makes for `schema`: the one it names when that is an
/// object, or the first object among the choices of a `oneOf` (which gets no class of its own).
fn python_model(schema: &Value, components: &Value) -> Option<String> {
    let name = component(schema)?;
    let target = &components["schemas"][&name];
    match target["oneOf"].as_array() {
        Some(choices) => choices
            .iter()
            .find_map(|choice| python_model(choice, components).or_else(|| python_model(&choice["items"], components))),
        None if target["type"] == "array" => python_model(&target["items"], components),
        None => Some(name),
    }
}

/// The component a `$ref` schema names.
fn component(schema: &Value) -> Option<String> {
    schema["$ref"]
        .as_str()
        .and_then(|reference| reference.strip_prefix("#/components/schemas/"))
        .map(str::to_owned)
}

/// `text` inside single quotes, for a POSIX shell.
fn shell_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn curl(call: &Call) -> String {
    let mut lines = vec![format!(
        "curl -sS -X {} {}",
        call.method,
        shell_quoted(&format!("{BASE}{}", call.concrete))
    )];
    lines.push("-H 'Accept: application/json'".to_owned());
    if call.needs_system_id {
        lines.push(format!("-H '{}: 8'", call.system_id_header));
    }
    if call.needs_token {
        lines.push("-H \"Authorization: Bearer $TOKEN\"".to_owned());
    }
    if let Some((example, _, _)) = &call.body {
        lines.push("-H 'Content-Type: application/json'".to_owned());
        // The refresh token is the one the login sample kept, not the example's.
        let body = match call.path.as_str() {
            REFRESH => r#"'{"refresh_token":"'"$REFRESH_TOKEN"'"}'"#.to_owned(),
            _ => shell_quoted(&example.to_string()),
        };
        lines.push(format!("-d {body}"));
    }
    let sample = lines.join(" \\\n  ");
    match call.path.as_str() {
        LOGIN => format!(
            "LOGIN=$({sample})\nTOKEN=$(printf '%s' \"$LOGIN\" | jq -r .access_token)\n\
             REFRESH_TOKEN=$(printf '%s' \"$LOGIN\" | jq -r .refresh_token)"
        ),
        _ => sample,
    }
}

/// The login, whose curl sample keeps the tokens in `$TOKEN` and `$REFRESH_TOKEN`, and the refresh, whose sample
/// sends the kept refresh token.
const LOGIN: &str = "/api/v2/login";
const REFRESH: &str = "/api/v2/login/refresh";

/// The Rust SDK's typed method for a write, and the `wire` type of its body.
fn sdk_write(call: &Call) -> Option<(&'static str, &'static str)> {
    let method = match (call.method, call.path.as_str()) {
        ("POST", "/api/v3/third_party/establishments") => ("create_establishment", "establishments::NewEstablishment"),
        ("DELETE", "/api/v3/third_party/establishments/{id}") => ("delete_establishment", ""),
        ("POST", "/api/v3/third_party/plots") => ("create_plot", "plots::NewPlot"),
        ("DELETE", "/api/v3/third_party/plots/{id}") => ("delete_plot", ""),
        ("POST", "/integration/api/v1/workOrders") => ("create_work_order", "work_orders::WorkOrderWrite"),
        ("DELETE", "/integration/api/v1/workOrders/{localId}") => ("delete_work_order", ""),
        ("POST", "/api/v2/third_party/applicators") => ("create_applicator", "applicators::ApplicatorWrite"),
        ("PUT", "/api/v2/third_party/applicators/{id}") => ("update_applicator", "applicators::ApplicatorWrite"),
        ("DELETE", "/api/v2/third_party/applicators/{id}") => ("delete_applicator", ""),
        ("POST", "/api/v3/third_party/devices") => ("create_device", "field::NewDevice"),
        ("POST", "/api/v3/third_party/silobag_campaigns") => ("create_silobag_campaign", "field::NewSilobagCampaign"),
        ("POST", "/api/v3/third_party/device_events") => ("create_device_events", "field::NewDeviceEvent"),
        ("POST", "/api/v2/third_party/campaigns/update_objective_yield") => {
            ("update_objective_yield", "jobs::ObjectiveYieldUpdate")
        }
        ("POST", "/api/v2/third_party/campaigns/import") => ("import_campaigns", "jobs::CampaignImport"),
        _ => return None,
    };
    Some(method)
}

/// What opens a parameter in a path template (`/plots/{id}`): a path with one is a detail, not a list.
const TEMPLATE_OPEN: char = '{';

fn rust(call: &Call) -> String {
    if !call.needs_system_id {
        return rust_without_sdk(call, "", NOT_THE_API);
    }
    let mut uses = vec!["use client::Client;".to_owned()];
    let id = call
        .path_parameters
        .first()
        .map(|(_, example)| example.to_string())
        .unwrap_or_else(|| "1".to_owned());
    let body_json = call
        .body
        .as_ref()
        .map(|(example, _, _)| serde_json::to_string_pretty(example).unwrap_or_default())
        .unwrap_or_default();
    let work = match (call.method, call.path.as_str()) {
        ("POST", "/api/v2/login") => "let society = api.login(\"EMAIL\", \"PASSWORD\").await?;\n    \
             println!(\"{society:?}\");"
            .replace("EMAIL", DEMO_EMAIL)
            .replace("PASSWORD", DEMO_PASSWORD),
        ("POST", "/api/v2/login/refresh") => "// The client refreshes its token by itself shortly before it expires, \
             and once after a 401:\n    // log in once and call on.\n    \
             let farmers = api.get::<serde_json::Value>(\"/api/v3/third_party/farmers\", vec![]).await?;\n    \
             println!(\"{farmers}\");"
            .to_owned(),
        ("GET", "/api/v3/third_party/events") => {
            uses.push("use client::futures_util::TryStreamExt;".to_owned());
            "// Follows the feed from the oldest event it serves; save `events.cursor()` to resume.\n    \
             let mut events = api.events(None, &[]);\n    \
             while let Some(event) = events.try_next().await? {\n        println!(\"{event:?}\");\n    }"
                .to_owned()
        }
        ("GET", "/integration/api/v1/workOrders/{localId}") => format!(
            "let order = api.work_order_tagged({id}).await?;\n    println!(\"{{:?}} (ETag {{:?}})\", order.value, order.etag);"
        ),
        ("PATCH", "/integration/api/v1/workOrders/{localId}") => {
            uses.push("use client::work_order_write;".to_owned());
            format!(
                "// GET the order, change it, PATCH the whole structure back (lines not sent are removed).\n    \
                 let order = api.work_order_tagged({id}).await?;\n    \
                 let mut body = work_order_write(&order.value);\n    \
                 body.header.name.push_str(\" (changed by the ERP)\");\n    \
                 let saved = api.replace_work_order({id}, &body, order.etag.as_deref()).await?;\n    \
                 println!(\"{{:?}}\", saved.value);"
            )
        }
        ("GET", path) if call.paged && !path.contains(TEMPLATE_OPEN) => {
            uses.push("use client::futures_util::TryStreamExt;".to_owned());
            uses.push("use client::{Filters, Generation};".to_owned());
            let generation = if path.starts_with("/api/v3/") { "V3" } else { "V2" };
            format!(
                "// Every item over every page; `Filters` narrows them (updated_from, active…).\n    \
                 let items: Vec<serde_json::Value> = api\n        \
                 .list(Generation::{generation}, \"{path}\", &Filters::new())\n        \
                 .try_collect()\n        .await?;\n    \
                 println!(\"{{}} items\", items.len());"
            )
        }
        ("GET", _) => format!(
            "let answer: serde_json::Value = api.get(\"{}\", vec![]).await?;\n    println!(\"{{answer}}\");",
            call.concrete
        ),
        _ => match sdk_write(call) {
            Some((method, "")) => format!("let removed = api.{method}({id}).await?;\n    println!(\"{{removed:?}}\");"),
            Some((method, body_type)) => rust_sdk_write(call, method, body_type, &id, &body_json),
            None => return rust_without_sdk(call, &body_json, WITHOUT_SDK),
        },
    };
    let login = if call.path == "/api/v2/login" {
        String::new()
    } else {
        format!("api.login(\"{DEMO_EMAIL}\", \"{DEMO_PASSWORD}\").await?;\n    ")
    };
    format!(
        "{}\n\n#[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {{\n    \
         let api = Client::builder(\"{BASE}\").build()?;\n    {login}{}\n    Ok(())\n}}",
        uses.join("\n"),
        work
    )
}

/// The Rust sample's work for a write the SDK has `method` for, with a body of `body_type` made from `body_json`.
fn rust_sdk_write(call: &Call, method: &str, body_type: &str, id: &str, body_json: &str) -> String {
    let batch = call.body.as_ref().is_some_and(|(example, _, _)| example.is_array());
    let (method, body_type) = match method {
        "create_device_events" if !batch => ("create_device_event", body_type.to_owned()),
        "create_device_events" => (method, format!("Vec<client::wire::{body_type}>")),
        _ => (method, format!("client::wire::{body_type}")),
    };
    let arguments = match (method, call.path_parameters.is_empty()) {
        ("create_silobag_campaign", _) => "&body, None".to_owned(),
        (_, true) => "&body".to_owned(),
        (_, false) => format!("{id}, &body"),
    };
    let body_type = if body_type.contains("::wire::") {
        body_type
    } else {
        format!("client::wire::{body_type}")
    };
    format!(
        "let body: {body_type} = serde_json::from_value(serde_json::json!({body_json}))?;\n    \
         let answer = api.{method}({arguments}).await?;\n    println!(\"{{answer:?}}\");"
    )
}

/// What the `reqwest` sample of an operation the SDK has no method for says.
const WITHOUT_SDK: &str = "// The SDK has no method for this call yet: reqwest sends it as the SDK would.";
/// What the `reqwest` sample of one of the server's own routes (health, this document, this page) says.
const NOT_THE_API: &str = "// Not a call of the API, and the SDK does not make it: any HTTP client can.";

/// An operation the SDK has no method for: the same call with `reqwest`, with the headers the SDK would send.
fn rust_without_sdk(call: &Call, body_json: &str, why: &str) -> String {
    let mut request = format!(
        "    let answer = reqwest::Client::new()\n        .{}(\"{BASE}{}\")",
        call.method.to_ascii_lowercase(),
        call.concrete
    );
    if call.needs_system_id {
        request.push_str(&format!("\n        .header(\"{}\", \"8\")", call.system_id_header));
    }
    if call.needs_token {
        request.push_str("\n        .bearer_auth(std::env::var(\"TOKEN\")?)");
    }
    if call.body.is_some() {
        request.push_str(&format!("\n        .json(&serde_json::json!({body_json}))"));
    }
    request.push_str("\n        .send()\n        .await?;");
    format!(
        "{why}\n\
         #[tokio::main]\nasync fn main() -> Result<(), Box<dyn std::error::Error>> {{\n{request}\n    \
         println!(\"{{}} {{}}\", answer.status(), answer.text().await?);\n    Ok(())\n}}"
    )
}

/// `text` as `openapi-python-client` names a module, a function or an argument made from it (its `snake_case`):
/// when `text` has a capital, every run of an optional capital and small letters is a word of its own (so
/// `listFarmersV3` is `list_farmers_v3`); the rest splits at `.`, ` `, `_` and `-`; the words, in small letters, are
/// joined by `_`. Other characters are dropped first.
pub fn python_name(text: &str) -> String {
    const DELIMITERS: [char; 4] = ['.', ' ', '_', '-'];
    let chars: Vec<char> = text
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == '_' || DELIMITERS.contains(c))
        .collect();
    let capitals = chars.iter().any(|c| c.is_uppercase());
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    let finish = |current: &mut String, words: &mut Vec<String>| {
        if !current.is_empty() {
            words.push(std::mem::take(current).to_lowercase());
        }
    };
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if DELIMITERS.contains(&c) {
            finish(&mut current, &mut words);
            at += 1;
            continue;
        }
        // Python's `re.split("([A-Z]?[a-z]+)")`: a capital followed by small letters, or small letters.
        let small = |at: usize| chars.get(at).is_some_and(|c| c.is_ascii_lowercase());
        let capital = c.is_ascii_uppercase() && small(at + 1);
        if capitals && (capital || c.is_ascii_lowercase()) {
            finish(&mut current, &mut words);
            let mut end = at + 1;
            while small(end) {
                end += 1;
            }
            current.extend(&chars[at..end]);
            finish(&mut current, &mut words);
            at = end;
            continue;
        }
        current.push(c);
        at += 1;
    }
    finish(&mut current, &mut words);
    words.join("_")
}

/// A Python literal of a JSON value.
fn python_literal(value: &Value) -> String {
    match value {
        Value::Null => "None".to_owned(),
        Value::Bool(true) => "True".to_owned(),
        Value::Bool(false) => "False".to_owned(),
        Value::Number(number) => number.to_string(),
        Value::String(text) => Value::String(text.clone()).to_string(),
        Value::Array(items) => format!("[{}]", items.iter().map(python_literal).collect::<Vec<_>>().join(", ")),
        Value::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(key, value)| format!("{}: {}", Value::String(key.clone()), python_literal(value)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn python(call: &Call) -> String {
    let module = python_name(&call.id);
    let mut lines = vec![format!(
        "# pip install openapi-python-client && openapi-python-client generate --url {BASE}/openapi.json"
    )];
    if call.needs_token {
        lines.push("import os".to_owned());
    }
    let client = if call.needs_token {
        "AuthenticatedClient"
    } else {
        "Client"
    };
    lines.push(format!("from {PYTHON_PACKAGE} import {client}"));
    lines.push(format!(
        "from {PYTHON_PACKAGE}.api.{} import {module}",
        python_name(&call.tag)
    ));
    let mut arguments: Vec<String> = call
        .path_parameters
        .iter()
        .map(|(name, example)| format!("{}={}", python_name(name), python_literal(example)))
        .collect();
    if let Some((example, component, array)) = &call.body {
        let body = match component {
            Some(name) => {
                lines.push(format!("from {PYTHON_PACKAGE}.models import {name}"));
                match (array, example) {
                    (true, Value::Array(items)) => format!(
                        "[{}]",
                        items
                            .iter()
                            .map(|item| format!("{name}.from_dict({})", python_literal(item)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    _ => format!("{name}.from_dict({})", python_literal(example)),
                }
            }
            None => python_literal(example),
        };
        arguments.push(format!("body={body}"));
    }
    arguments.push("client=client".to_owned());
    lines.push(String::new());
    let mut options = vec![format!("base_url=\"{BASE}\"")];
    if call.needs_token {
        options.push("token=os.environ[\"TOKEN\"]".to_owned());
    }
    if call.needs_system_id {
        options.push(format!("headers={{\"{}\": \"8\"}}", call.system_id_header));
    }
    lines.push(format!("client = {client}({})", options.join(", ")));
    lines.push(format!("answer = {module}.sync_detailed({})", arguments.join(", ")));
    lines.push("print(answer.status_code, answer.parsed)".to_owned());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_names_are_snake_case() {
        assert_eq!(python_name("localId"), "local_id");
        assert_eq!(python_name("Master data"), "master_data");
        assert_eq!(python_name("get_api_v2_plots"), "get_api_v2_plots");
        assert_eq!(python_name("Operations of the server"), "operations_of_the_server");
        assert_eq!(python_name("listFarmersV3"), "list_farmers_v3");
        assert_eq!(python_name("getAPIKey"), "get_api_key");
        assert_eq!(python_name("v2Plots"), "v_2_plots");
        assert_eq!(python_name("replaceWorkOrder"), "replace_work_order");
    }

    #[test]
    fn shell_quotes_survive_apostrophes() {
        assert_eq!(shell_quoted("it's"), r"'it'\''s'");
    }
}
