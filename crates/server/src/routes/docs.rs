//! The OpenAPI document and the interactive reference people read at `/docs`: the document rendered once at start-up
//! from the route table; the page is Swagger UI over `/openapi.json`, with a log-in form of our own. Swagger UI's
//! files come from inside the `utoipa-swagger-ui` crate (its `vendored` feature), our page, script and style from
//! `assets/docs/`: everything is served from the binary, so the page works with no network, and its
//! Content-Security-Policy lets it load nothing from elsewhere.

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::header;
use axum::http::HeaderValue;
use axum::response::{IntoResponse, Response};
use secrecy::ExposeSecret;

use crate::config::DocsLogin;
use crate::AppState;

/// Where the page's files are served, under `/docs`.
pub const ASSETS: &str = "/docs/assets/{file}";

/// The policy of the page and of every file it loads. Only this origin: its scripts (no inline script, no `eval`),
/// its styles (Swagger UI sets its inline styles through the DOM, which the policy allows, and injects no `<style>`:
/// the browser test fails on any refusal), the document and the API it calls. One allowance Swagger UI really needs:
/// `data:` images, as its stylesheet draws its icons. No frame may hold the page (clickjacking of the log-in form),
/// and the form may only post here.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                      connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; \
                      frame-ancestors 'none'";

const PAGE: &str = include_str!("../../assets/docs/index.html");
const SCRIPT: &str = include_str!("../../assets/docs/docs.js");
const STYLE: &str = include_str!("../../assets/docs/docs.css");

/// Swagger UI's own files the page loads; nothing else of its distribution is served (its demo page and its
/// initializer, which would load a sample document from elsewhere).
const SWAGGER_FILES: [&str; 3] = ["swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png"];

/// `GET /openapi.json`.
pub async fn document(State(state): State<AppState>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, "application/json")],
        state.docs.document.clone(),
    )
}

/// `GET /docs`.
pub async fn page(State(state): State<AppState>) -> Response {
    let html = page_html(&state.headers.system_id_display, state.config.docs_login.as_ref());
    guarded("text/html; charset=utf-8", html.into_bytes())
}

/// `GET /docs/assets/{file}`: the page's script and style, and Swagger UI's.
pub async fn asset(Path(file): Path<String>, request: Request) -> Response {
    let own = match file.as_str() {
        "docs.js" => Some(("text/javascript; charset=utf-8", SCRIPT)),
        "docs.css" => Some(("text/css; charset=utf-8", STYLE)),
        _ => None,
    };
    if let Some((media, text)) = own {
        return guarded(media, text.as_bytes().to_vec());
    }
    let swagger = SWAGGER_FILES
        .contains(&file.as_str())
        .then(|| utoipa_swagger_ui::serve(&file, Arc::new(utoipa_swagger_ui::Config::default())).ok())
        .flatten()
        .flatten();
    match swagger {
        Some(served) => guarded(&served.content_type, served.bytes.into_owned()),
        None => crate::envelope::route_not_found(request).await,
    }
}

/// `body` as `media`, under the page's policy. Not cached without asking: the files change with the binary, and a
/// browser that kept an older script would run it against a newer document.
fn guarded(media: &str, body: Vec<u8>) -> Response {
    let mut response = body.into_response();
    let headers = response.headers_mut();
    if let Ok(media) = HeaderValue::from_str(media) {
        headers.insert(header::CONTENT_TYPE, media);
    }
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The page: the system-id header's name for the log-in script, and the log-in form pre-filled with `login` (the
/// demo's documented account) or empty.
fn page_html(system_id_header: &str, login: Option<&DocsLogin>) -> String {
    let (email, password, system_id) = login
        .map(|login| {
            (
                login.email.as_str(),
                login.password.expose_secret(),
                login.system_id.as_str(),
            )
        })
        .unwrap_or_default();
    PAGE.replace("{{system_id_header}}", &escape(system_id_header))
        .replace("{{email}}", &escape(email))
        .replace("{{password}}", &escape(password))
        .replace("{{system_id}}", &escape(system_id))
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The document, rendered.
#[derive(Debug)]
pub struct Rendered {
    /// The OpenAPI document as JSON.
    pub document: String,
}

/// Renders the document's JSON.
pub fn render(document: &utoipa::openapi::OpenApi) -> Rendered {
    Rendered {
        document: serde_json::to_string(document).unwrap_or_else(|_| "{}".into()),
    }
}
