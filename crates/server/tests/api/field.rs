//! Black-box tests of the field group: every list answers the demo's records with its fields and types, the slices
//! of shared tables add up, `active` and the audit filters of each generation work, details answer or 404, and no
//! society sees another's records.

use chrono::DateTime;
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const AUDIT: [&str; 4] = ["active", "created_at", "deleted_at", "modified_at"];

/// Every list of the group, its items' fields besides the audit ones, and whether it has the audit ones
/// (`active`, `created_at`, `modified_at`, `deleted_at`); the v2 catalogues have only `modified_at`, listed.
const LISTS: &[(&str, &[&str], bool)] = &[
    (
        "/api/v3/third_party/scouting",
        &[
            "campaign_id",
            "date",
            "hydric_state_id",
            "id",
            "kind",
            "observations",
            "phenological_state_id",
            "plot_id",
            "scout_name",
        ],
        true,
    ),
    (
        "/api/v3/third_party/scouting_measures",
        &[
            "adversity_id",
            "id",
            "incidence_percent",
            "individuals",
            "sample_number",
            "scouting_id",
            "severity_percent",
        ],
        true,
    ),
    (
        "/api/v3/third_party/waypoints",
        &[
            "accuracy",
            "date",
            "file_name",
            "file_storage_url",
            "id",
            "lat",
            "lon",
            "observations",
            "parent_id",
            "parent_type",
            "sample_number",
            "waypoint_kind",
        ],
        true,
    ),
    (
        "/api/v2/third_party/adversity",
        &[
            "adv_category_id",
            "adv_kind_id",
            "id",
            "modified_at",
            "name",
            "scientific_name",
        ],
        false,
    ),
    (
        "/api/v2/third_party/adversity_categories",
        &["adv_kind_id", "description", "id", "modified_at", "name"],
        false,
    ),
    (
        "/api/v2/third_party/adversity_kinds",
        &["id", "modified_at", "name"],
        false,
    ),
    ("/api/v3/third_party/progress_report", PROGRESS, true),
    ("/api/v3/third_party/planting_progress", PROGRESS, true),
    ("/api/v3/third_party/harvest_progress", PROGRESS, true),
    ("/api/v3/third_party/fertilization_control", CONTROL, true),
    ("/api/v3/third_party/planting_control", CONTROL, true),
    ("/api/v3/third_party/plant_stand_control", CONTROL, true),
    (
        "/api/v3/third_party/silobags",
        &[
            "capacity_tn",
            "closed_at",
            "establishment_id",
            "external_code",
            "id",
            "latitude",
            "length_m",
            "longitude",
            "name",
            "cultivation_id",
        ],
        true,
    ),
    (
        "/api/v3/third_party/silobag_campaigns",
        &[
            "campaign_id",
            "grain_humidity_percent",
            "grain_quality_semaphore",
            "id",
            "observations",
            "quantity_tn",
            "silobag_id",
        ],
        true,
    ),
    (
        "/api/v3/third_party/weather_anomaly",
        &["id", "weather_anomaly_type_id", "weather_scouting_sample_id"],
        true,
    ),
    (
        "/api/v3/third_party/weather_anomaly_types",
        &["climatic_factor_id", "id", "name"],
        true,
    ),
    ("/api/v3/third_party/climatic_factors", &["id", "name"], true),
    (
        "/api/v3/third_party/devices",
        &[
            "establishment_id",
            "id",
            "kind",
            "latitude",
            "longitude",
            "name",
            "serial_number",
            "silobag_id",
        ],
        true,
    ),
    (
        "/api/v3/third_party/device_events",
        &["device_event_type_id", "device_id", "id", "recorded_at", "value"],
        true,
    ),
    (
        "/api/v3/third_party/device_event_types",
        &["code", "id", "name", "unit_id"],
        true,
    ),
];

const PROGRESS: &[&str] = &[
    "area_done",
    "campaign_id",
    "date",
    "humidity_percent",
    "id",
    "kind",
    "percent",
    "plot_id",
    "yield_kg_ha",
];
const CONTROL: &[&str] = &[
    "campaign_id",
    "date",
    "formulated_id",
    "id",
    "kind",
    "measured_value",
    "observations",
    "plot_id",
    "target_value",
    "unit_id",
];

