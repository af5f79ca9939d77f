//! The integrators' guides at `/docs/guides`: every guide in every language the route table documents, the language
//! chosen by the URL or by `Accept-Language`, the switch to the other languages, 404 in the envelope, a
//! `Content-Security-Policy` of this origin only, and links that lead somewhere: to guides that answer, and to
//! operations of the reference that exist under the tag the link names.

use std::collections::BTreeSet;

use reqwest::{Response, StatusCode};
use serde_json::Value;

use crate::helpers::{error_envelope, TestApp};
use crate::on_both_backends;

const GUIDES: &str = "/docs/guides";

/// The values the document allows for a path parameter of `GET path`.
fn allowed(document: &Value, path: &str, parameter: &str) -> Vec<String> {
    document["paths"][path]["get"]["parameters"]
        .as_array()
        .unwrap_or_else(|| panic!("{path} has parameters"))
        .iter()
        .find(|p| p["name"] == parameter)
        .and_then(|p| p["schema"]["enum"].as_array())
        .unwrap_or_else(|| panic!("{path} lists the values of {parameter}"))
        .iter()
        .map(|value| value.as_str().expect("a text value").to_owned())
        .collect()
}

/// The languages and the guides, as the OpenAPI document says.
fn languages_and_slugs() -> (Vec<String>, Vec<String>) {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let path = format!("{GUIDES}/{{lang}}/{{slug}}");
    (allowed(&document, &path, "lang"), allowed(&document, &path, "slug"))
}

fn header<'a>(response: &'a Response, name: &str) -> &'a str {
    response
        .headers()
        .get(name)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default()
}

/// Every value of `attribute="…"` in `html`.
fn attributes(html: &str, attribute: &str) -> Vec<String> {
    let opening = format!(" {attribute}=\"");
    html.split(opening.as_str())
        .skip(1)
        .filter_map(|rest| rest.split_once('"').map(|(value, _)| value.replace("&amp;", "&")))
        .collect()
}

/// Checks what every guide page must be, and answers its HTML.
async fn page(app: &TestApp, path: &str, accept_language: Option<&str>, lang: &str) -> String {
    let mut request = app.client.get(format!("{}{path}", app.base));
    if let Some(value) = accept_language {
        request = request.header("accept-language", value);
    }
    let response = request.send().await.expect("GET");
    assert_eq!(response.status(), StatusCode::OK, "{path}");
    assert!(header(&response, "content-type").starts_with("text/html"), "{path}");
    assert_eq!(
        header(&response, "content-language"),
        lang,
        "{path} in {accept_language:?}"
    );
    let policy = header(&response, "content-security-policy").to_owned();
    assert!(policy.contains("default-src 'self'"), "{path}: {policy}");
    for directive in policy.split(';') {
        for source in directive.split_whitespace().skip(1) {
            assert_eq!(source, "'self'", "{path}: only this origin, in {policy}");
        }
    }
    let html = response.text().await.expect("HTML");
    assert!(html.contains(&format!("<html lang=\"{lang}\"")), "{path}");
    assert!(!html.contains("<script"), "{path} needs no script");
    assert!(
        !html.contains(" style=\""),
        "{path}: styles come from the stylesheet, which the policy allows"
    );
    let loaded = html
        .split("<link ")
        .skip(1)
        .flat_map(|tag| attributes(&format!(" {}", tag.split('>').next().unwrap_or_default()), "href"))
        .chain(attributes(&html, "src"));
    for address in loaded {
        assert!(address.starts_with('/'), "{path} loads {address} from this origin only");
    }
    html
}

