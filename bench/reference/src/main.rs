//! "SQLite alone" and "PostgreSQL alone": one society's list pages read with the statements the API runs for them (the
//! same joins, columns, filter and keyset) on one thread, and each page's items serialised with `serde_json` into the
//! bytes the API answers. What they sustain is the physical limit of an uncached page on this machine: bench/run
//! compares the API's uncached rows with them, per core.
//!
//!     alone sqlite DATABASE SOCIETY LIST SECONDS          pages in rotation for SECONDS; prints one JSON line
//!     alone sqlite DATABASE SOCIETY LIST page N           prints page N's items, for bench/run to check against the API's
//!     alone postgres URL SOCIETY LIST page N              the same, read from PostgreSQL
//!     alone postgres URL SOCIETY LIST pgbench DIR         stores the arguments of up to 100 pages spread over the
//!                                                         list in a table, and writes two pgbench scripts: a random
//!                                                         page's lookup and statements, and its lookup alone
//!     alone postgres URL SOCIETY LIST serialise SECONDS   reads those pages' rows once, then decodes, renders and
//!                                                         serialises them in rotation for SECONDS; one JSON line
//!
//! On PostgreSQL the two halves are measured apart, so that each runs as fast as it can: PostgreSQL's CPU for the
//! statements (pgbench `-M prepared`, the scripts above) and this program's for the rest. A page's cost is their sum.
//!
//! LIST is `plots` (v2, their establishments and farmers read by a second statement, as the API reads them), `campaigns`
//! (v3) or `work_orders` (v3, 100 a page, each with its supply and labour lines).

use std::collections::HashMap;
use std::error::Error;
use std::fmt::Write as _;
use std::path::Path;
use std::time::{Duration, Instant};

use chrono::{DateTime, Datelike, NaiveDateTime, Offset, Timelike, Utc};
use chrono_tz::Tz;
use postgres::types::ToSql;
use postgres::{Client, NoTls};
use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

type Failure = Box<dyn Error + Send + Sync>;
type Result<T> = std::result::Result<T, Failure>;

/// Pages the PostgreSQL reference reads (pgbench's, the serialisation's).
const SAMPLE_PAGES: usize = 100;

const PAGE: usize = 100;

const PLOTS: &str = "SELECT t.id, t.name, t.area, t.external_code, t.establishment_id, u.id, u.name, u.lastname, \
     TRIM(u.name || ' ' || COALESCE(u.lastname, '')), t.created_at, t.tags_json \
     FROM plots t LEFT JOIN users u ON u.society_id = t.society_id AND u.id = t.created_by \
     WHERE 1 = 1 AND t.society_id = $1 AND t.deleted_at IS NULL AND t.id >= $2 AND t.id < $3 ORDER BY t.id LIMIT $4";

/// A page of plots' establishments, each with its farmer's name (`NULL` when the farmer is not found), completed by
/// [`owners_statement`].
const OWNERS: &str = "SELECT e.id, e.name, e.farmer_id, (SELECT TRIM(f.name || ' ' || COALESCE(f.lastname, '')) \
     FROM farmers f WHERE f.society_id = e.society_id AND f.id = e.farmer_id) FROM establishments e \
     WHERE e.society_id = $1 AND e.id";

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
     l.pending, l.executed, l.confirmed FROM work_order_labours l WHERE l.society_id = $1 AND l.work_order_id IN ";

/// A labour's link lists, in the order it answers them.
const LINK_TABLES: [(&str, &str); 3] = [
    ("work_order_labour_contractors", "contractor_id"),
    ("work_order_labour_machines", "machine_id"),
    ("work_order_labour_applicators", "applicator_id"),
];

/// The statement and arguments that read the links of `labours` as the API's does: by the ids' range when they are
/// dense, by an `IN` list otherwise (one statement: a page of 100 orders has fewer labours than the API's chunk).
fn links_statement(society: i64, labours: &[i64]) -> Option<(String, Vec<i64>)> {
    let (low, high) = (*labours.iter().min()?, *labours.iter().max()?);
    let dense = high - low < 2 * labours.len() as i64;
    let mut sql = String::new();
    let mut arguments = Vec::new();
    for (list, (table, column)) in LINK_TABLES.iter().enumerate() {
        if list > 0 {
            sql.push_str(" UNION ALL ");
        }
        arguments.push(society);
        let _ = write!(
            sql,
            "SELECT CAST({list} AS BIGINT), x.labour_id, x.{column} FROM {table} x WHERE x.society_id = ${} AND x.labour_id",
            arguments.len()
        );
        let ids: &[i64] = if dense { &[low, high] } else { labours };
        let first = arguments.len() + 1;
        arguments.extend_from_slice(ids);
        let placeholders: Vec<String> = (first..=arguments.len()).map(|n| format!("${n}")).collect();
        if dense {
            let _ = write!(sql, " BETWEEN {} AND {}", placeholders[0], placeholders[1]);
        } else {
            let _ = write!(sql, " IN ({})", placeholders.join(", "));
        }
    }
    Some((sql, arguments))
}

