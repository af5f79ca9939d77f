//! "PostgreSQL alone": a list's pages read from the API's PostgreSQL database, their rows serialised apart, and the
//! pgbench scripts that measure PostgreSQL's CPU for their statements.

use std::fmt::Write as _;

use postgres::types::ToSql;
use postgres::{Client, NoTls};

use crate::lists::{campaign, owner, plot_row, plots};
use crate::rows::{clock, Clock};
use crate::statements::{
    ids_statement, lines_statement, links_statement, list_statement, owners_statement, LABOURS, SUPPLIES,
};
use crate::work_orders::{header, labour, link, nest, supply};
use crate::{Result, PAGE};

/// One page's rows as PostgreSQL sent them, with the statements and arguments that read them.
pub(crate) struct PostgresPage {
    statements: Vec<(String, Vec<i64>)>,
    rows: Vec<Vec<postgres::Row>>,
}

/// "PostgreSQL alone": pages read from the API's PostgreSQL database.
pub(crate) struct Postgres {
    pub(crate) client: Client,
    society: i64,
    pub(crate) clock: Clock,
}

impl Postgres {
    pub(crate) fn connect(url: &str, society: i64) -> Result<Self> {
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

    pub(crate) fn ids(&mut self, table: &str) -> Result<Vec<i64>> {
        let rows = self.client.query(&ids_statement(table), &[&self.society])?;
        rows.iter().map(|row| Ok(row.try_get(0)?)).collect()
    }

    fn query(&mut self, sql: &str, arguments: &[i64]) -> Result<Vec<postgres::Row>> {
        let parameters: Vec<&(dyn ToSql + Sync)> = arguments.iter().map(|value| value as &(dyn ToSql + Sync)).collect();
        let statement = self.client.prepare(sql)?;
        Ok(self.client.query(&statement, &parameters)?)
    }

    /// One page's rows: the list's statement, and for work orders the statements of the page's lines.
    pub(crate) fn read(&mut self, list: &str, bounds: (i64, i64)) -> Result<PostgresPage> {
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
pub(crate) fn serialise(list: &str, page: &PostgresPage, clock: Clock) -> Result<Vec<u8>> {
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
pub(crate) const PAGES_TABLE: &str = "bench_alone_pages";

/// Stores the arguments of `pages` (numbered from 0) in [`PAGES_TABLE`], and returns two pgbench scripts: one that
/// looks a random page's arguments up and runs its statements, and one that only looks them up. PostgreSQL's CPU for
/// the statements is the first's less the second's.
pub(crate) fn pgbench_scripts(client: &mut Client, list: &str, pages: &[PostgresPage]) -> Result<(String, String)> {
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
