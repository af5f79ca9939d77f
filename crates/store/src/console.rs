//! The sandbox console's ring of recent requests per society (`console_requests`): written in batches by the
//! server's console recorder, each batch followed by a trim of the societies it wrote to, and read newest first by
//! the console's pages, always through a [`Scope`]. What is stored has already been redacted by the recorder.

use crate::db::{with_reader, with_writer};
use crate::sql::{bind_args, Arg, Dialect, Sql};
use crate::write::BeginWrite;
use crate::{Scope, Store, StoreError};

/// One request as the console records it.
pub struct NewConsoleRequest {
    /// The society whose token the request carried.
    pub scope: Scope,
    /// When it was answered (epoch ms).
    pub recorded_at: i64,
    /// `GET`, `PATCH`, …
    pub method: String,
    /// The path, without its query.
    pub path: String,
    /// The query string, redacted, if there was one.
    pub query: Option<String>,
    /// The answer's status.
    pub status: u16,
    /// Milliseconds until the answer's head.
    pub latency_ms: i64,
    /// The `x-request-id` of the request.
    pub request_id: Option<String>,
    /// The error envelope's message, for an error answer.
    pub error_message: Option<String>,
    /// The request's headers as a JSON object, redacted.
    pub request_headers: String,
    /// The request's body, redacted, if it had one.
    pub request_body: Option<String>,
    /// The answer's body, redacted, if it had one.
    pub response_body: Option<String>,
}

// The recorder's values are redacted before they get here, but they are still integrators' data: `Debug` names the
// request only.
impl std::fmt::Debug for NewConsoleRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NewConsoleRequest")
            .field("society_id", &self.scope.society_id())
            .field("method", &self.method)
            .field("path", &self.path)
            .field("status", &self.status)
            .finish_non_exhaustive()
    }
}

/// Which recorded requests a console list shows.
#[derive(Debug, Clone, Default)]
pub struct ConsoleFilter {
    /// Only this status.
    pub status: Option<u16>,
    /// Only this class of statuses: 2 for 2xx, 4 for 4xx…
    pub status_class: Option<u16>,
    /// Only paths that contain this.
    pub path: Option<String>,
    /// At most this many, newest first.
    pub limit: u32,
}

/// A recorded request, as the console shows it.
#[derive(Debug, Clone)]
pub struct ConsoleRequest {
    /// Its id in the ring.
    pub id: i64,
    /// When it was answered (epoch ms).
    pub recorded_at: i64,
    /// The method.
    pub method: String,
    /// The path, without its query.
    pub path: String,
    /// The redacted query string.
    pub query: Option<String>,
    /// The answer's status.
    pub status: i64,
    /// Milliseconds until the answer's head.
    pub latency_ms: i64,
    /// The request id.
    pub request_id: Option<String>,
    /// The error's message.
    pub error_message: Option<String>,
    /// The redacted headers, bodies: only a detail read fills them.
    pub detail: Option<ConsoleDetail>,
}

/// A recorded request's headers and bodies, redacted.
#[derive(Debug, Clone)]
pub struct ConsoleDetail {
    /// The headers, a JSON object.
    pub request_headers: String,
    /// The request's body.
    pub request_body: Option<String>,
    /// The answer's body.
    pub response_body: Option<String>,
}

const SUMMARY: &str =
    "SELECT id, recorded_at, method, path, query, status, latency_ms, request_id, error_message FROM console_requests";

type SummaryRow = (
    i64,
    i64,
    String,
    String,
    Option<String>,
    i64,
    i64,
    Option<String>,
    Option<String>,
);

fn summary(
    (id, recorded_at, method, path, query, status, latency_ms, request_id, error_message): SummaryRow,
) -> ConsoleRequest {
    ConsoleRequest {
        id,
        recorded_at,
        method,
        path,
        query,
        status,
        latency_ms,
        request_id,
        error_message,
        detail: None,
    }
}

