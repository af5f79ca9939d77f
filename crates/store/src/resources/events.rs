//! Which resources' changes are events, and which table's rows belong to which of their records: each resource's
//! [`EventResource`] (declared here for the resources whose reads are only declarations, beside their writes for the
//! others), and one entry per table ([`EVENT_SOURCES`]) for writers that know rows by table (a bulk load, an import).

use crate::events::EventResource;
use crate::resources::establishments::ESTABLISHMENT;
use crate::resources::farmers::FarmersV3;
use crate::resources::field::{
    DeviceEvents, Devices, FertilizationControls, ProgressReports, ScoutingMeasures, Scoutings, SilobagCampaigns,
    Silobags, Waypoints, WeatherAnomalies,
};
use crate::resources::operations::{Applicators, Contractors, Machines, ObjectiveYieldJobs, Warehouses};
use crate::resources::planning::{
    Campaigns, Cultivations, ExternalPlotAssociations, ExternalSystems, MasterCampaigns, Tags,
};
use crate::resources::plots::PLOT;
use crate::resources::work_orders::payload::WORK_ORDER;
use crate::webhooks::WEBHOOK_ENDPOINT;

pub(crate) static FARMER: EventResource = EventResource::of::<FarmersV3>("farmer", &["farmers"]);
pub(crate) static TAG: EventResource = EventResource::of::<Tags>("tag", &["tags"]);
pub(crate) static MASTER_CAMPAIGN: EventResource =
    EventResource::of::<MasterCampaigns>("master_campaign", &["master_campaigns"]);
pub(crate) static CAMPAIGN: EventResource = EventResource::of::<Campaigns>("campaign", &["campaigns"]);
pub(crate) static CULTIVATION: EventResource = EventResource::of::<Cultivations>("cultivation", &["cultivations"]);
pub(crate) static CONTRACTOR: EventResource = EventResource::of::<Contractors>("contractor", &["contractors"]);
pub(crate) static MACHINE: EventResource = EventResource::of::<Machines>("machine", &["machines"]);
pub(crate) static APPLICATOR: EventResource =
    EventResource::of::<Applicators>("applicator", &["applicators", "applicator_machines"]);
pub(crate) static WAREHOUSE: EventResource = EventResource::of::<Warehouses>("warehouse", &["warehouses"]);
pub(crate) static SCOUTING: EventResource = EventResource::of::<Scoutings>("scouting", &["scoutings"]);
pub(crate) static SCOUTING_MEASURE: EventResource =
    EventResource::of::<ScoutingMeasures>("scouting_measure", &["scouting_measures"]);
pub(crate) static WAYPOINT: EventResource = EventResource::of::<Waypoints>("waypoint", &["waypoints"]);
pub(crate) static PROGRESS: EventResource = EventResource::of::<ProgressReports>("progress", &["progress"]);
pub(crate) static FIELD_CONTROL: EventResource =
    EventResource::of::<FertilizationControls>("field_control", &["field_controls"]);
pub(crate) static EXTERNAL_SYSTEM: EventResource =
    EventResource::of::<ExternalSystems>("external_system", &["external_systems"]);
pub(crate) static EXTERNAL_PLOT_ASSOCIATION: EventResource =
    EventResource::of::<ExternalPlotAssociations>("external_plot_association", &["external_plot_associations"]);
pub(crate) static SILOBAG: EventResource = EventResource::of::<Silobags>("silobag", &["silobags"]);
pub(crate) static SILOBAG_CAMPAIGN: EventResource =
    EventResource::of::<SilobagCampaigns>("silobag_campaign", &["silobag_campaigns"]);
pub(crate) static WEATHER_ANOMALY: EventResource =
    EventResource::of::<WeatherAnomalies>("weather_anomaly", &["weather_anomalies"]);
pub(crate) static DEVICE: EventResource = EventResource::of::<Devices>("device", &["devices"]);
pub(crate) static DEVICE_EVENT: EventResource = EventResource::of::<DeviceEvents>("device_event", &["device_events"]);
/// A job's lease and heartbeat are not news: its writer records an event when its status or progress moves.
pub(crate) static JOB: EventResource = EventResource::of::<ObjectiveYieldJobs>("job", &["jobs"]);

