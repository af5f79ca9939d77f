//! Each event's payload: its record as the resource's read answers it, read and rendered inside the writing
//! transaction as it commits ([`super::commit`]), so it shows the record as that change left it. A record that no
//! longer exists is `{"id": …, "deleted_at": …}`. Each resource with events declares, beside its read declaration,
//! an [`EventResource`]: its name, its tables, and how its records are read for a payload.

use std::collections::BTreeMap;

use serde::Serialize;
use sqlx::{PgConnection, SqliteConnection};

use crate::sql::{bind_args, Arg, Sql, IDS_PER_QUERY};
use crate::{ListSpec, Render, Resource};

/// One resource's records being read and rendered, by id.
pub(crate) type Rendering<'a> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<BTreeMap<i64, String>, sqlx::Error>> + Send + 'a>>;

/// How a backend reads records `ids` of a society and renders them, by id.
pub(crate) type Renderer<C> = for<'a> fn(&'a mut C, i64, &'a [i64], &'a Render) -> Rendering<'a>;

/// A resource whose records' changes are events.
pub struct EventResource {
    /// Its name in the feed (see `domain::events::RESOURCES`).
    pub(crate) name: &'static str,
    /// Its tables: its own, and those of its lines and links. A change of a record moves their change counters.
    pub(crate) tables: &'static [&'static str],
    /// How SQLite reads its records for payloads.
    pub(crate) sqlite: Renderer<SqliteConnection>,
    /// How PostgreSQL reads them.
    pub(crate) postgres: Renderer<PgConnection>,
}

impl std::fmt::Debug for EventResource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl EventResource {
    /// The events of the records of read declaration `R`, named `name`, in `tables`.
    pub(crate) const fn of<R: Resource<Related = ()>>(name: &'static str, tables: &'static [&'static str]) -> Self {
        Self {
            name,
            tables,
            sqlite: sqlite::rows::<R>,
            postgres: postgres::rows::<R>,
        }
    }
}

/// The payload of an event whose record is gone.
#[derive(Serialize)]
struct Gone {
    id: i64,
    deleted_at: wire::Timestamp,
}

/// The payload of record `id`, gone since `at`.
pub(crate) fn gone(id: i64, at: i64, render: &Render) -> Result<String, sqlx::Error> {
    serde_json::to_string(&Gone {
        id,
        deleted_at: render.at(at),
    })
    .map_err(encode)
}

/// A payload that could not be written as JSON, as sqlx's error.
pub(crate) fn encode(error: serde_json::Error) -> sqlx::Error {
    sqlx::Error::Encode(Box::new(error))
}

/// The rows of records `ids` of `society_id` as declaration `spec` selects them. Its fixed condition is not applied:
/// an event names a row of the table, whichever slice lists it.
pub(crate) fn records(spec: &ListSpec, society_id: i64, ids: &[i64]) -> Sql {
    let mut sql = Sql::default();
    sql.push(&format!(
        "SELECT {} FROM {} WHERE t.society_id = ",
        spec.columns, spec.from
    ))
    .arg(Arg::Int(society_id))
    .push(" AND t.id IN ")
    .id_list(ids);
    sql
}

/// Writes the renderer of one backend for a read declaration.
macro_rules! renderer {
    ($connection:ty) => {
        /// The records `ids` of resource `R` in `society_id`, rendered, by id. Not an `async fn`: each resource's
        /// read is boxed and handed back as it is, so its code is written once, not copied wherever it is awaited.
        pub(crate) fn rows<'a, R: Resource<Related = ()>>(
            conn: &'a mut $connection,
            society_id: i64,
            ids: &'a [i64],
            render: &'a Render,
        ) -> Rendering<'a> {
            Box::pin(async move {
                let mut rendered = BTreeMap::new();
                for chunk in ids.chunks(IDS_PER_QUERY) {
                    let sql = records(&R::SPEC, society_id, chunk);
                    let rows: Vec<R::Row> = bind_args!(sqlx::query_as::<_, R::Row>(&sql.text), &sql.args)
                        .fetch_all(&mut *conn)
                        .await?;
                    for row in rows {
                        let id = R::id(&row);
                        rendered.insert(
                            id,
                            serde_json::to_string(&R::render(row, (), render)).map_err(encode)?,
                        );
                    }
                }
                Ok(rendered)
            })
        }
    };
}

/// Records rendered at a time: an import's commit has a million, which held at once took hundreds of megabytes.
pub(crate) const RENDER_PAGE: usize = 2_000;

mod sqlite {
    use super::*;

    renderer!(SqliteConnection);
}

mod postgres {
    use super::*;

    renderer!(PgConnection);
}
