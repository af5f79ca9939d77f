//! The reference in the reader's language: `/openapi.json` in es, pt or en by `lang` and `Accept-Language`, English
//! when neither asks; names, examples and code stay the same in every language; and the code samples call the
//! address the request reached.

use domain::Lang;
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{Backend, Setup, TestApp};

/// The document as served with `query` and `accept_language`, and its `Content-Language` and `Vary`.
async fn served(app: &TestApp, query: &str, accept_language: Option<&str>) -> (Value, String, String) {
    let mut request = app.client.get(format!("{}/openapi.json{query}", app.base));
    if let Some(language) = accept_language {
        request = request.header("Accept-Language", language);
    }
    let response = request.send().await.expect("GET /openapi.json");
    assert_eq!(response.status(), StatusCode::OK);
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .and_then(|value| value.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    };
    let (language, vary) = (header("content-language"), header("vary"));
    (response.json().await.expect("JSON"), language, vary)
}

/// The summary of `GET /health`, the same operation in every document.
fn health_summary(document: &Value) -> &str {
    document["paths"]["/health"]["get"]["summary"]
        .as_str()
        .expect("a summary")
}

/// Every name of a document: paths, methods, operation ids, tags, schema and property names, examples, samples'
/// code.
fn names(document: &Value) -> Vec<String> {
    let mut names = Vec::new();
    for (path, item) in document["paths"].as_object().expect("paths") {
        for (method, operation) in item.as_object().expect("an item") {
            names.push(format!(
                "{method} {path} {} {}",
                operation["operationId"], operation["tags"]
            ));
            for sample in operation["x-codeSamples"].as_array().into_iter().flatten() {
                names.push(sample["source"].as_str().unwrap_or_default().to_owned());
            }
            names.push(operation["requestBody"]["content"]["application/json"]["example"].to_string());
        }
    }
    for (name, schema) in document["components"]["schemas"].as_object().expect("schemas") {
        let properties: Vec<&String> = schema["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(p, _)| p)
            .collect();
        names.push(format!("{name} {properties:?}"));
    }
    names.push(document["info"]["title"].to_string());
    names
}

#[tokio::test]
async fn the_document_answers_in_the_language_asked_and_english_by_default() {
    let app = TestApp::spawn_with(Backend::Sqlite, Setup::default()).await;
    let (english, language, vary) = served(&app, "", None).await;
    assert_eq!(language, "en");
    assert!(vary.contains("accept-language"), "{vary}");
    let source = health_summary(&english).to_owned();
    let spanish = server::reference::table(Lang::Es);
    let expected = spanish
        .get(&source)
        .expect("es.json translates the health check's summary");
    assert_ne!(expected, &source);

    let (document, language, _) = served(&app, "", Some("es-AR,es;q=0.9,en;q=0.5")).await;
    assert_eq!(
        (health_summary(&document), language.as_str()),
        (expected.as_str(), "es")
    );
    let (document, language, _) = served(&app, "?lang=es", Some("pt-BR")).await;
    assert_eq!(
        (health_summary(&document), language.as_str()),
        (expected.as_str(), "es"),
        "lang wins"
    );
    let (document, language, _) = served(&app, "", Some("fr-FR, de;q=0.8")).await;
    assert_eq!((health_summary(&document), language.as_str()), (source.as_str(), "en"));
    let (document, language, _) = served(&app, "?lang=en", Some("es")).await;
    assert_eq!((health_summary(&document), language.as_str()), (source.as_str(), "en"));
    let (portuguese, language, _) = served(&app, "?lang=pt", None).await;
    assert_eq!(language, "pt");

    // Only prose changes: every name, example and sample's code is the English document's.
    assert_eq!(names(&document), names(&english));
    assert_eq!(names(&portuguese), names(&english));
    let spanish_document = served(&app, "?lang=es", None).await.0;
    assert_eq!(names(&spanish_document), names(&english));
    let sample = spanish_document["paths"]["/health"]["get"]["description"]
        .as_str()
        .expect("a description");
    assert!(
        sample.contains(&format!("**{}**", spanish["Code samples"])) && sample.contains("```bash\ncurl"),
        "the samples' heading is translated, their code is not: {sample}"
    );
}

#[tokio::test]
async fn the_samples_call_the_address_the_request_reached() {
    let app = TestApp::spawn_with(Backend::Sqlite, Setup::default()).await;
    let (document, _, _) = served(&app, "", None).await;
    let text = document.to_string();
    assert!(
        !text.contains(server::code_samples::BASE),
        "no sample calls the default address"
    );
    let curl = document["paths"]["/api/v3/third_party/farmers"]["get"]["x-codeSamples"][0]["source"]
        .as_str()
        .expect("a curl sample");
    assert!(
        curl.contains(&format!("'{}/api/v3/third_party/farmers'", app.base)),
        "{curl}"
    );

    let named = app
        .client
        .get(format!("{}/openapi.json", app.base))
        .header("Host", "api.example.test:9443")
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("the document");
    assert!(
        named.contains("http://api.example.test:9443/api/v3/third_party/farmers"),
        "the Host's address"
    );
    // A proxy's forwarded address is believed only from a trusted proxy, which the test server has none of.
    let forwarded = app
        .client
        .get(format!("{}/openapi.json", app.base))
        .header("X-Forwarded-Host", "evil.example")
        .header("X-Forwarded-Proto", "https")
        .send()
        .await
        .expect("GET")
        .text()
        .await
        .expect("the document");
    assert!(!forwarded.contains("evil.example") && forwarded.contains(&app.base));
}
