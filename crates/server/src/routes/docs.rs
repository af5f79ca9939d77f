//! The OpenAPI document and the interactive reference people read at `/docs`: the document rendered once at start-up
//! from the route table, in English and in each language of [`crate::reference`], and served in the reader's
//! language with code samples that call the address the request reached; the page is Swagger UI over `/openapi.json`, with a log-in form of our own. Swagger UI's
//! files come from inside the `utoipa-swagger-ui` crate (its `vendored` feature), our page, script and style from
//! `assets/docs/`: everything is served from the binary, so the page works with no network, and its
//! Content-Security-Policy lets it load nothing from elsewhere.

use std::sync::Arc;

use std::net::SocketAddr;

use axum::extract::{ConnectInfo, Path, Query, Request, State};
use axum::http::header;
use axum::http::{Extensions, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use domain::Lang;
use secrecy::ExposeSecret;
use serde::Deserialize;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::Required;

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

/// `GET /openapi.json`: in the language of `lang`, else of `Accept-Language`, else English (see
/// [`crate::reference::language`]); its samples call the address the request reached.
pub async fn document(
    State(state): State<AppState>,
    Query(query): Query<LangQuery>,
    extensions: Extensions,
    headers: HeaderMap,
) -> Response {
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    let accept = headers
        .get(header::ACCEPT_LANGUAGE)
        .and_then(|value| value.to_str().ok());
    let lang = crate::reference::language(query.lang.as_deref(), accept);
    let trusted = state
        .config
        .rate_limits
        .trusted_proxies
        .iter()
        .any(|network| peer.is_some_and(|peer| network.contains(&peer)));
    let base = reached_at(&headers, trusted, &state.config.listen);
    let mut response = (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("application/json")),
            (header::CONTENT_LANGUAGE, HeaderValue::from_static(code(lang))),
            (
                header::VARY,
                HeaderValue::from_static("accept-language, host, x-forwarded-host, x-forwarded-proto"),
            ),
        ],
        state.docs.document(lang, &base),
    )
        .into_response();
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// The query of `/openapi.json`.
#[derive(Debug, Deserialize)]
pub struct LangQuery {
    /// `es`, `pt` or `en`; any other value is ignored.
    lang: Option<String>,
}

/// The `lang` parameter of `/openapi.json`, for the document.
pub fn lang_parameter() -> Parameter {
    ParameterBuilder::new()
        .name("lang")
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(
            "The language of the document's descriptions: `es`, `pt` or `en`. It wins over `Accept-Language`; \
             with neither naming one of the three, the document is in English.",
        ))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(["es", "pt", "en"])),
        ))
        .build()
}

fn code(lang: Lang) -> &'static str {
    match lang {
        Lang::Es => "es",
        Lang::Pt => "pt",
        Lang::En => "en",
    }
}

/// The address a request reached, as the samples should call it: the scheme and host a trusted proxy forwarded
/// (`X-Forwarded-Proto`, `X-Forwarded-Host`), else `http` and the request's `Host`, else the listen address. A host
/// with characters no host name or address has is not believed (it would be written into the samples' code).
fn reached_at(headers: &HeaderMap, trusted_proxy: bool, listen: &SocketAddr) -> String {
    let first = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| value.split(',').next())
            .map(str::trim)
            .filter(|value| !value.is_empty())
    };
    let forwarded = |name| if trusted_proxy { first(name) } else { None };
    let scheme = match forwarded("x-forwarded-proto") {
        Some("https") => "https",
        _ => "http",
    };
    let host = forwarded("x-forwarded-host")
        .or_else(|| first(header::HOST.as_str()))
        .filter(|host| plausible_host(host))
        .map(str::to_owned)
        .unwrap_or_else(|| listen.to_string());
    format!("{scheme}://{host}")
}

/// A host name or IP address, with an optional port.
fn plausible_host(host: &str) -> bool {
    host.len() <= 255
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']' | '_'))
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

/// The document, rendered once in each language; each cut where the samples name the server's address, so that a
/// request gets them with its own.
#[derive(Debug)]
pub struct Rendered {
    /// English, Spanish, Portuguese: the JSON between the places of the address.
    documents: [Vec<String>; 3],
}

impl Rendered {
    /// The document in `lang`, its samples calling `base`.
    pub fn document(&self, lang: Lang, base: &str) -> String {
        let index = match lang {
            Lang::En => 0,
            Lang::Es => 1,
            Lang::Pt => 2,
        };
        self.documents[index].join(base)
    }
}

/// Renders the document's JSON in every language.
pub fn render(document: &utoipa::openapi::OpenApi) -> Rendered {
    let english = serde_json::to_value(document).unwrap_or_default();
    let cut = |value: &serde_json::Value| {
        let json = serde_json::to_string(value).unwrap_or_else(|_| "{}".into());
        json.split(crate::code_samples::BASE).map(str::to_owned).collect()
    };
    let translated = |lang| cut(&crate::reference::translate(&english, &crate::reference::table(lang)));
    Rendered {
        documents: [cut(&english), translated(Lang::Es), translated(Lang::Pt)],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        pairs
            .iter()
            .map(|(name, value)| {
                (
                    axum::http::HeaderName::from_static(name),
                    HeaderValue::from_str(value).expect("a header value"),
                )
            })
            .collect()
    }

    #[test]
    fn samples_call_the_host_reached_and_a_trusted_proxys_forwarded_one() {
        let listen: SocketAddr = "127.0.0.1:8080".parse().expect("an address");
        let forwarded = headers(&[
            ("host", "10.0.0.5:9000"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "api.example.com"),
        ]);
        assert_eq!(reached_at(&forwarded, true, &listen), "https://api.example.com");
        assert_eq!(reached_at(&forwarded, false, &listen), "http://10.0.0.5:9000");
        let odd = headers(&[("host", "evil\"';x")]);
        assert_eq!(reached_at(&odd, false, &listen), "http://127.0.0.1:8080");
        assert_eq!(reached_at(&HeaderMap::new(), false, &listen), "http://127.0.0.1:8080");
    }
}