/// Which record a row of a table belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordOf {
    /// The row is the record.
    Itself,
    /// The row is a line or a link of the record its column names.
    Parent(&'static str),
    /// The row is a link of a work order's labour (column `labour_id`): the record is the labour's order.
    LabourOf,
}

/// A table whose rows are records, or lines of records, of a resource with events.
#[derive(Debug, Clone, Copy)]
pub(crate) struct EventSource {
    /// The table.
    pub table: &'static str,
    /// The resource its changes are events of.
    pub resource: &'static EventResource,
    /// The record a row belongs to.
    pub record: RecordOf,
}

const fn own(table: &'static str, resource: &'static EventResource) -> EventSource {
    EventSource {
        table,
        resource,
        record: RecordOf::Itself,
    }
}

const fn part_of(table: &'static str, resource: &'static EventResource, column: &'static str) -> EventSource {
    EventSource {
        table,
        resource,
        record: RecordOf::Parent(column),
    }
}

const fn link_of_labour(table: &'static str) -> EventSource {
    EventSource {
        table,
        resource: &WORK_ORDER,
        record: RecordOf::LabourOf,
    }
}

/// Every table whose changes are events. Society tables that are not here are listed, with the reason, in the
/// migration test `every_society_table_has_events`.
pub(crate) static EVENT_SOURCES: &[EventSource] = &[
    own("farmers", &FARMER),
    own("establishments", &ESTABLISHMENT),
    own("plots", &PLOT),
    part_of("plot_tags", &PLOT, "plot_id"),
    own("tags", &TAG),
    own("master_campaigns", &MASTER_CAMPAIGN),
    own("campaigns", &CAMPAIGN),
    own("cultivations", &CULTIVATION),
    own("contractors", &CONTRACTOR),
    own("machines", &MACHINE),
    own("applicators", &APPLICATOR),
    part_of("applicator_machines", &APPLICATOR, "applicator_id"),
    own("warehouses", &WAREHOUSE),
    own("work_orders", &WORK_ORDER),
    part_of("work_order_supplies", &WORK_ORDER, "work_order_id"),
    part_of("work_order_labours", &WORK_ORDER, "work_order_id"),
    link_of_labour("work_order_labour_contractors"),
    link_of_labour("work_order_labour_machines"),
    link_of_labour("work_order_labour_applicators"),
    own("scoutings", &SCOUTING),
    own("scouting_measures", &SCOUTING_MEASURE),
    own("waypoints", &WAYPOINT),
    own("progress", &PROGRESS),
    own("field_controls", &FIELD_CONTROL),
    own("external_systems", &EXTERNAL_SYSTEM),
    own("external_plot_associations", &EXTERNAL_PLOT_ASSOCIATION),
    own("silobags", &SILOBAG),
    own("silobag_campaigns", &SILOBAG_CAMPAIGN),
    own("weather_anomalies", &WEATHER_ANOMALY),
    own("devices", &DEVICE),
    own("device_events", &DEVICE_EVENT),
    own("jobs", &JOB),
    own("webhook_endpoints", &WEBHOOK_ENDPOINT),
];

/// The declaration of `table`.
pub(crate) fn source(table: &str) -> Option<&'static EventSource> {
    EVENT_SOURCES.iter().find(|source| source.table == table)
}

/// The resource of `table` when its rows are records of their own (not a line or a link of another record).
pub(crate) fn own_resource(table: &str) -> Option<&'static EventResource> {
    source(table)
        .filter(|source| source.record == RecordOf::Itself)
        .map(|source| source.resource)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_table_of_a_resource_is_declared_and_each_declared_table_is_its_resources() {
        for source in EVENT_SOURCES {
            assert!(source.resource.tables.contains(&source.table), "{}", source.table);
            for table in source.resource.tables {
                assert!(
                    source_of(table).is_some_and(|other| std::ptr::eq(other.resource, source.resource)),
                    "{table} of {}",
                    source.resource.name
                );
            }
        }
    }

    fn source_of(table: &str) -> Option<&'static EventSource> {
        source(table)
    }

    #[test]
    fn every_resource_is_a_resource_of_the_feed() {
        for source in EVENT_SOURCES {
            assert!(
                domain::events::RESOURCES
                    .iter()
                    .any(|(resource, _)| *resource == source.resource.name),
                "{} is not a resource of domain::events::RESOURCES",
                source.resource.name
            );
        }
    }
}
