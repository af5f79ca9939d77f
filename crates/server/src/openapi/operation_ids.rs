//! Operation ids: the names generated clients give their methods (`listFarmers`, `getWorkOrder`,
//! `replaceWorkOrder`), made from each routed method and path by one rule, with a short list of explicit names where
//! the rule reads badly. They are stable: a route keeps its name while it is served (a test keeps a snapshot).
//!
//! The rule: a verb from the method and the path's last segment (`list` and `get` for a GET of a collection and of
//! one record, `create` for POST, `replace` for PUT and PATCH, which carry the whole record, `delete`), then the
//! path's words after the generation prefix in camel case, the last one plural for a list and singular otherwise
//! (`/api/v3/third_party/campaigns/import/jobs/{id}` is `getCampaignImportJob`). Where two generations give the same
//! name, the newest keeps it and the others take their generation as a suffix (`listFarmers`, `listFarmersV2`).

use axum::http::Method;

/// The names the rule would give badly, or twice within one generation, by method and path.
const EXPLICIT: [(&str, &str, &str); 16] = [
    ("POST", "/api/v2/login", "login"),
    ("POST", "/api/v2/login/refresh", "refreshToken"),
    // The spec's second path to the plot list, beside `/api/v2/third_party/plots`.
    ("GET", "/api/v2/plots", "listPlotsAlias"),
    ("PUT", "/api/v2/third_party/applicators", "replaceApplicatorByBody"),
    ("POST", "/api/v2/third_party/campaigns/import", "importCampaigns"),
    (
        "POST",
        "/api/v2/third_party/campaigns/update_objective_yield",
        "updateObjectiveYields",
    ),
    // One event or a batch.
    ("POST", "/api/v3/third_party/device_events", "createDeviceEvents"),
    (
        "POST",
        "/api/v3/third_party/webhook_endpoints/{id}/deliveries/{delivery_id}/retry",
        "retryWebhookDelivery",
    ),
    (
        "POST",
        "/api/v3/third_party/webhook_endpoints/{id}/rotate_secret",
        "rotateWebhookSecret",
    ),
    ("GET", "/health", "checkHealth"),
    ("GET", "/openapi.json", "getOpenApiDocument"),
    ("GET", "/docs", "getReferencePage"),
    ("GET", "/docs/guides", "getGuidesIndex"),
    ("GET", "/docs/guides/guides.css", "getGuidesStylesheet"),
    ("GET", "/docs/guides/{page}", "getGuidesPage"),
    ("GET", "/docs/guides/{lang}/{slug}", "getGuide"),
];

/// The operation id of each `(method, path)` routed, in the same order.
pub fn operation_ids(operations: &[(Method, String)]) -> Vec<String> {
    let named: Vec<(String, u8)> = operations
        .iter()
        .map(|(method, path)| match explicit(method, path) {
            Some(name) => (name.to_owned(), u8::MAX),
            None => (by_rule(method, path), generation(path)),
        })
        .collect();
    named
        .iter()
        .map(|(name, generation)| {
            let newest = named
                .iter()
                .filter(|(other, _)| other == name)
                .map(|(_, other)| *other)
                .max()
                .unwrap_or(*generation);
            if *generation < newest {
                format!("{name}V{generation}")
            } else {
                name.clone()
            }
        })
        .collect()
}

fn explicit(method: &Method, path: &str) -> Option<&'static str> {
    EXPLICIT
        .iter()
        .find(|(known_method, known_path, _)| *known_method == method.as_str() && *known_path == path)
        .map(|(_, _, name)| *name)
}

/// The API generation a path belongs to (`/api/v3/…` is 3, `/integration/api/v1/…` is 1); 0 for the server's own.
fn generation(path: &str) -> u8 {
    path.split('/')
        .find_map(|segment| segment.strip_prefix('v').and_then(|number| number.parse().ok()))
        .unwrap_or(0)
}

/// The path's segments that name what it serves: literal ones, after the generation prefix.
fn resource_segments(path: &str) -> Vec<&str> {
    const PREFIX: [&str; 4] = ["integration", "api", "third_party", ""];
    path.split('/')
        .filter(|segment| !segment.starts_with('{') && !PREFIX.contains(segment))
        .filter(|segment| !(segment.starts_with('v') && segment[1..].parse::<u8>().is_ok()))
        .collect()
}

