//! "SQLite alone": reads one society's list pages with the statements the API runs for them (the same joins,
//! columns, filter and keyset), on one thread, and serialises each page's items with `serde_json` into the bytes the
//! API answers. What it sustains is the physical limit of an uncached page on this machine: bench/run compares the
//! API's uncached rows with it, per core.
//!
//!     sqlite-alone DATABASE SOCIETY LIST SECONDS    pages in rotation for SECONDS; prints one JSON line
//!     sqlite-alone DATABASE SOCIETY LIST page N     prints page N's items, for bench/run to check against the API's
//!
//! LIST is `plots` (v2), `campaigns` (v3) or `work_orders` (v3, 100 a page, each with its supply and labour lines).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::{DateTime, Datelike, NaiveDateTime, Offset, Timelike, Utc};
use chrono_tz::Tz;
use rusqlite::{Connection, OpenFlags, Row};
use serde::Serialize;

const PAGE: usize = 100;

const PLOTS: &str = "SELECT t.id, t.name, t.area, t.external_code, f.id, TRIM(f.name || ' ' || COALESCE(f.lastname, '')), \
     e.id, e.name, u.id, u.name, u.lastname, TRIM(u.name || ' ' || COALESCE(u.lastname, '')), t.created_at, t.tags_json \
     FROM plots t \
     JOIN establishments e ON e.society_id = t.society_id AND e.id = t.establishment_id \
     JOIN farmers f ON f.society_id = e.society_id AND f.id = e.farmer_id \
     LEFT JOIN users u ON u.society_id = t.society_id AND u.id = t.created_by \
     WHERE 1 = 1 AND t.society_id = $1 AND t.deleted_at IS NULL AND t.id >= $2 AND t.id < $3 ORDER BY t.id LIMIT $4";

const CAMPAIGNS: &str =
    "SELECT t.id, t.master_campaign_id, t.plot_id, t.name, t.external_code, t.area, t.planting_date, \
     t.objective_yield, t.activity_status_id, t.active, t.created_at, t.updated_at, t.deleted_at FROM campaigns t \
     WHERE 1 = 1 AND t.society_id = $1 AND t.deleted_at IS NULL AND t.id >= $2 AND t.id < $3 ORDER BY t.id LIMIT $4";

const WORK_ORDERS: &str = "SELECT t.id, t.society_id, t.external_id, t.system_id, t.name, t.date, t.voucher_date, \
     t.voucher_type_id, t.pending, t.executed, t.confirmed, t.is_read_only, t.active, t.created_at, t.updated_at, \
     t.deleted_at FROM work_orders t \
     WHERE 1 = 1 AND t.society_id = $1 AND t.deleted_at IS NULL AND t.id >= $2 AND t.id < $3 ORDER BY t.id LIMIT $4";

const SUPPLIES: &str =
    "SELECT s.id, s.work_order_id, s.campaign_id, s.formulated_id, s.area_applied, s.total_applied, \
     s.date, s.pending, s.executed, s.confirmed FROM work_order_supplies s \
     WHERE s.society_id = $1 AND s.work_order_id IN ";

const LABOURS: &str = "SELECT l.id, l.work_order_id, l.campaign_id, l.labour_type_id, l.area_applied, l.date, \
     l.pending, l.executed, l.confirmed, \
     (SELECT string_agg(CAST(x.contractor_id AS TEXT), ',' ORDER BY x.contractor_id) \
      FROM work_order_labour_contractors x WHERE x.society_id = l.society_id AND x.labour_id = l.id), \
     (SELECT string_agg(CAST(x.machine_id AS TEXT), ',' ORDER BY x.machine_id) \
      FROM work_order_labour_machines x WHERE x.society_id = l.society_id AND x.labour_id = l.id), \
     (SELECT string_agg(CAST(x.applicator_id AS TEXT), ',' ORDER BY x.applicator_id) \
      FROM work_order_labour_applicators x WHERE x.society_id = l.society_id AND x.labour_id = l.id) \
     FROM work_order_labours l WHERE l.society_id = $1 AND l.work_order_id IN ";

/// An instant as the API writes it: `Y-m-dTH:i:sP` in the society's zone, or the local wall clock (v2 plots).
#[derive(Clone, Copy)]
struct Clock(Tz);

