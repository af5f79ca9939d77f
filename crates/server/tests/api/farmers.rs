//! Farmers, in the v2 shape and the v3 shape.

use serde_json::Value;

use crate::helpers::{error_envelope, integrator, TEST_DEMO};
use crate::on_both_backends;

fn is_offset_timestamp(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|text| chrono::DateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%:z").is_ok())
}

fn is_optional_string(value: &Value) -> bool {
    value.is_null() || value.is_string()
}

on_both_backends! {
    async fn v2_farmers_have_exactly_the_specified_fields(app) {
        let token = app.token(integrator("AR")).await;
        let body = app.get_ok("/api/v2/third_party/farmers", &token).await;
        let items = body["items"].as_array().expect("items");
        assert_eq!(items.len(), usize::try_from(TEST_DEMO.farmers).expect("small"));
        for farmer in items {
            let mut keys: Vec<_> = farmer.as_object().expect("object").keys().map(String::as_str).collect();
            keys.sort_unstable();
            assert_eq!(keys, ["area", "cuit", "date_created", "date_modified", "deleted_at", "email", "external_code", "id", "lastname", "name", "observations", "phone_number", "society_id"]);
            assert!(farmer["id"].is_i64());
            assert_eq!(farmer["society_id"], body["items"][0]["society_id"]);
            assert!(farmer["name"].is_string());
            for optional in ["lastname", "cuit", "observations", "external_code", "email", "phone_number"] {
                assert!(is_optional_string(&farmer[optional]), "{optional}: {farmer}");
            }
            assert!(farmer["deleted_at"].is_null());
            assert!(is_offset_timestamp(&farmer["date_created"]) && is_offset_timestamp(&farmer["date_modified"]));
            assert!(farmer["area"].as_f64().is_some_and(|area| area > 0.0), "every demo farmer has plots: {farmer}");
        }
    }

    async fn v3_farmers_page_by_page_and_size(app) {
        let token = app.token(integrator("MX")).await;
        let first = app.get_ok("/api/v3/third_party/farmers?page=1&size=3", &token).await;
        assert_eq!(first["items"].as_array().map(Vec::len), Some(3));
        assert_eq!(first["total_items"].as_u64(), Some(u64::from(TEST_DEMO.farmers)));
        assert_eq!(first["total_pages"].as_u64(), Some(u64::from(TEST_DEMO.farmers).div_ceil(3)));
        let second = app.get_ok("/api/v3/third_party/farmers?page=2&size=3", &token).await;
        assert_ne!(first["items"][0]["id"], second["items"][0]["id"]);
        let farmer = &first["items"][0];
        for field in ["id", "name", "lastname", "cuit", "observations", "external_code", "email", "phone_number", "area", "active", "created_at", "updated_at", "deleted_at"] {
            assert!(farmer.get(field).is_some(), "v3 farmer has {field}: {farmer}");
        }
        assert!(farmer["email"].is_string() && farmer["area"].is_f64());
        assert!(farmer["active"].is_boolean());
    }

    async fn a_v3_farmer_is_read_by_id_as_the_list_shows_it(app) {
        let token = app.token(integrator("AR")).await;
        let farmer = app.get_ok("/api/v3/third_party/farmers", &token).await["items"][0].clone();
        let detail = app.get_ok(&format!("/api/v3/third_party/farmers/{}", farmer["id"]), &token).await;
        assert_eq!(detail, farmer);
        let brazil = app.token(integrator("BR")).await;
        let response = app.get(&format!("/api/v3/third_party/farmers/{}", farmer["id"]), &brazil).await;
        error_envelope(response, reqwest::StatusCode::NOT_FOUND).await;
    }

    async fn v2_and_v3_describe_the_same_farmers(app) {
        let token = app.token(integrator("BR")).await;
        let v2 = app.all_items("/api/v2/third_party/farmers", &token).await;
        let v3 = app.all_items("/api/v3/third_party/farmers?size=500", &token).await;
        assert_eq!(v2.len(), v3.len());
        for (old, new) in v2.iter().zip(&v3) {
            assert_eq!(old["id"], new["id"]);
            assert_eq!(old["area"], new["area"]);
            assert_eq!(old["date_modified"], new["updated_at"]);
        }
    }

    async fn a_farmers_area_is_the_sum_of_its_live_plots(app) {
        let token = app.token(integrator("AR")).await;
        let farmers = app.get_ok("/api/v3/third_party/farmers", &token).await;
        let farmer = &farmers["items"][0];
        let area = farmer["area"].as_f64().expect("area");
        assert_eq!(area, (area * 100.0).round() / 100.0, "two decimals at most");
        let establishments = app.all_items("/api/v3/third_party/establishments", &token).await;
        let owned = establishments.iter().filter(|e| e["farmer_id"] == farmer["id"]).count();
        assert!(owned >= 1, "a demo farmer owns establishments");
    }
}