/// The statement and arguments that read the establishments of a page of plots as the API's does: by the ids' range
/// when they are dense, by an `IN` list padded to a power of two otherwise.
fn owners_statement(society: i64, plots: &[PlotRow]) -> Option<(String, Vec<i64>)> {
    let mut ids: Vec<i64> = plots.iter().map(|plot| plot.establishment_id).collect();
    ids.sort_unstable();
    ids.dedup();
    let (low, high) = (*ids.first()?, *ids.last()?);
    if high - low < 2 * ids.len() as i64 {
        return Some((format!("{OWNERS} BETWEEN $2 AND $3"), vec![society, low, high]));
    }
    let width = ids.len().next_power_of_two();
    ids.resize(width, high);
    let placeholders: Vec<String> = (2..width + 2).map(|n| format!("${n}")).collect();
    let sql = format!("{OWNERS} IN ({})", placeholders.join(", "));
    Some((sql, std::iter::once(society).chain(ids).collect()))
}

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

/// A column type both databases decode.
trait Column: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a> {}

impl<T: rusqlite::types::FromSql + for<'a> postgres::types::FromSql<'a>> Column for T {}

/// A row of either database, read column by column in the order selected.
trait Columns {
    fn column<T: Column>(&self, index: usize) -> Result<T>;
}

impl Columns for rusqlite::Row<'_> {
    fn column<T: Column>(&self, index: usize) -> Result<T> {
        Ok(self.get(index)?)
    }
}

