//! The checks of an import, made from a resource's declaration: the queries that find a file's problems (codes
//! repeated, references to no record, deletions of records others name, rounds that never place a row), each read a
//! page at a time and counted, and the row locks that keep what they found true until the import commits. Pure text
//! and bound values, so they are tested here.

use super::sql::{key_column, Statements};
use super::{Column, Ownership, Target};
use crate::dependants::Dependant;
use crate::sql::Sql;

/// A check's query: rows of `row_number` and what the problem is, which are read a page at a time and counted.
pub(super) struct ProblemQuery(Sql);

impl ProblemQuery {
    /// The first `limit` problems, by row.
    pub fn first(&self, limit: usize) -> Sql {
        self.wrap("SELECT * FROM (", &format!(") p ORDER BY row_number LIMIT {limit}"))
    }

    /// How many problems there are.
    pub fn count(&self) -> Sql {
        self.wrap("SELECT COUNT(*) FROM (", ") p")
    }

    fn wrap(&self, before: &str, after: &str) -> Sql {
        Sql {
            text: format!("{before}{}{after}", self.0.text),
            args: self.0.args.clone(),
        }
    }
}

impl Statements {
    /// Rows whose `external_code` another row has: `(row_number, other row, code)`.
    pub fn repeated_codes(&self) -> ProblemQuery {
        let staging = self.staging();
        let mut sql = Sql::default();
        sql.push(&format!(
            "SELECT s.row_number AS row_number, (SELECT MIN(o.row_number) FROM {staging} o WHERE "
        ));
        self.staged_rows("o", &mut sql);
        sql.push(&self.beside("o", "s"));
        sql.push(&format!(
            " AND o.external_code = s.external_code AND o.row_number <> s.row_number) AS other, \
             s.external_code AS code FROM {staging} s WHERE "
        ));
        self.staged_rows("s", &mut sql);
        sql.push(&format!(
            " AND s.external_code IN (SELECT d.external_code FROM {staging} d WHERE "
        ));
        self.staged_rows("d", &mut sql);
        sql.push(" GROUP BY d.external_code HAVING COUNT(*) > 1)");
        ProblemQuery(sql)
    }

    /// On PostgreSQL, locks to share the live records of `target` that rows of field `index` name, where deleting
    /// them waits for dependants (as the API's writes lock them; see `crate::lookups`): those named by code, then by
    /// id. Two statements, since records named either way (an `OR` of two sub-selects) cannot be a hashed semi-join,
    /// and a file of a million rows then scans its staged rows once per record.
    pub fn lock_references(&self, index: usize, column: &Column, target: Target) -> Vec<Sql> {
        let Some(lock) = crate::lookups::lock_for(target.table).map(|lock| self.dialect.lock_rows(lock)) else {
            return Vec::new();
        };
        if lock.is_empty() {
            return Vec::new();
        }
        [(key_column(column.field.kind), "code"), ("id", "id")]
            .into_iter()
            .map(|(key, staged)| {
                let mut sql = Sql::default();
                sql.push(&format!("SELECT r.id FROM {} r WHERE ", target.table));
                self.may_name("r", target, &mut sql);
                sql.push(&format!(
                    " AND r.deleted_at IS NULL AND r.{key} IN (SELECT s.v{index}_{staged} FROM {} s WHERE ",
                    self.staging()
                ));
                self.staged_rows("s", &mut sql);
                sql.push(&format!(" AND NOT s.deleted){lock}"));
                sql
            })
            .collect()
    }

    /// Rows whose reference of field `index` names no live record the owner may name, or an id and a code of two
    /// records: `(row_number, id, code, found)`, `found` being the record the code (else the id) names. A record of
    /// the resource itself may also be a row of the file, unless the file deletes it.
    pub fn unknown_references(&self, index: usize, column: &Column, target: Target) -> ProblemQuery {
        // Joins rather than a look-up a row: on a large file the database hashes the named records once.
        let key = key_column(column.field.kind);
        let mut sql = Sql::default();
        sql.push(&format!(
            "SELECT row_number, id, code, found FROM (SELECT s.row_number AS row_number, s.v{index}_id AS id, \
             s.v{index}_code AS code, CASE WHEN s.v{index}_code IS NULL THEN by_id.id ELSE by_code.id END AS found"
        ));
        let staging = self.staging();
        if self.self_reference() == Some(index) {
            for (name, deleted) in [("in_file", "NOT o.deleted"), ("deleted_here", "o.deleted")] {
                sql.push(&format!(", EXISTS (SELECT 1 FROM {staging} o WHERE "));
                self.staged_rows("o", &mut sql);
                sql.push(&self.beside("o", "s"));
                sql.push(&format!(
                    " AND o.external_code = s.v{index}_code AND {deleted}) AS {name}"
                ));
            }
        }
        sql.push(&format!(" FROM {staging} s LEFT JOIN {} by_code ON ", target.table));
        self.may_name("by_code", target, &mut sql);
        sql.push(&self.named_beside("by_code", target, "s"));
        sql.push(&format!(
            " AND by_code.{key} = s.v{index}_code AND by_code.deleted_at IS NULL LEFT JOIN {} by_id ON ",
            target.table
        ));
        self.may_name("by_id", target, &mut sql);
        sql.push(&self.named_beside("by_id", target, "s"));
        sql.push(&format!(
            " AND by_id.id = s.v{index}_id AND by_id.deleted_at IS NULL WHERE "
        ));
        self.staged_rows("s", &mut sql);
        sql.push(&format!(
            " AND NOT s.deleted AND (s.v{index}_id IS NOT NULL OR s.v{index}_code IS NOT NULL)) r WHERE "
        ));
        if self.self_reference() == Some(index) {
            sql.push("(found IS NULL AND NOT in_file) OR deleted_here OR ");
        } else {
            sql.push("found IS NULL OR ");
        }
        sql.push("(id IS NOT NULL AND code IS NOT NULL AND id <> found)");
        ProblemQuery(sql)
    }

