//! The writes, by hand: each has its own path, body and answer. Every create sends a fresh `Idempotency-Key`, so
//! the retry of a create whose answer was lost is answered with the first answer instead of creating twice.

use reqwest::header::{HeaderName, HeaderValue, IF_MATCH};
use reqwest::Method;
use wire::applicators::ApplicatorWrite;
use wire::establishments::{Establishment, NewEstablishment};
use wire::field::{Device, DeviceEvent, NewDevice, NewDeviceEvent, NewSilobagCampaign, SilobagCampaign};
use wire::jobs::{CampaignImport, ObjectiveYieldUpdate};
use wire::operations::{Applicator, Job};
use wire::plots::{NewPlot, PlotV3};
use wire::work_orders::WorkOrder;
use wire::work_orders::{WorkOrderHeaderWrite, WorkOrderLabourWrite, WorkOrderSupplyWrite, WorkOrderWrite};

use crate::client::{Call, Client, Tagged};
use crate::Error;

const ESTABLISHMENTS: &str = "/api/v3/third_party/establishments";
const PLOTS: &str = "/api/v3/third_party/plots";
const WORK_ORDERS: &str = "/integration/api/v1/workOrders";
const APPLICATORS: &str = "/api/v2/third_party/applicators";
const SILOBAG_CAMPAIGNS: &str = "/api/v3/third_party/silobag_campaigns";
const DEVICES: &str = "/api/v3/third_party/devices";
const DEVICE_EVENTS: &str = "/api/v3/third_party/device_events";
const OBJECTIVE_YIELD: &str = "/api/v2/third_party/campaigns/update_objective_yield";
const IMPORT: &str = "/api/v2/third_party/campaigns/import";

/// The write body of an order read from the API: the same order, ready to be modified and sent back with
/// [`Client::replace_work_order`]. Lines keep their `local_id`, so the replacement keeps them instead of recreating
/// them.
///
/// ```no_run
/// # async fn run(api: client::Client) -> Result<(), client::Error> {
/// let order = api.work_order_tagged(42).await?;
/// let mut write = client::work_order_write(&order.value);
/// write.header.name = format!("{} (revisada)", write.header.name);
/// api.replace_work_order(42, &write, order.etag.as_deref()).await?;
/// # Ok(())
/// # }
/// ```
pub fn work_order_write(order: &WorkOrder) -> WorkOrderWrite {
    let header = &order.header;
    WorkOrderWrite {
        header: WorkOrderHeaderWrite {
            external_id: header.external_id.clone(),
            system_id: header.system_id.clone(),
            name: header.name.clone(),
            date: header.date,
            voucher_date: header.voucher_date,
            state: header.state,
            extra_fields: header.extra_fields,
        },
        supplies: order
            .supplies
            .iter()
            .map(|s| WorkOrderSupplyWrite {
                local_id: Some(s.local_id),
                cultivation: s.cultivation,
                formulated: s.formulated,
                area_applied: s.area_applied,
                total_applied: s.total_applied,
                date: s.date,
                state: s.state,
            })
            .collect(),
        labours: order
            .labours
            .iter()
            .map(|l| WorkOrderLabourWrite {
                local_id: Some(l.local_id),
                cultivation: l.cultivation,
                labour_type: l.labour_type,
                area_applied: l.area_applied,
                contractors: l.contractors.clone(),
                machines: l.machines.clone(),
                applicators: l.applicators.clone(),
                date: l.date,
                state: l.state,
            })
            .collect(),
    }
}

impl Client {
    /// A create: POST `body` to `path` with a fresh idempotency key.
    async fn create<B: serde::Serialize + ?Sized>(&self, path: &str, body: &B) -> Result<crate::client::Answer, Error> {
        self.execute(&Call::new(Method::POST, path).json(body)?.idempotent())
            .await
    }

