//! The changes `tranquera trigger` makes in a society so that its change feed shows an event of the type asked for:
//! the society's latest live record of the resource copied as a new one (`created`), touched (`updated`), deleted
//! softly (`deleted`), or moved to the state a resource's own action names (a job `finished` or `failed`, a webhook
//! endpoint `disabled`). They are real changes, written and recorded like every other write ([`crate::write::WriteTx`]),
//! so the event carries the record as the change left it. Any resource of the feed is served from its declaration
//! in [`crate::resources::events::EVENT_SOURCES`], without code of its own here.

use crate::db::with_writer;
use crate::resources::events::{RecordOf, EVENT_SOURCES};
use crate::sql::Dialect;
use crate::write::BeginWrite;
use crate::{now_millis, Store, StoreError};

/// What a trigger changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triggered {
    /// The table written.
    pub table: &'static str,
    /// The record changed: the new one, for a creation.
    pub id: i64,
    /// The action recorded, `created` for instance.
    pub action: &'static str,
}

/// The codes an integrator keys records by, unique among a society's live records: a copy's is the original's with the
/// moment of the copy after it (and stays empty when the original's is).
const CODES: [&str; 2] = ["external_code", "external_id"];

/// What an `UPDATE` sets to make `resource`'s `action` (`$3` is the moment); `None` for a creation or an action the
/// resource has not.
fn change(resource: &str, action: &str) -> Option<&'static str> {
    match (resource, action) {
        (_, "updated") => Some("updated_at = $3"),
        (_, "deleted") => Some("deleted_at = $3, updated_at = $3"),
        ("job", "finished") => Some("status = 'finished', finished_at = $3, updated_at = $3"),
        ("job", "failed") => Some("status = 'failed', finished_at = $3, updated_at = $3"),
        ("webhook_endpoint", "disabled") => Some("state = 'disabled', disabled_at = $3, updated_at = $3"),
        _ => None,
    }
}

/// The statement that copies row `$2` of society `$1` of `table` as a new row made at `$3`, answering its id.
fn copy_statement(table: &str, columns: &[String]) -> String {
    let copied: Vec<&String> = columns.iter().filter(|column| column.as_str() != "id").collect();
    let values: Vec<String> = copied
        .iter()
        .map(|column| match column.as_str() {
            "created_at" | "updated_at" => "$3".to_owned(),
            "deleted_at" => "NULL".to_owned(),
            name if CODES.contains(&name) => format!("{name} || '-' || CAST($3 AS TEXT)"),
            name => name.to_owned(),
        })
        .collect();
    let names: Vec<&str> = copied.iter().map(|column| column.as_str()).collect();
    format!(
        "INSERT INTO {table} ({}) SELECT {} FROM {table} WHERE society_id = $1 AND id = $2 RETURNING id",
        names.join(", "),
        values.join(", ")
    )
}

impl Store {
    /// Makes `resource`'s `action` happen to a record of society `society_id`, which the commit records as that
    /// event; `None` when the resource has no such action or the society no live record of it to start from.
    pub async fn trigger_change(
        &self,
        society_id: i64,
        resource: &str,
        action: &str,
    ) -> Result<Option<Triggered>, StoreError> {
        let Some(source) = EVENT_SOURCES
            .iter()
            .find(|source| source.record == RecordOf::Itself && source.resource.name == resource)
        else {
            return Ok(None);
        };
        let Some(action) = domain::events::event_types()
            .iter()
            .any(|known| *known == format!("{resource}.{action}"))
            .then(|| {
                domain::events::ACTIONS
                    .iter()
                    .chain(["finished", "failed", "disabled"].iter())
                    .find(|known| **known == action)
                    .copied()
            })
            .flatten()
        else {
            return Ok(None);
        };
        let table = source.table;
        let statement = match change(resource, action) {
            Some(set) => format!("UPDATE {table} SET {set} WHERE society_id = $1 AND id = $2 RETURNING id"),
            None if action == "created" => copy_statement(table, &self.columns_of(table).await?),
            None => return Ok(None),
        };
        let now = now_millis();
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let latest: Option<i64> = sqlx::query_scalar(&format!(
                "SELECT MAX(id) FROM {table} WHERE society_id = $1 AND deleted_at IS NULL"
            ))
            .bind(society_id)
            .fetch_one(&mut *tx)
            .await?;
            let Some(latest) = latest else {
                return Ok(None);
            };
            let id: i64 = sqlx::query_scalar(&statement)
                .bind(society_id)
                .bind(latest)
                .bind(now)
                .fetch_one(&mut *tx)
                .await?;
            tx.changed(society_id, source.resource, [id], action);
            tx.commit().await?;
            Ok(Some(Triggered { table, id, action }))
        })
    }

    /// The columns of `table`, in order, as the database's catalogue lists them.
    async fn columns_of(&self, table: &str) -> Result<Vec<String>, StoreError> {
        let query = match self.dialect() {
            Dialect::Sqlite => "SELECT name FROM pragma_table_info($1) ORDER BY cid",
            Dialect::Postgres => {
                "SELECT CAST(column_name AS TEXT) FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position"
            }
        };
        with_writer!(&self.db, pool => {
            Ok(sqlx::query_scalar(query).bind(table).fetch_all(pool).await?)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_is_new_and_its_code_its_own() {
        let columns: Vec<String> = [
            "id",
            "society_id",
            "name",
            "external_code",
            "created_at",
            "updated_at",
            "deleted_at",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            copy_statement("plots", &columns),
            "INSERT INTO plots (society_id, name, external_code, created_at, updated_at, deleted_at) SELECT \
             society_id, name, external_code || '-' || CAST($3 AS TEXT), $3, $3, NULL FROM plots WHERE society_id = $1 \
             AND id = $2 RETURNING id"
        );
    }

    #[test]
    fn each_own_action_changes_its_state() {
        assert_eq!(
            change("job", "finished").map(|set| set.contains("'finished'")),
            Some(true)
        );
        assert_eq!(
            change("webhook_endpoint", "disabled").map(|set| set.contains("'disabled'")),
            Some(true)
        );
        assert_eq!(change("plot", "finished"), None);
        assert_eq!(change("plot", "created"), None);
    }
}