    /// Rows of a resource that refers to itself left without a round: their references go round in a circle.
    pub fn unplaced(&self, index: usize) -> ProblemQuery {
        let mut sql = Sql::default();
        sql.push(&format!(
            "SELECT s.row_number AS row_number, s.v{index}_code AS code FROM {} s WHERE ",
            self.staging()
        ));
        self.staged_rows("s", &mut sql);
        sql.push(" AND NOT s.deleted AND s.pass IS NULL");
        ProblemQuery(sql)
    }

    /// On PostgreSQL, locks the live records the file deletes, so no write makes them a dependant meanwhile.
    pub fn lock_deletions(&self) -> Option<Sql> {
        let lock = self.dialect.lock_rows(crate::sql::RowLock::Update);
        if lock.is_empty() {
            return None;
        }
        let mut sql = Sql::default();
        sql.push(&format!("SELECT t.id FROM {} t WHERE ", self.resource.table));
        self.own_records("t", &mut sql);
        sql.push(&format!(
            " AND t.deleted_at IS NULL AND t.external_code IN (SELECT s.external_code FROM {} s WHERE ",
            self.staging()
        ));
        self.staged_rows("s", &mut sql);
        sql.push(&format!(" AND s.deleted){lock}"));
        Some(sql)
    }

    /// Deletions of records that `dependant` records still name, live: `(row_number, count)`. A dependant of the
    /// resource itself that the file deletes too does not count.
    pub fn dependants(&self, dependant: &Dependant) -> ProblemQuery {
        let table = self.resource.table;
        let mut sql = Sql::default();
        let staging = self.staging();
        sql.push(&format!(
            "SELECT s.row_number AS row_number, COUNT(*) AS count FROM {staging} s JOIN {table} t ON "
        ));
        self.own_records("t", &mut sql);
        sql.push(&self.beside("t", "s"));
        sql.push(&format!(
            " AND t.external_code = s.external_code AND t.deleted_at IS NULL JOIN {} d ON d.{} = t.id \
             AND d.deleted_at IS NULL",
            dependant.table, dependant.column
        ));
        if self.resource.ownership == Ownership::Society {
            sql.push(" AND d.society_id = t.society_id");
        }
        if dependant.table == table {
            sql.push(&format!(" AND NOT EXISTS (SELECT 1 FROM {staging} o WHERE "));
            self.staged_rows("o", &mut sql);
            sql.push(&self.beside("o", "d"));
            sql.push(" AND o.deleted AND o.external_code = d.external_code)");
        }
        sql.push(" WHERE ");
        self.staged_rows("s", &mut sql);
        sql.push(" AND s.deleted GROUP BY s.row_number");
        ProblemQuery(sql)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{resource, Owner};
    use crate::sql::{Arg, Dialect};

    #[test]
    fn references_name_the_owners_records_and_catalogues_their_countrys() {
        let owner = Owner::Society {
            id: 7,
            country: "PY".into(),
        };
        let masters = Statements {
            resource: resource("master_campaigns").expect("master campaigns"),
            owner: owner.clone(),
            dialect: Dialect::Postgres,
            import_id: 5,
        };
        let cycle = &masters.resource.columns[3];
        let query = masters.unknown_references(3, cycle, cycle.target.expect("a reference"));
        let first = query.first(200);
        assert!(
            first
                .text
                .contains("LEFT JOIN master_campaign_cycles by_code ON by_code.country = $1"),
            "{}",
            first.text
        );
        assert!(first.text.ends_with("ORDER BY row_number LIMIT 200"));
        assert_eq!(
            first.args,
            [Arg::Text("PY".into()), Arg::Text("PY".into()), Arg::Int(7), Arg::Int(5)]
        );
        assert!(first
            .text
            .contains("WHERE s.society_id = $3 AND s.import_id = $4 AND NOT s.deleted"));
        let species = &masters.resource.columns[1];
        let query = masters.unknown_references(1, species, species.target.expect("a reference"));
        assert!(query.count().text.contains("by_code.reference_key = s.v1_code"));
        assert!(masters
            .lock_references(3, cycle, cycle.target.expect("a reference"))
            .is_empty());
    }

    #[test]
    fn records_that_dependants_name_are_locked_on_postgres_only() {
        let owner = Owner::Society {
            id: 7,
            country: "PY".into(),
        };
        for (dialect, locked) in [(Dialect::Sqlite, false), (Dialect::Postgres, true)] {
            let plots = Statements {
                resource: resource("plots").expect("plots"),
                owner: owner.clone(),
                dialect,
                import_id: 5,
            };
            let establishment = &plots.resource.columns[0];
            let lock = plots.lock_references(0, establishment, establishment.target.expect("a reference"));
            assert_eq!(lock.len(), if locked { 2 } else { 0 });
            assert!(lock
                .iter()
                .all(|sql| sql.text.ends_with("FOR SHARE") && !sql.text.contains(" OR ")));
            assert_eq!(plots.lock_deletions().is_some(), locked);
        }
    }
}
