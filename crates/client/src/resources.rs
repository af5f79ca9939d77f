//! Every read of the API, generated from one declaration table: each line names the list method, the detail
//! method, the path, the item type of the `wire` crate and the generation that names the list's filters.
//!
//! A list method returns an [`Items`] stream over every page; a detail method reads `<path>/{id}`. The work-order
//! list, which also filters by state, and the work-order detail with its `ETag` are written by hand below.

use futures_util::TryStreamExt as _;
use reqwest::Method;
use wire::establishments::Establishment;
use wire::farmers::{FarmerV2, FarmerV3};
use wire::field::{
    Adversity, AdversityCategory, AdversityKind, ClimaticFactor, Device, DeviceEvent, DeviceEventType, FieldControl,
    Progress, Scouting, ScoutingMeasure, Silobag, SilobagCampaign, Waypoint, WeatherAnomaly, WeatherAnomalyType,
};
use wire::operations::{Applicator, Contractor, Job, LabourType, LabourTypeAttribute, Machine, VoucherType, Warehouse};
use wire::planning::{
    Campaign, Cultivation, CultivationSpecies, ExternalPlotAssociation, ExternalSystem, Formulated, FormulationType,
    MasterCampaign, MasterCampaignCycle, NamedState, PhenologicalState, PlantingTime, PlotV2, Tag, Unit,
};
use wire::plots::PlotV3;
use wire::work_orders::WorkOrder;

use crate::client::{items, Call, Client, Items, Tagged};
use crate::filters::{Filters, Generation, WorkOrderStates};
use crate::Error;

/// One read method; see [`endpoints!`].
macro_rules! endpoint {
    (list $generation:ident $list:ident $path:literal $item:ty) => {
        #[doc = concat!("Every `", stringify!($item), "` of `GET ", $path, "`, over all pages, filtered by `filters` (",
                        stringify!($generation), " filter names).")]
        pub fn $list(&self, filters: &Filters) -> Items<$item> {
            self.list(Generation::$generation, $path, filters)
        }
    };
    (detail $detail:ident $path:literal $item:ty) => {
        #[doc = concat!("The `", stringify!($item), "` of `GET ", $path, "/{id}`; [`Error::Api`] with status 404 when ",
                        "the caller's society has none with that id. Logically deleted records are answered too.")]
        pub async fn $detail(&self, id: i64) -> Result<$item, Error> {
            self.detail($path, id).await
        }
    };
    (both $generation:ident $list:ident $detail:ident $path:literal $item:ty) => {
        endpoint!(list $generation $list $path $item);
        endpoint!(detail $detail $path $item);
    };
}

/// The declaration table: `list` (a list without detail), `detail` (a detail without list), or `both`.
macro_rules! endpoints {
    ($($kind:ident($($args:tt)*);)*) => {
        /// The reads, one per line of the declaration table.
        impl Client {
            $(endpoint!($kind $($args)*);)*
        }
    };
}

