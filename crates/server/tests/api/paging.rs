//! Keyset paging and conditional reads, checked against the straightforward query: every page a list serves from its
//! page index holds exactly the rows `ORDER BY id LIMIT … OFFSET …` would, with the totals `count(*)` would give,
//! before and after writes (through this process or another), whether or not the process kept an earlier answer; and
//! a list's `ETag` changes when, and only when, the society's data does.

use reqwest::header::{ETAG, IF_NONE_MATCH};
use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::helpers::{integrator, Setup, TestApp};
use crate::{on_both_backends, on_both_backends_with};

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";

async fn society_of(app: &TestApp, country: &str) -> i64 {
    app.login_as(integrator(country)).await["society"]["id"]
        .as_i64()
        .expect("a society id")
}

fn ids(page: &Value) -> Vec<i64> {
    page["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["id"].as_i64().expect("an id"))
        .collect()
}

/// Checks every page of `path` (whose query already holds its filters) against `ORDER BY id LIMIT size OFFSET …` on
/// `table` restricted by `condition`, and the envelope's totals against `count(*)`.
async fn assert_pages_match(app: &TestApp, token: &str, path: &str, size: u64, table: &str, condition: &str) {
    let society = society_of(app, "AR").await;
    let expected_total = app
        .integers(
            &format!("SELECT COUNT(*) FROM {table} t WHERE t.society_id = $1 AND {condition}"),
            society,
        )
        .await[0];
    let expected_total = u64::try_from(expected_total).expect("a count");
    let pages = expected_total.div_ceil(size).max(1);
    assert!(
        pages >= 2,
        "{path}: the demo gives too few rows ({expected_total}) to page through"
    );
    for page in 1..=pages {
        let separator = if path.contains('?') { '&' } else { '?' };
        let body = app.get_ok(&format!("{path}{separator}page={page}"), token).await;
        let offset = (page - 1) * size;
        let expected = app
            .integers(
                &format!(
                    "SELECT t.id FROM {table} t WHERE t.society_id = $1 AND {condition} ORDER BY t.id \
                 LIMIT {size} OFFSET {offset}"
                ),
                society,
            )
            .await;
        assert_eq!(ids(&body), expected, "{path} page {page}");
        assert_eq!(body["total_items"], json!(expected_total), "{path} page {page}");
        assert_eq!(body["total_pages"], json!(pages), "{path} page {page}");
        assert_eq!(body["current_page"], json!(page));
        let next = if page < pages { json!(page + 1) } else { Value::Null };
        assert_eq!(body["next_page"], next, "{path} page {page}");
    }
}

async fn create_establishment(app: &TestApp, token: &str, name: &str) -> i64 {
    let farmers = app.get_ok("/api/v3/third_party/farmers?size=1", token).await;
    let farmer = farmers["items"][0]["id"].as_i64().expect("a farmer");
    let response = app
        .post(ESTABLISHMENTS, token, &json!({ "name": name, "farmer_id": farmer }))
        .await;
    assert_eq!(response.status(), StatusCode::CREATED);
    let created: Value = response.json().await.expect("JSON");
    created["id"].as_i64().expect("an id")
}

async fn etag_of(app: &TestApp, path: &str, token: &str) -> String {
    let response = app.get(path, token).await;
    assert_eq!(response.status(), StatusCode::OK);
    response
        .headers()
        .get(ETAG)
        .and_then(|value| value.to_str().ok())
        .expect("an ETag on every list answer")
        .to_owned()
}

async fn status_if_none_match(app: &TestApp, path: &str, token: &str, etag: &str) -> StatusCode {
    app.request(reqwest::Method::GET, path)
        .bearer_auth(token)
        .header(IF_NONE_MATCH, etag)
        .send()
        .await
        .expect("GET")
        .status()
}

on_both_backends! {
    async fn every_page_is_the_straightforward_querys_page(app) {
        let token = app.token(integrator("AR")).await;
        assert_pages_match(&app, &token, &format!("{ESTABLISHMENTS}?size=7"), 7, "establishments", "t.deleted_at IS NULL").await;
        assert_pages_match(&app, &token, "/api/v3/third_party/campaigns?size=20", 20, "campaigns", "t.deleted_at IS NULL").await;
        assert_pages_match(&app, &token, "/api/v3/third_party/campaigns?size=20&active=1", 20, "campaigns", "t.deleted_at IS NULL AND t.active = TRUE").await;
        assert_pages_match(&app, &token, "/api/v3/third_party/planting_progress?size=100", 100, "progress", "t.deleted_at IS NULL AND t.kind = 'planting'").await;
    }

    async fn pages_follow_writes_at_once_including_another_processes(app) {
        let token = app.token(integrator("AR")).await;
        let path = format!("{ESTABLISHMENTS}?size=7");
        assert_pages_match(&app, &token, &path, 7, "establishments", "t.deleted_at IS NULL").await;
        let created = create_establishment(&app, &token, "Nueva Esperanza").await;
        assert_pages_match(&app, &token, &path, 7, "establishments", "t.deleted_at IS NULL").await;
        let sibling = app.sibling().await;
        let sibling_token = sibling.token(integrator("AR")).await;
        let response = sibling.delete(&format!("{ESTABLISHMENTS}/{created}"), &sibling_token).await;
        assert_eq!(response.status(), StatusCode::OK);
        let other = create_establishment(&sibling, &sibling_token, "Otra Esperanza").await;
        assert_pages_match(&app, &token, &path, 7, "establishments", "t.deleted_at IS NULL").await;
        let response = sibling.delete(&format!("{ESTABLISHMENTS}/{other}"), &sibling_token).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_pages_match(&app, &token, &format!("{ESTABLISHMENTS}?size=1&deleted_at_from=2000-01-01T00:00:00%2B00:00"), 1, "establishments", "t.deleted_at IS NOT NULL")
            .await;
    }

    async fn a_page_past_the_last_is_404_and_an_empty_list_has_one_page(app) {
        let token = app.token(integrator("AR")).await;
        let body = app.get_ok(&format!("{ESTABLISHMENTS}?size=500"), &token).await;
        let last = body["total_pages"].as_u64().expect("pages");
        let response = app.get(&format!("{ESTABLISHMENTS}?size=500&page={}", last + 1), &token).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let empty = app.get_ok(&format!("{ESTABLISHMENTS}?updated_at_from=2100-01-01T00:00:00%2B00:00"), &token).await;
        assert_eq!(empty["items"], json!([]));
        assert_eq!(empty["total_items"], json!(0));
        assert_eq!(empty["total_pages"], json!(1));
    }

    async fn an_etag_names_the_data_not_the_token_and_answers_304(app) {
        let path = "/api/v2/third_party/plots?page=1";
        let first = app.token(integrator("AR")).await;
        let second = app.token(integrator("AR")).await;
        assert_ne!(first, second);
        let etag = etag_of(&app, path, &first).await;
        assert_eq!(etag_of(&app, path, &second).await, etag, "another token, another login: same ETag");

        let not_modified = app
            .request(reqwest::Method::GET, path)
            .bearer_auth(&second)
            .header(IF_NONE_MATCH, &etag)
            .send()
            .await
            .expect("GET");
        assert_eq!(not_modified.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(not_modified.headers().get(ETAG).and_then(|v| v.to_str().ok()), Some(etag.as_str()));
        assert!(not_modified.bytes().await.expect("body").is_empty());

        assert_ne!(etag_of(&app, "/api/v2/third_party/plots?page=1&active=1", &first).await, etag, "another query, another ETag");
        assert_eq!(status_if_none_match(&app, path, &first, "\"something else\"").await, StatusCode::OK);

        let brazil = app.token(integrator("BR")).await;
        create_establishment(&app, &brazil, "Fazenda Boa Vista").await;
        assert_eq!(etag_of(&app, path, &first).await, etag, "another society's write changes nothing here");
        assert_eq!(status_if_none_match(&app, path, &first, &etag).await, StatusCode::NOT_MODIFIED);

        create_establishment(&app, &first, "La Nueva").await;
        let changed = etag_of(&app, path, &first).await;
        assert_ne!(changed, etag, "a write to the society changes its lists' ETags");
        assert_eq!(status_if_none_match(&app, path, &first, &etag).await, StatusCode::OK);
        assert_eq!(status_if_none_match(&app, path, &first, &changed).await, StatusCode::NOT_MODIFIED);
    }

    async fn a_kept_list_answer_is_the_callers_societys_own(app) {
        let path = format!("{ESTABLISHMENTS}?size=7");
        let argentina = app.token(integrator("AR")).await;
        let first = app.get_ok(&path, &argentina).await;
        assert_eq!(app.get_ok(&path, &argentina).await, first, "the same data, the same answer");
        let brazil = app.token(integrator("BR")).await;
        let theirs = app.get_ok(&path, &brazil).await;
        let expected = app
            .integers(
                "SELECT t.id FROM establishments t WHERE t.society_id = $1 AND t.deleted_at IS NULL ORDER BY t.id LIMIT 7",
                society_of(&app, "BR").await,
            )
            .await;
        assert_eq!(ids(&theirs), expected, "the same path asked by another society");
        assert_ne!(ids(&theirs), ids(&first));
    }

    async fn work_orders_and_catalogues_answer_304_too(app) {
        let token = app.token(integrator("AR")).await;
        for path in ["/api/v3/third_party/work_orders?size=5", "/api/v3/third_party/applicators", "/api/v3/third_party/units"] {
            let etag = etag_of(&app, path, &token).await;
            assert_eq!(status_if_none_match(&app, path, &token, &etag).await, StatusCode::NOT_MODIFIED, "{path}");
        }
    }
}

/// Lists too large to keep every id read their pages by id range; a threshold of 0 makes every list such a one.
fn ranges_only() -> Setup {
    let mut setup = Setup::default();
    setup.store.pages.small_list = 0;
    setup
}

mod by_id_range {
    use super::*;

    on_both_backends_with! {
        ranges_only();

        async fn every_page_is_the_straightforward_querys_page(app) {
            let token = app.token(integrator("AR")).await;
            assert_pages_match(&app, &token, &format!("{ESTABLISHMENTS}?size=7"), 7, "establishments", "t.deleted_at IS NULL").await;
            assert_pages_match(&app, &token, "/api/v3/third_party/campaigns?size=20&active=1", 20, "campaigns", "t.deleted_at IS NULL AND t.active = TRUE").await;
            assert_pages_match(&app, &token, "/api/v3/third_party/planting_progress?size=100", 100, "progress", "t.deleted_at IS NULL AND t.kind = 'planting'").await;
        }

        async fn pages_follow_writes(app) {
            let token = app.token(integrator("AR")).await;
            let path = format!("{ESTABLISHMENTS}?size=7");
            assert_pages_match(&app, &token, &path, 7, "establishments", "t.deleted_at IS NULL").await;
            let created = create_establishment(&app, &token, "Nueva Esperanza").await;
            assert_pages_match(&app, &token, &path, 7, "establishments", "t.deleted_at IS NULL").await;
            let response = app.delete(&format!("{ESTABLISHMENTS}/{created}"), &token).await;
            assert_eq!(response.status(), StatusCode::OK);
            assert_pages_match(&app, &token, &path, 7, "establishments", "t.deleted_at IS NULL").await;
        }
    }
}
