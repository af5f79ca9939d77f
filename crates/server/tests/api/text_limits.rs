//! Every text a write takes has a maximum, stated as `maxLength` in the OpenAPI document and refused by the rules
//! (422, in the caller's language) before anything is written; a text at the maximum is taken. Lengths count
//! characters, not bytes.

use domain::text::{MAX_CODE, MAX_EMAIL, MAX_NAME, MAX_OBSERVATIONS, MAX_PASSWORD, MAX_TOKEN};
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";
const SILOBAG_CAMPAIGNS: &str = "/api/v3/third_party/silobag_campaigns";
const APPLICATORS: &str = "/api/v2/third_party/applicators";
const DEVICES: &str = "/api/v3/third_party/devices";

async fn first_id(app: &TestApp, path: &str, token: &str) -> Value {
    app.get_ok(path, token).await["items"][0]["id"].clone()
}

async fn count(app: &TestApp, table: &str, society: i64) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table} WHERE society_id = $1");
    app.integers(&sql, society).await[0]
}

/// POSTs `body` in English and answers the refusal's message, which must be a 422.
async fn refused(app: &TestApp, path: &str, token: &str, body: &Value) -> String {
    let response = app
        .request(Method::POST, path)
        .bearer_auth(token)
        .header("Accept-Language", "en")
        .json(body)
        .send()
        .await
        .expect("POST");
    error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await.1
}

on_both_backends! {
    async fn a_text_past_its_maximum_is_refused_and_nothing_is_written(app) {
        let token = app.token(integrator("AR")).await;
        let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("society");
        let farmer = first_id(&app, "/api/v3/third_party/farmers", &token).await;
        let establishments = count(&app, "establishments", society).await;
        // Characters, not bytes: 201 two-byte characters are refused, 200 are taken.
        let long = "ñ".repeat(MAX_NAME + 1);
        let message = refused(&app, ESTABLISHMENTS, &token, &json!({ "name": long, "farmer_id": farmer })).await;
        assert!(message.contains(&format!("name takes at most {MAX_NAME} characters")), "{message}");
        // A name of megabytes, as the attack sent, is refused alike.
        let huge = "x".repeat(1_000_000);
        refused(&app, ESTABLISHMENTS, &token, &json!({ "name": huge, "farmer_id": farmer })).await;
        let code = "c".repeat(MAX_CODE + 1);
        let body = json!({ "name": "Código largo", "farmer_id": farmer, "external_code": code });
        let message = refused(&app, ESTABLISHMENTS, &token, &body).await;
        assert!(message.contains(&format!("external_code takes at most {MAX_CODE} characters")), "{message}");
        assert_eq!(count(&app, "establishments", society).await, establishments, "nothing was written");
        let longest = "ñ".repeat(MAX_NAME);
        let response = app.post(ESTABLISHMENTS, &token, &json!({ "name": longest, "farmer_id": farmer })).await;
        assert_eq!(response.status(), StatusCode::CREATED);

        // A silobag row's observations.
        let rows = count(&app, "silobag_campaigns", society).await;
        let row = |observations: String| json!({
            "silobag_id": 0, "campaign_id": 0, "quantity_tn": 180.5, "grain_humidity_percent": 13.5,
            "grain_quality_semaphore": 2, "observations": observations,
        });
        let mut body = row("o".repeat(MAX_OBSERVATIONS + 1));
        body["silobag_id"] = first_id(&app, "/api/v3/third_party/silobags", &token).await;
        body["campaign_id"] = first_id(&app, "/api/v3/third_party/campaigns", &token).await;
        let message = refused(&app, SILOBAG_CAMPAIGNS, &token, &body).await;
        assert!(message.contains(&format!("observations takes at most {MAX_OBSERVATIONS} characters")), "{message}");
        assert_eq!(count(&app, "silobag_campaigns", society).await, rows, "nothing was written");
        body["observations"] = json!("o".repeat(MAX_OBSERVATIONS));
        assert_eq!(app.post(SILOBAG_CAMPAIGNS, &token, &body).await.status(), StatusCode::OK);

        // An applicator's contact texts, and a device's serial number, each named.
        let applicators = count(&app, "applicators", society).await;
        let body = json!({ "name": "Ana", "email": "e".repeat(MAX_EMAIL + 1), "address": "a".repeat(MAX_NAME + 1), "machines": [] });
        let message = refused(&app, APPLICATORS, &token, &body).await;
        assert!(message.contains("address takes at most") && message.contains("email takes at most"), "{message}");
        assert_eq!(count(&app, "applicators", society).await, applicators);
        let body = json!({ "name": "Estación", "kind": "weather_station", "serial_number": "s".repeat(MAX_CODE + 1) });
        let message = refused(&app, DEVICES, &token, &body).await;
        assert!(message.contains("serial_number takes at most"), "{message}");

        // Login and refresh are bounded too, in the caller's language.
        let response = app.login(&"e".repeat(MAX_EMAIL + 1), &"p".repeat(MAX_PASSWORD + 1)).await;
        let (_, message) = error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.contains(&format!("email admite como máximo {MAX_EMAIL} caracteres")), "{message}");
        assert!(message.contains("password"), "{message}");
        let response = app
            .request(Method::POST, "/api/v2/login/refresh")
            .json(&json!({ "refresh_token": "1.".repeat(MAX_TOKEN) }))
            .send()
            .await
            .expect("POST");
        error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
    }
}

