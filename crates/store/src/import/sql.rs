//! The statements of an import, made from a resource's declaration: the staged rows, the upsert and the
//! deletions, and the listing of what they wrote. The checks that find a file's problems are in
//! [`super::checks`]; the staging tables in [`super::staging`]. Pure text and bound values, so they are tested here.
//!
//! Every statement reads only the import's own staged rows (its owner's and its `import_id`'s, both bound), and
//! joins them to the owner's records on the owner's column as well as its value: on Citus, a society's staged rows
//! and records lie on one worker, which runs the whole statement.

use domain::import::{Key, Kind, Row, Value};

use super::staging::{self, staged_type};
use super::{Column, ImportResource, Owner, Target, TargetOwner};
use crate::events::EventResource;
use crate::resources::events::own_resource;
use crate::sql::{Arg, Dialect, Sql};

/// The temporary table where an import that writes its own events (see [`Statements::own_events`]) lists the records
/// it wrote, with their action. It is private to the import's connection, and only ever read or filled alone (from
/// the rows a write statement returns), which Citus allows of a table of the coordinator's.
pub(super) const WRITTEN: &str = "import_written";

/// Statements of one import of `resource` for `owner`.
pub(super) struct Statements {
    pub resource: &'static ImportResource,
    pub owner: Owner,
    pub dialect: Dialect,
    /// The import's own, among the staged rows.
    pub import_id: i64,
}

pub(super) fn key_column(kind: Kind) -> &'static str {
    match kind {
        Kind::Reference(Key::ReferenceKey) => "reference_key",
        _ => "external_code",
    }
}

impl Statements {
    pub(super) fn references(&self) -> impl Iterator<Item = (usize, &'static Column, Target)> {
        self.resource
            .columns
            .iter()
            .enumerate()
            .filter_map(|(index, column)| column.target.map(|target| (index, column, target)))
    }

    /// The field that names records of the resource's own table (a tag's parent), if one does.
    pub fn self_reference(&self) -> Option<usize> {
        self.references()
            .find(|(_, _, target)| target.table == self.resource.table)
            .map(|(index, _, _)| index)
    }

    /// The import's staging table.
    pub(super) fn staging(&self) -> String {
        staging::table(self.resource)
    }

    /// `{alias}.society_id = ? AND {alias}.import_id = ?` (or `country`): the import's own staged rows.
    pub(super) fn staged_rows(&self, alias: &str, sql: &mut Sql) {
        self.own_records(alias, sql);
        sql.push(&format!(" AND {alias}.import_id = "))
            .arg(Arg::Int(self.import_id));
    }

    /// ` AND {alias}.society_id = {staged}.society_id` (or `country`): the owner's records beside its staged rows,
    /// which is how Citus sees that a join stays on one worker.
    pub(super) fn beside(&self, alias: &str, staged: &str) -> String {
        let owner = staging::owner_column(self.resource);
        format!(" AND {alias}.{owner} = {staged}.{owner}")
    }

    /// [`Self::beside`] for a reference to `target`, when it names the society's records.
    pub(super) fn named_beside(&self, alias: &str, target: Target, staged: &str) -> String {
        match (target.owner, &self.owner) {
            (TargetOwner::Society, Owner::Society { .. }) => format!(" AND {alias}.society_id = {staged}.society_id"),
            _ => String::new(),
        }
    }

    /// ` AND {alias}.society_id = $1` when `target` is a society's and so is the owner: for a subquery of a statement
    /// whose first argument is the owner's society ([`Statements::own_records`] first), which then names it rather
    /// than the outer row's, so that Citus runs the statement on the society's worker alone.
    pub(super) fn named_by_owner(&self, alias: &str, target: Target) -> String {
        match (target.owner, &self.owner) {
            (TargetOwner::Society, Owner::Society { .. }) => format!(" AND {alias}.society_id = $1"),
            _ => String::new(),
        }
    }

