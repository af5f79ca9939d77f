//! Writes of the farm field group ("field" means the farm's field): silobag campaign rows, IoT devices and device
//! events.
//!
//! Each follows the write pattern of the other resources (the caller has checked the command's own rules; one
//! transaction looks its references up, has `domain::field` judge what it found, and inserts, touching the society's
//! `syncCheck`; then the answer through the read resource), with
//! one difference for events: IoT gateways send thousands of readings at once, so a batch looks each distinct
//! reference up once, inserts in multi-row statements, with no round trip per reading, and is answered from what it
//! inserted rather than read back.

use domain::field::{DeviceKind, DevicePlace, NewDevice, NewReadings, NewSilobagCampaign, Reading};
use domain::Refusal;

use super::field::{DeviceEventRow, DeviceEvents, Devices, SilobagCampaigns};
use crate::db::with_writer;
use crate::lookups::{ask, Kind, Lookups, Owner};
use crate::resources::events::{DEVICE, DEVICE_EVENT, SILOBAG_CAMPAIGN};
use crate::sql::Arg;
use crate::write::BeginWrite;
use crate::{now_millis, Render, Resource, Scope, Store, StoreError};

/// Rows per multi-row `INSERT`: 8 parameters a row keep a statement at 8,000 parameters, far below SQLite's (32,766)
/// and PostgreSQL's (65,535) limits, and a batch of 1,000 is one statement.
const INSERT_ROWS: usize = 1_000;