/// The string properties of the component `name`, and of every component it refers to, with their schemas.
fn strings<'a>(document: &'a Value, name: &str, path: String, found: &mut Vec<(String, &'a Value)>) {
    let schema = &document["components"]["schemas"][name];
    let alternatives = schema["oneOf"].as_array().into_iter().flatten();
    for alternative in alternatives.chain(std::iter::once(schema)) {
        let reference = alternative["$ref"]
            .as_str()
            .or_else(|| alternative["items"]["$ref"].as_str());
        if let Some(inner) = reference.and_then(|r| r.strip_prefix("#/components/schemas/")) {
            if inner != name {
                strings(document, inner, path.clone(), found);
            }
        }
    }
    for (key, property) in schema["properties"].as_object().into_iter().flatten() {
        let at = format!("{path}{name}.{key}");
        let types = &property["type"];
        let text = types == "string" || types.as_array().is_some_and(|all| all.iter().any(|t| t == "string"));
        if text {
            found.push((at.clone(), property));
        }
        let inner = property["$ref"]
            .as_str()
            .or_else(|| property["items"]["$ref"].as_str())
            .or_else(|| {
                property["oneOf"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find_map(|one| one["$ref"].as_str())
            });
        if let Some(inner) = inner.and_then(|r| r.strip_prefix("#/components/schemas/")) {
            strings(document, inner, format!("{at} > "), found);
        }
    }
}

/// The characters of a `^[^…]*$` pattern's class, written as `\uXXXX` and `\uXXXX-\uXXXX`.
fn excluded(pattern: &str) -> Vec<(u32, u32)> {
    let hex = |text: &str| u32::from_str_radix(text.get(..4).expect("four digits"), 16).expect("hex");
    let mut rest = pattern
        .strip_prefix("^[^")
        .and_then(|p| p.strip_suffix("]*$"))
        .expect("a negated class");
    let mut ranges = Vec::new();
    while let Some(after) = rest.strip_prefix("\\u") {
        let low = hex(after);
        rest = &after[4..];
        let high = match rest.strip_prefix("-\\u") {
            Some(after) => {
                rest = &after[4..];
                hex(after)
            }
            None => low,
        };
        ranges.push((low, high));
    }
    assert!(rest.is_empty(), "only \\u escapes: {rest}");
    ranges
}

#[test]
fn every_text_a_write_takes_states_its_maximum_and_codes_refuse_invisible_characters() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    let mut bodies = Vec::new();
    for item in document["paths"].as_object().expect("paths").values() {
        for method in ["post", "put", "patch"] {
            let schema = &item[method]["requestBody"]["content"]["application/json"]["schema"];
            if let Some(name) = schema["$ref"]
                .as_str()
                .and_then(|r| r.strip_prefix("#/components/schemas/"))
            {
                bodies.push(name.to_owned());
            }
        }
    }
    bodies.sort();
    bodies.dedup();
    assert!(bodies.len() >= 10, "{bodies:?}");
    let mut texts = Vec::new();
    for body in &bodies {
        strings(&document, body, String::new(), &mut texts);
    }
    let mut codes = 0;
    for (at, property) in &texts {
        // A timestamp is bounded by its format, which the body check holds it to; a set of values by its set.
        let bounded = property["maxLength"].as_u64().is_some()
            || property["enum"].is_array()
            || property["format"] == "date-time";
        assert!(bounded, "{at} states no maximum");
        if at.ends_with(".external_code") || at.ends_with(".external_id") {
            codes += 1;
            assert_eq!(property["maxLength"].as_u64(), Some(MAX_CODE as u64), "{at}");
            // The pattern refuses exactly the characters of the domain's rule that it can name (those of the basic
            // plane; the server refuses the rest too).
            let ranges = excluded(property["pattern"].as_str().expect("a pattern"));
            for point in (0..=0xFFFF_u32).filter_map(char::from_u32) {
                let in_pattern = ranges
                    .iter()
                    .any(|(low, high)| (*low..=*high).contains(&(point as u32)));
                assert_eq!(
                    in_pattern,
                    domain::text::invisible(point),
                    "{at}: U+{:04X}",
                    point as u32
                );
            }
        }
    }
    assert!(
        codes >= 5,
        "external codes of establishments, plots, applicators, work orders, campaigns: {codes}"
    );
    let bound = |component: &str, property: &str| {
        document["components"]["schemas"][component]["properties"][property]["maxLength"].as_u64()
    };
    let expected = [
        ("NewEstablishment", "name", MAX_NAME),
        ("NewPlot", "name", MAX_NAME),
        ("ApplicatorWrite", "email", MAX_EMAIL),
        ("NewSilobagCampaign", "observations", MAX_OBSERVATIONS),
        ("NewDevice", "serial_number", MAX_CODE),
        ("WorkOrderHeaderWrite", "name", MAX_NAME),
        ("CampaignImportRow", "name", MAX_NAME),
        ("LoginRequest", "email", MAX_EMAIL),
        ("LoginRequest", "password", MAX_PASSWORD),
        ("RefreshRequest", "refresh_token", MAX_TOKEN),
        ("WebhookEndpointWrite", "description", domain::text::MAX_DESCRIPTION),
        ("WebhookEndpointWrite", "url", domain::text::MAX_URL),
    ];
    for (component, property, max) in expected {
        assert_eq!(bound(component, property), Some(max as u64), "{component}.{property}");
    }
}
