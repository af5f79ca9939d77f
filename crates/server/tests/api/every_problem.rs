//! A refused body is answered with every problem it has, not only the first: a 400 names each value that does not fit
//! the schema (up to a bound, saying when more were left out), a body that is not JSON is one problem, and a 422
//! names the rules the body breaks by itself together with the records it names that do not exist.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{error_detail, integrator, TestApp};

const PLOTS: &str = "/api/v3/third_party/plots";
/// Where plots are listed.
const PLOT_LIST: &str = "/api/v2/third_party/plots";

/// Sends `body` (JSON text, so its keys keep the order written) to `path` in `lang`; answers the error object of the
/// envelope, which must have `status`.
async fn refused(app: &TestApp, token: &str, path: &str, body: String, lang: &str, status: StatusCode) -> Value {
    let response = app
        .request(Method::POST, path)
        .bearer_auth(token)
        .header("accept-language", lang)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .expect("send");
    error_detail(response, status).await
}

/// The `path` of each entry of `errors[]`.
fn paths(error: &Value) -> Vec<&str> {
    error["errors"]
        .as_array()
        .expect("errors[]")
        .iter()
        .map(|problem| problem["path"].as_str().expect("a path"))
        .collect()
}

/// Where each of `words` first occurs in `message`, which must hold them all.
fn places(message: &str, words: &[&str]) -> Vec<usize> {
    words
        .iter()
        .map(|word| {
            message
                .find(word)
                .unwrap_or_else(|| panic!("{word} is named: {message}"))
        })
        .collect()
}

crate::on_both_backends! {
    async fn a_body_with_three_wrong_fields_names_all_three(app) {
        let token = app.token(integrator("AR")).await;
        let body = r#"{"name": 7, "establishment_id": "1", "area": true, "active": true}"#.to_owned();
        let error = refused(&app, &token, PLOTS, body, "es", StatusCode::BAD_REQUEST).await;
        assert_eq!(paths(&error), ["name", "establishment_id", "area"]);
        let message = error["message"].as_str().expect("a message");
        let at = places(message, &["name debe ser", "establishment_id debe ser", "area debe ser"]);
        assert!(at.windows(2).all(|pair| pair[0] < pair[1]), "in body order: {message}");
        assert_eq!(message.matches("; ").count(), 2, "three problems, one message: {message}");
    }

    async fn a_body_with_thousands_of_wrong_items_names_a_bounded_number_and_says_there_are_more(app) {
        let token = app.token(integrator("AR")).await;
        let reading = json!({"device_id": "four", "device_event_type_id": 1,
                             "recorded_at": "2025-10-02T08:00:00-03:00", "value": 23.75});
        let body = Value::Array(vec![reading; 5_000]).to_string();
        let error = refused(&app, &token, "/api/v3/third_party/device_events", body, "pt", StatusCode::BAD_REQUEST).await;
        assert_eq!(paths(&error).len(), 100);
        assert_eq!(paths(&error).last(), Some(&"[99].device_id"));
        let message = error["message"].as_str().expect("a message");
        assert!(message.contains("são listados os primeiros 100"), "{message}");
        assert!(message.len() < 20_000, "the answer stays small: {} bytes", message.len());
    }

    async fn malformed_json_is_still_one_problem(app) {
        let token = app.token(integrator("AR")).await;
        for (body, words) in [
            (r#"{"name": 7, "establishment_id": "1", "area": "#, "el JSON termina antes de completarse"),
            (r#"{"name": 7, "establishment_id": "1"} ,"#, "no es JSON"),
        ] {
            let error = refused(&app, &token, PLOTS, body.to_owned(), "es", StatusCode::BAD_REQUEST).await;
            assert_eq!(error["reason"], "malformed_json", "{error}");
            assert_eq!(paths(&error), [""], "{error}");
            let message = error["message"].as_str().expect("a message");
            assert!(message.contains(words) && !message.contains("name"), "{message}");
        }
    }

    async fn a_plot_with_an_unknown_establishment_and_a_negative_area_gets_both(app) {
        let token = app.token(integrator("AR")).await;
        let before = app.all_items(PLOT_LIST, &token).await.len();
        let body = json!({"name": "Lote 99", "establishment_id": 999_999, "area": -3.5}).to_string();
        for lang in ["es", "pt", "en"] {
            let error = refused(&app, &token, PLOTS, body.clone(), lang, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert_eq!(paths(&error), ["establishment_id", "area"], "{error}");
            let message = error["message"].as_str().expect("a message");
            let at = places(message, &["establishment_id", "999999", "area", "-3.5"]);
            assert!(at.windows(2).all(|pair| pair[0] < pair[1]), "in body order: {message}");
        }
        assert_eq!(app.all_items(PLOT_LIST, &token).await.len(), before, "nothing is written");
    }

    async fn an_establishment_a_silobag_row_and_a_device_get_their_references_with_their_own_rules(app) {
        let token = app.token(integrator("AR")).await;
        let writes = [
            ("/api/v3/third_party/establishments", json!({"name": " ", "farmer_id": 999_999}), ["name", "farmer_id"]),
            ("/api/v3/third_party/silobag_campaigns",
             json!({"silobag_id": 999_999, "campaign_id": 999_998, "quantity_tn": 0, "grain_humidity_percent": 13.5,
                    "grain_quality_semaphore": 1}),
             ["silobag_id", "quantity_tn"]),
            ("/api/v3/third_party/devices",
             json!({"name": "Estación", "kind": "weather_station", "serial_number": "WS-1", "establishment_id": 999_999,
                    "latitude": 91.0}),
             ["establishment_id", "latitude"]),
        ];
        for (path, body, expected) in writes {
            let error = refused(&app, &token, path, body.to_string(), "en", StatusCode::UNPROCESSABLE_ENTITY).await;
            let found = paths(&error);
            for field in expected {
                assert!(found.contains(&field), "{path}: {field} is named: {error}");
            }
        }
        let applicator = json!({"name": "", "machines": [999_999]}).to_string();
        let error =
            refused(&app, &token, "/api/v2/third_party/applicators", applicator, "es", StatusCode::UNPROCESSABLE_ENTITY)
                .await;
        assert_eq!(paths(&error), ["name", "machines[0]"], "{error}");
    }
}
