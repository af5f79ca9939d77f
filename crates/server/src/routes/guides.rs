//! The integrators' guides: Markdown kept in `docs/guides/{es,pt,en}/<slug>.md`, built into the binary, rendered to
//! HTML once, and served at `/docs/guides` (the index), `/docs/guides/{lang}/{slug}` (one guide in one language)
//! and `/docs/guides/{page}` (a language's index, or a guide in the language `Accept-Language` prefers). Every page
//! links to the same page in the two other languages. Pages are plain HTML with one stylesheet of the same origin
//! and no script, under a `Content-Security-Policy` that allows nothing from elsewhere.

use std::sync::LazyLock;

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue};
use axum::response::{IntoResponse, Response};
use domain::Lang;
use pulldown_cmark::{html, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::Required;

use super::table::ApiTable;
use crate::error::ApiError;

/// The tag the guides share with the reference page.
const TAG: &str = "Operations of the server";
/// Where the guides live.
const ROOT: &str = "/docs/guides";
/// The languages, in the order the switch lists them.
const LANGS: [Lang; 3] = [Lang::Es, Lang::Pt, Lang::En];
/// Only this origin, for anything: the stylesheet is the one thing a page loads.
const POLICY: &str = "default-src 'self'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";
const STYLESHEET: &str = include_str!("../../assets/guides/guides.css");

/// One guide's Markdown in each language.
struct Source {
    slug: &'static str,
    es: &'static str,
    pt: &'static str,
    en: &'static str,
}

macro_rules! source {
    ($slug:literal) => {
        Source {
            slug: $slug,
            es: include_str!(concat!("../../../../docs/guides/es/", $slug, ".md")),
            pt: include_str!(concat!("../../../../docs/guides/pt/", $slug, ".md")),
            en: include_str!(concat!("../../../../docs/guides/en/", $slug, ".md")),
        }
    };
}

/// The guides, in reading order.
const SOURCES: [Source; 5] = [
    source!("getting-started"),
    source!("incremental-sync"),
    source!("work-orders"),
    source!("retries-and-errors"),
    source!("webhooks"),
];

/// The slugs of the guides, in reading order: the same in every language.
pub fn slugs() -> impl Iterator<Item = &'static str> {
    SOURCES.iter().map(|source| source.slug)
}

fn code(lang: Lang) -> &'static str {
    match lang {
        Lang::Es => "es",
        Lang::Pt => "pt",
        Lang::En => "en",
    }
}

fn parse_lang(code: &str) -> Option<Lang> {
    LANGS.into_iter().find(|lang| self::code(*lang) == code)
}

/// Words of the pages' frame, per language.
struct Frame {
    name: &'static str,
    guides: &'static str,
    reference: &'static str,
    intro: &'static str,
    other_languages: &'static str,
}

fn frame(lang: Lang) -> Frame {
    match lang {
        Lang::Es => Frame {
            name: "Español",
            guides: "Guías",
            reference: "Referencia de la API",
            intro: "Guías para integrar un ERP con la API, paso a paso. Las solicitudes y los programas de \
                    estas guías se ejecutan en las pruebas del proyecto contra un servidor de demostración.",
            other_languages: "Otros idiomas",
        },
        Lang::Pt => Frame {
            name: "Português",
            guides: "Guias",
            reference: "Referência da API",
            intro: "Guias para integrar um ERP com a API, passo a passo. As requisições e os programas destes \
                    guias são executados nos testes do projeto contra um servidor de demonstração.",
            other_languages: "Outros idiomas",
        },
        Lang::En => Frame {
            name: "English",
            guides: "Guides",
            reference: "API reference",
            intro: "Guides to integrating an ERP with the API, step by step. The requests and programs in these \
                    guides are run by the project's tests against a demo server.",
            other_languages: "Other languages",
        },
    }
}

/// A guide rendered in one language.
struct Rendered {
    title: String,
    body: String,
}

