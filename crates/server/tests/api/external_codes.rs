//! A society's live records of a resource have distinct external codes (migration 11), so that operators' imports
//! match one record by code. The API's writes that give a code another live record already has are refused with 409
//! naming that record, never a 500, also when several race for one code. Codes that look the same (composed and
//! decomposed accents, fullwidth forms) are one code, and a code with an invisible character is refused.

use client::futures_util::future::join_all;
use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";
const PLOTS: &str = "/api/v3/third_party/plots";
const APPLICATORS: &str = "/api/v2/third_party/applicators";
const WORK_ORDERS: &str = "/integration/api/v1/workOrders";

async fn first_id(app: &TestApp, path: &str, token: &str) -> Value {
    app.get_ok(path, token).await["items"][0]["id"].clone()
}

async fn created(app: &TestApp, path: &str, token: &str, body: &Value) -> Value {
    let response = app.post(path, token, body).await;
    assert_eq!(response.status(), StatusCode::CREATED, "POST {path} {body}");
    response.json().await.expect("JSON")
}

on_both_backends! {
    async fn an_establishment_or_plot_with_a_taken_code_is_refused_naming_the_holder(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = first_id(&app, "/api/v3/third_party/farmers", &token).await;
        let first = created(&app, ESTABLISHMENTS, &token, &json!({ "name": "Uno", "farmer_id": farmer, "external_code": "ERP-E-1" })).await;
        let response = app.post(ESTABLISHMENTS, &token, &json!({ "name": "Dos", "farmer_id": farmer, "external_code": " ERP-E-1 " })).await;
        let (code, message) = error_envelope(response, StatusCode::CONFLICT).await;
        assert_eq!(code, 409);
        assert_eq!(message, format!("Ya existe el establecimiento {} (establishments) con ese external_code.", first["id"]));
        let plot = json!({ "name": "Lote", "establishment_id": first["id"], "area": 10.0, "external_code": "ERP-P-1" });
        let holder = created(&app, PLOTS, &token, &plot).await;
        let response = app.request(Method::POST, PLOTS).bearer_auth(&token).header("Accept-Language", "en").json(&plot).send().await.expect("POST");
        let (_, message) = error_envelope(response, StatusCode::CONFLICT).await;
        assert_eq!(message, format!("The plot {} (plots) already has that external_code.", holder["id"]));
        // A deleted record's code is free again.
        assert_eq!(app.delete(&format!("{PLOTS}/{}", holder["id"]), &token).await.status(), StatusCode::OK);
        created(&app, PLOTS, &token, &plot).await;
        // Another society's codes are its own.
        let other = app.token(integrator("BR")).await;
        let farmer = first_id(&app, "/api/v3/third_party/farmers", &other).await;
        created(&app, ESTABLISHMENTS, &other, &json!({ "name": "Um", "farmer_id": farmer, "external_code": "ERP-E-1" })).await;
    }

    async fn an_applicator_may_keep_its_code_but_not_take_anothers(app) {
        let token = app.token(integrator("AR")).await;
        let first = created(&app, APPLICATORS, &token, &json!({ "name": "Ana", "external_code": "ERP-APL-1", "machines": [] })).await;
        let second = created(&app, APPLICATORS, &token, &json!({ "name": "Beto", "external_code": "ERP-APL-2", "machines": [] })).await;
        let response = app.post(APPLICATORS, &token, &json!({ "name": "Carla", "external_code": "ERP-APL-1", "machines": [] })).await;
        let (_, message) = error_envelope(response, StatusCode::CONFLICT).await;
        assert!(message.contains(&format!("aplicador {}", first["id"])), "{message}");
        let path = format!("{APPLICATORS}/{}", second["id"]);
        let taking = json!({ "name": "Beto", "external_code": "ERP-APL-1", "machines": [] });
        let response = app.request(Method::PUT, &path).bearer_auth(&token).json(&taking).send().await.expect("PUT");
        error_envelope(response, StatusCode::CONFLICT).await;
        let keeping = json!({ "name": "Beto Gómez", "external_code": "ERP-APL-2", "machines": [] });
        let response = app.request(Method::PUT, &path).bearer_auth(&token).json(&keeping).send().await.expect("PUT");
        assert_eq!(response.status(), StatusCode::OK);
    }

    async fn codes_that_look_the_same_are_one_code_and_invisible_characters_are_refused(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = first_id(&app, "/api/v3/third_party/farmers", &token).await;
        let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("society");
        // Composed (NFC) and decomposed (NFD) accents are one code, stored composed.
        let composed = "ERP-Maní-Ñ";
        let decomposed = "ERP-Man\u{69}\u{301}-N\u{303}";
        assert_ne!(composed, decomposed);
        let first = created(&app, ESTABLISHMENTS, &token, &json!({ "name": "Uno", "farmer_id": farmer, "external_code": decomposed })).await;
        assert_eq!(first["external_code"], composed);
        let response = app.post(ESTABLISHMENTS, &token, &json!({ "name": "Dos", "farmer_id": farmer, "external_code": composed })).await;
        let (_, message) = error_envelope(response, StatusCode::CONFLICT).await;
        assert!(message.contains(&format!("establecimiento {}", first["id"])), "{message}");
        // A fullwidth code is the code it looks like (NFKC).
        let plot = |code: &str| json!({ "name": "Lote", "establishment_id": first["id"], "area": 10.0, "external_code": code });
        let wide = created(&app, PLOTS, &token, &plot("ＥＲＰ－Ｐ－７")).await;
        assert_eq!(wide["external_code"], "ERP-P-7");
        error_envelope(app.post(PLOTS, &token, &plot("ERP-P-7")).await, StatusCode::CONFLICT).await;
        // A code with a character that shows nothing is refused, naming it, and nothing is written.
        let plots = app.integers("SELECT COUNT(*) FROM plots WHERE society_id = $1", society).await;
        for hidden in ["ERP-P-7\u{200B}", "\u{FEFF}ERP-P-8", "ERP\u{200D}-P-9", "ERP-P-\u{E0031}"] {
            let response = app.request(Method::POST, PLOTS).bearer_auth(&token).header("Accept-Language", "en").json(&plot(hidden)).send().await.expect("POST");
            let (_, message) = error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
            assert!(message.contains("external_code holds an invisible character (U+"), "{message}");
        }
        let response = app.post(APPLICATORS, &token, &json!({ "name": "Ana", "external_code": "APL\u{200B}1", "machines": [] })).await;
        let (_, message) = error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.contains("U+200B"), "{message}");
        assert_eq!(app.integers("SELECT COUNT(*) FROM plots WHERE society_id = $1", society).await, plots);
        // A work order's `external_id` is a code too.
        let voucher_type = first_id(&app, "/api/v3/third_party/voucher_types", &token).await;
        let order = |external_id: &str| json!({
            "header": {
                "external_id": external_id, "system_id": "third_party", "name": "OT",
                "date": "2025-10-02T08:00:00-03:00", "voucher_date": "2025-10-01T00:00:00-03:00",
                "state": { "pending": true, "executed": false, "confirmed": false },
                "extra_fields": { "company": { "local_id": society }, "voucher_type": { "local_id": voucher_type } }
            },
            "supplies": [], "labours": []
        });
        let first = created(&app, WORK_ORDERS, &token, &order("ＯＴ－Ñ")).await;
        assert_eq!(first["header"]["external_id"], "OT-Ñ");
        let response = app.post(WORK_ORDERS, &token, &order("OT-N\u{303}")).await;
        error_envelope(response, StatusCode::CONFLICT).await;
        let response = app.post(WORK_ORDERS, &token, &order("OT\u{2060}-1")).await;
        let (_, message) = error_envelope(response, StatusCode::UNPROCESSABLE_ENTITY).await;
        assert!(message.contains("header.external_id") && message.contains("U+2060"), "{message}");
    }

    async fn writes_racing_for_one_code_store_it_once_and_refuse_the_rest_with_409(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = first_id(&app, "/api/v3/third_party/farmers", &token).await;
        let body = json!({ "name": "Carrera", "farmer_id": farmer, "external_code": "ERP-RACE" });
        let statuses: Vec<StatusCode> = join_all((0..8).map(|_| app.post(ESTABLISHMENTS, &token, &body)))
            .await
            .into_iter()
            .map(|response| response.status())
            .collect();
        assert_eq!(statuses.iter().filter(|s| **s == StatusCode::CREATED).count(), 1, "{statuses:?}");
        assert!(statuses.iter().all(|s| *s == StatusCode::CREATED || *s == StatusCode::CONFLICT), "{statuses:?}");
        let society = app.login_as(integrator("AR")).await["society"]["id"].as_i64().expect("society");
        let stored = app
            .integers("SELECT COUNT(*) FROM establishments WHERE society_id = $1 AND external_code = 'ERP-RACE'", society)
            .await;
        assert_eq!(stored, [1]);
    }
}
