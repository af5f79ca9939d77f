//! The reference data a release ships: a later release reaches integrators' incremental syncs (`updated_at`, ETags,
//! `syncCheck`) and leaves every society's data alone, and an operator's switch outlasts it. Also the language a
//! society's errors default to.

use reqwest::header::{ACCEPT_LANGUAGE, ETAG, IF_NONE_MATCH};
use reqwest::{Method, StatusCode};
use store::reference::ReferenceData;

use crate::helpers::{integrator, TestApp};
use crate::on_both_backends;

/// A later release made from this build's: Argentina's first product corrected (its name) and one product added.
/// Answers the release and the corrected product's key.
fn later_release() -> (ReferenceData, String) {
    let mut release = ReferenceData::shipped();
    release.version = "test.2".into();
    let text = release.file_mut("formulateds").expect("the products file");
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().expect("a header").clone();
    let mut records: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("a record")).collect();
    let column = |name: &str| header.iter().position(|h| h == name).expect("a known column");
    let position = records
        .iter()
        .position(|record| &record[column("country")] == "AR")
        .expect("an Argentine product");
    let key = records[position][column("key")].to_owned();
    let edited = |record: &csv::StringRecord, edits: &[(&str, &str)]| {
        let mut cells: Vec<String> = record.iter().map(str::to_owned).collect();
        for (name, value) in edits {
            cells[column(name)] = (*value).to_owned();
        }
        csv::StringRecord::from(cells)
    };
    let corrected = edited(&records[position], &[("name", "Producto corregido")]);
    let added = edited(
        &records[position],
        &[
            ("key", "ar.product.test-added"),
            ("name", "Producto agregado"),
            ("external_code", "SENASA-99999"),
        ],
    );
    records[position] = corrected;
    records.push(added);
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&header).expect("write");
    for record in &records {
        writer.write_record(record).expect("write");
    }
    *text = String::from_utf8(writer.into_inner().expect("flush")).expect("UTF-8");
    (release, key)
}

async fn etag(app: &TestApp, path: &str, token: &str) -> String {
    let response = app.get(path, token).await;
    assert_eq!(response.status(), StatusCode::OK);
    response.headers()[ETAG].to_str().expect("ASCII").to_owned()
}

on_both_backends! {
    async fn a_later_release_reaches_incremental_syncs_and_spares_society_data(app) {
        let account = integrator("AR");
        let login = app.login_as(account).await;
        let token = login["access_token"].as_str().expect("token").to_owned();
        let society_id = login["society"]["id"].as_i64().expect("society id");
        let products = "/api/v3/third_party/formulateds";
        let etag_before = etag(&app, products, &token).await;
        let counters = "SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM table_versions WHERE society_id = $1";
        let society_counters = app.integers(counters, society_id).await;
        // The next whole second, waited out: the filter has seconds, and the catalogues were loaded a moment ago.
        let next_second = chrono::Utc::now() + chrono::Duration::seconds(1);
        tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
        let since = next_second.format("%Y-%m-%dT%H:%M:%S%:z").to_string();
        let incremental = format!("{products}?updated_at_from={}", since.replace('+', "%2B"));
        assert!(app.all_items(&incremental, &token).await.is_empty(), "nothing changed yet");

        let (release, corrected_key) = later_release();
        // The operator turns off the very product the release corrects: the switch is the operator's.
        assert!(app.store.set_reference_active("formulateds", &corrected_key, false).await.expect("switch"));
        let applied = app.store.apply_reference(&release).await.expect("apply").expect("a new release");
        assert_eq!((applied.added, applied.corrected), (1, 1), "{applied:?}");
        assert!(app.store.apply_reference(&release).await.expect("apply").is_none(), "a release applies once");

        let changed = app.all_items(&incremental, &token).await;
        let mut names: Vec<(&str, bool)> = changed
            .iter()
            .map(|item| (item["name"].as_str().expect("name"), item["active"].as_bool().expect("active")))
            .collect();
        names.sort_unstable();
        assert_eq!(names, [("Producto agregado", true), ("Producto corregido", false)]);
        assert_ne!(etag(&app, products, &token).await, etag_before, "the catalogue's ETag moves");
        let revalidated = app
            .request(Method::GET, products)
            .bearer_auth(&token)
            .header(IF_NONE_MATCH, &etag_before)
            .send()
            .await
            .expect("send");
        assert_eq!(revalidated.status(), StatusCode::OK, "an old ETag gets the new catalogue");
        let again = app.login_as(account).await;
        assert_ne!(again["society"]["syncCheck"], login["society"]["syncCheck"], "syncCheck tells of the change");
        assert_eq!(app.integers(counters, society_id).await, society_counters, "no society data was written");

        // The operator turns it back on: that too is a change integrators see.
        assert!(app.store.set_reference_active("formulateds", &corrected_key, true).await.expect("switch"));
        let active: Vec<bool> = app
            .all_items(&incremental, &token)
            .await
            .iter()
            .map(|item| item["active"].as_bool().expect("active"))
            .collect();
        assert_eq!(active, [true, true]);
    }

    async fn a_release_adopts_an_operators_row_with_the_code_it_ships(app) {
        // The operator imported a product before a release shipped it, under the same registry code.
        let inserted = app
            .execute(
                "INSERT INTO formulateds (country, name, external_code, active_ingredient, formulation_type_id, unit_id, \
                 created_at, updated_at) SELECT 'AR', 'Producto del operador', 'SENASA-99999', 'Glifosato 48%', \
                 formulation_type_id, unit_id, 0, 0 FROM formulateds WHERE id = $1",
                1,
            )
            .await
            .expect("the operator's row");
        assert_eq!(inserted, 1);
        let (release, _) = later_release();
        let applied = app.store.apply_reference(&release).await.expect("migrate does not fail").expect("applied");
        assert_eq!((applied.added, applied.corrected, applied.adopted), (0, 1, 1), "{applied:?}");
        let token = app.token(integrator("AR")).await;
        let products = app.all_items("/api/v3/third_party/formulateds", &token).await;
        let holding: Vec<&str> = products
            .iter()
            .filter(|p| p["external_code"] == "SENASA-99999")
            .map(|p| p["name"].as_str().expect("name"))
            .collect();
        assert_eq!(holding, ["Producto del operador"], "one row, the operator's content kept as a correction");
    }

    async fn a_society_hears_errors_in_its_country_s_language_unless_the_request_asks(app) {
        let path = "/api/v3/third_party/waypoints?active=maybe";
        let mut messages = Vec::new();
        for (country, asked) in [("BR", None), ("BR", Some("pt")), ("BR", Some("es")), ("AR", None), ("AR", Some("es"))] {
            let token = app.token(integrator(country)).await;
            let mut request = app.request(Method::GET, path).bearer_auth(&token);
            if let Some(asked) = asked {
                request = request.header(ACCEPT_LANGUAGE, asked);
            }
            let response = request.send().await.expect("send");
            let (_, message) = crate::helpers::error_envelope(response, StatusCode::BAD_REQUEST).await;
            messages.push(message);
        }
        assert_eq!(messages[0], messages[1], "a Brazilian society reads Portuguese by default");
        assert_ne!(messages[0], messages[2], "Accept-Language wins");
        assert_eq!(messages[2], messages[3], "other societies read Spanish by default");
        assert_eq!(messages[3], messages[4]);
    }
}