impl Store {
    /// What the rules about the records `new` names answer, asked without writing (a read that locks nothing): for a
    /// body refused for its own rules, so that its refusal names these too.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn silobag_campaign_references(
        &self,
        scope: &Scope,
        new: &NewSilobagCampaign,
    ) -> Result<Result<(), Refusal>, StoreError> {
        let mut lookups = Lookups::reading(self.db.dialect());
        let silobag = lookups.live("silobags", Owner::Society(scope.society_id()), [new.silobag_id]);
        let campaign = lookups.live("campaigns", Owner::Society(scope.society_id()), [new.campaign_id]);
        let found = self.ask_reading(&lookups).await?;
        Ok(new.references_hold(found.has(silobag, new.silobag_id), found.has(campaign, new.campaign_id)))
    }

    /// Stores grain of a campaign in a silobag, both live records of the caller's society; `new` meets its own rules
    /// (`NewSilobagCampaign::check`).
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn create_silobag_campaign(
        &self,
        scope: &Scope,
        new: &NewSilobagCampaign,
    ) -> Result<Result<wire::field::SilobagCampaign, Refusal>, StoreError> {
        let society_id = scope.society_id();
        let now = now_millis();
        let mut lookups = Lookups::new(self.db.dialect());
        let silobag = lookups.live("silobags", Owner::Society(society_id), [new.silobag_id]);
        let campaign = lookups.live("campaigns", Owner::Society(society_id), [new.campaign_id]);
        let created: Result<i64, Refusal> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let found = ask!(lookups, tx);
            let held = new.references_hold(found.has(silobag, new.silobag_id), found.has(campaign, new.campaign_id));
            match held {
                Err(refusal) => Err(refusal),
                Ok(()) => {
                    let id: i64 = sqlx::query_scalar(
                        "INSERT INTO silobag_campaigns (society_id, silobag_id, campaign_id, quantity_tn, \
                         grain_humidity_percent, grain_quality_semaphore, observations, active, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) RETURNING id",
                    )
                    .bind(society_id)
                    .bind(new.silobag_id)
                    .bind(new.campaign_id)
                    .bind(new.quantity_tn)
                    .bind(new.grain_humidity_percent)
                    .bind(new.grain_quality_semaphore)
                    .bind(new.observations.trim())
                    .bind(true)
                    .bind(now)
                    .fetch_one(&mut *tx)
                    .await?;
                    tx.changed(society_id, &SILOBAG_CAMPAIGN, [id], "created");
                    tx.commit().await?;
                    Ok(id)
                }
            }
        });
        self.written::<SilobagCampaigns>(scope, created).await
    }

    /// What the rules about the records `new` names answer ([`NewDevice::placement`]), asked without writing (a read
    /// that locks nothing): for a device refused for its own rules, so that its refusal names these too.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn device_references(&self, scope: &Scope, new: &NewDevice) -> Result<Result<(), Refusal>, StoreError> {
        let (lookups, establishment, silobag_lies_in) =
            device_lookups(Lookups::reading(self.db.dialect()), scope.society_id(), new);
        let found = self.ask_reading(&lookups).await?;
        let place = DevicePlace {
            establishment_found: new.establishment_id.is_some_and(|id| found.has(establishment, id)),
            silobag_lies_in: silobag_lies_in.and_then(|lies_in| found.of(lies_in).first().copied()),
        };
        Ok(new.placement(place).map(|_| ()))
    }

    /// Registers an IoT device of the caller's society, of `kind` (what `NewDevice::check` answered for `new`). A
    /// silobag sensor monitors a live silobag and is installed in its establishment (which the body may omit); a
    /// weather station may name a live establishment ([`NewDevice::placement`]).
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn create_device(
        &self,
        scope: &Scope,
        new: &NewDevice,
        kind: DeviceKind,
    ) -> Result<Result<wire::field::Device, Refusal>, StoreError> {
        let society_id = scope.society_id();
        let now = now_millis();
        let (lookups, establishment, silobag_lies_in) =
            device_lookups(Lookups::new(self.db.dialect()), society_id, new);
        let created: Result<i64, Refusal> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let found = ask!(lookups, tx);
            let place = DevicePlace {
                establishment_found: new.establishment_id.is_some_and(|id| found.has(establishment, id)),
                silobag_lies_in: silobag_lies_in.and_then(|lies_in| found.of(lies_in).first().copied()),
            };
            match new.placement(place) {
                Err(refusal) => Err(refusal),
                Ok(establishment_id) => {
                    let id: i64 = sqlx::query_scalar(
                        "INSERT INTO devices (society_id, establishment_id, silobag_id, name, kind, serial_number, \
                         latitude, longitude, active, created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) RETURNING id",
                    )
                    .bind(society_id)
                    .bind(establishment_id)
                    .bind(new.silobag_id)
                    .bind(new.name.trim())
                    .bind(kind.as_str())
                    .bind(new.serial_number.trim())
                    .bind(new.latitude)
                    .bind(new.longitude)
                    .bind(new.active)
                    .bind(now)
                    .fetch_one(&mut *tx)
                    .await?;
                    tx.changed(society_id, &DEVICE, [id], "created");
                    tx.commit().await?;
                    Ok(id)
                }
            }
        });
        self.written::<Devices>(scope, created).await
    }

    /// Stores readings of the caller's society's devices, all or none, answered in the order sent; `new` meets its
    /// own rules (`NewReadings::check`).
    ///
    /// Every distinct device and event type is looked up once, inside the transaction that inserts, so a device
    /// deleted meanwhile cannot slip through; when any reading is refused, every refused reading is named
    /// ([`NewReadings::references_hold`]) and nothing is stored.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id(), events = new.readings.len()))]
    pub async fn create_device_events(
        &self,
        scope: &Scope,
        new: &NewReadings,
    ) -> Result<Result<Vec<wire::field::DeviceEvent>, Refusal>, StoreError> {
        let events = &new.readings;
        // An empty batch (a gateway flushing an empty buffer) stores nothing, so it must not move `syncCheck`.
        if events.is_empty() {
            return Ok(Ok(Vec::new()));
        }
        let society_id = scope.society_id();
        let now = now_millis();
        let mut lookups = Lookups::new(self.db.dialect());
        let devices = lookups.live(
            "devices",
            Owner::Society(society_id),
            events.iter().map(|e| e.device_id),
        );
        let types = lookups.live(
            "device_event_types",
            Owner::Everyone,
            events.iter().map(|e| e.device_event_type_id),
        );
        let render = scope.render();
        // Each reading's event is handed over rendered from what was inserted, so the commit does not read the batch
        // back.
        let stored: Result<Vec<wire::field::DeviceEvent>, Refusal> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let found = ask!(lookups, tx);
            match new.references_hold(found.of(devices), found.of(types)) {
                // Dropping the transaction rolls it back; nothing was written anyway.
                Err(refusal) => Err(refusal),
                Ok(()) => {
                    let mut ids = Vec::with_capacity(events.len());
                    for chunk in events.chunks(INSERT_ROWS) {
                        ids.extend(tx.insert_readings(society_id, chunk, now).await?);
                    }
                    let stored = stored_readings(ids, events, now, &render);
                    for reading in &stored {
                        tx.event(society_id, &DEVICE_EVENT, reading.id, "created", now, reading)?;
                    }
                    tx.commit().await?;
                    Ok(stored)
                }
            }
        });
        Ok(stored)
    }
}

/// `lookups` with those of the records a new device of society `society_id` names: its establishment, and the
/// establishment its silobag lies in, which a sensor is installed in.
fn device_lookups(mut lookups: Lookups, society_id: i64, new: &NewDevice) -> (Lookups, Kind, Option<Kind>) {
    let establishment = lookups.live("establishments", Owner::Society(society_id), new.establishment_id);
    let silobag_lies_in = new.silobag_id.map(|silobag_id| {
        lookups.query(
            "establishment_id FROM silobags WHERE society_id = ? AND id = ? AND deleted_at IS NULL".to_owned(),
            &[Arg::Int(society_id), Arg::Int(silobag_id)],
        )
    });
    (lookups, establishment, silobag_lies_in)
}

