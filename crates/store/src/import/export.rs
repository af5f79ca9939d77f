//! Exports: a resource's live records in pages by id, in the columns its import reads, so that exporting and then
//! importing the file changes nothing. A reference is written both ways, as the id and as the named record's key.

use domain::import::Kind;

use super::sql::Statements;
use super::{ImportResource, Owner};
use crate::bulk::{decode, Kind as Decoded};
use crate::db::with_reader;
use crate::sql::{bind_args, Arg, Sql};
use crate::{Store, StoreError};

/// A value of an exported field.
#[derive(Debug, Clone, PartialEq)]
pub enum ExportValue {
    /// None stored.
    Null,
    /// Text.
    Text(String),
    /// A number.
    Number(f64),
    /// A whole number.
    Integer(i64),
    /// A boolean.
    Bool(bool),
}

impl From<Arg> for ExportValue {
    fn from(arg: Arg) -> Self {
        match arg {
            Arg::Int(whole) | Arg::OptionalInt(Some(whole)) => ExportValue::Integer(whole),
            Arg::Float(number) | Arg::OptionalFloat(Some(number)) => ExportValue::Number(number),
            Arg::Bool(flag) => ExportValue::Bool(flag),
            Arg::Text(text) | Arg::OptionalText(Some(text)) => ExportValue::Text(text),
            Arg::OptionalInt(None) | Arg::OptionalFloat(None) | Arg::OptionalText(None) => ExportValue::Null,
        }
    }
}

/// One page of an export.
#[derive(Debug, Clone, Default)]
pub struct ExportPage {
    /// Records: the external code, then a value per column of [`domain::import::Field::columns`], field after field.
    pub rows: Vec<(String, Vec<ExportValue>)>,
    /// The id the next page starts after; none on the last page.
    pub next: Option<i64>,
}

impl Store {
    /// Up to `limit` live records of `resource` of `owner` with an external code, by id, after id `after`.
    pub async fn export_page(
        &self,
        resource: &'static ImportResource,
        owner: &Owner,
        after: i64,
        limit: usize,
    ) -> Result<ExportPage, StoreError> {
        let statements = Statements {
            resource,
            owner: owner.clone(),
            dialect: self.dialect(),
            // An export stages nothing.
            import_id: 0,
        };
        let (sql, kinds) = statements.export(after, limit);
        let rows = with_reader!(&self.db, pool => {
            let rows = bind_args!(sqlx::query(&sql.text), &sql.args).fetch_all(pool).await?;
            rows.iter()
                .map(|row| kinds.iter().enumerate().map(|(index, kind)| decode(row, index, *kind)).collect())
                .collect::<Result<Vec<Vec<Arg>>, sqlx::Error>>()?
        });
        let mut page = ExportPage::default();
        let full = rows.len() == limit;
        for row in rows {
            let mut values = row.into_iter().map(ExportValue::from);
            let id = match values.next() {
                Some(ExportValue::Integer(id)) => id,
                _ => continue,
            };
            let code = match values.next() {
                Some(ExportValue::Text(code)) => code,
                _ => continue,
            };
            page.next = full.then_some(id);
            page.rows.push((code, values.collect()));
        }
        Ok(page)
    }

    /// How many live records of `resource` of `owner` have no external code, which an export leaves out.
    pub async fn export_uncoded(&self, resource: &'static ImportResource, owner: &Owner) -> Result<u64, StoreError> {
        let statements = Statements {
            resource,
            owner: owner.clone(),
            dialect: self.dialect(),
            // An export stages nothing.
            import_id: 0,
        };
        let sql = statements.uncoded();
        let count: i64 = with_reader!(&self.db, pool => {
            bind_args!(sqlx::query_scalar(&sql.text), &sql.args).fetch_one(pool).await?
        });
        Ok(u64::try_from(count).unwrap_or(0))
    }
}

impl Statements {
    /// A page of the export, and how to decode each of its columns: id, external code, then the fields.
    pub(super) fn export(&self, after: i64, limit: usize) -> (Sql, Vec<Decoded>) {
        let mut kinds = vec![Decoded::Int, Decoded::Text];
        let mut sql = Sql::default();
        sql.push("SELECT t.id, t.external_code");
        for column in self.resource.columns {
            sql.push(&format!(", t.{}", column.column));
            match (column.field.kind, column.target) {
                (Kind::Reference(_), Some(target)) => {
                    let key = match column.field.kind {
                        Kind::Reference(domain::import::Key::ReferenceKey) => "reference_key",
                        _ => "external_code",
                    };
                    sql.push(&format!(
                        ", (SELECT r.{key} FROM {} r WHERE r.id = t.{}{})",
                        target.table,
                        column.column,
                        self.named_by_owner("r", target)
                    ));
                    kinds.extend([Decoded::Int, Decoded::Text]);
                }
                (kind, _) => kinds.push(match kind {
                    Kind::Hectares | Kind::ObjectiveYield => Decoded::Float,
                    Kind::Year => Decoded::Int,
                    Kind::Flag => Decoded::Bool,
                    _ => Decoded::Text,
                }),
            }
        }
        sql.push(&format!(" FROM {} t WHERE ", self.resource.table));
        self.own_records("t", &mut sql);
        sql.push(" AND t.deleted_at IS NULL AND t.external_code IS NOT NULL AND t.id > ")
            .arg(Arg::Int(after))
            .push(&format!(" ORDER BY t.id LIMIT {limit}"));
        (sql, kinds)
    }

    fn uncoded(&self) -> Sql {
        let mut sql = Sql::default();
        sql.push(&format!("SELECT COUNT(*) FROM {} t WHERE ", self.resource.table));
        self.own_records("t", &mut sql);
        sql.push(" AND t.deleted_at IS NULL AND t.external_code IS NULL");
        sql
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::resource;
    use crate::sql::Dialect;

    #[test]
    fn an_export_reads_references_by_id_and_by_key() {
        let statements = Statements {
            resource: resource("campaigns").expect("campaigns"),
            owner: Owner::Society {
                id: 3,
                country: "PY".into(),
            },
            dialect: Dialect::Postgres,
            import_id: 5,
        };
        let (sql, kinds) = statements.export(10, 500);
        assert!(sql.text.contains(
            "t.plot_id, (SELECT r.external_code FROM plots r WHERE r.id = t.plot_id AND r.society_id = $1), \
                 t.name, t.area"
        ));
        assert!(sql
            .text
            .contains("(SELECT r.reference_key FROM activity_statuses r WHERE r.id = t.activity_status_id)"));
        assert!(sql.text.ends_with("t.id > $2 ORDER BY t.id LIMIT 500"), "{}", sql.text);
        let fields: usize = statements
            .resource
            .columns
            .iter()
            .map(|c| c.field.columns().len())
            .sum();
        assert_eq!(kinds.len(), 2 + fields);
    }
}
