//! "SQLite alone": a list's pages read from a copy of the API's SQLite file, and serialised.

use rusqlite::{Connection, OpenFlags};

use crate::lists::{campaign, owner, plot_row, plots};
use crate::rows::{clock, Clock};
use crate::statements::{
    ids_statement, lines_statement, links_statement, owners_statement, CAMPAIGNS, LABOURS, PLOTS, SUPPLIES, WORK_ORDERS,
};
use crate::work_orders::{header, labour, link, nest, supply};
use crate::{Result, PAGE};

/// "SQLite alone": pages read from a copy of the API's SQLite file.
pub(crate) struct Sqlite {
    connection: Connection,
    society: i64,
    clock: Clock,
}

impl Sqlite {
    pub(crate) fn open(database: &str, society: i64) -> Result<Self> {
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

    pub(crate) fn ids(&self, table: &str) -> Result<Vec<i64>> {
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
    pub(crate) fn page(&self, list: &str, bounds: (i64, i64)) -> Result<Vec<u8>> {
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