/// Every guide in every language, rendered on first use.
static RENDERED: LazyLock<Vec<[Rendered; 3]>> = LazyLock::new(|| {
    SOURCES
        .iter()
        .map(|source| [render(source.es), render(source.pt), render(source.en)])
        .collect()
});

/// The Markdown as HTML, and the text of its first heading as the title. Our own files, so raw HTML in them passes.
fn render(markdown: &str) -> Rendered {
    let mut title = String::new();
    let mut in_title = false;
    let events: Vec<Event<'_>> = Parser::new_ext(markdown, Options::ENABLE_TABLES)
        .inspect(|event| match event {
            Event::Start(Tag::Heading {
                level: HeadingLevel::H1,
                ..
            }) if title.is_empty() => in_title = true,
            Event::End(TagEnd::Heading(HeadingLevel::H1)) => in_title = false,
            Event::Text(text) | Event::Code(text) if in_title => title.push_str(text),
            _ => {}
        })
        .collect();
    let mut body = String::with_capacity(markdown.len() * 2);
    html::push_html(&mut body, events.into_iter());
    Rendered { title, body }
}

fn rendered(index: usize, lang: Lang) -> Option<&'static Rendered> {
    let position = LANGS.iter().position(|l| *l == lang)?;
    RENDERED.get(index).map(|guide| &guide[position])
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A whole page: `title` and `main` in `lang`, and the switch to the page at `path_in(other)` in the others.
fn page(lang: Lang, title: &str, main: &str, path_in: impl Fn(Lang) -> String) -> String {
    let words = frame(lang);
    let mut alternates = String::new();
    let mut switch = String::new();
    for other in LANGS.into_iter().filter(|other| *other != lang) {
        let (href, name, code) = (path_in(other), frame(other).name, code(other));
        alternates.push_str(&format!("<link rel=\"alternate\" hreflang=\"{code}\" href=\"{href}\">"));
        switch.push_str(&format!(
            "<li><a href=\"{href}\" hreflang=\"{code}\" lang=\"{code}\" rel=\"alternate\">{name}</a></li>"
        ));
    }
    format!(
        "<!DOCTYPE html><html lang=\"{code}\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>{title} · Tranquera</title>\
         <link rel=\"stylesheet\" href=\"{ROOT}/guides.css\">{alternates}</head><body><header>\
         <nav class=\"site\"><a href=\"{ROOT}/{code}\">{guides}</a> <a href=\"/docs\">{reference}</a></nav>\
         <nav class=\"languages\" aria-label=\"{other_languages}\"><span lang=\"{code}\">{name}</span><ul>{switch}</ul>\
         </nav></header><main>{main}</main></body></html>",
        code = code(lang),
        title = escape(title),
        guides = words.guides,
        reference = words.reference,
        other_languages = words.other_languages,
        name = words.name,
    )
}

fn index_page(lang: Lang) -> String {
    let words = frame(lang);
    let mut main = format!("<h1>{}</h1><p>{}</p><ol class=\"guides\">", words.guides, words.intro);
    for (index, source) in SOURCES.iter().enumerate() {
        if let Some(guide) = rendered(index, lang) {
            main.push_str(&format!(
                "<li><a href=\"{ROOT}/{}/{}\">{}</a></li>",
                code(lang),
                source.slug,
                escape(&guide.title)
            ));
        }
    }
    main.push_str("</ol>");
    page(lang, words.guides, &main, |other| format!("{ROOT}/{}", code(other)))
}

fn guide_page(index: usize, lang: Lang) -> Option<String> {
    let slug = SOURCES.get(index)?.slug;
    let guide = rendered(index, lang)?;
    Some(page(lang, &guide.title, &guide.body, |other| {
        format!("{ROOT}/{}/{slug}", code(other))
    }))
}

