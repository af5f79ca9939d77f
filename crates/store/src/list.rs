//! The one list and detail implementation behind every read resource.
//!
//! A resource is declared once, as a [`ListSpec`] (its `FROM`, columns, scope and audit columns) plus a row type
//! and a rendering into its wire shape; [`Store::list`] and [`Store::find`] serve every such declaration with the
//! same envelope, paging, audit filters and society scope.

use std::sync::Arc;

use domain::{AuditFilters, NextPagePolicy, PageError, PageRequest, PageWindow};
use serde::Serialize;
use sqlx::postgres::PgRow;
use sqlx::sqlite::SqliteRow;
use sqlx::FromRow;
use thiserror::Error;
use wire::Page;

use crate::pages::{PageIndex, PageRows};
use crate::rows::{FromPgRow, FromSqliteRow};
use crate::sql::{Arg, Sql};
use crate::{Render, Scope, Store, StoreError};

/// Whose rows a resource holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scoping {
    /// Each row belongs to one society (`t.society_id`); a caller sees only its own society's rows.
    Society,
    /// A catalogue shared by every society.
    Global,
    /// A catalogue that differs by country (`t.country`); a caller sees its society's country's rows.
    Country,
}

/// A boolean column a list may be filtered by besides the audit filters (e.g. a work order's state flags).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FlagFilter {
    /// The column, qualified (`t.pending`).
    pub column: &'static str,
    /// The value asked for.
    pub value: bool,
}

/// How a resource is read: the main table is always aliased `t` and keyed by `t.id`.
#[derive(Debug, Clone, Copy)]
pub struct ListSpec {
    /// The resource's name in messages, as its path names it (e.g. `establishments`).
    pub name: &'static str,
    /// The `FROM` clause, main table aliased `t`, with any joins.
    pub from: &'static str,
    /// The selected columns, named as the row type's fields. In a list of one society, `$1` is that society (every
    /// statement made from the declaration binds it first): a subquery over another society table names it as
    /// `$1`, not as the outer row's, so that Citus runs the statement on the society's worker alone.
    pub columns: &'static str,
    /// Whose rows these are.
    pub scoping: Scoping,
    /// A fixed condition, for resources that are a slice of a shared table (e.g. `t.kind = 'planting'`).
    pub condition: Option<&'static str>,
    /// Column filtered by `created_at_from` / `created_from`.
    pub created: Option<&'static str>,
    /// Column filtered by `updated_at_from` / `updated_from`.
    pub updated: Option<&'static str>,
    /// Logical deletion column; rows with it set are listed only when `deleted_at_from` asks for them.
    pub deleted: Option<&'static str>,
    /// Column filtered by `active`.
    pub active: Option<&'static str>,
}

impl ListSpec {
    /// The main table: the first word of [`ListSpec::from`], which every declaration starts with `<table> t`.
    pub fn table(&self) -> &'static str {
        self.from.split_whitespace().next().unwrap_or(self.from)
    }
}

/// A readable resource: its declaration, its row and its wire shape.
pub trait Resource: Send + Sync + 'static {
    /// One row as selected by [`ListSpec::columns`].
    type Row: FromSqliteRow + for<'r> FromRow<'r, SqliteRow> + for<'r> FromRow<'r, PgRow> + FromPgRow + Send + Unpin;
    /// The wire shape of one item.
    type Item: Serialize + Send + 'static;
    /// What a row shows of other tables' records, read once for a whole page ([`Related`]); `()` when a row holds
    /// all it shows.
    type Related: Related<Self::Row>;
    /// How the resource is read.
    const SPEC: ListSpec;
    /// Renders a row, with what it shows of other tables, into its wire shape, timestamps in the society's zone.
    fn render(row: Self::Row, related: Self::Related, render: &Render) -> Self::Item;
    /// The row's record id (`t.id`).
    fn id(row: &Self::Row) -> i64;
}

