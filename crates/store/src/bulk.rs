//! Many rows at once, for loaders outside the API (the demo data, the benchmark's large society): rows written in
//! multi-row statements through [`Batch`], rows read back by column, and the few maintenance steps a load ends with.
//! Callers name tables and columns; the statements are made here.

use crate::db::{bind_args, with_reader, with_writer, Arg, Batch, BeginWrite, Dialect};
use crate::events::pause_capture;
use crate::{Store, StoreError};

/// Rows of one multi-row `INSERT`, at most: beyond this a statement only grows without getting faster.
const ROWS_PER_STATEMENT: usize = 1_000;
/// Bound values of one statement, at most: under SQLite's limit (32,766) and so under PostgreSQL's (65,535).
const VALUES_PER_STATEMENT: usize = 30_000;

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

/// The start of a plain multi-row insert into `head` (`table (columns)`), for [`insert_statements`].
pub(crate) fn insert_into(head: &str) -> String {
    format!("INSERT INTO {head} VALUES ")
}

/// The statements that write `values` (row after row of `width` values), each `{before}(…), (…){after}`: a plain
/// insert ([`insert_into`], nothing after) or one that selects its rows from `VALUES` on a condition. SQLite gets
/// anonymous `?` placeholders: it looks numbered ones up by a linear search, which makes binding a statement of
/// thousands of `$n` quadratic.
pub(crate) fn insert_statements(
    dialect: Dialect,
    before: &str,
    after: &str,
    width: usize,
    values: Vec<Arg>,
) -> Vec<crate::db::Sql> {
    let per_statement = (VALUES_PER_STATEMENT / width.max(1)).clamp(1, ROWS_PER_STATEMENT) * width.max(1);
    let mut batch = Batch::new(dialect);
    let mut values = values.into_iter().peekable();
    while values.peek().is_some() {
        let sql = batch.statement();
        sql.push(before);
        for (index, value) in values.by_ref().take(per_statement).enumerate() {
            if index % width == 0 {
                sql.push(if index == 0 { "(" } else { "), (" });
            } else {
                sql.push(", ");
            }
            match dialect {
                Dialect::Sqlite => {
                    sql.args.push(value);
                    sql.push("?");
                }
                Dialect::Postgres => {
                    sql.arg(value);
                }
            }
        }
        sql.push(")").push(after);
    }
    batch.into_queries()
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
        let (pause, resume) = pause_capture(dialect);
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query(pause).execute(&mut *tx).await?;
            loop {
                let pending: Vec<Arg> = values.by_ref().take(chunk).collect();
                if pending.is_empty() {
                    break;
                }
                let rows = pending.len() / width;
                if rows * width != pending.len() {
                    return Err(StoreError::Config(format!(
                        "{table}: {} values do not make rows of {width}",
                        pending.len()
                    )));
                }
                written += rows as u64;
                for sql in insert_statements(dialect, &insert, "", width, pending) {
                    bind_args!(sqlx::query(&sql.text), &sql.args).execute(&mut *tx).await?;
                }
            }
            if dialect == Dialect::Postgres && columns.contains(&"id") {
                let table = name(table)?;
                sqlx::query(&format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}))"
                ))
                .execute(&mut *tx)
                .await?;
            }
            sqlx::query(resume).execute(&mut *tx).await?;
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
        let (pause, resume) = pause_capture(self.dialect());
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            sqlx::query(pause).execute(&mut *tx).await?;
            for row in values.chunks(width) {
                bind_args!(sqlx::query(&text), row).execute(&mut *tx).await?;
            }
            sqlx::query(resume).execute(&mut *tx).await?;
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
        let mut sql = crate::db::Sql::default();
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
        let text = format!("SELECT MAX(id) FROM {}", name(table)?);
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
    fn sqlite_statements_use_anonymous_placeholders_and_postgres_numbered_ones() {
        let values = (1..=6).map(Arg::Int).collect::<Vec<_>>();
        let sqlite = insert_statements(Dialect::Sqlite, &insert_into("t (a, b)"), "", 2, values.clone());
        assert_eq!(sqlite.len(), 1);
        assert_eq!(sqlite[0].text, "INSERT INTO t (a, b) VALUES (?, ?), (?, ?), (?, ?)");
        let postgres = insert_statements(Dialect::Postgres, &insert_into("t (a, b)"), "", 2, values.clone());
        assert_eq!(
            postgres[0].text,
            "INSERT INTO t (a, b) VALUES ($1, $2), ($3, $4), ($5, $6)"
        );
        assert_eq!(postgres[0].args, values);
    }

    #[test]
    fn rows_may_be_selected_on_a_condition() {
        let values = (1..=4).map(Arg::Int).collect::<Vec<_>>();
        let before = "INSERT INTO t (a, z, b) SELECT column1, 0, column2 FROM (VALUES ";
        let sqlite = insert_statements(Dialect::Sqlite, before, ") WHERE x", 2, values);
        assert_eq!(
            sqlite[0].text,
            "INSERT INTO t (a, z, b) SELECT column1, 0, column2 FROM (VALUES (?, ?), (?, ?)) WHERE x"
        );
    }

    #[test]
    fn many_rows_are_cut_into_statements_of_whole_rows() {
        let width = 7;
        let rows = 2 * ROWS_PER_STATEMENT + 3;
        let values = vec![Arg::Int(0); rows * width];
        let queries = insert_statements(
            Dialect::Sqlite,
            &insert_into("t (a, b, c, d, e, f, g)"),
            "",
            width,
            values,
        );
        let statements: Vec<&str> = queries.iter().flat_map(|sql| sql.text.split(";\n")).collect();
        assert_eq!(statements.len(), 3);
        let placeholders: usize = statements.iter().map(|text| text.matches('?').count()).sum();
        assert_eq!(placeholders, rows * width);
        assert!(statements.iter().all(|text| text.matches('?').count() % width == 0));
    }

    #[test]
    fn only_plain_names_are_spliced() {
        assert!(table_and_columns("work_orders", &["id", "society_id"]).is_ok());
        assert!(table_and_columns("t; DROP TABLE u", &["id"]).is_err());
        assert!(table_and_columns("t", &["id\""]).is_err());
    }
}