    /// `{alias}.society_id = ?` (or `country`): the records of the resource's owner.
    pub(super) fn own_records(&self, alias: &str, sql: &mut Sql) {
        match &self.owner {
            Owner::Society { id, .. } => sql.push(&format!("{alias}.society_id = ")).arg(Arg::Int(*id)),
            Owner::Country(country) => sql.push(&format!("{alias}.country = ")).arg(Arg::Text(country.clone())),
        };
    }

    /// The records of `target` the owner may refer to.
    pub(super) fn may_name(&self, alias: &str, target: Target, sql: &mut Sql) {
        match (target.owner, &self.owner) {
            (TargetOwner::Society, Owner::Society { id, .. }) => {
                sql.push(&format!("{alias}.society_id = ")).arg(Arg::Int(*id));
            }
            (TargetOwner::Country, owner) => {
                sql.push(&format!("{alias}.country = "))
                    .arg(Arg::Text(owner.country().to_owned()));
            }
            // A catalogue's record names no society's, which the resources' declarations never ask for.
            (TargetOwner::Society, Owner::Country(_)) => {
                sql.push("1 = 0");
            }
            (TargetOwner::Global, _) => {
                sql.push("1 = 1");
            }
        }
    }

    /// The staged columns a row fills, in [`Statements::row_values`]' order.
    pub fn staged_columns(&self) -> Vec<String> {
        let mut columns = vec![
            staging::owner_column(self.resource).to_owned(),
            "import_id".to_owned(),
            "row_number".to_owned(),
            "external_code".to_owned(),
            "deleted".to_owned(),
        ];
        for (index, column) in self.resource.columns.iter().enumerate() {
            match column.field.kind {
                Kind::Reference(_) => {
                    columns.push(format!("v{index}_id"));
                    columns.push(format!("v{index}_code"));
                }
                _ => columns.push(format!("v{index}")),
            }
        }
        columns
    }

    /// A staged row's values.
    pub fn row_values(&self, row_number: u64, row: Row, out: &mut Vec<Arg>) {
        out.push(match &self.owner {
            Owner::Society { id, .. } => Arg::Int(*id),
            Owner::Country(country) => Arg::Text(country.clone()),
        });
        out.push(Arg::Int(self.import_id));
        out.push(Arg::Int(i64::try_from(row_number).unwrap_or(i64::MAX)));
        out.push(Arg::Text(row.external_code));
        out.push(Arg::Bool(row.deleted));
        for (column, value) in self.resource.columns.iter().zip(row.values) {
            match (column.field.kind, value) {
                (Kind::Reference(_), Value::Reference { id, code }) => {
                    out.push(Arg::OptionalInt(id));
                    out.push(Arg::OptionalText(code));
                }
                (Kind::Reference(_), _) => {
                    out.push(Arg::OptionalInt(None));
                    out.push(Arg::OptionalText(None));
                }
                (_, Value::Text(text)) => out.push(Arg::OptionalText(Some(text))),
                (_, Value::Number(number)) => out.push(Arg::OptionalFloat(Some(number))),
                (_, Value::Integer(whole)) => out.push(Arg::OptionalInt(Some(whole))),
                (_, Value::Bool(flag)) => out.push(Arg::OptionalInt(Some(i64::from(flag)))),
                (kind, Value::Null | Value::Reference { .. }) => out.push(match staged_type(kind) {
                    "TEXT" => Arg::OptionalText(None),
                    "DOUBLE PRECISION" => Arg::OptionalFloat(None),
                    _ => Arg::OptionalInt(None),
                }),
            }
        }
    }

    /// How many staged upserts match a live record.
    pub fn existing(&self) -> Sql {
        let mut sql = Sql::default();
        sql.push(&format!("SELECT COUNT(*) FROM {} s WHERE ", self.staging()));
        self.staged_rows("s", &mut sql);
        sql.push(&format!(
            " AND NOT s.deleted AND EXISTS (SELECT 1 FROM {} t WHERE ",
            self.resource.table
        ));
        self.own_records("t", &mut sql);
        sql.push(&self.beside("t", "s"));
        sql.push(" AND t.external_code = s.external_code AND t.deleted_at IS NULL)");
        sql
    }

