//! The lists `tranquera sync` mirrors, each with its generation and path, and the order a run starts them in.
//!
//! A list's name is its path's: what follows `/third_party/`, a `/` written `_` (`scouting`,
//! `application_order_labour_types`, `campaigns_import_jobs`). It names the list's table in the mirror, its files,
//! its entry in the state file and in the summary, and `--resource`. The names some lists had before are in
//! [`RENAMED`]: still accepted by `--resource`, and renamed in a folder a former release synced.

use client::Generation;

use crate::say::{say, Say};
use crate::settings::Failure;

/// The lists that are the largest in practice (a society's sensor readings, its work orders with their lines, its
/// plots), walked before the others in this order: started last, one of them ran alone for its whole length at the
/// end of a full sync, while started first they overlap each other and the small lists fill in beside them.
pub(super) const LARGEST_FIRST: [&str; 3] = ["device_events", "work_orders", "plots"];

/// One list the sync mirrors.
pub(super) struct Resource {
    pub(super) name: &'static str,
    pub(super) generation: Generation,
    pub(super) path: &'static str,
}

const fn v3(name: &'static str, path: &'static str) -> Resource {
    Resource {
        name,
        generation: Generation::V3,
        path,
    }
}

const fn v2(name: &'static str, path: &'static str) -> Resource {
    Resource {
        name,
        generation: Generation::V2,
        path,
    }
}

/// Every v3 list, plus the lists only v2 has. Farmers are taken from v3 only: v2's farmers list is the same
/// records in an older shape.
pub(super) const RESOURCES: &[Resource] = &[
    v3("farmers", "/api/v3/third_party/farmers"),
    v3("establishments", "/api/v3/third_party/establishments"),
    v2("plots", "/api/v2/third_party/plots"),
    v3("master_campaign_cycles", "/api/v3/third_party/master_campaign_cycles"),
    v3("planting_times", "/api/v3/third_party/planting_times"),
    v3("formulateds", "/api/v3/third_party/formulateds"),
    v3("cultivation_species", "/api/v3/third_party/cultivation_species"),
    v3("formulation_types", "/api/v3/third_party/formulation_types"),
    v3("units", "/api/v3/third_party/units"),
    v3("activity_statuses", "/api/v3/third_party/activity_statuses"),
    v3("hydric_states", "/api/v3/third_party/hydric_states"),
    v3("phenological_states", "/api/v3/third_party/phenological_states"),
    v3("tags", "/api/v3/third_party/tags"),
    v3("master_campaigns", "/api/v3/third_party/master_campaigns"),
    v3("campaigns", "/api/v3/third_party/campaigns"),
    v3("cultivations", "/api/v3/third_party/cultivations"),
    v3("external_systems", "/api/v3/third_party/external_systems"),
    v3(
        "external_plot_associations",
        "/api/v3/third_party/external_plot_associations",
    ),
    v3("applicators", "/api/v3/third_party/applicators"),
    v3("machines", "/api/v3/third_party/machines"),
    v3("contractors", "/api/v3/third_party/contractors"),
    v3("warehouses", "/api/v3/third_party/warehouses"),
    v3("voucher_types", "/api/v3/third_party/voucher_types"),
    v3(
        "application_order_labour_types",
        "/api/v3/third_party/application_order_labour_types",
    ),
    v3("work_orders", "/api/v3/third_party/work_orders"),
    v2("adversity", "/api/v2/third_party/adversity"),
    v2("adversity_categories", "/api/v2/third_party/adversity_categories"),
    v2("adversity_kinds", "/api/v2/third_party/adversity_kinds"),
    v3("scouting", "/api/v3/third_party/scouting"),
    v3("scouting_measures", "/api/v3/third_party/scouting_measures"),
    v3("waypoints", "/api/v3/third_party/waypoints"),
    v3("progress_report", "/api/v3/third_party/progress_report"),
    v3("planting_progress", "/api/v3/third_party/planting_progress"),
    v3("harvest_progress", "/api/v3/third_party/harvest_progress"),
    v3("fertilization_control", "/api/v3/third_party/fertilization_control"),
    v3("planting_control", "/api/v3/third_party/planting_control"),
    v3("plant_stand_control", "/api/v3/third_party/plant_stand_control"),
    v3("silobags", "/api/v3/third_party/silobags"),
    v3("silobag_campaigns", "/api/v3/third_party/silobag_campaigns"),
    v3("weather_anomaly", "/api/v3/third_party/weather_anomaly"),
    v3("weather_anomaly_types", "/api/v3/third_party/weather_anomaly_types"),
    v3("climatic_factors", "/api/v3/third_party/climatic_factors"),
    v3("devices", "/api/v3/third_party/devices"),
    v3("device_events", "/api/v3/third_party/device_events"),
    v3("device_event_types", "/api/v3/third_party/device_event_types"),
    v2(
        "campaigns_update_objective_yield_jobs",
        "/api/v2/third_party/campaigns/update_objective_yield/jobs",
    ),
    v2("campaigns_import_jobs", "/api/v2/third_party/campaigns/import/jobs"),
];

