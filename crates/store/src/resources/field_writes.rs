//! The field group's writes: silobag campaign rows, IoT devices and device events.
//!
//! Each follows the write pattern of the other resources (check the body, then one transaction that checks the
//! references and inserts, touching the society's `syncCheck`, then answer through the read resource), with one
//! difference for events: IoT gateways send thousands of readings at once, so a batch checks each distinct reference
//! once, inserts in multi-row statements, with no round trip per reading, and is answered from what it inserted
//! rather than read back.

use std::collections::{BTreeSet, HashSet};

use wire::field::{NewDevice, NewDeviceEvent, NewSilobagCampaign};

use super::field::{DeviceEventRow, DeviceEvents, Devices, SilobagCampaigns};
use super::Refusal;
use crate::db::{bind_args, with_writer, Arg, BeginWrite, Sql, IDS_PER_QUERY};
use crate::{now_millis, Resource, Scope, Store, StoreError};

/// Most readings one device-events request may carry.
pub const MAX_DEVICE_EVENTS: usize = 10_000;

/// Rows per multi-row `INSERT`: 8 parameters a row keep a statement at 8,000 parameters, far below SQLite's (32,766)
/// and PostgreSQL's (65,535) limits, and a batch of 1,000 is one statement.
const INSERT_ROWS: usize = 1_000;

/// The device kinds the platform knows.
pub const DEVICE_KINDS: &str = "weather_station, silobag_sensor";

/// Why a field write was refused: the common rules, plus those only the field group has.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldRefusal {
    /// A rule every resource shares (blank text, non-positive number, unknown reference).
    Common(Refusal),
    /// A number outside its range, bounds included.
    OutOfRange {
        /// The field.
        field: &'static str,
        /// Lowest allowed.
        min: f64,
        /// Highest allowed.
        max: f64,
    },
    /// A value outside a fixed set.
    NotOneOf {
        /// The field.
        field: &'static str,
        /// The allowed values, as the message lists them.
        allowed: &'static str,
    },
    /// A field that a device of this kind must have.
    RequiredForKind {
        /// The field.
        field: &'static str,
        /// The device kind.
        kind: &'static str,
    },
    /// A field that a device of this kind must not have.
    NotForKind {
        /// The field.
        field: &'static str,
        /// The device kind.
        kind: &'static str,
    },
    /// The silobag lies in another establishment than the one named.
    SilobagElsewhere {
        /// The silobag.
        silobag_id: i64,
        /// The establishment named in the body.
        establishment_id: i64,
    },
    /// Items of a batch broke rules: each failing item's index (from 0) and why, in order.
    Items(Vec<(usize, FieldRefusal)>),
}

impl From<Refusal> for FieldRefusal {
    fn from(refusal: Refusal) -> Self {
        FieldRefusal::Common(refusal)
    }
}

fn unknown(field: &'static str, id: i64) -> FieldRefusal {
    FieldRefusal::Common(Refusal::UnknownReference { field, id })
}

/// The device kind as a static name, if it is one of [`DEVICE_KINDS`].
fn device_kind(kind: &str) -> Option<&'static str> {
    match kind.trim() {
        "weather_station" => Some("weather_station"),
        "silobag_sensor" => Some("silobag_sensor"),
        _ => None,
    }
}

/// Checks what a device body says about itself, before any reference is looked up.
fn check_device(new: &NewDevice) -> Result<&'static str, FieldRefusal> {
    if new.name.trim().is_empty() {
        return Err(Refusal::Blank("name").into());
    }
    let kind = device_kind(&new.kind).ok_or(FieldRefusal::NotOneOf {
        field: "kind",
        allowed: DEVICE_KINDS,
    })?;
    if new.serial_number.trim().is_empty() {
        return Err(Refusal::Blank("serial_number").into());
    }
    match (kind, new.silobag_id) {
        ("silobag_sensor", None) => {
            return Err(FieldRefusal::RequiredForKind {
                field: "silobag_id",
                kind,
            })
        }
        ("weather_station", Some(_)) => {
            return Err(FieldRefusal::NotForKind {
                field: "silobag_id",
                kind,
            })
        }
        _ => {}
    }
    for (field, value, bound) in [("latitude", new.latitude, 90.0), ("longitude", new.longitude, 180.0)] {
        if value.is_some_and(|v| !(-bound..=bound).contains(&v)) {
            return Err(FieldRefusal::OutOfRange {
                field,
                min: -bound,
                max: bound,
            });
        }
    }
    Ok(kind)
}

/// Checks what a silobag campaign body says about itself, before any reference is looked up.
fn check_silobag_campaign(new: &NewSilobagCampaign) -> Result<(), FieldRefusal> {
    if !(new.quantity_tn.is_finite() && new.quantity_tn > 0.0) {
        return Err(Refusal::NotPositive("quantity_tn").into());
    }
    if !(0.0..=100.0).contains(&new.grain_humidity_percent) {
        return Err(FieldRefusal::OutOfRange {
            field: "grain_humidity_percent",
            min: 0.0,
            max: 100.0,
        });
    }
    if !(1..=3).contains(&new.grain_quality_semaphore) {
        return Err(FieldRefusal::NotOneOf {
            field: "grain_quality_semaphore",
            allowed: "1 (verde/green), 2 (amarillo/yellow), 3 (rojo/red)",
        });
    }
    Ok(())
}

