//! The tables being written and the ids being handed out: rows are gathered per table and written with one bulk
//! insert each, and rows that children point at are numbered here rather than by the database.

use store::admin::AdminError;
use store::bulk::Kind;
use store::{Arg, Store};

/// The rows of one table, gathered before they are written.
pub(crate) struct Table {
    name: &'static str,
    columns: &'static [&'static str],
    values: Vec<Arg>,
}

impl Table {
    /// No rows yet of `name`, whose rows give `columns` in this order.
    pub fn new(name: &'static str, columns: &'static [&'static str]) -> Self {
        Self {
            name,
            columns,
            values: Vec::new(),
        }
    }

    /// Adds one row: a value for each column.
    pub fn row<const N: usize>(&mut self, values: [Arg; N]) {
        debug_assert_eq!(N, self.columns.len(), "a row of {}", self.name);
        self.values.extend(values);
    }

    /// Writes the rows gathered.
    pub async fn write(self, store: &Store) -> Result<(), AdminError> {
        store.bulk_insert(self.name, self.columns, self.values).await?;
        Ok(())
    }
}

/// The ids of a table's new rows, handed out in order from the first one no row holds.
#[derive(Debug)]
pub(crate) struct Ids(i64);

impl Ids {
    /// The ids after the largest one `table` holds.
    pub async fn of(store: &Store, table: &str) -> Result<Self, AdminError> {
        Ok(Self(store.next_id(table).await?))
    }

    /// Ids from `first` on.
    pub fn from(first: i64) -> Self {
        Self(first)
    }

    /// The next id.
    pub fn next(&mut self) -> i64 {
        let id = self.0;
        self.0 += 1;
        id
    }

    /// The id the next row would get, without taking it.
    pub fn peek(&self) -> i64 {
        self.0
    }
}

/// Reads `columns` of the rows of `table` whose `filters` hold, by ascending id.
pub(crate) async fn read(
    store: &Store,
    table: &str,
    columns: &[(&str, Kind)],
    filters: &[(&str, Arg)],
) -> Result<Vec<Vec<Arg>>, AdminError> {
    Ok(store.read_rows(table, columns, filters).await?)
}

/// The integer in column `index` of `row`; 0 when it is `NULL` (only for columns that cannot be).
pub(crate) fn int(row: &[Arg], index: usize) -> i64 {
    row.get(index).and_then(Arg::int).unwrap_or_default()
}

/// The integer in column `index` of `row`, or `None` when it is `NULL`.
pub(crate) fn opt_int(row: &[Arg], index: usize) -> Option<i64> {
    row.get(index).and_then(Arg::int)
}

/// The number in column `index` of `row`; 0 when it is `NULL`.
pub(crate) fn float(row: &[Arg], index: usize) -> f64 {
    row.get(index).and_then(Arg::float).unwrap_or_default()
}

/// The text in column `index` of `row`, or `None` when it is `NULL`.
pub(crate) fn opt_text(row: &[Arg], index: usize) -> Option<String> {
    row.get(index).and_then(Arg::text).map(str::to_owned)
}

/// The text in column `index` of `row`; empty when it is `NULL`.
pub(crate) fn text(row: &[Arg], index: usize) -> String {
    opt_text(row, index).unwrap_or_default()
}

/// Whether the row's `deleted_at` (column `index`) is unset.
pub(crate) fn live(row: &[Arg], index: usize) -> bool {
    opt_int(row, index).is_none()
}