    /// Creates the staged rows' records or updates the ones whose values differ (only the fields `present` in the
    /// file), all stamped `now`; only the rows of round `pass` when the resource refers to itself.
    pub fn upsert(&self, present: &[bool], now: i64, pass: Option<i64>) -> Sql {
        let table = self.resource.table;
        let owner_column = staging::owner_column(self.resource);
        let written: Vec<(usize, &Column)> = self
            .resource
            .columns
            .iter()
            .enumerate()
            .filter(|(index, _)| present.get(*index).copied().unwrap_or(false))
            .collect();
        let mut sql = Sql::default();
        // PostgreSQL's new records take their ids from the table's sequence here, in the statement's own list: on
        // Citus that is the coordinator's sequence (a default drawn on a worker would be the worker's range).
        let id = match self.dialect {
            Dialect::Postgres => ("id, ", format!("nextval('{table}_id_seq'), ")),
            Dialect::Sqlite => ("", String::new()),
        };
        sql.push(&format!("INSERT INTO {table} ({}{owner_column}, external_code", id.0));
        for (_, column) in &written {
            sql.push(", ").push(column.column);
        }
        sql.push(", created_at, updated_at) SELECT ").push(&id.1);
        match &self.owner {
            Owner::Society { id, .. } => sql.arg(Arg::Int(*id)),
            Owner::Country(country) => sql.arg(Arg::Text(country.clone())),
        };
        sql.push(", s.external_code");
        let values: Vec<String> = written
            .iter()
            .map(|(index, column)| {
                let value = match column.field.kind {
                    // The record a code names is joined in (below): on a large file, cheaper than a look-up a row.
                    Kind::Reference(_) => {
                        format!("CASE WHEN s.v{index}_code IS NULL THEN s.v{index}_id ELSE r{index}.id END")
                    }
                    Kind::Flag => format!("(s.v{index} = 1)"),
                    _ => format!("s.v{index}"),
                };
                match column.empty {
                    Some(empty) => format!("COALESCE({value}, {empty})"),
                    None => value,
                }
            })
            .collect();
        for value in &values {
            sql.push(", ").push(value);
        }
        sql.push(", ").arg(Arg::Int(now)).push(", ").arg(Arg::Int(now));
        sql.push(&format!(" FROM {} s", self.staging()));
        for (index, column) in &written {
            if let Some(target) = column.target {
                let alias = format!("r{index}");
                sql.push(&format!(" LEFT JOIN {} {alias} ON ", target.table));
                self.may_name(&alias, target, &mut sql);
                sql.push(&self.named_beside(&alias, target, "s"));
                sql.push(&format!(
                    " AND {alias}.{} = s.v{index}_code AND {alias}.deleted_at IS NULL",
                    key_column(column.field.kind)
                ));
            }
        }
        // A row its record already states is left out: a conflicting row would be locked even if not updated. An
        // outer join rather than `NOT EXISTS`, which Citus does not plan over a catalogue's tables.
        sql.push(&format!(" LEFT JOIN {table} same ON "));
        self.own_records("same", &mut sql);
        sql.push(&self.beside("same", "s"));
        sql.push(" AND same.external_code = s.external_code AND same.deleted_at IS NULL");
        for ((_, column), value) in written.iter().zip(&values) {
            sql.push(&format!(" AND same.{} IS NOT DISTINCT FROM {value}", column.column));
        }
        sql.push(" WHERE ");
        self.staged_rows("s", &mut sql);
        // Null only where no record joined, which PostgreSQL then plans as the anti-join a `NOT EXISTS` is.
        sql.push(" AND NOT s.deleted AND same.external_code IS NULL");
        if let Some(pass) = pass {
            sql.push(" AND s.pass = ").arg(Arg::Int(pass));
        }
        sql.push(&format!(
            " ORDER BY s.row_number ON CONFLICT ({owner_column}, external_code) WHERE deleted_at IS NULL DO UPDATE SET "
        ));
        for (_, column) in &written {
            sql.push(&format!("{0} = excluded.{0}, ", column.column));
        }
        sql.push("updated_at = excluded.updated_at WHERE ");
        for (position, (_, column)) in written.iter().enumerate() {
            if position > 0 {
                sql.push(" OR ");
            }
            sql.push(&format!("{table}.{0} IS DISTINCT FROM excluded.{0}", column.column));
        }
        if written.is_empty() {
            sql.push("1 = 0");
        }
        sql
    }