impl Clock {
    fn at(self, millis: i64) -> String {
        let local = DateTime::<Utc>::from_timestamp_millis(millis)
            .unwrap_or_default()
            .with_timezone(&self.0);
        let offset = local.offset().fix().local_minus_utc();
        let minutes = offset.unsigned_abs() / 60;
        format!(
            "{}{}{:02}:{:02}",
            wall(&local.naive_local(), 'T'),
            if offset < 0 { '-' } else { '+' },
            minutes / 60,
            minutes % 60
        )
    }

    fn plain(self, millis: i64) -> String {
        let local = DateTime::<Utc>::from_timestamp_millis(millis)
            .unwrap_or_default()
            .with_timezone(&self.0);
        wall(&local.naive_local(), ' ')
    }
}

fn wall(at: &NaiveDateTime, separator: char) -> String {
    format!(
        "{:04}-{:02}-{:02}{separator}{:02}:{:02}:{:02}",
        at.year(),
        at.month(),
        at.day(),
        at.hour(),
        at.minute(),
        at.second()
    )
}

#[derive(Serialize)]
struct PlotV2 {
    id: i64,
    name: String,
    area: String,
    external_code: Option<String>,
    farmer_id: i64,
    farmer_name: String,
    establishment_id: i64,
    establishment_name: String,
    created_by_id: Option<i64>,
    created_by_name: Option<String>,
    created_by_lastname: Option<String>,
    created_by_fullname: Option<String>,
    created_at: String,
    tags: String,
}

fn plot(row: &Row, clock: Clock) -> rusqlite::Result<PlotV2> {
    Ok(PlotV2 {
        id: row.get(0)?,
        name: row.get(1)?,
        area: format!("{:.2}", row.get::<_, f64>(2)?),
        external_code: row.get(3)?,
        farmer_id: row.get(4)?,
        farmer_name: row.get(5)?,
        establishment_id: row.get(6)?,
        establishment_name: row.get(7)?,
        created_by_id: row.get(8)?,
        created_by_name: row.get(9)?,
        created_by_lastname: row.get(10)?,
        created_by_fullname: row.get(11)?,
        created_at: clock.plain(row.get(12)?),
        tags: row.get(13)?,
    })
}

#[derive(Serialize)]
struct Campaign {
    id: i64,
    master_campaign_id: i64,
    plot_id: i64,
    name: String,
    external_code: Option<String>,
    area: f64,
    planting_date: Option<String>,
    objective_yield: Option<f64>,
    activity_status_id: Option<i64>,
    active: bool,
    created_at: String,
    updated_at: String,
    deleted_at: Option<String>,
}

fn campaign(row: &Row, clock: Clock) -> rusqlite::Result<Campaign> {
    Ok(Campaign {
        id: row.get(0)?,
        master_campaign_id: row.get(1)?,
        plot_id: row.get(2)?,
        name: row.get(3)?,
        external_code: row.get(4)?,
        area: (row.get::<_, f64>(5)? * 100.0).round() / 100.0,
        planting_date: row.get(6)?,
        objective_yield: row.get(7)?,
        activity_status_id: row.get(8)?,
        active: row.get(9)?,
        created_at: clock.at(row.get(10)?),
        updated_at: clock.at(row.get(11)?),
        deleted_at: row.get::<_, Option<i64>>(12)?.map(|at| clock.at(at)),
    })
}

#[derive(Serialize, Clone, Copy)]
struct LocalRef {
    local_id: i64,
}

#[derive(Serialize)]
struct State {
    pending: bool,
    executed: bool,
    confirmed: bool,
}

#[derive(Serialize)]
struct ExtraFields {
    company: LocalRef,
    voucher_type: LocalRef,
}

#[derive(Serialize)]
struct Header {
    local_id: i64,
    external_id: Option<String>,
    system_id: String,
    name: String,
    date: String,
    voucher_date: String,
    state: State,
    extra_fields: ExtraFields,
    is_read_only: bool,
    active: bool,
    created_at: String,
    updated_at: String,
    deleted_at: Option<String>,
}

#[derive(Serialize)]
struct Supply {
    local_id: i64,
    cultivation: LocalRef,
    formulated: LocalRef,
    area_applied: f64,
    total_applied: f64,
    date: String,
    state: State,
}

#[derive(Serialize)]
struct Labour {
    local_id: i64,
    cultivation: LocalRef,
    labour_type: Option<LocalRef>,
    area_applied: f64,
    contractors: Vec<LocalRef>,
    machines: Vec<LocalRef>,
    applicators: Vec<LocalRef>,
    date: String,
    state: State,
}

