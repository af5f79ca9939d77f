//! Multi-row `INSERT` statements: many rows of bound values cut into statements within both backends' limits on
//! bound parameters, for the writers that insert rows by the thousand (bulk loads, imports, a commit's events).

use crate::arg::Arg;
use crate::sql::{Batch, Dialect, Sql};

/// Rows of one multi-row `INSERT`, at most: beyond this a statement only grows without getting faster.
pub(crate) const ROWS_PER_STATEMENT: usize = 1_000;
/// Bound values of one statement, at most: under SQLite's limit (32,766) and so under PostgreSQL's (65,535).
const VALUES_PER_STATEMENT: usize = 30_000;

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
) -> Vec<Sql> {
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
}
