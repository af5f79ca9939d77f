//! Many rows at once, for loaders outside the API (the demo data, the benchmark's large society): rows written in
//! multi-row statements, rows read back by column, and the few maintenance steps a load ends with. Callers name
//! tables and columns; the statements are made here. Like every writer, a load records what it wrote in its
//! transaction, whose commit writes the events and bumps the counters ([`crate::write::WriteTx`]).

use crate::db::{with_reader, with_writer};
use crate::inserts::{insert_into, insert_statements, ROWS_PER_STATEMENT};
use crate::resources::events::{source, EventSource, RecordOf};
use crate::sql::{bind_args, Arg, Dialect, Sql, IDS_PER_QUERY};
use crate::write::BeginWrite;
use crate::{Store, StoreError};

/// What a column read by [`Store::read_rows`] holds, so it is decoded as that type on either backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// An integer, maybe `NULL` (read as [`Arg::OptionalInt`]).
    Int,
    /// A number, maybe `NULL` (read as [`Arg::OptionalFloat`]).
    Float,
    /// A boolean (read as [`Arg::Bool`]).
    Bool,
    /// Text, maybe `NULL` (read as [`Arg::OptionalText`]).
    Text,
}

/// Table and column names are spliced into statements, so anything beyond `[a-z0-9_]` is refused, not quoted.
fn name(name: &str) -> Result<&str, StoreError> {
    let plain = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    if plain {
        Ok(name)
    } else {
        Err(StoreError::Config(format!("invalid table or column name {name:?}")))
    }
}

/// `name (a, b, …)`, checked.
fn table_and_columns(table: &str, columns: &[&str]) -> Result<String, StoreError> {
    let columns = columns
        .iter()
        .map(|column| name(column))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(format!("{} ({})", name(table)?, columns.join(", ")))
}

/// Tables a loader writes whose changes are counted but are not events: a user, a weather sample.
const COUNTED_ONLY: &[&str] = &["users", "weather_samples"];

