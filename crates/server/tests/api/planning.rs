//! Black-box tests of the planning group: the v2 plot list to the letter at both its paths, and every v3 catalogue
//! and planning resource's shape, detail, filters and scope (society, country or global).

use std::collections::BTreeSet;

use chrono::{DateTime, FixedOffset, NaiveDateTime};
use reqwest::StatusCode;
use serde_json::Value;

use crate::helpers::{error_envelope, integrator, TestApp};
use crate::on_both_backends;

const PLOTS: &str = "/api/v2/third_party/plots";
const PLOTS_LEGACY: &str = "/api/v2/plots";
const TAGS: &str = "/api/v3/third_party/tags";
const FAR_FUTURE: &str = "2099-01-01T00:00:00-03:00";
const LONG_AGO: &str = "2000-01-01T00:00:00-03:00";

/// The JSON type a field must have.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Int,
    OptInt,
    Str,
    OptStr,
    Bool,
    Num,
    OptNum,
    Ts,
    OptTs,
}

/// Whose rows a resource holds, as the caller sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    Society,
    Country,
    Global,
}

/// A v3 resource: its path segment and its exact fields.
struct Shape {
    name: &'static str,
    scope: Scope,
    fields: &'static [(&'static str, Kind)],
}

use Kind::*;

const SHAPES: &[Shape] = &[
    Shape {
        name: "master_campaign_cycles",
        scope: Scope::Country,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("start_date", Str),
            ("end_date", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "planting_times",
        scope: Scope::Country,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("description", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "formulateds",
        scope: Scope::Country,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("external_code", Str),
            ("active_ingredient", Str),
            ("formulation_type_id", Int),
            ("unit_id", Int),
            ("active", Bool),
            ("updated_at", Ts),
        ],
    },
    Shape {
        name: "cultivation_species",
        scope: Scope::Global,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("name_pt", Str),
            ("scientific_name", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "formulation_types",
        scope: Scope::Global,
        fields: &[
            ("id", Int),
            ("code", Str),
            ("name", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "units",
        scope: Scope::Global,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("abbreviation", Str),
            ("kind", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "activity_statuses",
        scope: Scope::Global,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("description", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "hydric_states",
        scope: Scope::Global,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("description", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "phenological_states",
        scope: Scope::Global,
        fields: &[
            ("id", Int),
            ("cultivation_id", Int),
            ("code", Str),
            ("name", Str),
            ("position", Int),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "tags",
        scope: Scope::Society,
        fields: &[
            ("id", Int),
            ("parent_id", OptInt),
            ("name", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "master_campaigns",
        scope: Scope::Society,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("cultivation_id", Int),
            ("planting_time_id", Int),
            ("cycle_id", Int),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "campaigns",
        scope: Scope::Society,
        fields: &[
            ("id", Int),
            ("master_campaign_id", Int),
            ("plot_id", Int),
            ("name", Str),
            ("external_code", OptStr),
            ("area", Num),
            ("planting_date", OptStr),
            ("objective_yield", OptNum),
            ("activity_status_id", OptInt),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "cultivations",
        scope: Scope::Society,
        fields: &[
            ("id", Int),
            ("plot_id", Int),
            ("campaign_id", Int),
            ("formulated_id", Int),
            ("area", Num),
            ("active", Bool),
            ("updated_at", Ts),
        ],
    },
    Shape {
        name: "external_systems",
        scope: Scope::Society,
        fields: &[
            ("id", Int),
            ("name", Str),
            ("description", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
    Shape {
        name: "external_plot_associations",
        scope: Scope::Society,
        fields: &[
            ("id", Int),
            ("plot_id", Int),
            ("external_system_id", Int),
            ("external_id", Str),
            ("active", Bool),
            ("created_at", Ts),
            ("updated_at", Ts),
            ("deleted_at", OptTs),
        ],
    },
];

fn path(shape: &Shape) -> String {
    format!("/api/v3/third_party/{}", shape.name)
}

fn timestamp(value: &Value) -> Option<DateTime<FixedOffset>> {
    value
        .as_str()
        .and_then(|text| DateTime::parse_from_str(text, "%Y-%m-%dT%H:%M:%S%:z").ok())
}

fn has_kind(kind: Kind, value: &Value) -> bool {
    match kind {
        Int => value.is_i64(),
        OptInt => value.is_null() || value.is_i64(),
        Str => value.is_string(),
        OptStr => value.is_null() || value.is_string(),
        Bool => value.is_boolean(),
        Num => value.is_number(),
        OptNum => value.is_null() || value.is_number(),
        Ts => timestamp(value).is_some(),
        OptTs => value.is_null() || timestamp(value).is_some(),
    }
}

fn keys(item: &Value) -> Vec<String> {
    let mut keys: Vec<String> = item.as_object().expect("an object").keys().cloned().collect();
    keys.sort_unstable();
    keys
}

/// Checks an item has exactly the shape's fields, each of its type.
fn assert_shape(shape: &Shape, item: &Value) {
    let mut expected: Vec<String> = shape.fields.iter().map(|(name, _)| (*name).to_owned()).collect();
    expected.sort_unstable();
    assert_eq!(keys(item), expected, "{}: {item}", shape.name);
    for (field, kind) in shape.fields {
        assert!(
            has_kind(*kind, &item[*field]),
            "{}.{field} should be {kind:?}: {item}",
            shape.name
        );
    }
}

fn ids(items: &[Value]) -> BTreeSet<i64> {
    items.iter().filter_map(|item| item["id"].as_i64()).collect()
}

/// Every item of a list in pages of 500, so a check over a whole list costs one or two calls.
async fn everything(app: &TestApp, path: &str, token: &str) -> Vec<Value> {
    let separator = if path.contains('?') { '&' } else { '?' };
    app.all_items(&format!("{path}{separator}size=500"), token).await
}

fn encoded(at: &DateTime<FixedOffset>) -> String {
    at.format("%Y-%m-%dT%H:%M:%S%:z").to_string().replace('+', "%2B")
}

const PLOT_KEYS: [&str; 14] = [
    "area",
    "created_at",
    "created_by_fullname",
    "created_by_id",
    "created_by_lastname",
    "created_by_name",
    "establishment_id",
    "establishment_name",
    "external_code",
    "farmer_id",
    "farmer_name",
    "id",
    "name",
    "tags",
];

/// The decoded `tags` string of a v2 plot, checked element by element.
fn plot_tags(plot: &Value) -> Vec<Value> {
    let text = plot["tags"].as_str().expect("tags is a string");
    let tags: Value = serde_json::from_str(text).expect("tags holds JSON");
    let tags = tags.as_array().expect("tags holds an array").clone();
    for tag in &tags {
        assert_eq!(
            keys(tag),
            ["tag_id", "tag_name", "tag_parent_id", "tag_parent_name"],
            "{tag}"
        );
        assert!(tag["tag_id"].is_i64() && tag["tag_name"].is_string(), "{tag}");
        assert!(tag["tag_parent_id"].is_null() || tag["tag_parent_id"].is_i64(), "{tag}");
        assert!(
            tag["tag_parent_name"].is_null() || tag["tag_parent_name"].is_string(),
            "{tag}"
        );
    }
    tags
}

on_both_backends! {
    async fn v2_plots_are_the_specified_shape_at_both_paths(app) {
        let token = app.token(integrator("AR")).await;
        let plots = app.all_items(PLOTS, &token).await;
        assert!(!plots.is_empty());
        assert_eq!(app.all_items(PLOTS_LEGACY, &token).await, plots, "both paths are the same list");
        for plot in &plots {
            assert_eq!(keys(plot), PLOT_KEYS, "{plot}");
            assert!(plot["id"].is_i64() && plot["name"].is_string(), "{plot}");
            let area = plot["area"].as_str().expect("area is a string");
            let (whole, decimals) = area.split_once('.').expect("a decimal point");
            assert!(!whole.is_empty() && whole.chars().all(|c| c.is_ascii_digit()), "{area}");
            assert!(decimals.len() == 2 && decimals.chars().all(|c| c.is_ascii_digit()), "two decimals: {area}");
            assert!(plot["external_code"].is_string() || plot["external_code"].is_null(), "{plot}");
            for field in ["farmer_id", "establishment_id", "created_by_id"] {
                assert!(plot[field].is_i64(), "{field}: {plot}");
            }
            for field in ["farmer_name", "establishment_name", "created_by_name", "created_by_lastname", "created_by_fullname"] {
                assert!(plot[field].as_str().is_some_and(|text| !text.is_empty()), "{field}: {plot}");
            }
            assert_eq!(
                plot["created_by_fullname"].as_str(),
                Some(format!("{} {}", plot["created_by_name"].as_str().unwrap_or_default(), plot["created_by_lastname"].as_str().unwrap_or_default()).as_str())
            );
            let created = plot["created_at"].as_str().expect("created_at is a string");
            assert_eq!(created.len(), 19, "{created}");
            assert!(NaiveDateTime::parse_from_str(created, "%Y-%m-%d %H:%M:%S").is_ok(), "{created}");
            assert!(!plot_tags(plot).is_empty(), "every demo plot is tagged: {plot}");
        }
        let first = &plots[0];
        let establishment = app.get_ok(&format!("/api/v3/third_party/establishments/{}", first["establishment_id"]), &token).await;
        assert_eq!(establishment["farmer_id"], first["farmer_id"]);
        assert_eq!(establishment["name"], first["establishment_name"]);
        let farmers = app.all_items("/api/v2/third_party/farmers", &token).await;
        let farmer = farmers.iter().find(|f| f["id"] == first["farmer_id"]).expect("the plot's farmer");
        let display = match farmer["lastname"].as_str() {
            Some(lastname) => format!("{} {lastname}", farmer["name"].as_str().unwrap_or_default()),
            None => farmer["name"].as_str().unwrap_or_default().to_owned(),
        };
        assert_eq!(first["farmer_name"].as_str(), Some(display.as_str()));
    }

    async fn v2_plots_speak_the_v2_filters(app) {
        let token = app.token(integrator("AR")).await;
        let plots = app.all_items(PLOTS, &token).await;
        for path in [PLOTS, PLOTS_LEGACY] {
            let (_, message) = error_envelope(app.get(&format!("{path}?updated_at_from={LONG_AGO}"), &token).await, StatusCode::BAD_REQUEST).await;
            assert!(message.contains("updated_from"), "{message}");
            for filter in ["updated_from", "created_from", "deleted_from"] {
                let body = app.get_ok(&format!("{path}?{filter}={FAR_FUTURE}"), &token).await;
                assert_eq!(body["total_items"], 0, "{filter}");
            }
            assert_eq!(app.get_ok(&format!("{path}?active=0"), &token).await["total_items"], 0);
            assert_eq!(app.get_ok(&format!("{path}?active=true"), &token).await["total_items"].as_u64(), Some(plots.len() as u64));
            error_envelope(app.get(&format!("{path}?active=yes"), &token).await, StatusCode::BAD_REQUEST).await;
        }
        // Argentina has no daylight saving time, so a plain local time plus -03:00 is the same instant.
        let middle = plots[plots.len() / 2]["created_at"].as_str().expect("created_at").to_owned();
        let since = format!("{}-03:00", middle.replace(' ', "T"));
        let created = app.all_items(&format!("{PLOTS}?created_from={since}"), &token).await;
        let expected: Vec<Value> = plots.iter().filter(|p| p["created_at"].as_str().is_some_and(|c| c >= middle.as_str())).cloned().collect();
        assert_eq!(created, expected);
        assert!(!created.is_empty() && created.len() < plots.len());
        assert_eq!(app.all_items(&format!("{PLOTS}?updated_from={LONG_AGO}"), &token).await, plots);
    }

    async fn every_v3_resource_lists_its_shape_and_details_its_items(app) {
        let token = app.token(integrator("AR")).await;
        for shape in SHAPES {
            let path = path(shape);
            let items = everything(&app, &path, &token).await;
            assert!(!items.is_empty(), "{path} has demo data");
            for item in &items {
                assert_shape(shape, item);
            }
            let first = &items[0];
            assert_eq!(&app.get_ok(&format!("{path}/{}", first["id"]), &token).await, first, "{path} detail");
            let (code, message) = error_envelope(app.get(&format!("{path}/987654321"), &token).await, StatusCode::NOT_FOUND).await;
            assert_eq!(code, 404);
            assert!(message.contains(shape.name) && message.contains("987654321"), "{message}");
            error_envelope(app.get(&format!("{path}/abc"), &token).await, StatusCode::NOT_FOUND).await;
        }
    }

    async fn v3_resources_speak_the_v3_audit_filters_and_active(app) {
        let token = app.token(integrator("BR")).await;
        for shape in SHAPES {
            let path = path(shape);
            let items = everything(&app, &path, &token).await;
            let (_, message) = error_envelope(app.get(&format!("{path}?updated_from={LONG_AGO}"), &token).await, StatusCode::BAD_REQUEST).await;
            assert!(message.contains("updated_at_from"), "{path}: {message}");
            for filter in ["updated_at_from", "created_at_from", "deleted_at_from"] {
                assert_eq!(app.get_ok(&format!("{path}?{filter}={FAR_FUTURE}"), &token).await["total_items"], 0, "{path} {filter}");
            }
            let active = everything(&app, &format!("{path}?active=1"), &token).await;
            let inactive = everything(&app, &format!("{path}?active=false"), &token).await;
            assert!(active.iter().all(|item| item["active"] == true), "{path}");
            assert!(inactive.iter().all(|item| item["active"] == false), "{path}");
            assert_eq!(active.len() + inactive.len(), items.len(), "{path}: active splits the list");
            // updated_at_from is inclusive and returns exactly the items changed since.
            let mut instants: Vec<_> = items.iter().filter_map(|item| timestamp(&item["updated_at"])).collect();
            instants.sort_unstable();
            let since = instants[instants.len() / 2];
            let changed = everything(&app, &format!("{path}?updated_at_from={}", encoded(&since)), &token).await;
            let expected: Vec<Value> = items.iter().filter(|item| timestamp(&item["updated_at"]).is_some_and(|at| at >= since)).cloned().collect();
            assert_eq!(changed, expected, "{path} updated_at_from");
            let deleted = everything(&app, &format!("{path}?deleted_at_from={LONG_AGO}"), &token).await;
            if shape.fields.iter().any(|(field, _)| *field == "deleted_at") {
                assert!(deleted.iter().all(|item| !item["deleted_at"].is_null()), "{path}: only deleted records");
            }
            assert!(ids(&deleted).is_disjoint(&ids(&items)), "{path}: deleted records leave the plain list");
        }
    }

    async fn society_resources_are_isolated(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        let ar_plots = app.all_items(PLOTS, &argentina).await;
        let br_plots = app.all_items(PLOTS_LEGACY, &brazil).await;
        assert!(!br_plots.is_empty());
        assert!(ids(&ar_plots).is_disjoint(&ids(&br_plots)));
        for shape in SHAPES.iter().filter(|shape| shape.scope == Scope::Society) {
            let path = path(shape);
            let ar = everything(&app, &path, &argentina).await;
            let br = everything(&app, &path, &brazil).await;
            assert!(!ar.is_empty() && !br.is_empty(), "{path}");
            assert!(ids(&ar).is_disjoint(&ids(&br)), "{path}: no shared rows");
            let foreign = &ar[0]["id"];
            let (_, message) = error_envelope(app.get(&format!("{path}/{foreign}"), &brazil).await, StatusCode::NOT_FOUND).await;
            assert!(message.contains(&foreign.to_string()), "{message}");
        }
        let br_plot_ids = ids(&br_plots);
        for association in everything(&app, "/api/v3/third_party/external_plot_associations", &brazil).await {
            assert!(br_plot_ids.contains(&association["plot_id"].as_i64().unwrap_or_default()), "{association}");
        }
    }

    async fn catalogues_are_per_country_or_global(app) {
        let argentina = app.token(integrator("AR")).await;
        let brazil = app.token(integrator("BR")).await;
        for shape in SHAPES.iter().filter(|shape| shape.scope != Scope::Society) {
            let path = path(shape);
            let ar = everything(&app, &path, &argentina).await;
            let br = everything(&app, &path, &brazil).await;
            assert!(!ar.is_empty() && !br.is_empty(), "{path}");
            match shape.scope {
                Scope::Country => {
                    assert!(ids(&ar).is_disjoint(&ids(&br)), "{path}: each country has its own catalogue");
                }
                _ => assert_eq!(ar, br, "{path}: one catalogue for everyone"),
            }
        }
    }

    async fn tags_are_a_hierarchy_that_plots_carry(app) {
        let token = app.token(integrator("AR")).await;
        let tags = everything(&app, TAGS, &token).await;
        let groups: Vec<&Value> = tags.iter().filter(|tag| tag["parent_id"].is_null()).collect();
        let names: BTreeSet<&str> = groups.iter().filter_map(|group| group["name"].as_str()).collect();
        assert!(names.contains("Zona") && names.contains("Tenencia"), "{names:?}");
        let group_ids = ids(&groups.iter().map(|g| (*g).clone()).collect::<Vec<_>>());
        for tag in tags.iter().filter(|tag| !tag["parent_id"].is_null()) {
            assert!(group_ids.contains(&tag["parent_id"].as_i64().unwrap_or_default()), "values hang from groups: {tag}");
        }
        let inactive = everything(&app, &format!("{TAGS}?active=0"), &token).await;
        let deleted = everything(&app, &format!("{TAGS}?deleted_at_from={LONG_AGO}"), &token).await;
        assert!(!inactive.is_empty() && !deleted.is_empty(), "the demo has an inactive and a deleted tag");
        let by_id = |id: &Value| tags.iter().find(|tag| &tag["id"] == id).cloned();
        for plot in app.all_items(PLOTS, &token).await {
            let carried = plot_tags(&plot);
            let parents: BTreeSet<i64> = carried.iter().filter_map(|tag| tag["tag_parent_id"].as_i64()).collect();
            assert_eq!(parents.len(), carried.len(), "one value per group: {plot}");
            for tag in carried {
                let stored = by_id(&tag["tag_id"]).expect("a carried tag is a live tag of the society");
                assert_eq!(stored["active"], true);
                assert_eq!(stored["name"], tag["tag_name"]);
                assert_eq!(stored["parent_id"], tag["tag_parent_id"]);
                let parent = by_id(&tag["tag_parent_id"]).expect("its group");
                assert_eq!(parent["name"], tag["tag_parent_name"]);
            }
        }
        let brazil = app.token(integrator("BR")).await;
        let br_names: Vec<Value> = everything(&app, TAGS, &brazil).await.into_iter().map(|tag| tag["name"].clone()).collect();
        assert!(br_names.contains(&Value::from("Região")), "Brazilian tags are in Portuguese: {br_names:?}");
    }

    async fn plots_are_mapped_to_the_societys_external_systems(app) {
        let token = app.token(integrator("MX")).await;
        let systems = everything(&app, "/api/v3/third_party/external_systems", &token).await;
        let names: BTreeSet<&str> = systems.iter().filter_map(|system| system["name"].as_str()).collect();
        assert_eq!(names, BTreeSet::from(["Aspel SAE", "CONTPAQi"]));
        let plots = ids(&app.all_items(PLOTS, &token).await);
        let associations = everything(&app, "/api/v3/third_party/external_plot_associations", &token).await;
        let mapped: BTreeSet<i64> = associations.iter().filter_map(|a| a["plot_id"].as_i64()).collect();
        assert!(mapped.is_subset(&plots));
        assert!(mapped.len() * 2 > plots.len(), "most plots are mapped: {} of {}", mapped.len(), plots.len());
        let system_ids = ids(&systems);
        for association in &associations {
            assert!(system_ids.contains(&association["external_system_id"].as_i64().unwrap_or_default()), "{association}");
            assert!(association["external_id"].as_str().is_some_and(|id| !id.is_empty()));
        }
    }
}
