//! Black-box tests of the operations group: applicators (and their page quirk), machines, contractors, warehouses,
//! voucher and labour types, the v2 labour type attributes, work orders with their lines and state filters, and
//! objective-yield job status.

use std::collections::HashSet;

use chrono::{DateTime, FixedOffset};
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const APPLICATORS: &str = "/api/v3/third_party/applicators";
const WORK_ORDERS: &str = "/api/v3/third_party/work_orders";
const LABOUR_TYPES: &str = "/api/v3/third_party/application_order_labour_types";
const ATTRIBUTES: &str = "/api/v2/third_party/work_order_labour_type_attributes";
const JOBS: &str = "/api/v2/third_party/campaigns/update_objective_yield/jobs";

/// The v3 lists of the group whose items carry `id`, and so have a `/{id}` detail.
const V3_LISTS: &[&str] = &[
    APPLICATORS,
    "/api/v3/third_party/machines",
    "/api/v3/third_party/contractors",
    "/api/v3/third_party/warehouses",
    "/api/v3/third_party/voucher_types",
    LABOUR_TYPES,
];

fn keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    keys
}

fn instant(value: &Value) -> DateTime<FixedOffset> {
    DateTime::parse_from_rfc3339(value.as_str().expect("a timestamp string")).expect("an ISO 8601 timestamp")
}

fn is_timestamp(value: &Value) -> bool {
    value
        .as_str()
        .is_some_and(|text| DateTime::parse_from_rfc3339(text).is_ok())
}

fn is_text_or_null(value: &Value) -> bool {
    value.is_string() || value.is_null()
}

fn encoded(timestamp: &Value) -> String {
    timestamp.as_str().expect("a timestamp").replace('+', "%2B")
}

/// The society id of a demo integrator, as login reports it.
async fn society_of(app: &TestApp, country: &str) -> i64 {
    app.login_as(integrator(country)).await["society"]["id"]
        .as_i64()
        .expect("a society id")
}

/// Every campaign id of a society, read straight from the database.
async fn campaign_ids(app: &TestApp, society_id: i64) -> HashSet<i64> {
    app.integers("SELECT id FROM campaigns WHERE society_id = $1", society_id)
        .await
        .into_iter()
        .collect()
}

fn assert_state(state: &Value) {
    assert_eq!(keys(state), ["confirmed", "executed", "pending"]);
    assert!(state["pending"].is_boolean() && state["executed"].is_boolean() && state["confirmed"].is_boolean());
}

fn assert_ref(reference: &Value) {
    assert_eq!(keys(reference), ["local_id"], "{reference}");
    assert!(reference["local_id"].as_i64().is_some_and(|id| id > 0), "{reference}");
}