/// A `SELECT id FROM {table} WHERE … AND id IN (…)` for one chunk of ids; `society_id` scopes it when given.
fn live_ids_query(table: &str, society_id: Option<i64>, ids: &[i64]) -> Sql {
    let mut sql = Sql::default();
    sql.push(&format!("SELECT id FROM {table} WHERE deleted_at IS NULL"));
    if let Some(society_id) = society_id {
        sql.push(" AND society_id = ").arg(Arg::Int(society_id));
    }
    sql.push(" AND id IN ").id_list(ids);
    sql
}

impl Store {
    /// Stores grain of a campaign in a silobag, both live records of the caller's society.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn create_silobag_campaign(
        &self,
        scope: &Scope,
        new: &NewSilobagCampaign,
    ) -> Result<Result<wire::field::SilobagCampaign, FieldRefusal>, StoreError> {
        if let Err(refusal) = check_silobag_campaign(new) {
            return Ok(Err(refusal));
        }
        let society_id = scope.society_id();
        let now = now_millis();
        let observations = new.observations.as_deref().map(str::trim).unwrap_or_default();
        let created: Result<i64, FieldRefusal> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let silobag: Option<i64> =
                sqlx::query_scalar("SELECT id FROM silobags WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL")
                    .bind(society_id)
                    .bind(new.silobag_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            let campaign: Option<i64> =
                sqlx::query_scalar("SELECT id FROM campaigns WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL")
                    .bind(society_id)
                    .bind(new.campaign_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            match (silobag, campaign) {
                (None, _) => Err(unknown("silobag_id", new.silobag_id)),
                (_, None) => Err(unknown("campaign_id", new.campaign_id)),
                (Some(_), Some(_)) => {
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
                    .bind(observations)
                    .bind(true)
                    .bind(now)
                    .fetch_one(&mut *tx)
                    .await?;
                    tx.commit().await?;
                    Ok(id)
                }
            }
        });
        match created {
            Ok(id) => Ok(self
                .find::<SilobagCampaigns>(scope, id)
                .await?
                .ok_or(Refusal::NotFound.into())),
            Err(refusal) => Ok(Err(refusal)),
        }
    }

    /// Registers an IoT device of the caller's society. A silobag sensor monitors a live silobag and is installed
    /// in its establishment (which the body may omit); a weather station may name a live establishment.
    #[tracing::instrument(skip(self, scope, new), fields(society = scope.society_id()))]
    pub async fn create_device(
        &self,
        scope: &Scope,
        new: &NewDevice,
    ) -> Result<Result<wire::field::Device, FieldRefusal>, StoreError> {
        let kind = match check_device(new) {
            Ok(kind) => kind,
            Err(refusal) => return Ok(Err(refusal)),
        };
        let society_id = scope.society_id();
        let now = now_millis();
        let created: Result<i64, FieldRefusal> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut outcome: Result<Option<i64>, FieldRefusal> = Ok(new.establishment_id);
            if let Some(establishment_id) = new.establishment_id {
                let found: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM establishments WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                )
                .bind(society_id)
                .bind(establishment_id)
                .fetch_optional(&mut *tx)
                .await?;
                if found.is_none() {
                    outcome = Err(unknown("establishment_id", establishment_id));
                }
            }
            if let (Ok(named), Some(silobag_id)) = (&outcome, new.silobag_id) {
                let lies_in: Option<i64> = sqlx::query_scalar(
                    "SELECT establishment_id FROM silobags WHERE society_id = $1 AND id = $2 AND deleted_at IS NULL",
                )
                .bind(society_id)
                .bind(silobag_id)
                .fetch_optional(&mut *tx)
                .await?;
                outcome = match (lies_in, *named) {
                    (None, _) => Err(unknown("silobag_id", silobag_id)),
                    (Some(actual), Some(named)) if actual != named => Err(FieldRefusal::SilobagElsewhere {
                        silobag_id,
                        establishment_id: named,
                    }),
                    (Some(actual), _) => Ok(Some(actual)),
                };
            }
            match outcome {
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
                    .bind(kind)
                    .bind(new.serial_number.trim())
                    .bind(new.latitude)
                    .bind(new.longitude)
                    .bind(new.active.unwrap_or(true))
                    .bind(now)
                    .fetch_one(&mut *tx)
                    .await?;
                    tx.commit().await?;
                    Ok(id)
                }
            }
        });
        match created {
            Ok(id) => Ok(self.find::<Devices>(scope, id).await?.ok_or(Refusal::NotFound.into())),
            Err(refusal) => Ok(Err(refusal)),
        }
    }

    /// Stores readings of the caller's society's devices, all or none, answered in the order sent.
    ///
    /// Every distinct device and event type is checked once, inside the transaction that inserts, so a device
    /// deleted meanwhile cannot slip through; when any item is refused, every refused item is named and nothing is
    /// stored. The batch size is the caller's to bound (see [`MAX_DEVICE_EVENTS`]).
    #[tracing::instrument(skip(self, scope, events), fields(society = scope.society_id(), events = events.len()))]
    pub async fn create_device_events(
        &self,
        scope: &Scope,
        events: &[NewDeviceEvent],
    ) -> Result<Result<Vec<wire::field::DeviceEvent>, FieldRefusal>, StoreError> {
        // An empty batch (a gateway flushing an empty buffer) stores nothing, so it must not move `syncCheck`.
        if events.is_empty() {
            return Ok(Ok(Vec::new()));
        }
        let society_id = scope.society_id();
        let now = now_millis();
        let devices: Vec<i64> = events
            .iter()
            .map(|e| e.device_id)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let types: Vec<i64> = events
            .iter()
            .map(|e| e.device_event_type_id)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let stored: Result<Vec<i64>, FieldRefusal> = with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut live_devices = HashSet::with_capacity(devices.len());
            for chunk in devices.chunks(IDS_PER_QUERY) {
                let sql = live_ids_query("devices", Some(society_id), chunk);
                let found: Vec<i64> = bind_args!(sqlx::query_scalar::<_, i64>(&sql.text), &sql.args)
                    .fetch_all(&mut *tx)
                    .await?;
                live_devices.extend(found);
            }
            // Event types are a global catalogue.
            let mut live_types = HashSet::with_capacity(types.len());
            for chunk in types.chunks(IDS_PER_QUERY) {
                let sql = live_ids_query("device_event_types", None, chunk);
                let found: Vec<i64> = bind_args!(sqlx::query_scalar::<_, i64>(&sql.text), &sql.args)
                    .fetch_all(&mut *tx)
                    .await?;
                live_types.extend(found);
            }
            let failures: Vec<(usize, FieldRefusal)> = events
                .iter()
                .enumerate()
                .filter_map(|(index, event)| {
                    if !live_devices.contains(&event.device_id) {
                        Some((index, unknown("device_id", event.device_id)))
                    } else if !live_types.contains(&event.device_event_type_id) {
                        Some((index, unknown("device_event_type_id", event.device_event_type_id)))
                    } else {
                        None
                    }
                })
                .collect();
            if failures.is_empty() {
                let mut ids = Vec::with_capacity(events.len());
                for chunk in events.chunks(INSERT_ROWS) {
                    ids.extend(tx.insert_readings(society_id, chunk, now).await?);
                }
                tx.commit().await?;
                Ok(ids)
            } else {
                // Dropping the transaction rolls it back; nothing was written anyway.
                Err(FieldRefusal::Items(failures))
            }
        });
        let ids = match stored {
            Ok(ids) => ids,
            Err(refusal) => return Ok(Err(refusal)),
        };
        // The answer is what was just inserted, so it is made from the batch rather than read back; the ids are in
        // the sent order (see above).
        let render = scope.render();
        Ok(Ok(ids
            .into_iter()
            .zip(events)
            .map(|(id, event)| {
                let row = DeviceEventRow {
                    id,
                    device_id: event.device_id,
                    device_event_type_id: event.device_event_type_id,
                    recorded_at: event.recorded_at.0.timestamp_millis(),
                    value: event.value,
                    active: true,
                    created_at: now,
                    modified_at: now,
                    deleted_at: None,
                };
                DeviceEvents::render(row, &render)
            })
            .collect()))
    }
}