/// An HTML answer in `lang`; `negotiated` when the URL named no language and `Accept-Language` chose it.
fn html(lang: Lang, negotiated: bool, body: String) -> Response {
    let mut response = (
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(POLICY)),
            (header::CONTENT_LANGUAGE, HeaderValue::from_static(code(lang))),
            (header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff")),
        ],
        body,
    )
        .into_response();
    if negotiated {
        response
            .headers_mut()
            .insert(header::VARY, HeaderValue::from_static("accept-language"));
    }
    response
}

fn preferred(headers: &HeaderMap) -> Lang {
    Lang::negotiate(
        headers
            .get(header::ACCEPT_LANGUAGE)
            .and_then(|value| value.to_str().ok()),
    )
}

fn position(slug: &str) -> Option<usize> {
    SOURCES.iter().position(|source| source.slug == slug)
}

fn unknown(what: String) -> ApiError {
    ApiError::not_found("guide", what)
}

/// `GET /docs/guides`: the index, in the language `Accept-Language` prefers.
async fn index(headers: HeaderMap) -> Response {
    let lang = preferred(&headers);
    html(lang, true, index_page(lang))
}

/// `GET /docs/guides/{page}`: a language's index (`es`, `pt`, `en`), or a guide in the preferred language.
async fn named(Path(name): Path<String>, headers: HeaderMap) -> Result<Response, ApiError> {
    if let Some(lang) = parse_lang(&name) {
        return Ok(html(lang, false, index_page(lang)));
    }
    let lang = preferred(&headers);
    let body = position(&name)
        .and_then(|index| guide_page(index, lang))
        .ok_or_else(|| unknown(name))?;
    Ok(html(lang, true, body))
}

/// `GET /docs/guides/{lang}/{slug}`.
async fn guide(Path((lang, slug)): Path<(String, String)>) -> Result<Response, ApiError> {
    let body = parse_lang(&lang)
        .zip(position(&slug))
        .and_then(|(lang, index)| guide_page(index, lang).map(|body| (lang, body)));
    match body {
        Some((lang, body)) => Ok(html(lang, false, body)),
        None => Err(unknown(format!("{lang}/{slug}"))),
    }
}

/// `GET /docs/guides/guides.css`.
async fn stylesheet() -> impl IntoResponse {
    (
        [
            (header::CONTENT_TYPE, "text/css; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=3600"),
        ],
        STYLESHEET,
    )
}

/// A path parameter that takes one of `values`, so that a generated client or a fuzzer asks only for pages that
/// exist.
fn choice(name: &str, description: &str, values: Vec<&str>) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some(description))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .enum_values(Some(values.clone()))
                .build(),
        ))
        .example(values.first().map(|value| serde_json::json!(value)))
        .build()
}

/// The guides' routes.
pub fn register(table: ApiTable) -> ApiTable {
    let langs = || LANGS.into_iter().map(code).collect::<Vec<_>>();
    let lang = || choice("lang", "The guide's language.", langs());
    let slug = || choice("slug", "The guide.", slugs().collect());
    table
        .document(
            ROOT,
            index,
            (
                TAG,
                "The guides for integrators, in the language Accept-Language prefers",
            ),
            vec![],
            "text/html",
        )
        .document(
            &format!("{ROOT}/guides.css"),
            stylesheet,
            (TAG, "The guides' stylesheet"),
            vec![],
            "text/css",
        )
        .document(
            &format!("{ROOT}/{{page}}"),
            named,
            (
                TAG,
                "The guides' index in one language, or one guide in the language Accept-Language prefers",
            ),
            vec![choice(
                "page",
                "A language (its index of guides) or a guide (in the preferred language).",
                langs().into_iter().chain(slugs()).collect(),
            )],
            "text/html",
        )
        .document(
            &format!("{ROOT}/{{lang}}/{{slug}}"),
            guide,
            (TAG, "One guide in one language"),
            vec![lang(), slug()],
            "text/html",
        )
}