/// What a loader's rows of `table` are, for its transaction's record of them.
#[derive(Debug, Clone, Copy)]
enum Recorded {
    /// Records, or lines of records, of an event source.
    Events(&'static EventSource),
    /// Rows counted without events.
    Counted(&'static str),
    /// Rows of a table that is not society data.
    Nothing,
}

/// The `RETURNING` clause of a loader's statement on `table` (society and record of each row written), and what
/// its rows are.
fn returning(table: &str) -> (String, Recorded) {
    if let Some(source) = source(table) {
        let record = match source.record {
            RecordOf::Itself => "id",
            RecordOf::Parent(column) => column,
            RecordOf::LabourOf => "labour_id",
        };
        (format!(" RETURNING society_id, {record}"), Recorded::Events(source))
    } else if let Some(counted) = COUNTED_ONLY.iter().find(|counted| **counted == table) {
        (
            " RETURNING society_id, CAST(0 AS BIGINT)".to_owned(),
            Recorded::Counted(counted),
        )
    } else {
        (
            " RETURNING CAST(0 AS BIGINT), CAST(0 AS BIGINT)".to_owned(),
            Recorded::Nothing,
        )
    }
}

/// Records in write transaction `$tx` the rows `$rows` (society, record) of a load, as `$action` of their records:
/// a line's or a link's change is its record's update.
macro_rules! record_rows {
    ($tx:expr, $recorded:expr, $rows:expr, $action:expr) => {
        match $recorded {
            Recorded::Nothing => {}
            Recorded::Counted(table) => {
                for society_id in $rows
                    .iter()
                    .map(|(society_id, _)| *society_id)
                    .collect::<std::collections::BTreeSet<_>>()
                {
                    $tx.counted(society_id, table);
                }
            }
            Recorded::Events(source) => {
                let action = if source.record == RecordOf::Itself {
                    $action
                } else {
                    "updated"
                };
                let mut rows: Vec<(i64, i64)> = $rows;
                if source.record == RecordOf::LabourOf {
                    let mut orders = Vec::new();
                    for sql in labours_orders(&rows) {
                        orders.extend(
                            bind_args!(sqlx::query_as::<_, (i64, i64)>(&sql.text), &sql.args)
                                .fetch_all(&mut *$tx)
                                .await?,
                        );
                    }
                    rows = orders;
                }
                for (society_id, record) in rows {
                    $tx.changed(society_id, source.resource, [record], action);
                }
            }
        }
    };
}

/// The queries that read the work orders of labours `rows` (society, labour), as (society, order).
fn labours_orders(rows: &[(i64, i64)]) -> Vec<Sql> {
    let mut by_society: std::collections::BTreeMap<i64, Vec<i64>> = std::collections::BTreeMap::new();
    for (society_id, labour) in rows {
        by_society.entry(*society_id).or_default().push(*labour);
    }
    let mut queries = Vec::new();
    for (society_id, mut labours) in by_society {
        labours.sort_unstable();
        labours.dedup();
        for chunk in labours.chunks(IDS_PER_QUERY) {
            let mut sql = Sql::default();
            sql.push("SELECT society_id, work_order_id FROM work_order_labours WHERE society_id = ")
                .arg(Arg::Int(society_id))
                .push(" AND id IN ")
                .id_list(chunk);
            queries.push(sql);
        }
    }
    queries
}

impl Store {
    /// Inserts `values`, row after row of `columns.len()` values, into `table` in multi-row statements, all in one
    /// transaction; answers how many rows were written. The values are drawn as the statements are sent, so a
    /// loader may generate millions of rows without holding them. When `columns` include `id`, PostgreSQL's
    /// identity sequence is moved past the largest id afterwards, so later rows without one do not collide.
    pub async fn bulk_insert(
        &self,
        table: &str,
        columns: &[&str],
        values: impl IntoIterator<Item = Arg>,
    ) -> Result<u64, StoreError> {
        let insert = insert_into(&table_and_columns(table, columns)?);
        let width = columns.len().max(1);
        let chunk = ROWS_PER_STATEMENT * width * 4;
        let dialect = self.dialect();
        let mut values = values.into_iter();
        let mut written = 0_u64;
        let (returning, recorded) = returning(table);
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut rows = Vec::new();
            loop {
                let pending: Vec<Arg> = values.by_ref().take(chunk).collect();
                if pending.is_empty() {
                    break;
                }
                let count = pending.len() / width;
                if count * width != pending.len() {
                    return Err(StoreError::Config(format!(
                        "{table}: {} values do not make rows of {width}",
                        pending.len()
                    )));
                }
                written += count as u64;
                for sql in insert_statements(dialect, &insert, &returning, width, pending) {
                    rows.extend(
                        bind_args!(sqlx::query_as::<_, (i64, i64)>(&sql.text), &sql.args)
                            .fetch_all(&mut *tx)
                            .await?,
                    );
                }
            }
            if dialect == Dialect::Postgres && columns.contains(&"id") {
                let table = name(table)?;
                sqlx::query(&format!(
                    "/* all societies: a loader's ids, numbered past every row's */ \
                     SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))"
                ))
                .execute(&mut *tx)
                .await?;
            }
            record_rows!(tx, recorded, rows, "created");
            tx.commit().await?;
        });
        Ok(written)
    }