    /// Puts into round `pass` the rows of a resource that refers to itself whose referenced record now exists (or
    /// who refer to none): a parent is written in a round before its children.
    pub fn next_pass(&self, index: usize, pass: i64) -> Sql {
        let staging = self.staging();
        let mut sql = Sql::default();
        sql.push(&format!("UPDATE {staging} SET pass = "))
            .arg(Arg::Int(pass))
            .push(" WHERE ");
        self.staged_rows(&staging, &mut sql);
        sql.push(&format!(
            " AND NOT deleted AND pass IS NULL AND (v{index}_code IS NULL OR EXISTS (SELECT 1 FROM {} t WHERE ",
            self.resource.table
        ));
        self.own_records("t", &mut sql);
        sql.push(&self.beside("t", &staging));
        sql.push(&format!(
            " AND t.external_code = {staging}.v{index}_code AND t.deleted_at IS NULL))"
        ));
        sql
    }

    /// The society and resource whose records this import writes: each one it writes is listed, with its action, in
    /// the table of written records, and the commit writes their events from it ([`crate::write::WriteTx::listed`]).
    /// A country's catalogue has no events.
    pub fn written_events(&self) -> Option<(i64, &'static EventResource)> {
        match &self.owner {
            Owner::Society { id, .. } => own_resource(self.resource.table).map(|resource| (*id, resource)),
            Owner::Country(_) => None,
        }
    }

    /// Makes the table of written records (see [`Statements::written_events`]).
    pub fn create_written(&self) -> String {
        // The connection's last import may have left it, committed.
        format!(
            "DROP TABLE IF EXISTS {WRITTEN}; CREATE TEMP TABLE {WRITTEN} (id BIGINT PRIMARY KEY, action TEXT NOT NULL)"
        )
    }

    /// Write statement `sql`, an upsert or (`deletions`) a deletion, with each record it writes listed in the table
    /// of written records; it still answers how many it wrote. An upserted row is new when its `xmax` is 0.
    pub fn listing_written(&self, sql: Sql, deletions: bool) -> Sql {
        let (returning, action) = if deletions {
            ("id", "'deleted'")
        } else {
            (
                "id, xmax = 0 AS created",
                "CASE WHEN created THEN 'created' ELSE 'updated' END",
            )
        };
        Sql {
            text: format!(
                "WITH written AS ({} RETURNING {returning}) INSERT INTO {WRITTEN} (id, action) \
                 SELECT id, {action} FROM written ON CONFLICT (id) DO UPDATE SET action = excluded.action",
                sql.text
            ),
            args: sql.args,
        }
    }

    /// Write statement `sql`, an upsert or (`deletions`) a deletion, as it runs: PostgreSQL lists each record it
    /// writes in the table of written records in the same statement ([`Self::listing_written`]); SQLite, which has no
    /// writing `WITH` clause, lists them in a statement after it ([`Self::list_written`]).
    pub fn writing(&self, sql: Sql, deletions: bool) -> Sql {
        match (self.written_events(), self.dialect) {
            (Some(_), Dialect::Postgres) => self.listing_written(sql, deletions),
            _ => sql,
        }
    }