/// The names lists had before they were named by their paths, with the present ones: `--resource` still accepts
/// them (with a note), and a folder synced under them is renamed in place (`super::rename`).
pub(super) const RENAMED: &[(&str, &str)] = &[
    ("labour_types", "application_order_labour_types"),
    ("adversities", "adversity"),
    ("scoutings", "scouting"),
    ("progress_reports", "progress_report"),
    ("fertilization_controls", "fertilization_control"),
    ("planting_controls", "planting_control"),
    ("plant_stand_controls", "plant_stand_control"),
    ("weather_anomalies", "weather_anomaly"),
    ("objective_yield_jobs", "campaigns_update_objective_yield_jobs"),
    ("campaign_import_jobs", "campaigns_import_jobs"),
];

/// The present name of a list named `name` before, if it was renamed.
pub(super) fn renamed(name: &str) -> Option<&'static str> {
    RENAMED.iter().find(|(old, _)| *old == name).map(|(_, new)| *new)
}

/// The resources named with `--resource`, in table order, or all of them. A former name selects its list, and
/// `note` is told.
pub(super) fn select(names: &[String], note: impl Fn(&str)) -> Result<Vec<&'static Resource>, Failure> {
    let mut present = Vec::with_capacity(names.len());
    for name in names {
        let name = name.as_str();
        if RESOURCES.iter().any(|r| r.name == name) {
            present.push(name);
        } else if let Some(new) = renamed(name) {
            note(&say(Say::RenamedResource { old: name, new }));
            present.push(new);
        } else {
            let known: Vec<&str> = RESOURCES.iter().map(|r| r.name).collect();
            return Err(say(Say::UnknownResource {
                name,
                known: &known.join(", "),
            })
            .into());
        }
    }
    Ok(RESOURCES
        .iter()
        .filter(|r| present.is_empty() || present.contains(&r.name))
        .collect())
}

/// The order the lists of `selected` are started in: [`LARGEST_FIRST`], then the others in table order.
pub(super) fn walk_order(mut selected: Vec<&'static Resource>) -> Vec<&'static Resource> {
    selected.sort_by_key(|resource| {
        LARGEST_FIRST
            .iter()
            .position(|name| *name == resource.name)
            .unwrap_or(LARGEST_FIRST.len())
    });
    selected
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_is_its_path() {
        for resource in RESOURCES {
            let (_, tail) = resource.path.split_once("/third_party/").expect("an integration path");
            assert_eq!(resource.name, tail.replace('/', "_"), "{}", resource.path);
        }
        let mut names: Vec<&str> = RESOURCES.iter().map(|r| r.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), RESOURCES.len(), "unique");
        assert!(names
            .iter()
            .all(|n| n.bytes().all(|b| b.is_ascii_lowercase() || b == b'_')));
    }

    #[test]
    fn former_names_lead_to_present_lists_and_are_none() {
        for (old, new) in RENAMED {
            assert!(RESOURCES.iter().any(|r| r.name == *new), "{new}");
            assert!(!RESOURCES.iter().any(|r| r.name == *old), "{old}");
        }
    }

    #[test]
    fn the_largest_lists_start_first_and_the_others_keep_table_order() {
        let order: Vec<&str> = walk_order(select(&[], |_| ()).expect("all"))
            .iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(order[..LARGEST_FIRST.len()], LARGEST_FIRST);
        let rest: Vec<&str> = RESOURCES
            .iter()
            .map(|r| r.name)
            .filter(|name| !LARGEST_FIRST.contains(name))
            .collect();
        assert_eq!(order[LARGEST_FIRST.len()..], rest[..]);
        let some = select(&["units".to_owned(), "plots".to_owned()], |_| ()).expect("known");
        let names: Vec<&str> = walk_order(some).iter().map(|r| r.name).collect();
        assert_eq!(names, ["plots", "units"]);
    }

    #[test]
    fn unknown_resources_are_refused_and_former_names_noted() {
        assert!(select(&["nope".to_owned()], |_| ()).is_err());
        assert_eq!(select(&[], |_| ()).expect("all").len(), RESOURCES.len());
        let notes = std::cell::RefCell::new(Vec::new());
        let chosen = select(&["scoutings".to_owned(), "units".to_owned()], |note| {
            notes.borrow_mut().push(note.to_owned())
        })
        .expect("a former name is accepted");
        let names: Vec<&str> = chosen.iter().map(|r| r.name).collect();
        assert_eq!(names, ["units", "scouting"]);
        assert_eq!(notes.borrow().len(), 1);
        assert!(notes.borrow()[0].contains("scouting"), "{:?}", notes.borrow());
    }
}
