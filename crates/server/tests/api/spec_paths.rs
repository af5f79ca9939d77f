//! Every GET path in the specification's endpoint tables answers 200 with a non-empty page on demo data, and no
//! society-scoped record of one society is readable by another, by list or by id.

use std::collections::HashSet;

use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

/// The list paths of the specification's endpoint tables.
const SPEC_LISTS: &[&str] = &[
    "/api/v3/third_party/work_orders",
    "/api/v3/third_party/establishments",
    "/api/v2/third_party/plots",
    "/api/v2/plots",
    "/api/v3/third_party/cultivations",
    "/api/v3/third_party/formulateds",
    "/api/v3/third_party/applicators",
    "/api/v3/third_party/machines",
    "/api/v2/third_party/farmers",
    "/api/v3/third_party/farmers",
    "/api/v3/third_party/campaigns",
    "/api/v3/third_party/master_campaigns",
    "/api/v3/third_party/master_campaign_cycles",
    "/api/v3/third_party/scouting",
    "/api/v3/third_party/progress_report",
    "/api/v3/third_party/silobags",
    "/api/v3/third_party/waypoints",
    "/api/v3/third_party/weather_anomaly",
    "/api/v3/third_party/devices",
    "/api/v3/third_party/device_events",
    "/api/v2/third_party/adversity",
    "/api/v2/third_party/adversity_categories",
    "/api/v2/third_party/adversity_kinds",
    "/api/v2/third_party/campaigns/update_objective_yield/jobs",
];

/// v3 lists of society-owned records, each with a `/{id}` detail.
const SOCIETY_LISTS: &[&str] = &[
    "/api/v3/third_party/establishments",
    "/api/v3/third_party/cultivations",
    "/api/v3/third_party/applicators",
    "/api/v3/third_party/machines",
    "/api/v3/third_party/campaigns",
    "/api/v3/third_party/master_campaigns",
    "/api/v3/third_party/scouting",
    "/api/v3/third_party/silobags",
    "/api/v3/third_party/waypoints",
    "/api/v3/third_party/weather_anomaly",
    "/api/v3/third_party/devices",
    "/api/v3/third_party/device_events",
];

/// The work-order writes of the specification's endpoint table, method and path as the specification spells them.
const SPEC_WORK_ORDER_WRITES: &[(&str, &str)] = &[
    ("post", "/integration/api/v1/workOrders"),
    ("patch", "/integration/api/v1/workOrders/{localId}"),
    ("delete", "/integration/api/v1/workOrders/{localId}"),
];

#[test]
fn the_documented_work_order_writes_are_the_specified_paths_verbatim() {
    let document = serde_json::to_value(server::openapi_document("SVC")).expect("JSON");
    for (method, path) in SPEC_WORK_ORDER_WRITES {
        let operation = &document["paths"][path][method];
        assert!(
            operation.is_object(),
            "{method} {path} is documented as the specification spells it"
        );
        if let Some(name) = path
            .strip_suffix('}')
            .and_then(|path| path.rsplit_once('{'))
            .map(|(_, name)| name)
        {
            let parameters = operation["parameters"].as_array().expect("parameters");
            assert!(
                parameters.iter().any(|p| p["name"] == name && p["in"] == "path"),
                "{method} {path} names its path parameter {name}"
            );
        }
    }
}

/// The record's id: `id`, or a work order's `header.local_id`.
fn id_of(item: &Value) -> Option<i64> {
    item["id"].as_i64().or_else(|| item["header"]["local_id"].as_i64())
}

async fn ids(app: &TestApp, path: &str, token: &str) -> HashSet<i64> {
    app.all_items(&format!("{path}?size=500"), token)
        .await
        .iter()
        .filter_map(id_of)
        .collect()
}

on_both_backends! {
    async fn every_specified_list_answers_a_non_empty_page(app) {
        let token = app.token(integrator("AR")).await;
        for path in SPEC_LISTS {
            let body = app.get_ok(path, &token).await;
            let items = body["items"].as_array().unwrap_or_else(|| panic!("{path}: items"));
            assert!(!items.is_empty(), "{path} has demo data");
            assert!(items.iter().all(|item| id_of(item).is_some()), "{path}: every item has an id");
            for field in ["current_page", "total_pages", "total_items"] {
                assert!(body[field].is_u64(), "{path}: {field}");
            }
        }
    }

    async fn the_specified_details_answer_their_record(app) {
        let token = app.token(integrator("AR")).await;
        let waypoint = app.get_ok("/api/v3/third_party/waypoints", &token).await["items"][0].clone();
        let detail = app.get_ok(&format!("/api/v3/third_party/waypoints/{}", waypoint["id"]), &token).await;
        assert_eq!(detail, waypoint);
        let labour_type = app.get_ok("/api/v3/third_party/application_order_labour_types", &token).await["items"][0]["id"].clone();
        let attributes = app.get_ok(&format!("/api/v2/third_party/work_order_labour_type_attributes/{labour_type}"), &token).await;
        assert_eq!(attributes["id"], labour_type);
    }

    async fn no_society_reads_another_societys_records(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        for path in SOCIETY_LISTS {
            let ar = ids(&app, path, &argentina).await;
            let br = ids(&app, path, &brazil).await;
            assert!(!ar.is_empty() && !br.is_empty(), "{path} has demo data in both societies");
            assert!(ar.is_disjoint(&br), "{path}: lists of two societies share records");
            let foreign = ar.iter().next().copied().unwrap_or_default();
            let response = app.get(&format!("{path}/{foreign}"), &brazil).await;
            error_envelope(response, StatusCode::NOT_FOUND).await;
        }
    }

    async fn per_country_catalogues_differ_between_countries(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        for path in ["/api/v3/third_party/formulateds", "/api/v3/third_party/master_campaign_cycles"] {
            let ar = ids(&app, path, &argentina).await;
            let br = ids(&app, path, &brazil).await;
            assert!(!ar.is_empty() && ar.is_disjoint(&br), "{path} is per country");
            let brazilian = br.iter().next().copied().unwrap_or_default();
            error_envelope(app.get(&format!("{path}/{brazilian}"), &argentina).await, StatusCode::NOT_FOUND).await;
        }
    }
}