/// The v3 lists of society-owned records.
const OWNED: &[&str] = &[
    "scouting",
    "scouting_measures",
    "waypoints",
    "progress_report",
    "planting_progress",
    "harvest_progress",
    "fertilization_control",
    "planting_control",
    "plant_stand_control",
    "silobags",
    "silobag_campaigns",
    "weather_anomaly",
    "devices",
    "device_events",
];

fn keys(item: &Value) -> Vec<String> {
    let mut keys: Vec<String> = item.as_object().expect("an object").keys().cloned().collect();
    keys.sort_unstable();
    keys
}

fn expected_keys(fields: &[&str], audit: bool) -> Vec<String> {
    let mut keys: Vec<String> = fields.iter().map(|k| (*k).to_owned()).collect();
    if audit {
        keys.extend(AUDIT.iter().map(|k| (*k).to_owned()));
    }
    keys.sort_unstable();
    keys
}

fn is_timestamp(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|s| DateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%:z").is_ok())
}

fn millis(value: &Value) -> i64 {
    DateTime::parse_from_rfc3339(value.as_str().expect("a timestamp"))
        .expect("an ISO 8601 timestamp")
        .timestamp_millis()
}

fn is_decimal_string(value: &Value) -> bool {
    value.as_str().is_some_and(|s| s.parse::<f64>().is_ok())
}

/// A timestamp in a query string.
fn query_time(value: &Value) -> String {
    value.as_str().expect("a timestamp").replace('+', "%2B")
}

async fn ids(app: &TestApp, path: &str, token: &str) -> Vec<i64> {
    let separator = if path.contains('?') { '&' } else { '?' };
    let mut ids: Vec<i64> = app
        .all_items(&format!("{path}{separator}size=500"), token)
        .await
        .iter()
        .map(|item| item["id"].as_i64().expect("an integer id"))
        .collect();
    ids.sort_unstable();
    ids
}