#[derive(Serialize)]
struct WorkOrder {
    header: Header,
    supplies: Vec<Supply>,
    labours: Vec<Labour>,
}

fn header(row: &Row, clock: Clock) -> rusqlite::Result<Header> {
    Ok(Header {
        local_id: row.get(0)?,
        external_id: row.get(2)?,
        system_id: row.get(3)?,
        name: row.get(4)?,
        date: clock.at(row.get(5)?),
        voucher_date: clock.at(row.get(6)?),
        state: State {
            pending: row.get(8)?,
            executed: row.get(9)?,
            confirmed: row.get(10)?,
        },
        extra_fields: ExtraFields {
            company: LocalRef { local_id: row.get(1)? },
            voucher_type: LocalRef { local_id: row.get(7)? },
        },
        is_read_only: row.get(11)?,
        active: row.get(12)?,
        created_at: clock.at(row.get(13)?),
        updated_at: clock.at(row.get(14)?),
        deleted_at: row.get::<_, Option<i64>>(15)?.map(|at| clock.at(at)),
    })
}

fn refs(list: Option<String>) -> Vec<LocalRef> {
    list.unwrap_or_default()
        .split(',')
        .filter_map(|id| id.trim().parse().ok())
        .map(|local_id| LocalRef { local_id })
        .collect()
}