    /// SQLite: lists in the table of written records the records a statement stamped `now` has just written: deleted
    /// (`deletions`), or created (when `created_at` is `now` too) or updated, among those the file names.
    pub fn list_written(&self, now: i64, deletions: bool) -> Option<Sql> {
        if self.dialect != Dialect::Sqlite || self.written_events().is_none() {
            return None;
        }
        let table = self.resource.table;
        let mut sql = Sql::default();
        sql.push(&format!("INSERT INTO {WRITTEN} (id, action) SELECT t.id, "));
        if deletions {
            sql.push("'deleted'");
        } else {
            sql.push("CASE WHEN t.created_at = ")
                .arg(Arg::Int(now))
                .push(" THEN 'created' ELSE 'updated' END");
        }
        sql.push(&format!(" FROM {table} t WHERE "));
        self.own_records("t", &mut sql);
        if deletions {
            sql.push(" AND t.deleted_at = ").arg(Arg::Int(now));
        } else {
            sql.push(" AND t.deleted_at IS NULL AND t.updated_at = ")
                .arg(Arg::Int(now));
        }
        sql.push(&format!(
            " AND t.external_code IN (SELECT o.external_code FROM {} o WHERE ",
            self.staging()
        ));
        self.staged_rows("o", &mut sql);
        sql.push(&format!(
            " AND {}o.deleted) ON CONFLICT (id) DO UPDATE SET action = excluded.action",
            if deletions { "" } else { "NOT " }
        ));
        Some(sql)
    }

    /// Deletes the import's staged rows, once they are written: the staging table is empty between imports.
    pub fn clear_staged(&self) -> Sql {
        let staging = self.staging();
        let mut sql = Sql::default();
        sql.push(&format!("DELETE FROM {staging} WHERE "));
        self.staged_rows(&staging, &mut sql);
        sql
    }