on_both_backends! {
    async fn every_list_of_the_group_answers_items_and_their_details(app) {
        let token = app.token(integrator("AR")).await;
        for path in V3_LISTS {
            let body = app.get_ok(path, &token).await;
            let items = body["items"].as_array().expect("items");
            assert!(!items.is_empty(), "{path} has demo data");
            assert_eq!(body["total_items"].as_u64(), Some(items.len() as u64), "{path} fits one page");
            let first = &items[0];
            assert!(first["id"].as_i64().is_some_and(|id| id > 0));
            assert!(first["active"].is_boolean() && is_timestamp(&first["created_at"]), "{path}: {first}");
            assert_eq!(app.get_ok(&format!("{path}/{}", first["id"]), &token).await, *first, "{path} detail");
        }
        let machine = &app.get_ok("/api/v3/third_party/machines", &token).await["items"][0];
        assert_eq!(keys(machine), ["active", "brand", "contractor_id", "created_at", "deleted_at", "external_code", "id", "kind", "license_plate", "model", "name", "updated_at", "year"]);
        let contractor = &app.get_ok("/api/v3/third_party/contractors", &token).await["items"][0];
        assert_eq!(keys(contractor), ["active", "created_at", "cuit", "deleted_at", "email", "external_code", "id", "name", "phone_number", "updated_at"]);
        assert!(contractor["cuit"].as_str().is_some_and(|cuit| cuit.starts_with("30-") && cuit.len() == 13), "{contractor}");
        let labour_type = &app.get_ok(LABOUR_TYPES, &token).await["items"][0];
        assert_eq!(keys(labour_type), ["active", "created_at", "deleted_at", "description", "id", "name", "updated_at", "voucher_type_id"]);
    }

    async fn applicators_have_exactly_the_specified_fields(app) {
        let token = app.token(integrator("BR")).await;
        let items = app.all_items(APPLICATORS, &token).await;
        assert!(!items.is_empty());
        for item in &items {
            assert_eq!(keys(item), ["active", "address", "created_at", "deleted_at", "email", "id", "machines", "modified_at", "name", "phone_number"]);
            assert!(item["id"].is_i64() && item["name"].is_string() && item["active"].is_boolean(), "{item}");
            for field in ["address", "phone_number", "email"] {
                assert!(is_text_or_null(&item[field]), "{field}: {item}");
            }
            assert!(is_timestamp(&item["created_at"]) && is_timestamp(&item["modified_at"]), "{item}");
            assert!(item["deleted_at"].is_null() || is_timestamp(&item["deleted_at"]), "{item}");
            let machines = item["machines"].as_array().expect("machines is an array");
            assert!(machines.iter().all(|m| m.as_i64().is_some_and(|id| id > 0)), "{item}");
        }
        assert!(items.iter().any(|i| i["machines"].as_array().is_some_and(Vec::is_empty)), "some applicator runs no machine");
        let with_machines = items.iter().find(|i| i["machines"].as_array().is_some_and(|m| !m.is_empty())).expect("one runs machines");
        let machine = app.get_ok(&format!("/api/v3/third_party/machines/{}", with_machines["machines"][0]), &token).await;
        assert!(["sprayer", "aircraft"].contains(&machine["kind"].as_str().unwrap_or_default()), "{machine}");
    }

    async fn applicators_answer_code_zero_past_the_last_page(app) {
        let token = app.token(integrator("AR")).await;
        let (code, message) = error_envelope(app.get(&format!("{APPLICATORS}?size=3&page=999"), &token).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 0, "the applicators quirk");
        let last = app.get_ok(&format!("{APPLICATORS}?size=3"), &token).await["total_pages"].as_u64().expect("pages");
        assert!(message.contains("999") && message.contains(&format!("({last})")), "names the page and the maximum: {message}");
        let (code, _) = error_envelope(app.get("/api/v3/third_party/machines?page=999", &token).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404, "other lists keep 404");
        let (code, _) = error_envelope(app.get(&format!("{WORK_ORDERS}?page=999"), &token).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404);
    }

    async fn active_and_audit_filters_apply_to_applicators(app) {
        let token = app.token(integrator("MX")).await;
        let inactive = app.get_ok(&format!("{APPLICATORS}?active=0"), &token).await;
        let items = inactive["items"].as_array().expect("items");
        assert!(!items.is_empty() && items.iter().all(|i| i["active"] == false), "{inactive}");
        let active = app.all_items(&format!("{APPLICATORS}?active=true"), &token).await;
        assert!(active.iter().all(|i| i["active"] == true));
        let (code, message) = error_envelope(app.get(&format!("{APPLICATORS}?active=yes"), &token).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(code, 400);
        assert!(message.contains("active"), "{message}");
        let all = app.all_items(APPLICATORS, &token).await;
        let latest = all.iter().map(|i| instant(&i["modified_at"])).max().expect("one");
        let since = all.iter().find(|i| instant(&i["modified_at"]) == latest).map(|i| encoded(&i["modified_at"])).expect("one");
        let changed = app.all_items(&format!("{APPLICATORS}?updated_at_from={since}"), &token).await;
        assert!(!changed.is_empty() && changed.iter().all(|i| instant(&i["modified_at"]) >= latest));
        let (code, _) = error_envelope(app.get(&format!("{APPLICATORS}?updated_from={since}"), &token).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(code, 400, "v2 names are not v3 names");
    }

    async fn the_v2_labour_type_attribute_detail_is_exact(app) {
        let token = app.token(integrator("AR")).await;
        let labour_type = app.get_ok(LABOUR_TYPES, &token).await["items"][0].clone();
        let detail = app.get_ok(&format!("{ATTRIBUTES}/{}", labour_type["id"]), &token).await;
        assert_eq!(keys(&detail), ["active", "created_at", "deleted_at", "description", "id", "modified_at", "name", "voucher_type_id"]);
        assert!(detail["id"].is_i64() && detail["voucher_type_id"].is_i64() && detail["active"].is_boolean());
        assert!(detail["name"].is_string() && detail["description"].is_string());
        assert!(is_timestamp(&detail["created_at"]) && is_timestamp(&detail["modified_at"]) && detail["deleted_at"].is_null());
        for field in ["id", "name", "description", "voucher_type_id", "created_at", "active"] {
            assert_eq!(detail[field], labour_type[field], "{field}");
        }
        assert_eq!(detail["modified_at"], labour_type["updated_at"]);
        let (code, message) = error_envelope(app.get(&format!("{ATTRIBUTES}/987654"), &token).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404);
        assert!(message.contains("987654"), "{message}");
    }

    async fn work_orders_are_the_full_writable_structure(app) {
        let token = app.token(integrator("AR")).await;
        let society = society_of(&app, "AR").await;
        let body = app.get_ok(&format!("{WORK_ORDERS}?size=50"), &token).await;
        let orders = body["items"].as_array().expect("items");
        assert_eq!(orders.len(), 50);
        assert!(body["total_items"].as_u64().is_some_and(|total| total > 200), "about 250 orders: {}", body["total_items"]);
        let mut lines = (0, 0);
        for order in orders {
            assert_eq!(keys(order), ["header", "labours", "supplies"]);
            let header = &order["header"];
            assert_eq!(keys(header), ["active", "created_at", "date", "deleted_at", "external_id", "extra_fields", "is_read_only", "local_id", "name", "state", "system_id", "updated_at", "voucher_date"]);
            assert_eq!(header["system_id"], "third_party");
            assert!(header["local_id"].is_i64() && header["name"].is_string() && is_text_or_null(&header["external_id"]));
            assert!(is_timestamp(&header["date"]) && is_timestamp(&header["voucher_date"]) && header["is_read_only"].is_boolean());
            assert_state(&header["state"]);
            assert_eq!(keys(&header["extra_fields"]), ["company", "voucher_type"]);
            assert_eq!(header["extra_fields"]["company"]["local_id"], society);
            assert_ref(&header["extra_fields"]["voucher_type"]);
            if header["state"]["confirmed"] == true {
                assert_eq!(header["state"]["executed"], true, "confirmed orders were executed");
                assert_eq!(header["state"]["pending"], false);
            }
            if header["is_read_only"] == true {
                assert_eq!(header["state"]["confirmed"], true, "only confirmed orders are locked");
            }
            for supply in order["supplies"].as_array().expect("supplies") {
                lines.0 += 1;
                assert_eq!(keys(supply), ["area_applied", "cultivation", "date", "formulated", "local_id", "state", "total_applied"]);
                assert_ref(&supply["cultivation"]);
                assert_ref(&supply["formulated"]);
                assert!(supply["area_applied"].as_f64().is_some_and(|a| a > 0.0) && supply["total_applied"].as_f64().is_some_and(|t| t > 0.0));
                assert!(is_timestamp(&supply["date"]) && supply["local_id"].is_i64());
                assert_state(&supply["state"]);
            }
            for labour in order["labours"].as_array().expect("labours") {
                lines.1 += 1;
                assert_eq!(keys(labour), ["applicators", "area_applied", "contractors", "cultivation", "date", "labour_type", "local_id", "machines", "state"]);
                assert_ref(&labour["cultivation"]);
                assert!(labour["labour_type"].is_null() || labour["labour_type"]["local_id"].is_i64());
                for list in ["contractors", "machines", "applicators"] {
                    labour[list].as_array().expect("an array").iter().for_each(assert_ref);
                }
                assert!(labour["area_applied"].as_f64().is_some_and(|a| a > 0.0) && is_timestamp(&labour["date"]));
                assert_state(&labour["state"]);
            }
        }
        assert!(lines.0 > 0 && lines.1 > 0, "orders carry supplies and labours");
        let first = &orders[0];
        let detail = app.get_ok(&format!("{WORK_ORDERS}/{}", first["header"]["local_id"]), &token).await;
        assert_eq!(&detail, first, "the detail is the list item");
    }

    async fn work_order_lines_point_at_campaigns_of_the_society(app) {
        let token = app.token(integrator("BR")).await;
        let campaigns = campaign_ids(&app, society_of(&app, "BR").await).await;
        assert!(!campaigns.is_empty());
        let orders = app.all_items(&format!("{WORK_ORDERS}?size=500"), &token).await;
        assert!(!orders.is_empty());
        for order in &orders {
            for line in order["supplies"].as_array().into_iter().flatten().chain(order["labours"].as_array().into_iter().flatten()) {
                let campaign = line["cultivation"]["local_id"].as_i64().expect("a campaign id");
                assert!(campaigns.contains(&campaign), "cultivation.local_id {campaign} is a campaign of the society (homonym rule)");
            }
        }
    }

    async fn work_order_state_filters_select_by_flag(app) {
        let token = app.token(integrator("AR")).await;
        let total = app.get_ok(WORK_ORDERS, &token).await["total_items"].as_u64().expect("total");
        for flag in ["pending", "executed", "confirmed"] {
            let mut counted = 0;
            for (value, expected) in [("1", true), ("false", false)] {
                let body = app.get_ok(&format!("{WORK_ORDERS}?{flag}={value}&size=500"), &token).await;
                let items = body["items"].as_array().expect("items");
                assert!(!items.is_empty(), "{flag}={value}");
                assert!(items.iter().all(|o| o["header"]["state"][flag] == expected), "{flag}={value}");
                counted += body["total_items"].as_u64().expect("total");
            }
            assert_eq!(counted, total, "{flag} splits the list in two");
            let (code, message) = error_envelope(app.get(&format!("{WORK_ORDERS}?{flag}=maybe"), &token).await, StatusCode::BAD_REQUEST).await;
            assert_eq!(code, 400);
            assert!(message.contains(flag) && message.contains("maybe"), "{message}");
        }
        let both = app.get_ok(&format!("{WORK_ORDERS}?confirmed=true&pending=0&size=500"), &token).await;
        assert!(both["items"].as_array().expect("items").iter().all(|o| o["header"]["state"]["confirmed"] == true && o["header"]["state"]["pending"] == false));
    }

    async fn work_order_audit_filters_and_active(app) {
        let token = app.token(integrator("MX")).await;
        let orders = app.all_items(&format!("{WORK_ORDERS}?size=500"), &token).await;
        assert!(orders.iter().all(|o| o["header"]["deleted_at"].is_null()), "deleted orders are left out by default");
        let mut updated: Vec<DateTime<FixedOffset>> = orders.iter().map(|o| instant(&o["header"]["updated_at"])).collect();
        updated.sort_unstable();
        let middle = updated[updated.len() / 2];
        let since = middle.to_rfc3339().replace('+', "%2B");
        let recent = app.all_items(&format!("{WORK_ORDERS}?updated_at_from={since}&size=500"), &token).await;
        assert_eq!(recent.len(), updated.iter().filter(|u| **u >= middle).count());
        assert!(recent.iter().all(|o| instant(&o["header"]["updated_at"]) >= middle));
        let created = app.all_items(&format!("{WORK_ORDERS}?created_at_from={since}&size=500"), &token).await;
        assert!(created.iter().all(|o| instant(&o["header"]["created_at"]) >= middle));
        let deleted = app.all_items(&format!("{WORK_ORDERS}?deleted_at_from=2000-01-01T00:00:00-03:00&size=500"), &token).await;
        assert!(!deleted.is_empty(), "the demo has deleted orders");
        assert!(deleted.iter().all(|o| is_timestamp(&o["header"]["deleted_at"])));
        let inactive = app.all_items(&format!("{WORK_ORDERS}?active=0&size=500"), &token).await;
        assert!(!inactive.is_empty() && inactive.iter().all(|o| o["header"]["active"] == false));
        error_envelope(app.get(&format!("{WORK_ORDERS}?updated_at_from=2025-01-01"), &token).await, StatusCode::BAD_REQUEST).await;
    }

    async fn details_are_404_for_unknown_ids_and_other_societies(app) {
        let argentina = app.token(integrator("AR")).await;
        let mexico = app.token(integrator("MX")).await;
        let (code, message) = error_envelope(app.get(&format!("{WORK_ORDERS}/987654321"), &argentina).await, StatusCode::NOT_FOUND).await;
        assert_eq!(code, 404);
        assert!(message.contains("work_orders") && message.contains("987654321"), "{message}");
        error_envelope(app.get(&format!("{WORK_ORDERS}/abc"), &argentina).await, StatusCode::NOT_FOUND).await;
        let theirs = app.get_ok(WORK_ORDERS, &mexico).await["items"][0]["header"]["local_id"].clone();
        app.get_ok(&format!("{WORK_ORDERS}/{theirs}"), &mexico).await;
        let (_, message) = error_envelope(app.get(&format!("{WORK_ORDERS}/{theirs}"), &argentina).await, StatusCode::NOT_FOUND).await;
        assert!(message.contains(&theirs.to_string()), "{message}");
        for path in V3_LISTS.iter().take(4) {
            let theirs = app.get_ok(path, &mexico).await["items"][0]["id"].clone();
            error_envelope(app.get(&format!("{path}/{theirs}"), &argentina).await, StatusCode::NOT_FOUND).await;
            error_envelope(app.get(&format!("{path}/987654321"), &argentina).await, StatusCode::NOT_FOUND).await;
        }
        let ours: HashSet<i64> = app.all_items(&format!("{WORK_ORDERS}?size=500"), &argentina).await.iter().filter_map(|o| o["header"]["local_id"].as_i64()).collect();
        let theirs: HashSet<i64> = app.all_items(&format!("{WORK_ORDERS}?size=500"), &mexico).await.iter().filter_map(|o| o["header"]["local_id"].as_i64()).collect();
        assert!(ours.is_disjoint(&theirs), "lists never mix societies");
    }

    async fn objective_yield_jobs_report_their_status(app) {
        let token = app.token(integrator("AR")).await;
        let body = app.get_ok(JOBS, &token).await;
        let jobs = body["items"].as_array().expect("items");
        assert!(!jobs.is_empty());
        for job in jobs {
            assert_eq!(keys(job), ["created_at", "error", "failed_items", "finished_at", "id", "processed_items", "result", "started_at", "status", "total_items", "updated_at"]);
            assert_eq!(job["status"], "finished");
            assert_eq!(job["processed_items"], job["total_items"]);
            assert!(job["result"]["updated"].is_u64() && job["result"]["refused"].is_array(), "{job}");
            assert!(job["error"].is_null() && is_timestamp(&job["started_at"]) && is_timestamp(&job["finished_at"]));
            let refused = job["result"]["refused"].as_array().map_or(0, Vec::len);
            assert_eq!(job["failed_items"].as_u64(), Some(refused as u64));
        }
        let (code, _) = error_envelope(app.get(&format!("{JOBS}?updated_at_from=2025-01-01T00:00:00%2B00:00"), &token).await, StatusCode::BAD_REQUEST).await;
        assert_eq!(code, 400, "a v2 list speaks v2 filter names");
        let later = app.get_ok(&format!("{JOBS}?created_from=2099-01-01T00:00:00%2B00:00"), &token).await;
        assert_eq!(later["total_items"], 0);
    }
}