/// Stores readings and answers their ids in the order sent: the one thing about storing a batch that the backends do
/// differently.
trait InsertReadings {
    /// Inserts `events` of society `society_id`, stamped `now`.
    fn insert_readings(
        &mut self,
        society_id: i64,
        events: &[NewDeviceEvent],
        now: i64,
    ) -> impl std::future::Future<Output = Result<Vec<i64>, sqlx::Error>> + Send;
}

/// The columns a reading is inserted with.
const READING_COLUMNS: &str =
    "device_events (society_id, device_id, device_event_type_id, recorded_at, value, active, created_at, updated_at)";

impl InsertReadings for sqlx::SqliteConnection {
    /// One multi-row `INSERT`. Its placeholders are anonymous `?`: SQLite looks a numbered placeholder's name up in
    /// a list as long as the statement's, which made binding a 4,000-value batch quadratic (a fifth of its time).
    /// SQLite gives each row of one statement the next rowid (the writer holds the database's lock), so the ids are
    /// the rows up to the last one inserted; returning them instead would hand each across sqlx's worker thread.
    async fn insert_readings(
        &mut self,
        society_id: i64,
        events: &[NewDeviceEvent],
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
                .bind(event.recorded_at.0.timestamp_millis())
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
        events: &[NewDeviceEvent],
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
                    .map(|e| e.recorded_at.0.timestamp_millis())
                    .collect::<Vec<_>>(),
            )
            .bind(events.iter().map(|e| e.value).collect::<Vec<_>>())
            .fetch_all(&mut *self)
            .await?;
        ids.sort_unstable();
        Ok(ids)
    }
}