endpoints! {
    // Master data.
    list(V2 farmers_v2 "/api/v2/third_party/farmers" FarmerV2);
    both(V3 farmers farmer "/api/v3/third_party/farmers" FarmerV3);
    both(V3 establishments establishment "/api/v3/third_party/establishments" Establishment);
    list(V2 plots "/api/v2/third_party/plots" PlotV2);
    detail(plot "/api/v3/third_party/plots" PlotV3);
    // Planning and catalogues.
    both(V3 master_campaign_cycles master_campaign_cycle "/api/v3/third_party/master_campaign_cycles" MasterCampaignCycle);
    both(V3 planting_times planting_time "/api/v3/third_party/planting_times" PlantingTime);
    both(V3 formulateds formulated "/api/v3/third_party/formulateds" Formulated);
    both(V3 cultivation_species cultivation_species_item "/api/v3/third_party/cultivation_species" CultivationSpecies);
    both(V3 formulation_types formulation_type "/api/v3/third_party/formulation_types" FormulationType);
    both(V3 units unit "/api/v3/third_party/units" Unit);
    both(V3 activity_statuses activity_status "/api/v3/third_party/activity_statuses" NamedState);
    both(V3 hydric_states hydric_state "/api/v3/third_party/hydric_states" NamedState);
    both(V3 phenological_states phenological_state "/api/v3/third_party/phenological_states" PhenologicalState);
    both(V3 tags tag "/api/v3/third_party/tags" Tag);
    both(V3 master_campaigns master_campaign "/api/v3/third_party/master_campaigns" MasterCampaign);
    both(V3 campaigns campaign "/api/v3/third_party/campaigns" Campaign);
    both(V3 cultivations cultivation "/api/v3/third_party/cultivations" Cultivation);
    both(V3 external_systems external_system "/api/v3/third_party/external_systems" ExternalSystem);
    both(V3 external_plot_associations external_plot_association "/api/v3/third_party/external_plot_associations" ExternalPlotAssociation);
    // Operations.
    both(V3 applicators applicator "/api/v3/third_party/applicators" Applicator);
    both(V3 machines machine "/api/v3/third_party/machines" Machine);
    both(V3 contractors contractor "/api/v3/third_party/contractors" Contractor);
    both(V3 warehouses warehouse "/api/v3/third_party/warehouses" Warehouse);
    both(V3 voucher_types voucher_type "/api/v3/third_party/voucher_types" VoucherType);
    both(V3 labour_types labour_type "/api/v3/third_party/application_order_labour_types" LabourType);
    detail(labour_type_attribute "/api/v2/third_party/work_order_labour_type_attributes" LabourTypeAttribute);
    detail(work_order "/api/v3/third_party/work_orders" WorkOrder);
    // Field.
    list(V2 adversities "/api/v2/third_party/adversity" Adversity);
    list(V2 adversity_categories "/api/v2/third_party/adversity_categories" AdversityCategory);
    list(V2 adversity_kinds "/api/v2/third_party/adversity_kinds" AdversityKind);
    both(V3 scoutings scouting "/api/v3/third_party/scouting" Scouting);
    both(V3 scouting_measures scouting_measure "/api/v3/third_party/scouting_measures" ScoutingMeasure);
    both(V3 waypoints waypoint "/api/v3/third_party/waypoints" Waypoint);
    both(V3 progress_reports progress_report "/api/v3/third_party/progress_report" Progress);
    both(V3 planting_progress planting_progress_item "/api/v3/third_party/planting_progress" Progress);
    both(V3 harvest_progress harvest_progress_item "/api/v3/third_party/harvest_progress" Progress);
    both(V3 fertilization_controls fertilization_control "/api/v3/third_party/fertilization_control" FieldControl);
    both(V3 planting_controls planting_control "/api/v3/third_party/planting_control" FieldControl);
    both(V3 plant_stand_controls plant_stand_control "/api/v3/third_party/plant_stand_control" FieldControl);
    both(V3 silobags silobag "/api/v3/third_party/silobags" Silobag);
    both(V3 silobag_campaigns silobag_campaign "/api/v3/third_party/silobag_campaigns" SilobagCampaign);
    both(V3 weather_anomalies weather_anomaly "/api/v3/third_party/weather_anomaly" WeatherAnomaly);
    both(V3 weather_anomaly_types weather_anomaly_type "/api/v3/third_party/weather_anomaly_types" WeatherAnomalyType);
    both(V3 climatic_factors climatic_factor "/api/v3/third_party/climatic_factors" ClimaticFactor);
    both(V3 devices device "/api/v3/third_party/devices" Device);
    both(V3 device_events device_event "/api/v3/third_party/device_events" DeviceEvent);
    both(V3 device_event_types device_event_type "/api/v3/third_party/device_event_types" DeviceEventType);
    // Background jobs (v2).
    both(V2 objective_yield_jobs objective_yield_job "/api/v2/third_party/campaigns/update_objective_yield/jobs" Job);
    both(V2 campaign_import_jobs campaign_import_job "/api/v2/third_party/campaigns/import/jobs" Job);
}

const WORK_ORDERS: &str = "/api/v3/third_party/work_orders";

impl Client {
    /// Every work order of `GET /api/v3/third_party/work_orders`, each the complete structure a write takes,
    /// filtered by the audit filters and by header state.
    ///
    /// ```no_run
    /// use futures_util::TryStreamExt;
    /// use client::{Filters, WorkOrderStates};
    ///
    /// # async fn run(api: client::Client) -> Result<(), client::Error> {
    /// let pending = WorkOrderStates { pending: Some(true), ..Default::default() };
    /// let orders: Vec<_> = api.work_orders(&Filters::new(), pending).try_collect().await?;
    /// # let _ = orders;
    /// # Ok(())
    /// # }
    /// ```
    pub fn work_orders(&self, filters: &Filters, states: WorkOrderStates) -> Items<WorkOrder> {
        let mut query = filters.query(Generation::V3);
        query.extend(states.query());
        items(self.pages_with(WORK_ORDERS, query))
    }

    /// One work order with its `ETag`, which [`Client::replace_work_order`] may send as `If-Match` so that the
    /// replacement applies only if nobody changed the order since.
    pub async fn work_order_tagged(&self, local_id: i64) -> Result<Tagged<WorkOrder>, Error> {
        self.execute(&Call::new(Method::GET, format!("{WORK_ORDERS}/{local_id}")))
            .await?
            .tagged()
    }

    /// Counts the items of a list without keeping them; a convenience for dashboards and tests.
    ///
    /// ```no_run
    /// # async fn run(api: client::Client) -> Result<(), client::Error> {
    /// let live = api.count(api.establishments(&client::Filters::new())).await?;
    /// # let _ = live;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn count<T>(&self, items: Items<T>) -> Result<usize, Error> {
        items.try_fold(0, |n, _| async move { Ok(n + 1) }).await
    }
}