/// What a row shows of other tables' records (a v2 plot's establishment and farmer), read by one more statement for a
/// whole page instead of joined into every row. A page's rows name few such records (a v2 plots page names a few
/// establishments), and on PostgreSQL joining them row by row cost more than reading the plots.
pub trait Related<Row>: Sized + Send {
    /// Pairs each of `rows`, of the society `society_id`, with what it shows. A row whose records are missing is left
    /// out, as a join would have left it out.
    fn pair(
        store: &Store,
        society_id: i64,
        rows: Vec<Row>,
    ) -> impl std::future::Future<Output = Result<Vec<(Row, Self)>, StoreError>> + Send;
}

/// Rows that show nothing beyond their own columns.
impl<Row: Send> Related<Row> for () {
    async fn pair(_store: &Store, _society_id: i64, rows: Vec<Row>) -> Result<Vec<(Row, Self)>, StoreError> {
        Ok(rows.into_iter().map(|row| (row, ())).collect())
    }
}

/// Why a list could not be served.
#[derive(Debug, Error)]
pub enum ListError {
    /// The page asked for is not within the result.
    #[error(transparent)]
    Page(#[from] PageError),
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The `WHERE` clause that decides which rows a caller may see at all: its society's, or its country's.
fn scope_filter(spec: &ListSpec, scope: &Scope) -> Sql {
    let mut sql = Sql::default();
    sql.push(" WHERE 1 = 1");
    match spec.scoping {
        Scoping::Society => {
            sql.push(" AND t.society_id = ").arg(Arg::Int(scope.society_id()));
        }
        Scoping::Country => {
            sql.push(" AND t.country = ").arg(Arg::Text(scope.country().to_owned()));
        }
        Scoping::Global => {}
    }
    if let Some(condition) = spec.condition {
        sql.push(" AND ").push(condition);
    }
    sql
}

/// The `WHERE` clause of a list: scope first, then deletion, audit filters, `active` and any flags.
fn list_filter(spec: &ListSpec, scope: &Scope, filters: &AuditFilters, flags: &[FlagFilter]) -> Sql {
    let mut sql = scope_filter(spec, scope);
    match (spec.deleted, filters.deleted_from) {
        (Some(column), Some(from)) => {
            sql.push(&format!(" AND {column} >= "))
                .arg(Arg::Int(from.timestamp_millis()));
        }
        (Some(column), None) => {
            sql.push(&format!(" AND {column} IS NULL"));
        }
        // A resource that is never deleted has nothing deleted since any instant.
        (None, Some(_)) => {
            sql.push(" AND 1 = 0");
        }
        (None, None) => {}
    }
    for (column, from) in [
        (spec.created, filters.created_from),
        (spec.updated, filters.updated_from),
    ] {
        if let Some(from) = from {
            match column {
                Some(column) => sql
                    .push(&format!(" AND {column} >= "))
                    .arg(Arg::Int(from.timestamp_millis())),
                None => sql.push(" AND 1 = 0"),
            };
        }
    }
    if let (Some(column), Some(active)) = (spec.active, filters.active) {
        sql.push(&format!(" AND {column} = ")).arg(Arg::Bool(active));
    }
    for flag in flags {
        sql.push(&format!(" AND {} = ", flag.column)).arg(Arg::Bool(flag.value));
    }
    sql
}

impl Store {
    /// One page of resource `R` for the caller's society, filtered and ordered by id.
    pub async fn list<R: Resource>(
        &self,
        scope: &Scope,
        filters: &AuditFilters,
        page: PageRequest,
        policy: NextPagePolicy,
    ) -> Result<Page<R::Item>, ListError> {
        self.list_flagged::<R>(scope, filters, &[], page, policy).await
    }

    /// [`Store::list`], also filtered by boolean columns. The page is read by the ids, or the id range, its list's page
    /// index gives, so page 1,500 costs what page 1 costs, and the totals come from the index, not a count.
    #[tracing::instrument(skip(self, scope), fields(resource = R::SPEC.name, society = scope.society_id()))]
    pub async fn list_flagged<R: Resource>(
        &self,
        scope: &Scope,
        filters: &AuditFilters,
        flags: &[FlagFilter],
        page: PageRequest,
        policy: NextPagePolicy,
    ) -> Result<Page<R::Item>, ListError> {
        let spec = R::SPEC;
        let filter = list_filter(&spec, scope, filters, flags);
        let index = self.page_index(&spec, scope, &filter, page.size).await?;
        let window = PageWindow::new(page, index.total, policy)?;
        let rows: Vec<R::Row> = match index.page(page.page, page.size) {
            None => Vec::new(),
            Some(rows) => {
                let mut select = Sql {
                    text: format!("SELECT {} FROM {}{}", spec.columns, spec.from, filter.text),
                    ..filter
                };
                match rows {
                    PageRows::Ids(ids) => {
                        select.push(" AND t.id IN ").id_list(&ids);
                    }
                    PageRows::Range { from, until } => {
                        select.push(" AND t.id >= ").arg(Arg::Int(from));
                        if let Some(until) = until {
                            select.push(" AND t.id < ").arg(Arg::Int(until));
                        }
                    }
                }
                select.push(" ORDER BY t.id LIMIT ").arg(Arg::Int(to_i64(page.size)));
                self.select_rows(&select).await?
            }
        };
        let rows = R::Related::pair(self, scope.society_id(), rows).await?;
        let render = scope.render();
        Ok(Page {
            items: rows
                .into_iter()
                .map(|(row, related)| R::render(row, related, &render))
                .collect(),
            current_page: window.current_page,
            next_page: window.next_page,
            total_pages: window.total_pages,
            total_items: window.total_items,
        })
    }

    /// The version of `table` for the scope's society: remembered for the data version the request's token check
    /// read (see [`crate::pages::TableVersions`]), or read.
    async fn table_version(&self, scope: &Scope, table: &str) -> Result<i64, StoreError> {
        let society_id = scope.society_id();
        match scope.data_version() {
            Some(data_version) => {
                self.table_versions
                    .get_or_read(
                        society_id,
                        table,
                        data_version,
                        self.read_table_version(society_id, table),
                    )
                    .await
            }
            None => self.read_table_version(society_id, table).await,
        }
    }

    /// The page index of one list: from the cache while the list's table keeps the version it has now, else built
    /// by one pass over its ids. Catalogues have no version and are small, so theirs is built every time.
    async fn page_index(
        &self,
        spec: &ListSpec,
        scope: &Scope,
        filter: &Sql,
        size: u64,
    ) -> Result<Arc<PageIndex>, StoreError> {
        let version = match spec.scoping {
            Scoping::Society => Some(self.table_version(scope, spec.table()).await?),
            Scoping::Global | Scoping::Country => None,
        };
        let key = format!(
            "{}|{}|{}|{:?}|{size}",
            scope.society_id(),
            spec.name,
            filter.text,
            filter.args
        );
        // The filter names only the main table's columns, so its ids alone decide the pages.
        let ids = Sql {
            text: format!("FROM {} t{} ORDER BY t.id", spec.table(), filter.text),
            args: filter.args.clone(),
        };
        let build = self.read_ids(ids, self.pages.builder(size));
        match version {
            Some(version) => self.pages.get_or_build(key, version, build).await,
            None => Ok(Arc::new(build.await?)),
        }
    }

    /// One record of resource `R` by id, logically deleted ones included; `None` when it does not exist or belongs
    /// to another society.
    #[tracing::instrument(skip(self, scope), fields(resource = R::SPEC.name, society = scope.society_id()))]
    pub async fn find<R: Resource>(&self, scope: &Scope, id: i64) -> Result<Option<R::Item>, StoreError> {
        let spec = R::SPEC;
        let filter = scope_filter(&spec, scope);
        let mut sql = Sql {
            text: format!("SELECT {} FROM {}{}", spec.columns, spec.from, filter.text),
            ..filter
        };
        sql.push(" AND t.id = ").arg(Arg::Int(id));
        let rows = self.select_rows::<R::Row>(&sql).await?;
        let rows = R::Related::pair(self, scope.society_id(), rows).await?;
        let render = scope.render();
        Ok(rows
            .into_iter()
            .next()
            .map(|(row, related)| R::render(row, related, &render)))
    }
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