    /// Sets `columns` of the rows of `table` found by `keys`: `values` are row after row of the key values, then
    /// the new values. All in one transaction.
    pub async fn bulk_update(
        &self,
        table: &str,
        keys: &[&str],
        columns: &[&str],
        values: impl IntoIterator<Item = Arg>,
    ) -> Result<u64, StoreError> {
        let mut text = format!("UPDATE {} SET ", name(table)?);
        let mut number = keys.len();
        for (index, column) in columns.iter().enumerate() {
            number += 1;
            text.push_str(&format!(
                "{}{} = ${number}",
                if index > 0 { ", " } else { "" },
                name(column)?
            ));
        }
        for (index, key) in keys.iter().enumerate() {
            text.push_str(&format!(
                " {} {} = ${}",
                if index > 0 { "AND" } else { "WHERE" },
                name(key)?,
                index + 1
            ));
        }
        let width = keys.len() + columns.len();
        let values: Vec<Arg> = values.into_iter().collect();
        if width == 0 || values.len() / width * width != values.len() {
            return Err(StoreError::Config(format!(
                "{table}: values do not make rows of {width}"
            )));
        }
        let (returning, recorded) = returning(table);
        text.push_str(&returning);
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut rows = Vec::new();
            for row in values.chunks(width) {
                rows.extend(
                    bind_args!(sqlx::query_as::<_, (i64, i64)>(&text), row)
                        .fetch_optional(&mut *tx)
                        .await?,
                );
            }
            record_rows!(tx, recorded, rows, "updated");
            tx.commit().await?;
        });
        Ok((values.len() / width) as u64)
    }

    /// The `columns` of the rows of `table` whose `filters` columns equal the values given, by ascending id.
    pub async fn read_rows(
        &self,
        table: &str,
        columns: &[(&str, Kind)],
        filters: &[(&str, Arg)],
    ) -> Result<Vec<Vec<Arg>>, StoreError> {
        let names: Vec<&str> = columns.iter().map(|(column, _)| *column).collect();
        let mut sql = crate::sql::Sql::default();
        sql.push(&format!(
            "SELECT {} FROM {}",
            names
                .iter()
                .map(|column| name(column))
                .collect::<Result<Vec<_>, _>>()?
                .join(", "),
            name(table)?
        ));
        for (index, (column, value)) in filters.iter().enumerate() {
            sql.push(if index == 0 { " WHERE " } else { " AND " })
                .push(name(column)?)
                .push(" = ")
                .arg(value.clone());
        }
        sql.push(" ORDER BY id");
        with_reader!(&self.db, pool => {
            let rows = bind_args!(sqlx::query(&sql.text), &sql.args).fetch_all(pool).await?;
            rows.iter()
                .map(|row| {
                    columns
                        .iter()
                        .enumerate()
                        .map(|(index, (_, kind))| decode(row, index, *kind))
                        .collect::<Result<Vec<_>, sqlx::Error>>()
                })
                .collect::<Result<Vec<_>, sqlx::Error>>()
                .map_err(StoreError::from)
        })
    }

    /// The first id of `table` no row holds yet, so that a loader can number new rows and their children itself.
    pub async fn next_id(&self, table: &str) -> Result<i64, StoreError> {
        let text = format!(
            "/* all societies: a loader numbers its rows past every row's */ SELECT MAX(id) FROM {}",
            name(table)?
        );
        let max: Option<i64> = with_reader!(&self.db, pool => sqlx::query_scalar(&text).fetch_one(pool).await?);
        Ok(max.unwrap_or(0) + 1)
    }

    /// After a large load, vacuums and analyzes a PostgreSQL database, which autovacuum would otherwise do in the
    /// minutes after it (on a benchmark's core while it measures). SQLite needs nothing.
    pub async fn vacuum_after_load(&self) -> Result<(), StoreError> {
        if let crate::db::Db::Postgres { pool, .. } = &self.db {
            sqlx::query("VACUUM (ANALYZE)").execute(pool).await?;
        }
        Ok(())
    }
}

/// Column `index` of `row`, as `kind`.
pub(crate) fn decode<R>(row: &R, index: usize, kind: Kind) -> Result<Arg, sqlx::Error>
where
    R: sqlx::Row,
    usize: sqlx::ColumnIndex<R>,
    for<'r> Option<i64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<f64>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> bool: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
    for<'r> Option<String>: sqlx::Decode<'r, R::Database> + sqlx::Type<R::Database>,
{
    Ok(match kind {
        Kind::Int => Arg::OptionalInt(row.try_get(index)?),
        Kind::Float => Arg::OptionalFloat(row.try_get(index)?),
        Kind::Bool => Arg::Bool(row.try_get(index)?),
        Kind::Text => Arg::OptionalText(row.try_get(index)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_names_are_spliced() {
        assert!(table_and_columns("work_orders", &["id", "society_id"]).is_ok());
        assert!(table_and_columns("t; DROP TABLE u", &["id"]).is_err());
        assert!(table_and_columns("t", &["id\""]).is_err());
    }
}
