//! An import under way: the transaction that holds its staged rows from the first to its end, the rows staged into
//! it, and the checks and writes that end it (see the module's documentation one level up).

use domain::import::{Counts, Problem, Problems, Row, REPORTED_PROBLEMS};
use domain::{Refusal, Rule, Violation};
use sqlx::{Postgres, Sqlite};

use super::checks::ProblemQuery;
use super::sql::{Statements, WRITTEN};
use super::staging;
use super::{ImportResource, Owner};
use crate::db::Db;
use crate::dependants::Dependant;
use crate::inserts::{insert_into, insert_statements};
use crate::sql::{bind_args, Dialect, Sql};
use crate::write::{BeginWrite, WriteTx};
use crate::{now_millis, Store, StoreError};

/// The import's transaction, of either backend, on a connection of its own. Its staged rows are seen by no other
/// transaction, and a refused file, an error or an import dropped half-way rolls them back with it.
enum Tx {
    Sqlite(WriteTx<'static, Sqlite>),
    Postgres(WriteTx<'static, Postgres>),
}

/// Runs `$body` with `$tx` bound to the import's transaction of either backend.
macro_rules! with_tx {
    ($tx:expr, $bound:ident => $body:expr) => {
        match $tx {
            Tx::Sqlite($bound) => $body,
            Tx::Postgres($bound) => $body,
        }
    };
}

/// Runs a write statement; answers the rows it changed.
macro_rules! execute {
    ($executor:expr, $sql:expr) => {{
        let sql: &Sql = &$sql;
        bind_args!(sqlx::query(&sql.text), &sql.args)
            .execute(&mut *$executor)
            .await?
            .rows_affected()
    }};
}

/// Runs a query; answers its rows as `$row`.
macro_rules! fetch {
    ($executor:expr, $row:ty, $sql:expr) => {{
        let sql: &Sql = &$sql;
        bind_args!(sqlx::query_as::<_, $row>(&sql.text), &sql.args)
            .fetch_all(&mut *$executor)
            .await?
    }};
}

/// Runs a check: its first problems, each made by `$problem` from a row of `$row`, and a count of the rest.
macro_rules! check {
    ($executor:expr, $problems:expr, $query:expr, $row:ty, $problem:expr) => {{
        let query: &ProblemQuery = &$query;
        let rows = fetch!($executor, $row, query.first(REPORTED_PROBLEMS));
        let named = rows.len();
        for row in rows {
            $problems.push($problem(row));
        }
        if named == REPORTED_PROBLEMS {
            let (total,): (i64,) = fetch!($executor, (i64,), query.count()).pop().unwrap_or((0,));
            $problems.count_more(u64::try_from(total).unwrap_or(0).saturating_sub(named as u64));
        }
    }};
}

/// What became of a file.
#[derive(Debug)]
pub enum Outcome {
    /// It was written: what changed.
    Loaded(Counts),
    /// It was refused, and nothing was written: why.
    Refused(Problems),
}

/// PostgreSQL, in the import's transaction: on Citus, commands that span shards (the `ANALYZE`s of the staging
/// table and of the written one) use one connection per node, the one the transaction's other statements use, so
/// that the reads of reference tables after them can share it; and the coordinator's copies of reference tables (a
/// catalogue and its staging) are reached over a connection too, since such a command cannot follow statements the
/// coordinator ran on them itself. A server without Citus skips it.
const CITUS_SEQUENTIAL: &str = "SELECT set_config('citus.multi_shard_modify_mode', 'sequential', true), \
     set_config('citus.enable_local_execution', 'off', true) WHERE current_setting('citus.version', true) IS NOT NULL";

/// An import under way.
pub struct Load {
    statements: Statements,
    tx: Tx,
    /// Rows staged, and how many of them are deletions.
    staged: u64,
    deletions: u64,
}

impl Store {
    /// Starts an import of `resource` for `owner`: a transaction on a connection of its own, and an id for its
    /// staged rows.
    pub async fn begin_import(&self, resource: &'static ImportResource, owner: Owner) -> Result<Load, StoreError> {
        let statements = Statements {
            resource,
            owner,
            dialect: self.dialect(),
            // Rows of two imports of one owner's resource never meet: each import reads only its own id's rows, and
            // sees no other's before they are gone.
            import_id: rand::random::<i64>() & i64::MAX,
        };
        let tx = match &self.db {
            // SQLite is never distributed: its rows are staged in a temporary table of the staging table's shape,
            // which shadows it for this connection, so they are written to no log and no page of the database.
            Db::Sqlite { write, .. } => {
                let mut tx = write.begin_write().await?;
                let table = statements.staging();
                sqlx::raw_sql(&format!(
                    "CREATE TEMP TABLE IF NOT EXISTS {table} AS SELECT * FROM main.{table} WHERE 0; \
                     CREATE INDEX IF NOT EXISTS temp.{table}_code ON {table} ({}, import_id, external_code)",
                    staging::owner_column(resource)
                ))
                .execute(&mut *tx)
                .await?;
                Tx::Sqlite(tx)
            }
            // Its statements are planned with their values (a plain `BEGIN`, not a write's generic plans).
            Db::Postgres { pool, .. } => {
                let mut tx = WriteTx::new(pool.begin_with(Some("BEGIN")).await?);
                sqlx::raw_sql(CITUS_SEQUENTIAL).execute(&mut *tx).await?;
                Tx::Postgres(tx)
            }
        };
        Ok(Load {
            statements,
            tx,
            staged: 0,
            deletions: 0,
        })
    }
}

impl Load {
    /// Stages rows, each with its number in the file. Only the staging table is written, whose rows are the
    /// import's own, so this waits for no other writer (but SQLite's, the one writer at a time).
    pub async fn stage(&mut self, rows: Vec<(u64, Row)>) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        self.staged += rows.len() as u64;
        self.deletions += rows.iter().filter(|(_, row)| row.deleted).count() as u64;
        let columns = self.statements.staged_columns();
        let mut values = Vec::with_capacity(rows.len() * columns.len());
        for (number, row) in rows {
            self.statements.row_values(number, row, &mut values);
        }
        let insert = insert_into(&format!("{} ({})", self.statements.staging(), columns.join(", ")));
        let queries = insert_statements(self.statements.dialect, &insert, "", columns.len(), values);
        with_tx!(&mut self.tx, tx => {
            let connection = &mut **tx;
            for sql in queries {
                execute!(connection, sql);
            }
        });
        Ok(())
    }

    /// How many rows are staged.
    pub fn staged(&self) -> u64 {
        self.staged
    }

    /// Checks the staged rows against the database and, when neither they nor the `problems` the caller found
    /// while reading the file have any, writes them and commits; otherwise rolls everything back. `present` says
    /// which fields the file has a column for: the others keep their stored values.
    pub async fn finish(self, store: &Store, present: &[bool], mut problems: Problems) -> Result<Outcome, StoreError> {
        let Load {
            statements,
            tx,
            staged,
            deletions,
        } = self;
        let statements = &statements;
        let dialect = statements.dialect;
        let resource = statements.resource;
        // A file that deletes nothing skips the deletions' locks, checks and statement: each reads the whole staging
        // table, which on a large file takes long.
        let deletes = deletions > 0;
        let dependants = if deletes {
            store.dependants().await?.of(resource.table).to_vec()
        } else {
            Vec::new()
        };
        let now = now_millis();
        let outcome = with_tx!(tx, tx => {
            let mut tx = tx;
            if dialect == Dialect::Postgres {
                // The staged rows' statistics, which only this transaction can gather, since only it sees them.
                sqlx::raw_sql(&format!("ANALYZE {}", statements.staging())).execute(&mut *tx).await?;
                sqlx::query("SELECT pg_advisory_xact_lock($1)")
                    .bind(statements.owner.lock_key(resource))
                    .execute(&mut *tx)
                    .await?;
            }
            tx.check(statements, &dependants, deletes, &mut problems).await?;
            if !problems.is_empty() {
                tx.rollback().await?;
                Outcome::Refused(problems)
            } else {
                let (existing,): (i64,) = fetch!(tx, (i64,), statements.existing()).pop().unwrap_or((0,));
                let existing = u64::try_from(existing).unwrap_or(0);
                let written = statements.written_events();
                if written.is_some() {
                    sqlx::raw_sql(&statements.create_written()).execute(&mut *tx).await?;
                }
                let (changed, deleted) = tx.write(statements, present, now, deletes, &mut problems).await?;
                if problems.is_empty() {
                    if dialect == Dialect::Postgres {
                        // The events read back each written record. PostgreSQL's statistics still describe the table
                        // as it was before the load, and with them it scanned every record of the society for each
                        // few hundred it read, which on a large load took long. A table's owner refreshes them here;
                        // anyone else gets a warning and the old plans.
                        sqlx::raw_sql(&format!("ANALYZE {}", resource.table)).execute(&mut *tx).await?;
                    }
                    execute!(tx, statements.clear_staged());
                    match written {
                        _ if changed + deleted == 0 => {}
                        Some((society_id, events_resource)) => tx.listed(society_id, events_resource, WRITTEN),
                        None => tx.reference_changed(),
                    }
                    tx.commit().await?;
                    let created = (staged - deletions).saturating_sub(existing);
                    let updated = changed.saturating_sub(created);
                    Outcome::Loaded(Counts {
                        created,
                        updated,
                        unchanged: existing.saturating_sub(updated),
                        deleted,
                        absent: deletions.saturating_sub(deleted),
                    })
                } else {
                    tx.rollback().await?;
                    Outcome::Refused(problems)
                }
            }
        });
        Ok(outcome)
    }
}

/// The checks and the writes of an import's transaction, on a write transaction of either backend.
trait ImportTx {
    /// Checks the staged rows against the database, adding what it finds to `problems`, and takes the locks that
    /// keep it so until the transaction ends; `deletes` when the file deletes records, which `dependants` may name.
    fn check(
        &mut self,
        statements: &Statements,
        dependants: &[Dependant],
        deletes: bool,
        problems: &mut Problems,
    ) -> impl std::future::Future<Output = Result<(), sqlx::Error>> + Send;