impl Store {
    /// Stores `requests` and trims each society they belong to back to its newest `ring` requests, in one
    /// transaction.
    pub async fn record_console_requests(&self, requests: &[NewConsoleRequest], ring: u32) -> Result<(), StoreError> {
        if requests.is_empty() {
            return Ok(());
        }
        let mut insert = Sql::default();
        insert.push(
            "INSERT INTO console_requests (society_id, recorded_at, method, path, query, status, latency_ms, \
             request_id, error_message, request_headers, request_body, response_body) VALUES ",
        );
        for (index, request) in requests.iter().enumerate() {
            if index > 0 {
                insert.push(", ");
            }
            insert.row([
                Arg::Int(request.scope.society_id()),
                Arg::Int(request.recorded_at),
                Arg::from(request.method.as_str()),
                Arg::from(request.path.as_str()),
                Arg::from(request.query.clone()),
                Arg::Int(i64::from(request.status)),
                Arg::Int(request.latency_ms),
                Arg::from(request.request_id.clone()),
                Arg::from(request.error_message.clone()),
                Arg::from(request.request_headers.as_str()),
                Arg::from(request.request_body.clone()),
                Arg::from(request.response_body.clone()),
            ]);
        }
        let mut societies: Vec<i64> = requests.iter().map(|request| request.scope.society_id()).collect();
        societies.sort_unstable();
        societies.dedup();
        // Everything at or below the society's ring-th newest id goes: one indexed range delete each.
        let trims: Vec<Sql> = societies
            .iter()
            .map(|society| {
                let mut trim = Sql::default();
                trim.push_with(
                    "DELETE FROM console_requests WHERE society_id = ? AND id <= (SELECT id FROM console_requests \
                     WHERE society_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)",
                    &[Arg::Int(*society), Arg::Int(*society), Arg::Int(i64::from(ring))],
                );
                trim
            })
            .collect();
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            bind_args!(sqlx::query(&insert.text), &insert.args).execute(&mut *tx).await?;
            for trim in &trims {
                bind_args!(sqlx::query(&trim.text), &trim.args).execute(&mut *tx).await?;
            }
            tx.commit().await?;
        });
        Ok(())
    }

    /// The society's recorded requests that pass `filter`, newest first, without their headers and bodies.
    pub async fn console_requests(
        &self,
        scope: &Scope,
        filter: &ConsoleFilter,
    ) -> Result<Vec<ConsoleRequest>, StoreError> {
        let mut sql = Sql::default();
        sql.push(SUMMARY);
        sql.push_with(" WHERE society_id = ?", &[Arg::Int(scope.society_id())]);
        if let Some(status) = filter.status {
            sql.push_with(" AND status = ?", &[Arg::Int(i64::from(status))]);
        }
        if let Some(class) = filter.status_class {
            let low = i64::from(class) * 100;
            sql.push_with(" AND status >= ? AND status < ?", &[Arg::Int(low), Arg::Int(low + 100)]);
        }
        if let Some(path) = &filter.path {
            let contains = match self.db.dialect() {
                Dialect::Sqlite => " AND instr(path, ?) > 0",
                Dialect::Postgres => " AND strpos(path, ?) > 0",
            };
            sql.push_with(contains, &[Arg::from(path.as_str())]);
        }
        sql.push_with(" ORDER BY id DESC LIMIT ?", &[Arg::Int(i64::from(filter.limit))]);
        let rows = with_reader!(&self.db, pool => {
            bind_args!(sqlx::query_as::<_, SummaryRow>(&sql.text), &sql.args).fetch_all(pool).await?
        });
        Ok(rows.into_iter().map(summary).collect())
    }

    /// One of the society's recorded requests, with its headers and bodies; `None` if the ring no longer has it, or
    /// it is not the society's.
    pub async fn console_request(&self, scope: &Scope, id: i64) -> Result<Option<ConsoleRequest>, StoreError> {
        let mut sql = Sql::default();
        sql.push(
            "SELECT id, recorded_at, method, path, query, status, latency_ms, request_id, error_message, \
             request_headers, request_body, response_body FROM console_requests",
        );
        sql.push_with(
            " WHERE society_id = ? AND id = ?",
            &[Arg::Int(scope.society_id()), Arg::Int(id)],
        );
        type Row = (
            i64,
            i64,
            String,
            String,
            Option<String>,
            i64,
            i64,
            Option<String>,
            Option<String>,
            String,
            Option<String>,
            Option<String>,
        );
        let row = with_reader!(&self.db, pool => {
            bind_args!(sqlx::query_as::<_, Row>(&sql.text), &sql.args).fetch_optional(pool).await?
        });
        Ok(row.map(
            |(
                id,
                at,
                method,
                path,
                query,
                status,
                latency,
                request_id,
                error,
                headers,
                request_body,
                response_body,
            )| {
                ConsoleRequest {
                    detail: Some(ConsoleDetail {
                        request_headers: headers,
                        request_body,
                        response_body,
                    }),
                    ..summary((id, at, method, path, query, status, latency, request_id, error))
                }
            },
        ))
    }
}
