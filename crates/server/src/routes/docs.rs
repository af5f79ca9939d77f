//! The OpenAPI document and the documentation page people read: the document rendered once at start-up from the route
//! table, the page from the document when it is first asked for. The page is plain HTML with inline styles, made by
//! the server itself: it works with no network.

use std::fmt::Write;
use std::sync::OnceLock;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use serde_json::Value;

use crate::AppState;

/// `GET /openapi.json`.
pub async fn document(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        state.docs.document.clone(),
    )
}

/// `GET /docs`.
pub async fn page(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        state.docs.page().to_owned(),
    )
}

/// The document, rendered, and its page once asked for.
#[derive(Debug)]
pub struct Rendered {
    /// The OpenAPI document as JSON.
    pub document: String,
    page: OnceLock<String>,
}

impl Rendered {
    /// The documentation page. Rendering it reads the whole document into a JSON tree, about 6 MiB at once: a server
    /// whose page no one opens never holds that, nor the heap it would leave behind.
    pub fn page(&self) -> &str {
        self.page.get_or_init(|| {
            let value: Value = serde_json::from_str(&self.document).unwrap_or(Value::Null);
            page_html(&value)
        })
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn schema_name(schema: &Value) -> String {
    if let Some(reference) = schema["$ref"].as_str() {
        return reference.rsplit('/').next().unwrap_or(reference).to_owned();
    }
    if let Some(items) = schema.get("items") {
        return format!("array of {}", schema_name(items));
    }
    schema["type"].as_str().unwrap_or("object").to_owned()
}

const STYLE: &str = "body{font-family:system-ui,sans-serif;margin:0;color:#1d2a1d;background:#fbfaf6}\
header{background:#2f5d2f;color:#fff;padding:1.2rem 2rem}main{padding:1rem 2rem;max-width:70rem}\
h2{border-bottom:2px solid #c9d8b6;padding-bottom:.3rem;margin-top:2rem}\
details{background:#fff;border:1px solid #dfe6d3;border-radius:6px;margin:.4rem 0;padding:.4rem .8rem}\
summary{cursor:pointer}code{font-family:ui-monospace,monospace}.method{display:inline-block;min-width:4.5rem;\
font-weight:700}.get{color:#2f6fb0}.post{color:#2f8f3f}.put,.patch{color:#b07a1f}.delete{color:#b03030}\
table{border-collapse:collapse;margin:.4rem 0}td,th{border:1px solid #e3e8da;padding:.2rem .5rem;text-align:left;\
vertical-align:top}pre{background:#f3f5ee;padding:.5rem;overflow:auto}";

/// Renders the document's JSON; its page waits until it is asked for.
pub fn render(document: &utoipa::openapi::OpenApi) -> Rendered {
    Rendered {
        document: serde_json::to_string(document).unwrap_or_else(|_| "{}".into()),
        page: OnceLock::new(),
    }
}

fn page_html(document: &Value) -> String {
    let mut by_tag: Vec<(String, Vec<String>)> = Vec::new();
    if let Some(paths) = document["paths"].as_object() {
        for (path, item) in paths {
            for method in ["get", "post", "put", "patch", "delete"] {
                let Some(operation) = item.get(method) else { continue };
                let tag = operation["tags"][0].as_str().unwrap_or("Other").to_owned();
                let html = operation_html(path, method, operation);
                match by_tag.iter_mut().find(|(t, _)| *t == tag) {
                    Some((_, list)) => list.push(html),
                    None => by_tag.push((tag, vec![html])),
                }
            }
        }
    }
    let title = escape(document["info"]["title"].as_str().unwrap_or("API"));
    let description = escape(document["info"]["description"].as_str().unwrap_or(""));
    let mut html = format!(
        "<!doctype html><html lang=\"es\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>{STYLE}</style></head><body><header><h1>{title}</h1><p>{description}</p>\
         <p>Every API call needs <code>X-SVC-SYSTEM-ID: 8</code> and, but for login and refresh, \
         <code>Authorization: Bearer &lt;access_token&gt;</code>. The machine-readable document is \
         <a style=\"color:#fff\" href=\"/openapi.json\">/openapi.json</a>.</p></header><main>"
    );
    for (tag, operations) in &by_tag {
        let _ = write!(html, "<h2>{}</h2>", escape(tag));
        for operation in operations {
            html.push_str(operation);
        }
    }
    html.push_str("</main></body></html>");
    html
}

fn operation_html(path: &str, method: &str, operation: &Value) -> String {
    let mut html = format!(
        "<details class=\"operation\" id=\"{id}\"><summary><span class=\"method {method}\">{upper}</span> \
         <code>{path}</code> — {summary}</summary>",
        id = escape(operation["operationId"].as_str().unwrap_or("")),
        upper = method.to_ascii_uppercase(),
        path = escape(path),
        summary = escape(operation["summary"].as_str().unwrap_or("")),
    );
    if let Some(parameters) = operation["parameters"].as_array().filter(|p| !p.is_empty()) {
        html.push_str("<table><tr><th>parameter</th><th>in</th><th>meaning</th></tr>");
        for parameter in parameters {
            let _ = write!(
                html,
                "<tr><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                escape(parameter["name"].as_str().unwrap_or("")),
                escape(parameter["in"].as_str().unwrap_or("")),
                escape(parameter["description"].as_str().unwrap_or(""))
            );
        }
        html.push_str("</table>");
    }
    let body = &operation["requestBody"]["content"]["application/json"];
    if !body.is_null() {
        let _ = write!(
            html,
            "<p>Body: <code>{}</code></p>",
            escape(&schema_name(&body["schema"]))
        );
        if let Some(example) = body.get("example") {
            let pretty = serde_json::to_string_pretty(example).unwrap_or_default();
            let _ = write!(html, "<pre>{}</pre>", escape(&pretty));
        }
    }
    if let Some(responses) = operation["responses"].as_object() {
        for (status, response) in responses.iter().filter(|(status, _)| status.as_str() != "default") {
            let schema = response["content"]
                .as_object()
                .and_then(|content| content.values().next())
                .map(|media| schema_name(&media["schema"]))
                .unwrap_or_default();
            let _ = write!(html, "<p>Answer {status}: <code>{}</code></p>", escape(&schema));
        }
    }
    html.push_str(
        "<p>Errors answer the envelope <code>{\"error\":{\"code\",\"message\",\"exception\"}}</code>.</p></details>",
    );
    html
}