    /// Deletes the live records the file marks deleted, stamped `now`.
    pub fn delete(&self, now: i64) -> Sql {
        let mut sql = Sql::default();
        sql.push(&format!("UPDATE {} SET deleted_at = ", self.resource.table))
            .arg(Arg::Int(now))
            .push(", updated_at = ")
            .arg(Arg::Int(now))
            .push(" WHERE ");
        self.own_records(self.resource.table, &mut sql);
        sql.push(&format!(
            " AND deleted_at IS NULL AND external_code IN (SELECT o.external_code FROM {} o WHERE ",
            self.staging()
        ));
        self.staged_rows("o", &mut sql);
        sql.push(" AND o.deleted)");
        sql
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dependants::Dependant;
    use crate::import::resource;

    fn society() -> Owner {
        Owner::Society {
            id: 7,
            country: "PY".into(),
        }
    }

    #[test]
    fn the_upsert_writes_the_present_fields_and_updates_only_what_differs() {
        let owner = society();
        let plots = Statements {
            resource: resource("plots").expect("plots"),
            owner: owner.clone(),
            dialect: Dialect::Sqlite,
            import_id: 5,
        };
        let sql = plots.upsert(&[true, true, true, false], 99, None);
        assert!(sql.text.starts_with(
            "INSERT INTO plots (society_id, external_code, establishment_id, name, area, created_at, updated_at) SELECT $1, \
             s.external_code, CASE WHEN s.v0_code IS NULL THEN s.v0_id ELSE r0.id END, s.v1, s.v2, $2, $3 FROM \
             import_staging_plots s LEFT JOIN establishments r0 ON r0.society_id = $4 AND r0.society_id = s.society_id \
             AND r0.external_code = s.v0_code AND r0.deleted_at IS NULL LEFT JOIN plots same ON same.society_id = $5 \
             AND same.society_id = s.society_id AND same.external_code = s.external_code AND same.deleted_at IS NULL \
             AND same.establishment_id IS NOT DISTINCT FROM CASE WHEN s.v0_code IS NULL THEN s.v0_id ELSE r0.id END \
             AND same.name IS NOT DISTINCT FROM s.v1 AND same.area IS NOT DISTINCT FROM s.v2 WHERE s.society_id = $6 \
             AND s.import_id = $7 AND NOT s.deleted AND same.external_code IS NULL ORDER BY s.row_number"
        ), "{}", sql.text);
        assert!(
            sql.text.contains(
                "ON CONFLICT (society_id, external_code) WHERE deleted_at IS NULL DO UPDATE SET establishment_id = \
             excluded.establishment_id, name = excluded.name, area = excluded.area, updated_at = excluded.updated_at \
             WHERE plots.establishment_id IS DISTINCT FROM excluded.establishment_id OR"
            ),
            "{}",
            sql.text
        );
        assert!(!sql.text.contains("active"), "a column the file lacks is left as it is");
        assert_eq!(
            sql.args,
            [
                Arg::Int(7),
                Arg::Int(99),
                Arg::Int(99),
                Arg::Int(7),
                Arg::Int(7),
                Arg::Int(7),
                Arg::Int(5)
            ]
        );
        let postgres = Statements {
            dialect: Dialect::Postgres,
            ..plots
        };
        assert!(postgres.upsert(&[true, true, true, false], 99, None).text.starts_with(
            "INSERT INTO plots (id, society_id, external_code, establishment_id, name, area, created_at, \
                 updated_at) SELECT nextval('plots_id_seq'), $1, s.external_code"
        ));
    }

    #[test]
    fn a_resource_that_names_itself_is_written_in_rounds() {
        let owner = society();
        let tags = Statements {
            resource: resource("tags").expect("tags"),
            owner: owner.clone(),
            dialect: Dialect::Sqlite,
            import_id: 5,
        };
        assert_eq!(tags.self_reference(), Some(0));
        assert!(tags
            .upsert(&[true, true, false], 1, Some(2))
            .text
            .contains("AND s.pass = $"));
        let parent = &tags.resource.columns[0];
        let unknown = tags
            .unknown_references(0, parent, parent.target.expect("a reference"))
            .first(10);
        assert!(unknown.text.contains("NOT in_file"), "{}", unknown.text);
        assert!(tags.next_pass(0, 1).text.starts_with(
            "UPDATE import_staging_tags SET pass = $1 WHERE import_staging_tags.society_id = $2 AND \
                 import_staging_tags.import_id = $3 AND NOT deleted"
        ));
        let dependant = Dependant {
            table: "tags",
            column: "parent_id",
        };
        assert!(tags
            .dependants(&dependant)
            .first(5)
            .text
            .contains("o.deleted AND o.external_code = d.external_code"));
    }

    #[test]
    fn a_staged_row_has_a_value_per_staged_column() {
        let owner = Owner::Country("PY".into());
        let formulateds = Statements {
            resource: resource("formulateds").expect("formulateds"),
            owner: owner.clone(),
            dialect: Dialect::Sqlite,
            import_id: 5,
        };
        let row = Row {
            external_code: "SENAVE-1".into(),
            deleted: false,
            values: vec![
                Value::Text("Glifosato".into()),
                Value::Text("Glifosato 48%".into()),
                Value::Reference {
                    id: None,
                    code: Some("formulation.sl".into()),
                },
                Value::Null,
                Value::Bool(false),
            ],
        };
        let mut values = Vec::new();
        formulateds.row_values(3, row, &mut values);
        assert_eq!(values.len(), formulateds.staged_columns().len());
        assert_eq!(values.last(), Some(&Arg::OptionalInt(Some(0))));
        assert_eq!(values[..2], [Arg::Text("PY".into()), Arg::Int(5)]);
        let delete = formulateds.delete(5);
        assert!(delete.text.contains("formulateds.country = $3"));
        assert!(
            delete.text.ends_with(
                "IN (SELECT o.external_code FROM import_staging_formulateds o WHERE o.country = $4 AND \
                 o.import_id = $5 AND o.deleted)"
            ),
            "{}",
            delete.text
        );
    }
}