impl Columns for postgres::Row {
    fn column<T: Column>(&self, index: usize) -> Result<T> {
        Ok(self.try_get(index)?)
    }
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

/// A plot as its page statement reads it, before its establishment and farmer are added.
struct PlotRow {
    id: i64,
    name: String,
    area: f64,
    external_code: Option<String>,
    establishment_id: i64,
    created_by_id: Option<i64>,
    created_by_name: Option<String>,
    created_by_lastname: Option<String>,
    created_by_fullname: Option<String>,
    created_at: i64,
    tags: String,
}

fn plot_row(row: &impl Columns) -> Result<PlotRow> {
    Ok(PlotRow {
        id: row.column(0)?,
        name: row.column(1)?,
        area: row.column(2)?,
        external_code: row.column(3)?,
        establishment_id: row.column(4)?,
        created_by_id: row.column(5)?,
        created_by_name: row.column(6)?,
        created_by_lastname: row.column(7)?,
        created_by_fullname: row.column(8)?,
        created_at: row.column(9)?,
        tags: row.column(10)?,
    })
}

/// An establishment of a page of plots, with its farmer.
struct Owner {
    id: i64,
    name: String,
    farmer_id: i64,
    farmer_name: Option<String>,
}

fn owner(row: &impl Columns) -> Result<Owner> {
    Ok(Owner {
        id: row.column(0)?,
        name: row.column(1)?,
        farmer_id: row.column(2)?,
        farmer_name: row.column(3)?,
    })
}

/// The page's plots with their establishments and farmers; a plot whose establishment or farmer is not read is left
/// out, as the API leaves it out.
fn plots(rows: Vec<PlotRow>, owners: &[Owner], clock: Clock) -> Vec<PlotV2> {
    let owners: HashMap<i64, &Owner> = owners.iter().map(|owner| (owner.id, owner)).collect();
    rows.into_iter()
        .filter_map(|row| {
            let owner = owners.get(&row.establishment_id)?;
            let farmer_name = owner.farmer_name.clone()?;
            Some(PlotV2 {
                id: row.id,
                name: row.name,
                area: format!("{:.2}", row.area),
                external_code: row.external_code,
                farmer_id: owner.farmer_id,
                farmer_name,
                establishment_id: row.establishment_id,
                establishment_name: owner.name.clone(),
                created_by_id: row.created_by_id,
                created_by_name: row.created_by_name,
                created_by_lastname: row.created_by_lastname,
                created_by_fullname: row.created_by_fullname,
                created_at: clock.plain(row.created_at),
                tags: row.tags,
            })
        })
        .collect()
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

fn campaign(row: &impl Columns, clock: Clock) -> Result<Campaign> {
    Ok(Campaign {
        id: row.column(0)?,
        master_campaign_id: row.column(1)?,
        plot_id: row.column(2)?,
        name: row.column(3)?,
        external_code: row.column(4)?,
        area: (row.column::<f64>(5)? * 100.0).round() / 100.0,
        planting_date: row.column(6)?,
        objective_yield: row.column(7)?,
        activity_status_id: row.column(8)?,
        active: row.column(9)?,
        created_at: clock.at(row.column(10)?),
        updated_at: clock.at(row.column(11)?),
        deleted_at: row.column::<Option<i64>>(12)?.map(|at| clock.at(at)),
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

fn header(row: &impl Columns, clock: Clock) -> Result<WorkOrder> {
    let header = Header {
        local_id: row.column(0)?,
        external_id: row.column(2)?,
        system_id: row.column(3)?,
        name: row.column(4)?,
        date: clock.at(row.column(5)?),
        voucher_date: clock.at(row.column(6)?),
        state: State {
            pending: row.column(8)?,
            executed: row.column(9)?,
            confirmed: row.column(10)?,
        },
        extra_fields: ExtraFields {
            company: LocalRef {
                local_id: row.column(1)?,
            },
            voucher_type: LocalRef {
                local_id: row.column(7)?,
            },
        },
        is_read_only: row.column(11)?,
        active: row.column(12)?,
        created_at: clock.at(row.column(13)?),
        updated_at: clock.at(row.column(14)?),
        deleted_at: row.column::<Option<i64>>(15)?.map(|at| clock.at(at)),
    };
    Ok(WorkOrder {
        header,
        supplies: Vec::new(),
        labours: Vec::new(),
    })
}

/// A link row: which list, the labour, the linked row.
fn link(row: &impl Columns) -> Result<(i64, i64, i64)> {
    Ok((row.column(0)?, row.column(1)?, row.column(2)?))
}

/// A supply line and the order it belongs to.
fn supply(row: &impl Columns, clock: Clock) -> Result<(i64, Supply)> {
    let supply = Supply {
        local_id: row.column(0)?,
        cultivation: LocalRef {
            local_id: row.column(2)?,
        },
        formulated: LocalRef {
            local_id: row.column(3)?,
        },
        area_applied: row.column(4)?,
        total_applied: row.column(5)?,
        date: clock.at(row.column(6)?),
        state: State {
            pending: row.column(7)?,
            executed: row.column(8)?,
            confirmed: row.column(9)?,
        },
    };
    Ok((row.column(1)?, supply))
}

/// A labour line and the order it belongs to.
fn labour(row: &impl Columns, clock: Clock) -> Result<(i64, Labour)> {
    let labour = Labour {
        local_id: row.column(0)?,
        cultivation: LocalRef {
            local_id: row.column(2)?,
        },
        labour_type: row.column::<Option<i64>>(3)?.map(|local_id| LocalRef { local_id }),
        area_applied: row.column(4)?,
        contractors: Vec::new(),
        machines: Vec::new(),
        applicators: Vec::new(),
        date: clock.at(row.column(5)?),
        state: State {
            pending: row.column(6)?,
            executed: row.column(7)?,
            confirmed: row.column(8)?,
        },
    };
    Ok((row.column(1)?, labour))
}

/// Nests each line under its order, in the order read (the stored order).
fn nest(
    orders: &mut [WorkOrder],
    supplies: impl IntoIterator<Item = Result<(i64, Supply)>>,
    labours: impl IntoIterator<Item = Result<(i64, Labour)>>,
    links: impl IntoIterator<Item = Result<(i64, i64, i64)>>,
) -> Result<()> {
    let mut lists: HashMap<i64, [Vec<i64>; 3]> = HashMap::new();
    for link in links {
        let (list, labour, linked) = link?;
        if let Some(ids) = lists.entry(labour).or_default().get_mut(usize::try_from(list)?) {
            ids.push(linked);
        }
    }
    let position: HashMap<i64, usize> = orders
        .iter()
        .enumerate()
        .map(|(index, order)| (order.header.local_id, index))
        .collect();
    for line in supplies {
        let (order, supply) = line?;
        if let Some(index) = position.get(&order) {
            orders[*index].supplies.push(supply);
        }
    }
    for line in labours {
        let (order, mut labour) = line?;
        let [contractors, machines, applicators] = lists.remove(&labour.local_id).unwrap_or_default().map(|mut ids| {
            ids.sort_unstable();
            ids.into_iter().map(|local_id| LocalRef { local_id }).collect()
        });
        (labour.contractors, labour.machines, labour.applicators) = (contractors, machines, applicators);
        if let Some(index) = position.get(&order) {
            orders[*index].labours.push(labour);
        }
    }
    Ok(())
}

/// A page's lines statement, `IN ($2, $3, …)` and the order, as the API writes the statements for a page's lines.
fn lines_statement(select: &str, alias: &str, orders: usize) -> String {
    let placeholders: Vec<String> = (2..orders + 2).map(|n| format!("${n}")).collect();
    format!(
        "{select}({}) ORDER BY {alias}.work_order_id, {alias}.position, {alias}.id",
        placeholders.join(", ")
    )
}

/// The statement that reads a list's page (the headers, for work orders).
fn list_statement(list: &str) -> &'static str {
    match list {
        "plots" => PLOTS,
        "campaigns" => CAMPAIGNS,
        _ => WORK_ORDERS,
    }
}

/// "SQLite alone": pages read from a copy of the API's SQLite file.
struct Sqlite {
    connection: Connection,
    society: i64,
    clock: Clock,
}

impl Sqlite {
    fn open(database: &str, society: i64) -> Result<Self> {
        let connection = Connection::open_with_flags(
            database,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        connection.pragma_update(None, "cache_size", -512)?;
        let zone: String = connection.query_row("SELECT time_zone FROM societies WHERE id = ?1", [society], |row| {
            row.get(0)
        })?;
        Ok(Self {
            connection,
            society,
            clock: clock(&zone)?,
        })
    }

    fn ids(&self, table: &str) -> Result<Vec<i64>> {
        let mut statement = self.connection.prepare(&ids_statement(table))?;
        let ids = statement.query_map([self.society], |row| row.get(0))?;
        Ok(ids.collect::<rusqlite::Result<_>>()?)
    }

    /// The rows of `sql` with `arguments`, each made into an item by `item`.
    fn read<T>(
        &self,
        sql: &str,
        arguments: &[i64],
        item: impl Fn(&rusqlite::Row<'_>, Clock) -> Result<T>,
    ) -> Result<Vec<T>> {
        let mut statement = self.connection.prepare_cached(sql)?;
        let mut rows = statement.query(rusqlite::params_from_iter(arguments))?;
        let mut items = Vec::new();
        while let Some(row) = rows.next()? {
            items.push(item(row, self.clock)?);
        }
        Ok(items)
    }

    /// One page's items, serialised.
    fn page(&self, list: &str, bounds: (i64, i64)) -> Result<Vec<u8>> {
        let arguments = [self.society, bounds.0, bounds.1, PAGE as i64];
        let json = match list {
            "plots" => {
                let rows = self.read(PLOTS, &arguments, |row, _| plot_row(row))?;
                let owners = match owners_statement(self.society, &rows) {
                    Some((sql, arguments)) => self.read(&sql, &arguments, |row, _| owner(row))?,
                    None => Vec::new(),
                };
                serde_json::to_vec(&plots(rows, &owners, self.clock))
            }
            "campaigns" => serde_json::to_vec(&self.read(CAMPAIGNS, &arguments, |row, clock| campaign(row, clock))?),
            _ => {
                let mut orders = self.read(WORK_ORDERS, &arguments, |row, clock| header(row, clock))?;
                let lines: Vec<i64> = std::iter::once(self.society)
                    .chain(orders.iter().map(|order| order.header.local_id))
                    .collect();
                let supplies = self.read(&lines_statement(SUPPLIES, "s", orders.len()), &lines, |row, clock| {
                    supply(row, clock)
                })?;
                let labours = self.read(&lines_statement(LABOURS, "l", orders.len()), &lines, |row, clock| {
                    labour(row, clock)
                })?;
                let ids: Vec<i64> = labours.iter().map(|(_, labour)| labour.local_id).collect();
                let links = match links_statement(self.society, &ids) {
                    Some((sql, arguments)) => self.read(&sql, &arguments, |row, _| link(row))?,
                    None => Vec::new(),
                };
                nest(
                    &mut orders,
                    supplies.into_iter().map(Ok),
                    labours.into_iter().map(Ok),
                    links.into_iter().map(Ok),
                )?;
                serde_json::to_vec(&orders)
            }
        };
        Ok(json?)
    }
}

/// One page's rows as PostgreSQL sent them, with the statements and arguments that read them.
struct PostgresPage {
    statements: Vec<(String, Vec<i64>)>,
    rows: Vec<Vec<postgres::Row>>,
}

/// "PostgreSQL alone": pages read from the API's PostgreSQL database.
struct Postgres {
    client: Client,
    society: i64,
    clock: Clock,
}

impl Postgres {
    fn connect(url: &str, society: i64) -> Result<Self> {
        let mut client = Client::connect(url, NoTls)?;
        let zone: String = client
            .query_one("SELECT time_zone FROM societies WHERE id = $1", &[&society])?
            .try_get(0)?;
        Ok(Self {
            client,
            society,
            clock: clock(&zone)?,
        })
    }

    fn ids(&mut self, table: &str) -> Result<Vec<i64>> {
        let rows = self.client.query(&ids_statement(table), &[&self.society])?;
        rows.iter().map(|row| Ok(row.try_get(0)?)).collect()
    }

    fn query(&mut self, sql: &str, arguments: &[i64]) -> Result<Vec<postgres::Row>> {
        let parameters: Vec<&(dyn ToSql + Sync)> = arguments.iter().map(|value| value as &(dyn ToSql + Sync)).collect();
        let statement = self.client.prepare(sql)?;
        Ok(self.client.query(&statement, &parameters)?)
    }

    /// One page's rows: the list's statement, and for work orders the statements of the page's lines.
    fn read(&mut self, list: &str, bounds: (i64, i64)) -> Result<PostgresPage> {
        let arguments = vec![self.society, bounds.0, bounds.1, PAGE as i64];
        let first = self.query(list_statement(list), &arguments)?;
        let lines: Vec<i64> = std::iter::once(Ok(self.society))
            .chain(first.iter().map(|row| row.try_get::<_, i64>(0)))
            .collect::<std::result::Result<_, _>>()?;
        let mut page = PostgresPage {
            statements: vec![(list_statement(list).to_owned(), arguments)],
            rows: vec![first],
        };
        if list == "plots" {
            let rows = page.rows[0].iter().map(plot_row).collect::<Result<Vec<_>>>()?;
            if let Some((sql, arguments)) = owners_statement(self.society, &rows) {
                page.rows.push(self.query(&sql, &arguments)?);
                page.statements.push((sql, arguments));
            }
        }
        if list == "work_orders" {
            for (select, alias) in [(SUPPLIES, "s"), (LABOURS, "l")] {
                let sql = lines_statement(select, alias, lines.len() - 1);
                page.rows.push(self.query(&sql, &lines)?);
                page.statements.push((sql, lines.clone()));
            }
            let labours: Vec<i64> = page.rows[2]
                .iter()
                .map(|row| row.try_get(0))
                .collect::<std::result::Result<_, _>>()?;
            if let Some((sql, arguments)) = links_statement(self.society, &labours) {
                page.rows.push(self.query(&sql, &arguments)?);
                page.statements.push((sql, arguments));
            }
        }
        Ok(page)
    }
}

/// Decodes, renders and serialises one page's rows as the API would.
fn serialise(list: &str, page: &PostgresPage, clock: Clock) -> Result<Vec<u8>> {
    let items = |index: usize| page.rows.get(index).map(Vec::as_slice).unwrap_or_default();
    let json = match list {
        "plots" => {
            let rows = items(0).iter().map(plot_row).collect::<Result<Vec<_>>>()?;
            let owners = items(1).iter().map(owner).collect::<Result<Vec<_>>>()?;
            serde_json::to_vec(&plots(rows, &owners, clock))
        }
        "campaigns" => serde_json::to_vec(
            &items(0)
                .iter()
                .map(|row| campaign(row, clock))
                .collect::<Result<Vec<_>>>()?,
        ),
        _ => {
            let mut orders = items(0)
                .iter()
                .map(|row| header(row, clock))
                .collect::<Result<Vec<_>>>()?;
            nest(
                &mut orders,
                items(1).iter().map(|row| supply(row, clock)),
                items(2).iter().map(|row| labour(row, clock)),
                items(3).iter().map(link),
            )?;
            serde_json::to_vec(&orders)
        }
    };
    Ok(json?)
}

/// The table the pgbench scripts find a page's arguments in: what the API binds, the page chosen at random each
/// transaction, so that each statement is prepared once per connection and run thousands of times, as the API's are.
const PAGES_TABLE: &str = "bench_alone_pages";

/// Stores the arguments of `pages` (numbered from 0) in [`PAGES_TABLE`], and returns two pgbench scripts: one that
/// looks a random page's arguments up and runs its statements, and one that only looks them up. PostgreSQL's CPU for
/// the statements is the first's less the second's.
fn pgbench_scripts(client: &mut Client, list: &str, pages: &[PostgresPage]) -> Result<(String, String)> {
    let first = pages.first().ok_or("no pages")?;
    let texts = |page: &PostgresPage| page.statements.iter().map(|(sql, _)| sql.clone()).collect::<Vec<_>>();
    if pages.iter().any(|page| texts(page) != texts(first)) {
        return Err("the sampled pages run different statements; pgbench runs the first page's".into());
    }
    client.batch_execute(&format!(
        "CREATE TABLE IF NOT EXISTS {PAGES_TABLE} (list text, n int, arguments bigint[][], PRIMARY KEY (list, n)); \
         DELETE FROM {PAGES_TABLE} WHERE list = '{list}'"
    ))?;
    let insert = format!("INSERT INTO {PAGES_TABLE} (list, n, arguments) VALUES ($1, $2, $3::text::bigint[][])");
    for (number, page) in pages.iter().enumerate() {
        // One row of arguments per statement, as long as the longest (a 2-D array is rectangular).
        let width = page
            .statements
            .iter()
            .map(|(_, arguments)| arguments.len())
            .max()
            .unwrap_or(0);
        let flat: Vec<i64> = page
            .statements
            .iter()
            .flat_map(|(_, arguments)| arguments.iter().copied().chain(std::iter::repeat(0)).take(width))
            .collect();
        let rows = format!(
            "{{{}}}",
            flat.chunks(width.max(1))
                .map(|row| { format!("{{{}}}", row.iter().map(i64::to_string).collect::<Vec<_>>().join(",")) })
                .collect::<Vec<_>>()
                .join(",")
        );
        let number = i32::try_from(number)?;
        client.execute(&insert, &[&list, &number, &rows])?;
    }
    let mut columns = Vec::new();
    let mut statements = String::new();
    for (statement, (sql, arguments)) in first.statements.iter().enumerate() {
        let mut text = sql.clone();
        // The highest numbers first, so that `$1` does not replace the start of `$10`.
        for index in (1..=arguments.len()).rev() {
            let variable = format!("v{statement}_{index}");
            columns.push(format!("arguments[{}][{index}] AS {variable}", statement + 1));
            text = text.replace(&format!("${index}"), &format!(":{variable}"));
        }
        let _ = writeln!(statements, "{text};");
    }
    let lookup = format!(
        "\\set n random(0, {})\nSELECT {} FROM {PAGES_TABLE} WHERE list = '{list}' AND n = :n \\gset\n",
        pages.len() - 1,
        columns.join(", ")
    );
    Ok((format!("{lookup}{statements}"), lookup))
}

fn ids_statement(table: &str) -> String {
    format!("SELECT t.id FROM {table} t WHERE t.society_id = $1 AND t.deleted_at IS NULL ORDER BY t.id")
}

fn table(list: &str) -> &'static str {
    match list {
        "plots" => "plots",
        "campaigns" => "campaigns",
        _ => "work_orders",
    }
}

/// Each page's first id and the next page's (or past the last), as the API's page index holds them.
fn page_bounds(ids: &[i64]) -> Vec<(i64, i64)> {
    let starts: Vec<i64> = ids.iter().step_by(PAGE).copied().collect();
    starts
        .iter()
        .enumerate()
        .map(|(index, start)| (*start, starts.get(index + 1).copied().unwrap_or(i64::MAX)))
        .collect()
}

/// Up to [`SAMPLE_PAGES`] full pages spread evenly over the list (the last page, shorter, is left out: its lines'
/// statements would take fewer arguments).
fn sample(bounds: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let full = if bounds.len() > 1 {
        &bounds[..bounds.len() - 1]
    } else {
        bounds
    };
    let count = full.len().min(SAMPLE_PAGES);
    (0..count).map(|index| full[index * full.len() / count]).collect()
}

fn clock(zone: &str) -> Result<Clock> {
    Ok(Clock(
        zone.parse::<Tz>()
            .map_err(|error| format!("time zone {zone}: {error}"))?,
    ))
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

/// Runs `page` in rotation for `seconds` and prints what it sustained per CPU second of this process.
fn rotate(list: &str, seconds: f64, pages: usize, mut page: impl FnMut(usize) -> Result<Vec<u8>>) -> Result<()> {
    let (started, cpu_before) = (Instant::now(), cpu());
    let (mut done, mut bytes) = (0_usize, 0_usize);
    while started.elapsed().as_secs_f64() < seconds {
        bytes += page(done % pages.max(1))?.len();
        done += 1;
    }
    let cpu_seconds = (cpu() - cpu_before).as_secs_f64();
    println!(
        "{{\"list\": \"{list}\", \"pages\": {done}, \"seconds\": {:.2}, \"cpu_seconds\": {cpu_seconds:.2}, \
         \"pages_per_cpu_second\": {:.0}, \"bytes_per_page\": {}}}",
        started.elapsed().as_secs_f64(),
        done as f64 / cpu_seconds.max(0.01),
        bytes / done.max(1)
    );
    Ok(())
}

fn chosen(bounds: &[(i64, i64)], number: &str) -> Result<(i64, i64)> {
    let number: usize = number.parse()?;
    Ok(*bounds.get(number.saturating_sub(1)).ok_or("no such page")?)
}

const USAGE: &str = "usage: alone sqlite DATABASE SOCIETY LIST (SECONDS | page N)\n       \
                     alone postgres URL SOCIETY LIST (page N | pgbench DIR | serialise SECONDS)";

fn main() -> Result<()> {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    let [source, database, society, list, rest @ ..] = arguments.as_slice() else {
        return Err(USAGE.into());
    };
    let society: i64 = society.parse()?;
    match (source.as_str(), rest) {
        ("sqlite", [word, number]) if word == "page" => {
            let sqlite = Sqlite::open(database, society)?;
            let bounds = page_bounds(&sqlite.ids(table(list))?);
            println!("{}", String::from_utf8(sqlite.page(list, chosen(&bounds, number)?)?)?);
        }
        ("sqlite", [seconds]) => {
            let sqlite = Sqlite::open(database, society)?;
            let bounds = page_bounds(&sqlite.ids(table(list))?);
            rotate(list, seconds.parse()?, bounds.len(), |index| {
                sqlite.page(list, bounds[index])
            })?;
        }
        ("postgres", [word, number]) if word == "page" => {
            let mut postgres = Postgres::connect(database, society)?;
            let bounds = page_bounds(&postgres.ids(table(list))?);
            let page = postgres.read(list, chosen(&bounds, number)?)?;
            println!("{}", String::from_utf8(serialise(list, &page, postgres.clock)?)?);
        }
        ("postgres", [word, folder]) if word == "pgbench" => {
            let mut postgres = Postgres::connect(database, society)?;
            let bounds = page_bounds(&postgres.ids(table(list))?);
            let pages = sample(&bounds)
                .into_iter()
                .map(|bounds| postgres.read(list, bounds))
                .collect::<Result<Vec<_>>>()?;
            let (statements, lookup) = pgbench_scripts(&mut postgres.client, list, &pages)?;
            std::fs::create_dir_all(folder)?;
            std::fs::write(Path::new(folder).join(format!("{list}.sql")), statements)?;
            std::fs::write(Path::new(folder).join(format!("{list}-lookup.sql")), lookup)?;
        }
        ("postgres", [word, seconds]) if word == "serialise" => {
            let mut postgres = Postgres::connect(database, society)?;
            let bounds = page_bounds(&postgres.ids(table(list))?);
            let pages = sample(&bounds)
                .into_iter()
                .map(|bounds| postgres.read(list, bounds))
                .collect::<Result<Vec<_>>>()?;
            let clock = postgres.clock;
            rotate(list, seconds.parse()?, pages.len(), |index| {
                serialise(list, &pages[index], clock)
            })?;
        }
        _ => return Err(USAGE.into()),
    }
    Ok(())
}