on_both_backends! {
    async fn every_list_answers_demo_records_with_its_fields(app) {
        let token = app.token(integrator("AR")).await;
        for (path, fields, audit) in LISTS {
            let body = app.get_ok(path, &token).await;
            let items = body["items"].as_array().expect("items");
            assert!(!items.is_empty(), "{path} has demo records");
            let expected = expected_keys(fields, *audit);
            for item in items {
                assert_eq!(keys(item), expected, "{path}");
                assert!(item["id"].is_i64(), "{path}: {item}");
                if *audit {
                    assert!(item["active"].is_boolean(), "{path}: {item}");
                    assert!(is_timestamp(&item["created_at"]) && is_timestamp(&item["modified_at"]), "{path}: {item}");
                    assert!(item["deleted_at"].is_null(), "live records only: {path}: {item}");
                } else {
                    assert!(is_timestamp(&item["modified_at"]), "{path}: {item}");
                }
            }
        }
    }

    async fn scouting_lists_span_several_pages(app) {
        let token = app.token(integrator("AR")).await;
        for path in ["/api/v3/third_party/scouting", "/api/v3/third_party/device_events"] {
            let body = app.get_ok(path, &token).await;
            assert!(body["total_pages"].as_u64().is_some_and(|pages| pages >= 2), "{path}: {}", body["total_pages"]);
            assert_eq!(body["items"].as_array().map(Vec::len), Some(100));
        }
    }

    async fn waypoints_have_the_specified_types(app) {
        let token = app.token(integrator("BR")).await;
        let items = app.all_items("/api/v3/third_party/waypoints?size=500", &token).await;
        assert!(!items.is_empty());
        for item in &items {
            for field in ["id", "parent_id", "sample_number"] {
                assert!(item[field].is_i64(), "{field}: {item}");
            }
            assert!(["trap_scoutings", "scoutings"].contains(&item["parent_type"].as_str().unwrap_or_default()), "{item}");
            assert_eq!(item["waypoint_kind"], "picture");
            for field in ["lat", "lon"] {
                assert!(item[field].is_null() || is_decimal_string(&item[field]), "{field}: {item}");
            }
            assert!(is_decimal_string(&item["accuracy"]), "{item}");
            assert!(item["observations"].is_null() || item["observations"].is_string(), "{item}");
            assert!(item["file_name"].as_str().is_some_and(|name| name.ends_with(".jpg")), "{item}");
            let url = item["file_storage_url"].as_str().expect("a URL");
            assert!(url.starts_with("https://storage.tranquera.invalid/") && url.ends_with(item["file_name"].as_str().unwrap_or("?")), "{url}");
            for field in ["date", "created_at", "modified_at"] {
                assert!(is_timestamp(&item[field]), "{field}: {item}");
            }
            assert!(item["active"].is_boolean());
        }
        assert!(items.iter().any(|w| w["parent_type"] == "trap_scoutings"));
        assert!(items.iter().any(|w| w["lat"].is_string()));
    }

    async fn adversity_catalogues_are_shared_and_linked(app) {
        let argentina = app.token(integrator("AR")).await;
        let mexico = app.token(integrator("MX")).await;
        let kinds = app.all_items("/api/v2/third_party/adversity_kinds", &argentina).await;
        let categories = app.all_items("/api/v2/third_party/adversity_categories", &argentina).await;
        let adversities = app.all_items("/api/v2/third_party/adversity", &argentina).await;
        let names: Vec<&str> = kinds.iter().filter_map(|k| k["name"].as_str()).collect();
        assert_eq!(names, ["Plaga", "Enfermedad", "Maleza"]);
        for category in &categories {
            assert!(category["adv_kind_id"].is_i64() && category["name"].is_string() && category["description"].is_string(), "{category}");
            assert!(kinds.iter().any(|k| k["id"] == category["adv_kind_id"]), "{category}");
        }
        assert!(categories.iter().any(|c| c["description"] == ""), "a description may be empty");
        let chinche = adversities.iter().find(|a| a["name"] == "Chinche verde").expect("Chinche verde");
        assert_eq!(chinche["scientific_name"], "Nezara viridula");
        let category = categories.iter().find(|c| c["id"] == chinche["adv_category_id"]).expect("its category");
        assert_eq!(category["adv_kind_id"], chinche["adv_kind_id"]);
        // The same records for every society, each rendered in its society's offset.
        let instants = |items: &[Value]| -> Vec<(i64, i64)> {
            items.iter().map(|a| (a["id"].as_i64().unwrap_or_default(), millis(&a["modified_at"]))).collect()
        };
        let in_mexico = app.all_items("/api/v2/third_party/adversity", &mexico).await;
        assert_eq!(instants(&in_mexico), instants(&adversities), "global");
    }

    async fn v2_catalogues_speak_v2_filters(app) {
        let token = app.token(integrator("AR")).await;
        let kinds = app.get_ok("/api/v2/third_party/adversity_kinds", &token).await;
        let since = query_time(&kinds["items"][0]["modified_at"]);
        let changed = app.get_ok(&format!("/api/v2/third_party/adversity_kinds?updated_from={since}"), &token).await;
        assert_eq!(changed["items"], kinds["items"]);
        let deleted = app.get_ok(&format!("/api/v2/third_party/adversity_categories?deleted_from={since}"), &token).await;
        assert_eq!(deleted["total_items"], 0);
        let (code, message) = error_envelope(app.get(&format!("/api/v2/third_party/adversity?updated_at_from={since}"), &token).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(code, 400);
        assert!(message.contains("updated_from"), "{message}");
    }

    async fn weather_anomalies_are_exactly_the_specified_item(app) {
        let token = app.token(integrator("MX")).await;
        let anomalies = app.all_items("/api/v3/third_party/weather_anomaly", &token).await;
        let types = app.all_items("/api/v3/third_party/weather_anomaly_types", &token).await;
        let factors = app.all_items("/api/v3/third_party/climatic_factors", &token).await;
        assert!(!anomalies.is_empty());
        for anomaly in &anomalies {
            assert_eq!(keys(anomaly), ["active", "created_at", "deleted_at", "id", "modified_at", "weather_anomaly_type_id", "weather_scouting_sample_id"]);
            assert!(anomaly["weather_scouting_sample_id"].is_i64());
            assert!(types.iter().any(|t| t["id"] == anomaly["weather_anomaly_type_id"]), "{anomaly}");
        }
        for kind in &types {
            assert!(factors.iter().any(|f| f["id"] == kind["climatic_factor_id"]), "{kind}");
        }
        assert!(types.iter().any(|t| t["name"] == "Granizo severo"));
    }

    async fn progress_report_is_planting_plus_harvest(app) {
        let token = app.token(integrator("AR")).await;
        let report = app.all_items("/api/v3/third_party/progress_report?size=500", &token).await;
        let planting = app.all_items("/api/v3/third_party/planting_progress?size=500", &token).await;
        let harvest = app.all_items("/api/v3/third_party/harvest_progress?size=500", &token).await;
        assert!(!planting.is_empty() && !harvest.is_empty());
        assert!(planting.iter().all(|p| p["kind"] == "planting" && p["yield_kg_ha"].is_null()));
        assert!(harvest.iter().all(|h| h["kind"] == "harvest" && h["yield_kg_ha"].as_f64().is_some_and(|y| y > 500.0)));
        let mut union: Vec<Value> = planting.iter().chain(&harvest).cloned().collect();
        union.sort_by_key(|item| item["id"].as_i64());
        assert_eq!(report, union);
        let detail = app.get_ok(&format!("/api/v3/third_party/harvest_progress/{}", harvest[0]["id"]), &token).await;
        assert_eq!(detail, harvest[0]);
        let (_, message) = error_envelope(app.get(&format!("/api/v3/third_party/planting_progress/{}", harvest[0]["id"]), &token).await, StatusCode::NOT_FOUND).await;
        assert!(message.contains("planting_progress"), "a harvest record is not planting progress: {message}");
        // Within a campaign, progress only grows over time.
        for kind in [&planting, &harvest] {
            let mut by_campaign: Vec<&Value> = kind.iter().collect();
            by_campaign.sort_by_key(|p| (p["campaign_id"].as_i64(), millis(&p["date"])));
            for pair in by_campaign.windows(2) {
                if pair[0]["campaign_id"] == pair[1]["campaign_id"] {
                    assert!(pair[0]["percent"].as_f64() < pair[1]["percent"].as_f64(), "{} then {}", pair[0], pair[1]);
                }
            }
        }
    }

    async fn field_controls_are_slices_by_kind(app) {
        let token = app.token(integrator("BR")).await;
        for (path, kind) in [("fertilization_control", "fertilization"), ("planting_control", "planting"), ("plant_stand_control", "plant_stand")] {
            let items = app.all_items(&format!("/api/v3/third_party/{path}?size=500"), &token).await;
            assert!(!items.is_empty(), "{path}");
            assert!(items.iter().all(|c| c["kind"] == kind && c["target_value"].is_f64() && c["measured_value"].is_f64()), "{path}");
            assert_eq!(app.get_ok(&format!("/api/v3/third_party/{path}/{}", items[0]["id"]), &token).await, items[0]);
            // A record of this slice is not a record of the others.
            for other in ["fertilization_control", "planting_control", "plant_stand_control"].into_iter().filter(|o| *o != path) {
                let (_, message) = error_envelope(app.get(&format!("/api/v3/third_party/{other}/{}", items[0]["id"]), &token).await, StatusCode::NOT_FOUND).await;
                assert!(message.contains(other), "{message}");
            }
        }
    }

    async fn silobag_rows_belong_to_the_societys_silobags(app) {
        let token = app.token(integrator("AR")).await;
        let silobags = app.all_items("/api/v3/third_party/silobags", &token).await;
        let rows = app.all_items("/api/v3/third_party/silobag_campaigns", &token).await;
        assert!(!rows.is_empty());
        for row in &rows {
            let silobag = silobags.iter().find(|s| s["id"] == row["silobag_id"]).expect("its silobag");
            let stored: f64 = rows.iter().filter(|r| r["silobag_id"] == row["silobag_id"]).filter_map(|r| r["quantity_tn"].as_f64()).sum();
            assert!(stored <= silobag["capacity_tn"].as_f64().unwrap_or_default(), "{silobag}");
            assert!(row["grain_quality_semaphore"].is_i64() && row["observations"].is_string(), "{row}");
        }
        let devices = app.all_items("/api/v3/third_party/devices", &token).await;
        assert!(devices.iter().any(|d| d["kind"] == "silobag_sensor" && silobags.iter().any(|s| s["id"] == d["silobag_id"])));
        assert!(devices.iter().any(|d| d["kind"] == "weather_station"));
    }

    async fn active_filters_and_rejects_non_booleans(app) {
        let token = app.token(integrator("AR")).await;
        for list in ["waypoints", "scouting"] {
            let path = format!("/api/v3/third_party/{list}");
            let all = ids(&app, &path, &token).await;
            let active = ids(&app, &format!("{path}?active=1"), &token).await;
            let inactive = ids(&app, &format!("{path}?active=0"), &token).await;
            assert_eq!(ids(&app, &format!("{path}?active=true"), &token).await, active);
            assert_eq!(ids(&app, &format!("{path}?active=false"), &token).await, inactive);
            assert!(!inactive.is_empty(), "the demo has inactive {list}");
            assert_eq!(active.len() + inactive.len(), all.len());
            let first_inactive = app.get_ok(&format!("{path}/{}", inactive[0]), &token).await;
            assert_eq!(first_inactive["active"], false);
            let (code, message) = error_envelope(app.get(&format!("{path}?active=yes"), &token).await, StatusCode::BAD_REQUEST).await;
            assert_eq!(code, 400);
            assert!(message.contains("true") && message.contains('1'), "{message}");
        }
    }

    async fn v3_audit_filters_select_changes_and_deletions(app) {
        let token = app.token(integrator("AR")).await;
        let path = "/api/v3/third_party/waypoints";
        let items = app.all_items(&format!("{path}?size=500"), &token).await;
        let mut stamps: Vec<i64> = items.iter().map(|w| millis(&w["modified_at"])).collect();
        stamps.sort_unstable();
        let middle = items.iter().find(|w| millis(&w["modified_at"]) == stamps[stamps.len() / 2]).expect("an item");
        let since = query_time(&middle["modified_at"]);
        let changed = app.all_items(&format!("{path}?size=500&updated_at_from={since}"), &token).await;
        assert!(!changed.is_empty() && changed.len() < items.len());
        assert!(changed.iter().all(|w| millis(&w["modified_at"]) >= stamps[stamps.len() / 2]));
        let created = app.all_items(&format!("{path}?size=500&created_at_from={since}"), &token).await;
        assert!(created.iter().all(|w| millis(&w["created_at"]) >= stamps[stamps.len() / 2]));
        let epoch = "2000-01-01T00:00:00-03:00";
        let deleted = app.all_items(&format!("/api/v3/third_party/scouting?size=500&deleted_at_from={epoch}"), &token).await;
        assert!(!deleted.is_empty(), "the demo has deleted scoutings");
        assert!(deleted.iter().all(|s| is_timestamp(&s["deleted_at"])));
        let detail = app.get_ok(&format!("/api/v3/third_party/scouting/{}", deleted[0]["id"]), &token).await;
        assert_eq!(detail, deleted[0]);
        let (code, message) = error_envelope(app.get(&format!("{path}?updated_from={since}"), &token).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(code, 400);
        assert!(message.contains("updated_at_from"), "{message}");
        let (_, message) = error_envelope(app.get(&format!("{path}?updated_at_from=2024-03-01"), &token).await, StatusCode::BAD_REQUEST).await;
        assert!(!message.is_empty());
    }

    async fn waypoint_detail_and_unknown_ids(app) {
        let token = app.token(integrator("AR")).await;
        let first = app.get_ok("/api/v3/third_party/waypoints", &token).await["items"][0].clone();
        let detail = app.get_ok(&format!("/api/v3/third_party/waypoints/{}", first["id"]), &token).await;
        assert_eq!(detail, first);
        let (code, message) = error_envelope(app.get("/api/v3/third_party/waypoints/987654321", &token).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404);
        assert!(message.contains("waypoints") && message.contains("987654321"), "{message}");
        let (_, message) = error_envelope(app.get("/api/v3/third_party/device_events/xyz", &token).await, StatusCode::NOT_FOUND).await;
        assert!(message.contains("device_events") && message.contains("xyz"), "{message}");
    }

    async fn another_societys_field_records_are_invisible(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        for list in OWNED {
            let path = format!("/api/v3/third_party/{list}");
            let theirs = app.get_ok(&path, &brazil).await["items"][0].clone();
            assert!(theirs["id"].is_i64(), "{list}: Brazil has records");
            let (_, message) = error_envelope(app.get(&format!("{path}/{}", theirs["id"]), &argentina).await, StatusCode::NOT_FOUND).await;
            assert!(message.contains(list), "{message}");
            assert_eq!(app.get_ok(&format!("{path}/{}", theirs["id"]), &brazil).await, theirs);
            let ours = ids(&app, &path, &argentina).await;
            assert!(!ours.contains(&theirs["id"].as_i64().unwrap_or_default()), "{list}");
        }
    }
}
