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

mod lists;
mod postgres_pages;
mod rows;
mod sqlite_pages;
mod statements;
mod work_orders;

use std::error::Error;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::postgres_pages::{pgbench_scripts, serialise, Postgres};
use crate::sqlite_pages::Sqlite;
use crate::statements::table;

type Failure = Box<dyn Error + Send + Sync>;
type Result<T> = std::result::Result<T, Failure>;

/// Pages the PostgreSQL reference reads (pgbench's, the serialisation's).
const SAMPLE_PAGES: usize = 100;

const PAGE: usize = 100;

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