fn by_rule(method: &Method, path: &str) -> String {
    let one_record = path.ends_with('}');
    let verb = match *method {
        Method::GET if one_record => "get",
        Method::GET => "list",
        Method::POST => "create",
        Method::PUT | Method::PATCH => "replace",
        Method::DELETE => "delete",
        _ => "call",
    };
    let segments = resource_segments(path);
    let last = segments.len().saturating_sub(1);
    let mut name = verb.to_owned();
    for (index, segment) in segments.iter().enumerate() {
        let words = words(segment);
        let final_word = words.len().saturating_sub(1);
        for (position, word) in words.iter().enumerate() {
            // Only a list keeps its collection plural: `listCampaignImportJobs`, `getCampaignImportJob`.
            let plural = verb == "list" && index == last && position == final_word;
            let word = if plural || position != final_word {
                word.clone()
            } else {
                singular(word)
            };
            name.push_str(&capitalised(&word));
        }
    }
    name
}

/// The lower-case words of a path segment: `work_orders` and `workOrders` are both `work`, `orders`.
fn words(segment: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    let mut current = String::new();
    for c in segment.chars() {
        if (!c.is_ascii_alphanumeric() || c.is_ascii_uppercase()) && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        if c.is_ascii_alphanumeric() {
            current.push(c.to_ascii_lowercase());
        }
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

/// The singular of a path's plural word; words already singular (`scouting`, `progress`, `species`) stay.
fn singular(word: &str) -> String {
    if word == "species" || word.ends_with("ss") || !word.ends_with('s') {
        word.to_owned()
    } else if word == "statuses" {
        "status".to_owned()
    } else if let Some(stem) = word.strip_suffix("ies") {
        format!("{stem}y")
    } else {
        word[..word.len() - 1].to_owned()
    }
}

fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map(|first| first.to_ascii_uppercase().to_string() + chars.as_str())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(operations: &[(&str, &str)]) -> Vec<String> {
        let operations: Vec<(Method, String)> = operations
            .iter()
            .map(|(method, path)| {
                (
                    Method::from_bytes(method.as_bytes()).expect("a method"),
                    (*path).to_owned(),
                )
            })
            .collect();
        operation_ids(&operations)
    }

    #[test]
    fn names_are_a_verb_and_the_resource() {
        assert_eq!(
            named(&[
                ("GET", "/api/v3/third_party/work_orders"),
                ("GET", "/api/v3/third_party/work_orders/{id}"),
                ("POST", "/integration/api/v1/workOrders"),
                ("PATCH", "/integration/api/v1/workOrders/{localId}"),
                ("DELETE", "/integration/api/v1/workOrders/{localId}"),
                ("GET", "/api/v3/third_party/activity_statuses/{id}"),
                ("GET", "/api/v3/third_party/cultivation_species/{id}"),
                ("GET", "/api/v3/third_party/harvest_progress/{id}"),
                ("GET", "/api/v3/third_party/warehouses/{id}"),
                ("GET", "/api/v2/third_party/campaigns/import/jobs/{id}"),
                ("GET", "/api/v3/third_party/webhook_endpoints/{id}/deliveries"),
                ("POST", "/api/v2/login"),
            ]),
            [
                "listWorkOrders",
                "getWorkOrder",
                "createWorkOrder",
                "replaceWorkOrder",
                "deleteWorkOrder",
                "getActivityStatus",
                "getCultivationSpecies",
                "getHarvestProgress",
                "getWarehouse",
                "getCampaignImportJob",
                "listWebhookEndpointDeliveries",
                "login",
            ]
        );
    }

    #[test]
    fn the_newest_generation_keeps_the_plain_name() {
        assert_eq!(
            named(&[
                ("GET", "/api/v2/third_party/farmers"),
                ("GET", "/api/v3/third_party/farmers"),
                ("GET", "/api/v2/third_party/plots"),
            ]),
            ["listFarmersV2", "listFarmers", "listPlots"]
        );
    }
}