    /// `POST /api/v3/third_party/establishments`: creates an establishment of one of the society's farmers.
    ///
    /// ```no_run
    /// use client::wire::establishments::NewEstablishment;
    ///
    /// # async fn run(api: client::Client) -> Result<(), client::Error> {
    /// let created = api
    ///     .create_establishment(&NewEstablishment {
    ///         name: "La Tranquera".into(),
    ///         farmer_id: 1,
    ///         external_code: Some("ERP-001".into()),
    ///         active: None,
    ///     })
    ///     .await?;
    /// println!("establishment {}", created.id);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn create_establishment(&self, body: &NewEstablishment) -> Result<Establishment, Error> {
        self.create(ESTABLISHMENTS, body).await?.decode()
    }

    /// `DELETE /api/v3/third_party/establishments/{id}`: logical deletion; 409 while it has live plots. Deleting an
    /// already deleted establishment answers it unchanged.
    pub async fn delete_establishment(&self, id: i64) -> Result<Establishment, Error> {
        self.delete(ESTABLISHMENTS, id).await
    }

    /// `POST /api/v3/third_party/plots`: creates a plot in a live establishment of the society.
    pub async fn create_plot(&self, body: &NewPlot) -> Result<PlotV3, Error> {
        self.create(PLOTS, body).await?.decode()
    }

    /// `DELETE /api/v3/third_party/plots/{id}`: logical deletion; 409 `has_dependants` while it has live campaigns.
    pub async fn delete_plot(&self, id: i64) -> Result<PlotV3, Error> {
        self.delete(PLOTS, id).await
    }

    /// `POST /integration/api/v1/workOrders`: creates a work order; answers it with its `ETag`.
    ///
    /// A refused order is [`Error::Api`] with status 422 and reason `validation_failed`, whose
    /// [`Error::problems`] are every broken rule, each with its JSON path and its own reason; another live order
    /// with the same `external_id` is 409 `external_id_taken`.
    pub async fn create_work_order(&self, body: &WorkOrderWrite) -> Result<Tagged<WorkOrder>, Error> {
        self.create(WORK_ORDERS, body).await?.tagged()
    }

    /// `PATCH /integration/api/v1/workOrders/{localId}`: replaces the whole order (lines not sent are removed).
    ///
    /// With `if_match` (the `ETag` of the read the body was built from), the server refuses with 412 when the order
    /// changed since. See [`work_order_write`] for the GET → modify → replace flow.
    pub async fn replace_work_order(
        &self,
        local_id: i64,
        body: &WorkOrderWrite,
        if_match: Option<&str>,
    ) -> Result<Tagged<WorkOrder>, Error> {
        let mut call = Call::new(Method::PATCH, format!("{WORK_ORDERS}/{local_id}")).json(body)?;
        if let Some(etag) = if_match {
            let value = HeaderValue::from_str(etag).map_err(|_| Error::Config(format!("If-Match {etag:?}")))?;
            call = call.header(IF_MATCH, value);
        }
        self.execute(&call).await?.tagged()
    }

    /// `DELETE /integration/api/v1/workOrders/{localId}`: logical deletion; answers the deleted order.
    pub async fn delete_work_order(&self, local_id: i64) -> Result<WorkOrder, Error> {
        self.delete(WORK_ORDERS, local_id).await
    }

    /// `POST /api/v2/third_party/applicators`: creates an applicator; answers it in its v3 list shape.
    pub async fn create_applicator(&self, body: &ApplicatorWrite) -> Result<Applicator, Error> {
        self.create(APPLICATORS, body).await?.decode()
    }

    /// `PUT /api/v2/third_party/applicators/{id}`: replaces the whole applicator (fields not sent are cleared, the
    /// machine list replaced).
    pub async fn update_applicator(&self, id: i64, body: &ApplicatorWrite) -> Result<Applicator, Error> {
        let call = Call::new(Method::PUT, format!("{APPLICATORS}/{id}")).json(body)?;
        self.execute(&call).await?.decode()
    }

    /// `DELETE /api/v2/third_party/applicators/{id}`: logical deletion.
    pub async fn delete_applicator(&self, id: i64) -> Result<Applicator, Error> {
        self.delete(APPLICATORS, id).await
    }

    /// `POST /api/v3/third_party/silobag_campaigns`: stores a silobag campaign row. `api_key`, when given, is sent
    /// as `X-<TOKEN>-APIKEY` and must be a live key of the society.
    pub async fn create_silobag_campaign(
        &self,
        body: &NewSilobagCampaign,
        api_key: Option<&str>,
    ) -> Result<SilobagCampaign, Error> {
        let mut call = Call::new(Method::POST, SILOBAG_CAMPAIGNS).json(body)?.idempotent();
        if let Some(key) = api_key {
            let value =
                HeaderValue::from_str(key).map_err(|_| Error::Config("API key is not a header value".into()))?;
            let name: HeaderName = self.inner.api_key_header.clone();
            call = call.header(name, value);
        }
        self.execute(&call).await?.decode()
    }

    /// `POST /api/v3/third_party/devices`: registers a weather station or a silobag sensor.
    pub async fn create_device(&self, body: &NewDevice) -> Result<Device, Error> {
        self.create(DEVICES, body).await?.decode()
    }

    /// `POST /api/v3/third_party/device_events` with one reading.
    pub async fn create_device_event(&self, event: &NewDeviceEvent) -> Result<DeviceEvent, Error> {
        self.create(DEVICE_EVENTS, event).await?.decode()
    }

    /// `POST /api/v3/third_party/device_events` with a batch of up to 10,000 readings, stored all or none; the
    /// answer is in the order sent.
    ///
    /// ```no_run
    /// use client::wire::field::NewDeviceEvent;
    ///
    /// # async fn run(api: client::Client, readings: Vec<NewDeviceEvent>) -> Result<(), client::Error> {
    /// let stored = api.create_device_events(&readings).await?;
    /// assert_eq!(stored.len(), readings.len());
    /// # Ok(())
    /// # }
    /// ```
    pub async fn create_device_events(&self, events: &[NewDeviceEvent]) -> Result<Vec<DeviceEvent>, Error> {
        self.create(DEVICE_EVENTS, events).await?.decode()
    }

    /// `POST /api/v2/third_party/campaigns/update_objective_yield`: queues the update; poll the answered job with
    /// [`Client::objective_yield_job`].
    pub async fn update_objective_yield(&self, body: &ObjectiveYieldUpdate) -> Result<Job, Error> {
        self.create(OBJECTIVE_YIELD, body).await?.decode()
    }

    /// `POST /api/v2/third_party/campaigns/import`: queues a campaign import; poll the answered job with
    /// [`Client::campaign_import_job`].
    pub async fn import_campaigns(&self, body: &CampaignImport) -> Result<Job, Error> {
        self.create(IMPORT, body).await?.decode()
    }

    async fn delete<T: serde::de::DeserializeOwned>(&self, path: &str, id: i64) -> Result<T, Error> {
        self.execute(&Call::new(Method::DELETE, format!("{path}/{id}")))
            .await?
            .decode()
    }
}