/// The readings just inserted as the device events' read answers them, in the order sent (`ids` are): made from the
/// batch rather than read back.
fn stored_readings(ids: Vec<i64>, readings: &[Reading], now: i64, render: &Render) -> Vec<wire::field::DeviceEvent> {
    ids.into_iter()
        .zip(readings)
        .map(|(id, reading)| {
            let row = DeviceEventRow {
                id,
                device_id: reading.device_id,
                device_event_type_id: reading.device_event_type_id,
                recorded_at: reading.recorded_at.timestamp_millis(),
                value: reading.value,
                active: true,
                created_at: now,
                modified_at: now,
                deleted_at: None,
            };
            DeviceEvents::render(row, (), render)
        })
        .collect()
}

/// Stores readings and answers their ids in the order sent: the one thing about storing a batch that the backends do
/// differently.
trait InsertReadings {
    /// Inserts `events` of society `society_id`, stamped `now`.
    fn insert_readings(
        &mut self,
        society_id: i64,
        events: &[Reading],
        now: i64,
    ) -> impl std::future::Future<Output = Result<Vec<i64>, sqlx::Error>> + Send;
}

/// The columns a reading is inserted with.
const READING_COLUMNS: &str =
    "device_events (society_id, device_id, device_event_type_id, recorded_at, value, active, created_at, updated_at)";

impl InsertReadings for sqlx::SqliteConnection {
    /// One multi-row `INSERT`. Its placeholders are anonymous `?`: SQLite looks a numbered placeholder's name up in
    /// a list as long as the statement's, which made binding a large batch quadratic.
    /// SQLite gives each row of one statement the next rowid (the writer holds the database's lock), so the ids are
    /// the rows up to the last one inserted; returning them instead would hand each across sqlx's worker thread.
    async fn insert_readings(
        &mut self,
        society_id: i64,
        events: &[Reading],
        now: i64,
    ) -> Result<Vec<i64>, sqlx::Error> {
        let rows = vec!["(?, ?, ?, ?, ?, ?, ?, ?)"; events.len()].join(", ");
        let text = format!("INSERT INTO {READING_COLUMNS} VALUES {rows}");
        let mut insert = sqlx::query(&text);
        for event in events {
            insert = insert
                .bind(society_id)
                .bind(event.device_id)
                .bind(event.device_event_type_id)
                .bind(event.recorded_at.timestamp_millis())
                .bind(event.value)
                .bind(true)
                .bind(now)
                .bind(now);
        }
        let last = insert.execute(&mut *self).await?.last_insert_rowid();
        let count = i64::try_from(events.len()).unwrap_or(i64::MAX);
        Ok((last - count + 1..=last).collect())
    }
}

impl InsertReadings for sqlx::PgConnection {
    /// One `INSERT … SELECT` from four arrays: a statement of a thousand `VALUES` rows and 8,000 parameters was
    /// planned afresh on every execution. Neither `RETURNING`'s row order nor identity values are promised in order,
    /// but PostgreSQL hands out a statement's ids increasing as it inserts the rows `unnest` yields in array order,
    /// so sorted ids are the sent order.
    async fn insert_readings(
        &mut self,
        society_id: i64,
        events: &[Reading],
        now: i64,
    ) -> Result<Vec<i64>, sqlx::Error> {
        let text = format!(
            "INSERT INTO {READING_COLUMNS} SELECT $1, device, event_type, recorded_at, value, TRUE, $2, $2 \
             FROM unnest($3::BIGINT[], $4::BIGINT[], $5::BIGINT[], $6::DOUBLE PRECISION[]) \
             AS reading (device, event_type, recorded_at, value) RETURNING id"
        );
        let mut ids = sqlx::query_scalar::<_, i64>(&text)
            .bind(society_id)
            .bind(now)
            .bind(events.iter().map(|e| e.device_id).collect::<Vec<_>>())
            .bind(events.iter().map(|e| e.device_event_type_id).collect::<Vec<_>>())
            .bind(
                events
                    .iter()
                    .map(|e| e.recorded_at.timestamp_millis())
                    .collect::<Vec<_>>(),
            )
            .bind(events.iter().map(|e| e.value).collect::<Vec<_>>())
            .fetch_all(&mut *self)
            .await?;
        ids.sort_unstable();
        Ok(ids)
    }
}