    /// Writes the staged rows: their upserts (only the fields `present`, in rounds when the resource names itself)
    /// and, when the file `deletes` any, their deletions, stamped `now`, each listed for its event. Adds to `problems`
    /// the rows no round placed; answers how many records it upserted and deleted.
    fn write(
        &mut self,
        statements: &Statements,
        present: &[bool],
        now: i64,
        deletes: bool,
        problems: &mut Problems,
    ) -> impl std::future::Future<Output = Result<(u64, u64), sqlx::Error>> + Send;
}

/// Implements [`ImportTx`] for the write transaction of backend `$db`.
macro_rules! import_tx {
    ($db:ty) => {
        impl ImportTx for WriteTx<'_, $db> {
            async fn check(
                &mut self,
                statements: &Statements,
                dependants: &[Dependant],
                deletes: bool,
                problems: &mut Problems,
            ) -> Result<(), sqlx::Error> {
                let tx = &mut **self;
                let resource = statements.resource;
                check!(
                    tx,
                    problems,
                    statements.repeated_codes(),
                    (i64, i64, String),
                    |(row, other, code): (i64, i64, String)| {
                        let rule = Rule::RepeatedInFile {
                            code,
                            row: u64::try_from(other).unwrap_or(0),
                        };
                        Problem::invalid(
                            row_number(row),
                            vec![Violation::new(domain::import::EXTERNAL_CODE, rule)],
                        )
                    }
                );
                for (index, column) in resource.columns.iter().enumerate() {
                    let Some(target) = column.target else { continue };
                    for lock in statements.lock_references(index, column, target) {
                        fetch!(tx, (i64,), lock);
                    }
                    let query = statements.unknown_references(index, column, target);
                    check!(
                        tx,
                        problems,
                        query,
                        (i64, Option<i64>, Option<String>, Option<i64>),
                        |found| { unknown_reference(&column.field.columns(), found) }
                    );
                }
                if let Some(lock) = statements.lock_deletions().filter(|_| deletes) {
                    fetch!(tx, (i64,), lock);
                }
                for dependant in dependants {
                    check!(
                        tx,
                        problems,
                        statements.dependants(dependant),
                        (i64, i64),
                        |(row, count): (i64, i64)| Problem {
                            row: row_number(row),
                            refusal: Refusal::HasDependants {
                                resource: dependant.table,
                                count
                            },
                        }
                    );
                }
                Ok(())
            }

            async fn write(
                &mut self,
                statements: &Statements,
                present: &[bool],
                now: i64,
                deletes: bool,
                problems: &mut Problems,
            ) -> Result<(u64, u64), sqlx::Error> {
                let tx = &mut **self;
                let resource = statements.resource;
                let mut changed = 0;
                match statements.self_reference() {
                    None => {
                        changed += execute!(
                            tx,
                            statements.writing(statements.upsert(present, now, None), false)
                        );
                        if let Some(list) = statements.list_written(now, false) {
                            execute!(tx, list);
                        }
                    }
                    Some(index) => {
                        // A record the file names as another's parent is written in a round before that other.
                        let mut pass = 1;
                        while execute!(tx, statements.next_pass(index, pass)) > 0 {
                            changed += execute!(
                                tx,
                                statements.writing(statements.upsert(present, now, Some(pass)), false)
                            );
                            if let Some(list) = statements.list_written(now, false) {
                                execute!(tx, list);
                            }
                            pass += 1;
                        }
                        check!(
                            tx,
                            problems,
                            statements.unplaced(index),
                            (i64, Option<String>),
                            |(row, code): (i64, Option<String>)| {
                                let path = column_path(&resource.columns[index].field.columns(), 1);
                                Problem::invalid(
                                    row_number(row),
                                    vec![Violation::new(path, Rule::UnknownCode(code.unwrap_or_default()))],
                                )
                            }
                        );
                    }
                }
                let deleted = if deletes {
                    let deleted = execute!(tx, statements.writing(statements.delete(now), true));
                    if let Some(list) = statements.list_written(now, true) {
                        execute!(tx, list);
                    }
                    deleted
                } else {
                    0
                };
                Ok((changed, deleted))
            }
        }
    };
}

import_tx!(Sqlite);
import_tx!(Postgres);

/// A row number as the database returns it.
fn row_number(row: i64) -> u64 {
    u64::try_from(row).unwrap_or(0)
}

/// A reference's column: its id's (`0`) or its key's (`1`).
fn column_path(columns: &[String], which: usize) -> String {
    columns.get(which).cloned().unwrap_or_default()
}

/// The problem of a row whose reference names no record it may, or an id and a code of two records.
fn unknown_reference(
    columns: &[String],
    (row, id, code, found): (i64, Option<i64>, Option<String>, Option<i64>),
) -> Problem {
    let violation = match (id, code, found) {
        (Some(id), Some(code), Some(_)) => Violation::new(column_path(columns, 0), Rule::Mismatch { id, code }),
        (_, Some(code), _) => Violation::new(column_path(columns, 1), Rule::UnknownCode(code)),
        (id, None, _) => Violation::new(column_path(columns, 0), Rule::Unknown(id.unwrap_or_default())),
    };
    Problem::invalid(row_number(row), vec![violation])
}