/// The page's orders, each with its lines, read as the API reads them: headers, then supplies and labours of the
/// page's orders in one statement each.
fn work_orders(
    connection: &Connection,
    society: i64,
    bounds: (i64, i64),
    clock: Clock,
) -> rusqlite::Result<Vec<WorkOrder>> {
    let mut orders: Vec<WorkOrder> = connection
        .prepare_cached(WORK_ORDERS)?
        .query_map((society, bounds.0, bounds.1, PAGE as i64), |row| {
            Ok(WorkOrder {
                header: header(row, clock)?,
                supplies: Vec::new(),
                labours: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    let ids: Vec<i64> = orders.iter().map(|order| order.header.local_id).collect();
    let position: HashMap<i64, usize> = ids.iter().enumerate().map(|(index, id)| (*id, index)).collect();
    // `IN ($2, $3, …)` and the order, as the API's statements for a page's lines are written.
    let placeholders: Vec<String> = (2..ids.len() + 2).map(|n| format!("${n}")).collect();
    let lines = |select: &str, alias: &str| {
        format!(
            "{select}({}) ORDER BY {alias}.work_order_id, {alias}.position, {alias}.id",
            placeholders.join(", ")
        )
    };
    let arguments: Vec<i64> = std::iter::once(society).chain(ids.iter().copied()).collect();
    let mut supplies = connection.prepare_cached(&lines(SUPPLIES, "s"))?;
    let mut rows = supplies.query(rusqlite::params_from_iter(&arguments))?;
    while let Some(row) = rows.next()? {
        let order: i64 = row.get(1)?;
        let supply = Supply {
            local_id: row.get(0)?,
            cultivation: LocalRef { local_id: row.get(2)? },
            formulated: LocalRef { local_id: row.get(3)? },
            area_applied: row.get(4)?,
            total_applied: row.get(5)?,
            date: clock.at(row.get(6)?),
            state: State {
                pending: row.get(7)?,
                executed: row.get(8)?,
                confirmed: row.get(9)?,
            },
        };
        if let Some(index) = position.get(&order) {
            orders[*index].supplies.push(supply);
        }
    }
    let mut labours = connection.prepare_cached(&lines(LABOURS, "l"))?;
    let mut rows = labours.query(rusqlite::params_from_iter(&arguments))?;
    while let Some(row) = rows.next()? {
        let order: i64 = row.get(1)?;
        let labour = Labour {
            local_id: row.get(0)?,
            cultivation: LocalRef { local_id: row.get(2)? },
            labour_type: row.get::<_, Option<i64>>(3)?.map(|local_id| LocalRef { local_id }),
            area_applied: row.get(4)?,
            contractors: refs(row.get(9)?),
            machines: refs(row.get(10)?),
            applicators: refs(row.get(11)?),
            date: clock.at(row.get(5)?),
            state: State {
                pending: row.get(6)?,
                executed: row.get(7)?,
                confirmed: row.get(8)?,
            },
        };
        if let Some(index) = position.get(&order) {
            orders[*index].labours.push(labour);
        }
    }
    Ok(orders)
}

/// One page's items, serialised.
fn page(
    connection: &Connection,
    list: &str,
    society: i64,
    bounds: (i64, i64),
    clock: Clock,
) -> rusqlite::Result<Vec<u8>> {
    let arguments = (society, bounds.0, bounds.1, PAGE as i64);
    let json = match list {
        "plots" => serde_json::to_vec(
            &connection
                .prepare_cached(PLOTS)?
                .query_map(arguments, |row| plot(row, clock))?
                .collect::<rusqlite::Result<Vec<_>>>()?,
        ),
        "campaigns" => serde_json::to_vec(
            &connection
                .prepare_cached(CAMPAIGNS)?
                .query_map(arguments, |row| campaign(row, clock))?
                .collect::<rusqlite::Result<Vec<_>>>()?,
        ),
        _ => serde_json::to_vec(&work_orders(connection, society, bounds, clock)?),
    };
    json.map_err(|error| rusqlite::Error::ToSqlConversionFailure(Box::new(error)))
}

/// Each page's first id and the next page's (or past the last), as the API's page index holds them.
fn page_bounds(connection: &Connection, list: &str, society: i64) -> rusqlite::Result<Vec<(i64, i64)>> {
    let table = match list {
        "plots" => "plots",
        "campaigns" => "campaigns",
        _ => "work_orders",
    };
    let ids: Vec<i64> = connection
        .prepare(&format!(
            "SELECT t.id FROM {table} t WHERE t.society_id = ?1 AND t.deleted_at IS NULL ORDER BY t.id"
        ))?
        .query_map([society], |row| row.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    let starts: Vec<i64> = ids.iter().step_by(PAGE).copied().collect();
    Ok(starts
        .iter()
        .enumerate()
        .map(|(index, start)| (*start, starts.get(index + 1).copied().unwrap_or(i64::MAX)))
        .collect())
}

/// This process's CPU time, from `/proc/self/stat` (in clock ticks of 10 ms).
fn cpu() -> Duration {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or_default().split_whitespace().collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|index| fields.get(*index)?.parse::<u64>().ok())
        .sum();
    Duration::from_millis(ticks * 10)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [database, society, list, rest @ ..] = arguments.as_slice() else {
        return Err("usage: sqlite-alone DATABASE SOCIETY LIST (SECONDS | page N)".into());
    };
    let society: i64 = society.parse()?;
    let connection = Connection::open_with_flags(
        database,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    connection.pragma_update(None, "cache_size", -512)?;
    let zone: String = connection.query_row("SELECT time_zone FROM societies WHERE id = ?1", [society], |row| {
        row.get(0)
    })?;
    let clock = Clock(
        zone.parse::<Tz>()
            .map_err(|error| format!("time zone {zone}: {error}"))?,
    );
    let bounds = page_bounds(&connection, list, society)?;
    match rest {
        [word, number] if word == "page" => {
            let number: usize = number.parse()?;
            let bounds = bounds.get(number.saturating_sub(1)).ok_or("no such page")?;
            println!(
                "{}",
                String::from_utf8(page(&connection, list, society, *bounds, clock)?)?
            );
        }
        [seconds] => {
            let seconds: f64 = seconds.parse()?;
            let (started, cpu_before) = (Instant::now(), cpu());
            let (mut pages, mut bytes) = (0_usize, 0_usize);
            while started.elapsed().as_secs_f64() < seconds {
                bytes += page(&connection, list, society, bounds[pages % bounds.len()], clock)?.len();
                pages += 1;
            }
            let cpu_seconds = (cpu() - cpu_before).as_secs_f64();
            println!(
                "{{\"list\": \"{list}\", \"pages\": {pages}, \"seconds\": {:.2}, \"cpu_seconds\": {cpu_seconds:.2}, \
                 \"pages_per_cpu_second\": {:.0}, \"bytes_per_page\": {}}}",
                started.elapsed().as_secs_f64(),
                pages as f64 / cpu_seconds.max(0.01),
                bytes / pages.max(1)
            );
        }
        _ => return Err("usage: sqlite-alone DATABASE SOCIETY LIST (SECONDS | page N)".into()),
    }
    Ok(())
}
