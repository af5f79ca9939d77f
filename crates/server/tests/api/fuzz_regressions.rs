//! What `scripts/fuzz` (schemathesis against the OpenAPI document) found, each kept as a regression test: the answer
//! is checked against the document the server serves, with the subset of JSON Schema that the document uses.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const DEVICE_EVENTS: &str = "/api/v3/third_party/device_events";
const PLOTS: &str = "/api/v3/third_party/plots";
const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";
const APPLICATORS: &str = "/api/v2/third_party/applicators";
const DEVICES: &str = "/api/v3/third_party/devices";
const WORK_ORDERS: &str = "/integration/api/v1/workOrders";

/// Where `value` breaks `schema` (resolving `$ref`s in `document`), one line per breach; empty when it conforms.
fn violations(document: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    if let Some(reference) = schema["$ref"].as_str() {
        let name = reference.trim_start_matches("#/components/schemas/");
        return violations(document, &document["components"]["schemas"][name], value, at);
    }
    let mut found = Vec::new();
    if let Some(options) = schema["oneOf"].as_array() {
        let matching = options
            .iter()
            .filter(|option| violations(document, option, value, at).is_empty())
            .count();
        if matching != 1 {
            found.push(format!("{at}: matches {matching} of the oneOf options: {value}"));
        }
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => vec![],
        };
        let is = |kind: &str| match kind {
            "null" => value.is_null(),
            "boolean" => value.is_boolean(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "string" => value.is_string(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            _ => false,
        };
        if !types.iter().any(|kind| is(kind)) {
            found.push(format!("{at}: {value} is not of type {types:?}"));
            return found;
        }
    }
    if let (Some(number), Some(maximum)) = (value.as_f64(), schema["maximum"].as_f64()) {
        if number > maximum {
            found.push(format!("{at}: {number} is above the maximum {maximum}"));
        }
    }
    if let (Some(number), Some(minimum)) = (value.as_f64(), schema["minimum"].as_f64()) {
        if number < minimum {
            found.push(format!("{at}: {number} is below the minimum {minimum}"));
        }
    }
    if let Some(object) = value.as_object() {
        for required in schema["required"].as_array().into_iter().flatten() {
            let name = required.as_str().unwrap_or_default();
            if !object.contains_key(name) {
                found.push(format!("{at}: the required {name} is missing"));
            }
        }
        for (name, property) in schema["properties"].as_object().into_iter().flatten() {
            if let Some(field) = object.get(name) {
                found.extend(violations(document, property, field, &format!("{at}.{name}")));
            }
        }
    }
    if let (Some(items), Some(array)) = (schema.get("items"), value.as_array()) {
        for (index, item) in array.iter().enumerate() {
            found.extend(violations(document, items, item, &format!("{at}[{index}]")));
        }
    }
    found
}

/// The documented success schema of `method path` for `status`.
fn documented_answer(document: &Value, method: &str, path: &str, status: u16) -> Value {
    let schema =
        &document["paths"][path][method]["responses"][status.to_string()]["content"]["application/json"]["schema"];
    assert!(schema.is_object(), "{method} {path} documents its {status} answer");
    schema.clone()
}

/// Asserts `value` is what the document says `method path` answers with `status`.
async fn assert_documented(app: &TestApp, method: &str, path: &str, status: u16, value: &Value) {
    let document = app.served_document().await;
    let schema = documented_answer(&document, method, path, status);
    let breaches = violations(&document, &schema, value, "answer");
    assert!(
        breaches.is_empty(),
        "{method} {path} answered outside its document: {breaches:#?}"
    );
}

async fn first_id(app: &TestApp, path: &str, token: &str) -> Value {
    app.get_ok(path, token).await["items"][0]["id"].clone()
}

#[test]
fn the_schema_check_finds_what_it_should() {
    let document = json!({ "components": { "schemas": { "Item": {
        "type": "object", "required": ["id"], "properties": { "id": { "type": "integer" }, "area": { "type": "number", "maximum": 10 } }
    } } } });
    let one_or_many = json!({ "oneOf": [{ "$ref": "#/components/schemas/Item" }, { "type": "array", "items": { "$ref": "#/components/schemas/Item" } }] });
    assert!(violations(&document, &one_or_many, &json!({ "id": 1 }), "a").is_empty());
    assert!(violations(&document, &one_or_many, &json!([{ "id": 1 }, { "id": 2 }]), "a").is_empty());
    assert!(!violations(&document, &one_or_many, &json!({ "area": 1 }), "a").is_empty());
    let item = json!({ "$ref": "#/components/schemas/Item" });
    assert!(!violations(&document, &item, &json!({ "id": 1, "area": null }), "a").is_empty());
    assert!(!violations(&document, &item, &json!({ "id": 1, "area": 11.0 }), "a").is_empty());
    assert!(!violations(&document, &item, &json!({ "id": "1" }), "a").is_empty());
}

on_both_backends! {
    // Found by the stateful phase: one event sent as an object is answered as an object, which the document
    // described as always an array.
    async fn device_events_are_answered_in_the_shape_sent_as_the_document_says(app) {
        let token = app.token(integrator("AR")).await;
        let reading = json!({
            "device_id": first_id(&app, "/api/v3/third_party/devices", &token).await,
            "device_event_type_id": first_id(&app, "/api/v3/third_party/device_event_types", &token).await,
            "recorded_at": "2025-06-04T10:59:00-03:00",
            "value": 0.0,
        });
        let one = app.post(DEVICE_EVENTS, &token, &reading).await;
        assert_eq!(one.status(), StatusCode::CREATED);
        let one: Value = one.json().await.expect("JSON");
        assert!(one.is_object(), "{one}");
        assert_documented(&app, "post", DEVICE_EVENTS, 201, &one).await;
        let many = app.post(DEVICE_EVENTS, &token, &json!([reading, reading])).await;
        assert_eq!(many.status(), StatusCode::CREATED);
        let many: Value = many.json().await.expect("JSON");
        assert_eq!(many.as_array().map(Vec::len), Some(2), "{many}");
        assert_documented(&app, "post", DEVICE_EVENTS, 201, &many).await;
    }

    // Found by fuzzing: an area of 1.8e308 hectares was stored, and overflowed to infinity when rounded to
    // hundredths, so the plot was answered with `"area": null` where the document promises a number.
    async fn areas_beyond_any_real_plot_are_refused_and_areas_stay_numbers(app) {
        let token = app.token(integrator("AR")).await;
        let establishment = first_id(&app, ESTABLISHMENTS, &token).await;
        for absurd in [1.797_693_134_862_315_5e308, 1.0e12, 1_000_000.01] {
            let body = json!({ "name": "Lote enorme", "establishment_id": establishment, "area": absurd });
            let (code, message) = error_envelope(app.post(PLOTS, &token, &body).await, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert_eq!(code, 422);
            assert!(message.contains("area"), "{message}");
        }
        let body = json!({ "name": "Lote grande", "establishment_id": establishment, "area": 1_000_000.0 });
        let created = app.post(PLOTS, &token, &body).await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let created: Value = created.json().await.expect("JSON");
        assert_eq!(created["area"], json!(1_000_000.0));
        assert_documented(&app, "post", PLOTS, 201, &created).await;
        let farmers = app.all_items("/api/v2/third_party/farmers", &token).await;
        assert!(farmers.iter().all(|farmer| farmer["area"].is_number()), "every farmer's area is a number");
    }

    // Found by attacking the service (issue 50): an area of 1e-320 hectares, "greater than zero", was stored as 0.0.
    // A quantity that storage would not keep as sent is refused, and the document states the least each takes.
    async fn quantities_too_small_to_be_stored_as_sent_are_refused(app) {
        let token = app.token(integrator("AR")).await;
        let establishment = first_id(&app, ESTABLISHMENTS, &token).await;
        let plots_before = app.get_ok("/api/v2/third_party/plots", &token).await["total_items"].clone();
        for tiny in [1e-320, 5e-324, 0.004] {
            let body = json!({ "name": "Lote diminuto", "establishment_id": establishment, "area": tiny });
            let (code, message) = error_envelope(app.post(PLOTS, &token, &body).await, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert_eq!(code, 422);
            assert!(message.contains("area") && message.contains("0.01"), "{tiny:e}: {message}");
        }
        let plots_after = app.get_ok("/api/v2/third_party/plots", &token).await["total_items"].clone();
        assert_eq!(plots_after, plots_before, "no plot was stored");
        let body = json!({ "name": "Lote mínimo", "establishment_id": establishment, "area": 0.01 });
        let created = app.post(PLOTS, &token, &body).await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let created: Value = created.json().await.expect("JSON");
        assert_eq!(created["area"], json!(0.01));
        let row = json!({
            "silobag_id": first_id(&app, "/api/v3/third_party/silobags", &token).await,
            "campaign_id": first_id(&app, "/api/v3/third_party/campaigns", &token).await,
            "quantity_tn": 1e-320,
            "grain_humidity_percent": 13.5,
            "grain_quality_semaphore": 2,
        });
        let response = app.post("/api/v3/third_party/silobag_campaigns", &token, &row).await;
        let (_, message) = error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.contains("quantity_tn") && message.contains("1e-320"), "{message}");
        let document = app.served_document().await;
        let schemas = &document["components"]["schemas"];
        assert_eq!(schemas["NewPlot"]["properties"]["area"]["minimum"], json!(0.01));
        assert_eq!(schemas["NewSilobagCampaign"]["properties"]["quantity_tn"]["minimum"], json!(f64::MIN_POSITIVE));
    }

    // Found by schemathesis's positive-data check: the document called the filter dates `date-time`, which allows
    // fractions of a second, but the server accepts whole seconds with an offset only.
    async fn filter_dates_are_documented_as_the_server_reads_them(app) {
        let token = app.token(integrator("AR")).await;
        let document = app.served_document().await;
        let parameters = document["paths"][ESTABLISHMENTS]["get"]["parameters"].as_array().cloned().unwrap_or_default();
        let updated = parameters.iter().find(|p| p["name"] == "updated_at_from").expect("a documented date filter");
        assert_eq!(updated["schema"]["pattern"], r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$");
        for allowed in ["2024-03-01T00:00:00-03:00", "2024-03-01T00:00:00Z"] {
            app.get_ok(&format!("{ESTABLISHMENTS}?updated_at_from={}", allowed.replace('+', "%2B")), &token).await;
        }
        for excluded in ["2024-03-01T00:00:00.5-03:00", "2024-03-01T00:00:00", "2024-03-01"] {
            let response = app.get(&format!("{ESTABLISHMENTS}?updated_at_from={excluded}"), &token).await;
            error_envelope(response, StatusCode::BAD_REQUEST).await;
        }
    }

    // Found by fuzzing on PostgreSQL: a NUL character in any text of a body reached the database, which cannot
    // store it, and the request failed with 500 (on SQLite it was stored).
    async fn nul_characters_in_a_body_are_refused_alike_on_every_backend(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = first_id(&app, "/api/v3/third_party/farmers", &token).await;
        let before = app.get_ok(ESTABLISHMENTS, &token).await["total_items"].clone();
        let body = json!({ "name": "La\u{0}Esperanza", "farmer_id": farmer });
        let (_, message) = error_envelope(app.post(ESTABLISHMENTS, &token, &body).await, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("NUL"), "{message}");
        assert_eq!(app.get_ok(ESTABLISHMENTS, &token).await["total_items"], before, "nothing was stored");
        let login = app
            .request(Method::POST, "/api/v2/login")
            .json(&json!({ "email": "integrador@lapampa.com.ar\u{0}", "password": "LaPampa-2026" }))
            .send()
            .await
            .expect("login");
        error_envelope(login, StatusCode::BAD_REQUEST).await;
        let escaped_backslash = json!({ "name": "La \\u0000 Esperanza", "farmer_id": farmer });
        assert_eq!(app.post(ESTABLISHMENTS, &token, &escaped_backslash).await.status(), StatusCode::CREATED, "a backslash is text");
    }

    // Found by `--checks all` (schema-valid request rejected): a page past 2^63 answered 400 where the document
    // allowed any integer. The document now bounds `page` by the largest 64-bit integer, which the server reads.
    async fn pages_up_to_the_documented_maximum_are_read_and_beyond_it_refused(app) {
        let token = app.token(integrator("AR")).await;
        let document = app.served_document().await;
        let page = document["paths"][ESTABLISHMENTS]["get"]["parameters"]
            .as_array()
            .and_then(|parameters| parameters.iter().find(|p| p["name"] == "page"))
            .map(|parameter| parameter["schema"].clone())
            .expect("page is documented");
        assert_eq!(page["maximum"].as_i64(), Some(i64::MAX));
        let last = app.get(&format!("{ESTABLISHMENTS}?page={}", i64::MAX), &token).await;
        let (_, message) = error_envelope(last, StatusCode::NOT_FOUND).await;
        assert!(message.contains(&i64::MAX.to_string()), "{message}");
        for beyond in ["9223372036854775808", "464856906991512009572352"] {
            let response = app.get(&format!("{ESTABLISHMENTS}?page={beyond}"), &token).await;
            error_envelope(response, StatusCode::BAD_REQUEST).await;
        }
    }

    // Found by `--checks all`: an unknown property holding a NUL made login answer 400, though the document lets a
    // body carry properties it does not name. Only the texts the server reads are refused for a NUL now.
    async fn a_nul_in_a_property_the_server_ignores_is_ignored(app) {
        let login = app
            .request(Method::POST, "/api/v2/login")
            .json(&json!({ "email": "integrador@lapampa.com.ar", "password": "LaPampa-2026", "note\u{0}": "a\u{0}b", "x": ["\u{0}"] }))
            .send()
            .await
            .expect("login");
        assert_eq!(login.status(), StatusCode::OK);
        let token = app.token(integrator("AR")).await;
        let farmer = first_id(&app, "/api/v3/third_party/farmers", &token).await;
        let created = app.post(ESTABLISHMENTS, &token, &json!({ "name": "La Esperanza", "farmer_id": farmer, "extra": "\u{0}" })).await;
        assert_eq!(created.status(), StatusCode::CREATED);
        let refused = app.post(ESTABLISHMENTS, &token, &json!({ "name": "La Esperanza", "farmer_id": farmer, "external_code": "A\u{0}" })).await;
        let (_, message) = error_envelope(refused, StatusCode::BAD_REQUEST).await;
        assert!(message.contains("external_code") && message.contains("NUL"), "{message}");
    }

    // Found by `--checks all`: `machines: [3.0]` answered 400, but JSON Schema counts 3.0 as an integer. An integer
    // written with a zero fraction is read as that integer; one written beyond the 64-bit range is still refused.
    async fn integers_written_with_a_zero_fraction_are_integers(app) {
        let token = app.token(integrator("AR")).await;
        let machine = first_id(&app, "/api/v3/third_party/machines", &token).await.as_i64().expect("a machine id");
        let body = format!(r#"{{"name": "Jorge Almada", "machines": [{machine}.0]}}"#);
        let created = app
            .request(Method::POST, APPLICATORS)
            .bearer_auth(&token)
            .header("content-type", "application/json")
            .body(body)
            .send()
            .await
            .expect("POST");
        assert_eq!(created.status(), StatusCode::CREATED);
        let created: Value = created.json().await.expect("JSON");
        assert_eq!(created["machines"], json!([machine]));
        for beyond in ["-9223372036854775809", "9223372036854775808", "1.5"] {
            let body = format!(r#"{{"name": "Jorge Almada", "id": {beyond}}}"#);
            let refused = app
                .request(Method::POST, APPLICATORS)
                .bearer_auth(&token)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .await
                .expect("POST");
            error_envelope(refused, StatusCode::BAD_REQUEST).await;
        }
    }

    // Found by `--checks all`: a device's `kind` and a work order's `system_id` took one of a few values that the
    // document gave only in prose. They are enums now, and a value outside one is 422 naming the values, as before.
    async fn values_outside_a_documented_set_are_422_naming_the_set(app) {
        let token = app.token(integrator("AR")).await;
        let document = app.served_document().await;
        let kinds = document["components"]["schemas"]["NewDevice"]["properties"]["kind"]["enum"].clone();
        assert_eq!(kinds, json!(["weather_station", "silobag_sensor"]));
        let device = json!({ "name": "Estación", "kind": "drone", "serial_number": "WS-1" });
        let (code, message) = error_envelope(app.post(DEVICES, &token, &device).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert_eq!(code, 422);
        assert!(message.contains("weather_station") && message.contains("silobag_sensor"), "{message}");
        let order = json!({ "header": {
            "system_id": "erp", "name": "Pulverización", "date": "2025-10-02T08:00:00-03:00",
            "voucher_date": "2025-10-01T00:00:00-03:00", "state": { "pending": true, "executed": false, "confirmed": false },
            "extra_fields": { "company": { "local_id": 1 }, "voucher_type": { "local_id": 1 } } },
            "supplies": [], "labours": [] });
        let (_, message) = error_envelope(app.post(WORK_ORDERS, &token, &order).await, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.contains("system_id") && message.contains("third_party"), "{message}");
    }

    // Found by `--checks all`: any text was a valid `types` filter to the document, and an unknown one was 400. The
    // document now states the event types as a pattern, and every type and `<resource>.*` it allows is read.
    async fn every_event_type_the_document_allows_is_read(app) {
        let token = app.token(integrator("AR")).await;
        let document = app.served_document().await;
        let parameters = document["paths"]["/api/v3/third_party/events"]["get"]["parameters"].as_array().cloned().unwrap_or_default();
        let types = parameters.iter().find(|p| p["name"] == "types").expect("types is documented");
        let pattern = types["schema"]["pattern"].as_str().expect("a pattern");
        let mut every: Vec<String> = domain::events::event_types();
        every.extend(domain::events::RESOURCES.iter().map(|(resource, _)| format!("{resource}.*")));
        for kind in &every {
            let (resource, action) = kind.split_once('.').expect("resource.action");
            assert!(pattern.contains(resource) && (action == "*" || pattern.contains(action)), "{kind} is in {pattern}");
        }
        let all = format!(" {} ,,", every.join(" , "));
        let read = app.get(&format!("/api/v3/third_party/events?after=now&types={}", all.replace(' ', "%20").replace('*', "%2A")), &token).await;
        assert_eq!(read.status(), StatusCode::OK);
        let unknown = app.get("/api/v3/third_party/events?after=now&types=nothing.created", &token).await;
        error_envelope(unknown, StatusCode::BAD_REQUEST).await;
    }

    // Found by `--checks all` (schema-valid request rejected): every error status an operation answered was only a
    // `default` in the document. Each is listed now; these are the ones a bad request to each kind of operation gets.
    async fn the_statuses_answered_are_the_ones_listed(app) {
        let token = app.token(integrator("AR")).await;
        let document = app.served_document().await;
        let listed = |method: &str, path: &str, status: StatusCode| {
            document["paths"][path][method]["responses"].get(status.as_str()).is_some()
        };
        let page = app.get(&format!("{ESTABLISHMENTS}?page=0"), &token).await.status();
        assert!(listed("get", ESTABLISHMENTS, page), "{page}");
        let missing = app.get(&format!("{ESTABLISHMENTS}/999999"), &token).await.status();
        assert!(listed("get", "/api/v3/third_party/establishments/{id}", missing), "{missing}");
        let put = app
            .request(Method::PUT, APPLICATORS)
            .bearer_auth(&token)
            .json(&json!({ "id": 999_999, "name": "Nadie" }))
            .send()
            .await
            .expect("PUT")
            .status();
        assert_eq!(put, StatusCode::NOT_FOUND);
        assert!(listed("put", APPLICATORS, put), "{put}");
        let anonymous = app.request(Method::GET, ESTABLISHMENTS).send().await.expect("GET").status();
        assert!(listed("get", ESTABLISHMENTS, anonymous), "{anonymous}");
        let text = app
            .request(Method::POST, ESTABLISHMENTS)
            .bearer_auth(&token)
            .header("content-type", "text/plain")
            .body("{}")
            .send()
            .await
            .expect("POST")
            .status();
        assert!(listed("post", ESTABLISHMENTS, text), "{text}");
    }
}