on_both_backends! {
    async fn every_guide_is_served_in_every_language_with_a_switch_to_the_others(app) {
        let (languages, slugs) = languages_and_slugs();
        assert_eq!(languages, ["es", "pt", "en"]);
        assert!(slugs.len() >= 5, "{slugs:?}");
        for slug in &slugs {
            let mut titles = BTreeSet::new();
            for lang in &languages {
                let html = page(&app, &format!("{GUIDES}/{lang}/{slug}"), None, lang).await;
                let title = html.split_once("<h1>").and_then(|(_, rest)| rest.split_once("</h1>")).expect("a title").0;
                titles.insert(title.to_owned());
                let links = attributes(&html, "href");
                for other in languages.iter().filter(|other| *other != lang) {
                    let switch = format!("{GUIDES}/{other}/{slug}");
                    assert!(links.contains(&switch), "{lang}/{slug} links to {switch}");
                }
                assert!(html.contains(&format!("<link rel=\"stylesheet\" href=\"{GUIDES}/guides.css\">")));
            }
            assert_eq!(titles.len(), languages.len(), "{slug} has a title of its own in each language: {titles:?}");
        }
    }

    async fn the_index_and_a_guide_without_a_language_follow_accept_language(app) {
        let (languages, slugs) = languages_and_slugs();
        let cases = [
            (None, "es"),
            (Some("pt-BR,pt;q=0.9,en;q=0.8"), "pt"),
            (Some("en-US"), "en"),
            (Some("fr-FR, en;q=0.5, pt;q=0.9"), "pt"),
            (Some("de"), "es"),
        ];
        for (accept_language, lang) in cases {
            let index = page(&app, GUIDES, accept_language, lang).await;
            for slug in &slugs {
                assert!(index.contains(&format!("href=\"{GUIDES}/{lang}/{slug}\"")), "the {lang} index lists {slug}");
            }
            let guide = page(&app, &format!("{GUIDES}/{}", slugs[0]), accept_language, lang).await;
            let named = page(&app, &format!("{GUIDES}/{lang}/{}", slugs[0]), None, lang).await;
            assert_eq!(guide, named, "{accept_language:?} gets the {lang} guide");
        }
        let response = app.client.get(format!("{}{GUIDES}", app.base)).send().await.expect("GET");
        assert_eq!(header(&response, "vary").to_ascii_lowercase(), "accept-language");
        for lang in &languages {
            let index = page(&app, &format!("{GUIDES}/{lang}"), Some("de"), lang).await;
            for other in languages.iter().filter(|other| *other != lang) {
                assert!(index.contains(&format!("href=\"{GUIDES}/{other}\"")), "the {lang} index switches to {other}");
            }
        }
    }

    async fn an_unknown_guide_or_language_is_404_in_the_envelope(app) {
        let (_, slugs) = languages_and_slugs();
        let paths = [
            format!("{GUIDES}/fr/{}", slugs[0]),
            format!("{GUIDES}/es/no-such-guide"),
            format!("{GUIDES}/no-such-guide"),
            format!("{GUIDES}/fr"),
        ];
        for path in paths {
            let response = app.client.get(format!("{}{path}", app.base)).send().await.expect("GET");
            let (code, message) = error_envelope(response, StatusCode::NOT_FOUND).await;
            assert_eq!(code, 404);
            assert!(message.starts_with("No existe"), "{path}: {message}");
            let response = app
                .client
                .get(format!("{}{path}", app.base))
                .header("accept-language", "pt")
                .send()
                .await
                .expect("GET");
            let (_, message) = error_envelope(response, StatusCode::NOT_FOUND).await;
            assert!(message.starts_with("Não existe"), "{path}: {message}");
        }
    }

    async fn every_link_of_a_guide_leads_somewhere(app) {
        let (languages, slugs) = languages_and_slugs();
        let document = app.served_document().await;
        let mut operations = BTreeSet::new();
        for item in document["paths"].as_object().expect("paths").values() {
            for operation in item.as_object().expect("an item").values() {
                for tag in operation["tags"].as_array().into_iter().flatten() {
                    let tag = tag.as_str().expect("a tag").replace(' ', "%20");
                    operations.insert(format!("/docs#/{tag}/{}", operation["operationId"].as_str().expect("an id")));
                }
            }
        }
        let mut references = 0;
        let mut followed = BTreeSet::new();
        for lang in &languages {
            for slug in &slugs {
                let html = page(&app, &format!("{GUIDES}/{lang}/{slug}"), None, lang).await;
                let before = references;
                for link in attributes(&html, "href") {
                    if link.starts_with("/docs#") {
                        assert!(operations.contains(&link), "{lang}/{slug} links to {link}, which the reference lacks");
                        references += 1;
                    } else if link.starts_with('/') {
                        followed.insert(link);
                    }
                }
                assert!(references > before, "{lang}/{slug} links to operations of the reference");
            }
        }
        for link in followed {
            let response = app.client.get(format!("{}{link}", app.base)).send().await.expect("GET");
            assert_eq!(response.status(), StatusCode::OK, "{link}");
        }
        let response = app.client.get(format!("{}{GUIDES}/guides.css", app.base)).send().await.expect("GET");
        assert!(header(&response, "content-type").starts_with("text/css"));
    }
}
