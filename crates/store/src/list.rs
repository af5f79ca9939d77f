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

use crate::db::{bind_args, Arg, Db, Dialect, Sql};
use crate::pages::{PageIndex, PageIndexBuilder, PageRows};
use crate::pg_readers::FromPgRow;
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
    /// The selected columns, named as the row type's fields.
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

/// A row read through SQLite's own interface (`rusqlite`), column by column in the order selected: what the reads
/// that run on the request's thread decode (see [`crate::inline`]). [`row_by_position!`](crate::row_by_position)
/// writes it.
pub trait FromSqliteRow: Sized {
    /// The row's fields from `row`'s columns, in order.
    fn from_sqlite_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<Self>;
}

/// Declares a row struct that reads its fields from the columns in declaration order (so the struct's fields must be
/// in the order its statements select them): its [`FromSqliteRow`], its [`FromPgRow`] for PostgreSQL's request reads
/// ([`crate::pg_readers`]), and sqlx's `FromRow` for either backend, which the writes and background work use. sqlx's
/// derived `FromRow` looks every column up by name, and checks each column's declared type against the field's
/// before decoding it: each several percent of an uncached PostgreSQL page's time in the server. The statements are
/// declared beside their rows, and the suite reads every resource on both backends, so the check is left out
/// (`try_get_unchecked`); a value that does not decode as its field still fails.
#[macro_export]
macro_rules! row_by_position {
    (
        $(#[$meta:meta])*
        $vis:vis struct $row:ident { $($(#[$field_meta:meta])* $field_vis:vis $field:ident : $ty:ty),* $(,)? }
    ) => {
        $(#[$meta])*
        $vis struct $row { $($(#[$field_meta])* $field_vis $field: $ty,)* }

        impl $crate::list::FromSqliteRow for $row {
            fn from_sqlite_row(row: &::rusqlite::Row<'_>) -> ::rusqlite::Result<Self> {
                let mut column = 0;
                Ok(Self {
                    $($field: {
                        column += 1;
                        row.get(column - 1)?
                    },)*
                })
            }
        }

        impl $crate::pg_readers::FromPgRow for $row {
            fn from_pg_row(
                row: &::tokio_postgres::Row,
            ) -> ::std::result::Result<Self, $crate::pg_readers::ColumnError> {
                let mut column = 0;
                Ok(Self {
                    $($field: {
                        column += 1;
                        $crate::pg_readers::column(row, column - 1)?
                    },)*
                })
            }
        }

        impl<'r, R: ::sqlx::Row> ::sqlx::FromRow<'r, R> for $row
        where
            usize: ::sqlx::ColumnIndex<R>,
            $($ty: ::sqlx::Decode<'r, R::Database>,)*
        {
            fn from_row(row: &'r R) -> ::std::result::Result<Self, ::sqlx::Error> {
                let mut column = 0;
                Ok(Self {
                    $($field: {
                        column += 1;
                        row.try_get_unchecked(column - 1)?
                    },)*
                })
            }
        }
    };
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
/// whole page instead of joined into every row. A page's rows name few such records: a v2 plots page of 100 names
/// about ten establishments, and on PostgreSQL joining them row by row cost more than reading the plots
/// (docs/performance.md).
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

/// What a society's data looked like when a request began: the sum of its tables' change counters (kept by triggers
/// in `table_versions`), and the database's identity. Lists name their ETag after it and key their kept answers by it.
#[derive(Debug, Clone)]
pub struct Snapshot {
    instance: Arc<str>,
    society_id: i64,
    society_version: i64,
    reference_version: i64,
}

impl Snapshot {
    /// The snapshot of society `society_id`, whose counters summed to `society_version` (see [`society_version`]),
    /// when the catalogues' counter stood at `reference_version` ([`REFERENCE_VERSION`]).
    pub(crate) fn new(instance: Arc<str>, society_id: i64, society_version: i64, reference_version: i64) -> Self {
        Self {
            instance,
            society_id,
            society_version,
            reference_version,
        }
    }

    /// The society whose data this is.
    pub fn society_id(&self) -> i64 {
        self.society_id
    }

    /// What a list of a resource scoped as `scoping` depends on, as an opaque string: it changes whenever a row the
    /// list could show changes, and never otherwise (not with the caller's token, nor with a login).
    pub fn basis(&self, scoping: Scoping) -> String {
        match scoping {
            // A society's records may join any of its tables, so any change of the society's counts.
            Scoping::Society => format!("{}:{}:{}", self.instance, self.society_id, self.society_version),
            // Catalogues change with the reference data (a release, an operator's import or switch), which their own
            // counter follows; the society decides the country and the time zone of the rendering.
            Scoping::Global | Scoping::Country => {
                format!("{}:{}:r{}", self.instance, self.society_id, self.reference_version)
            }
        }
    }
}

/// The catalogues' change counter (see migration 10), as a subquery: it moves with every change of reference data.
pub(crate) const REFERENCE_VERSION: &str = "(SELECT r.version FROM reference_version r WHERE r.id = 1)";

/// The sum of every change counter of the society whose id is the column `society_id` of the enclosing query, plus
/// the catalogues' counter, as an expression: it moves with every committed write of the society's data and with
/// every change of the catalogues it reads, so a `syncCheck` made from it tells an integrator to sync either. PostgreSQL keeps the sum per slot in
/// `society_versions` (see migration 5); SQLite sums its few `table_versions` rows. Only this sum is read on every
/// request; a list that is not answered from a kept body reads its own table's counter (`Store::table_version`).
pub(crate) fn society_version(dialect: Dialect, society_id: &str) -> String {
    let counters = match dialect {
        Dialect::Sqlite => "table_versions",
        Dialect::Postgres => "society_versions",
    };
    format!(
        "((SELECT CAST(COALESCE(SUM(v.version), 0) AS BIGINT) FROM {counters} v WHERE v.society_id = {society_id}) \
         + {REFERENCE_VERSION})"
    )
}

impl Store {
    /// The database's identity (its latest migration and when its schema was made), read once per process.
    pub(crate) async fn instance(&self) -> Result<Arc<str>, StoreError> {
        let instance = self
            .instance
            .get_or_try_init(|| async {
                let sql = Sql {
                    text: "SELECT MAX(version), MIN(applied_at) FROM schema_migrations".to_owned(),
                    args: Vec::new(),
                };
                let schema = self.lookup_rows::<SchemaIdentity>(&sql).await?.pop();
                let SchemaIdentity { version, applied_at } = schema.unwrap_or_default();
                Ok::<_, StoreError>(Arc::from(format!(
                    "{}.{}",
                    version.unwrap_or_default(),
                    applied_at.unwrap_or_default()
                )))
            })
            .await?;
        Ok(Arc::clone(instance))
    }

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

    /// The version of `table` for society `society_id`: the sum of its change counters, 0 before its first change.
    async fn read_table_version(&self, society_id: i64, table: &str) -> Result<i64, StoreError> {
        const VERSION: &str = "SELECT CAST(COALESCE(SUM(version), 0) AS BIGINT) FROM table_versions \
                               WHERE society_id = $1 AND table_name = $2";
        match &self.db {
            Db::Sqlite { inline, .. } => inline.read(|connection| {
                connection
                    .prepare_cached(VERSION)?
                    .query_row((society_id, table), |row| row.get(0))
            }),
            Db::Postgres { read, .. } => {
                read.fetch_scalar(VERSION, &[Arg::Int(society_id), Arg::Text(table.to_owned())])
                    .await
            }
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
        let build = self.index_ids(ids, self.pages.builder(size));
        match version {
            Some(version) => self.pages.get_or_build(key, version, build).await,
            None => Ok(Arc::new(build.await?)),
        }
    }

    /// The page index of the ids of `rows` (`FROM … ORDER BY t.id`), in ascending order: the largest lists have a
    /// million ids. They are read as a request's rows are ([`Store::select_rows`]), not through sqlx, whose drivers
    /// hand on each row by itself (a third of a second for a million on PostgreSQL, twice that on SQLite,
    /// docs/performance.md). On SQLite they are pushed into `builder` as they are read, on the blocking threads,
    /// since unlike a page the scan is not bounded. On PostgreSQL they come as one array: read as a row each, a
    /// million cost the server a quarter of a second of CPU. There the largest lists' live ids are read from an index
    /// alone (migration 22), not by visiting each row for its `deleted_at`.
    async fn index_ids(&self, rows: Sql, mut builder: PageIndexBuilder) -> Result<PageIndex, StoreError> {
        match &self.db {
            Db::Sqlite { inline, .. } => {
                let ids = Sql {
                    text: format!("SELECT t.id {}", rows.text),
                    args: rows.args,
                };
                inline
                    .read_blocking(move |connection| {
                        crate::inline::each_row(connection, &ids, |ListId { id }| builder.push(id))?;
                        Ok(builder.finish())
                    })
                    .await
            }
            Db::Postgres { read, .. } => {
                let text = format!("SELECT ARRAY(SELECT CAST(t.id AS BIGINT) {})", rows.text);
                let ids: Vec<i64> = read.fetch_scalar(&text, &rows.args).await?;
                for id in ids {
                    builder.push(id);
                }
                Ok(builder.finish())
            }
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

    /// The rows `sql` selects. On SQLite they are read on the request's own thread ([`crate::inline`]): sqlx's driver
    /// would hand every row from its connection's thread to the request's, which costs more than reading it. On
    /// PostgreSQL they are read over the request reads' own connections ([`crate::pg_readers`]), which skip the
    /// pool's ping.
    pub(crate) async fn select_rows<T>(&self, sql: &Sql) -> Result<Vec<T>, StoreError>
    where
        T: FromSqliteRow + FromPgRow,
    {
        match &self.db {
            Db::Sqlite { inline, .. } => inline.read(|connection| crate::inline::rows(connection, sql)),
            Db::Postgres { read, .. } => read.fetch_all(&sql.text, &sql.args).await,
        }
    }

    /// The rows `sql` selects, for a lookup outside a request's pages and records (a login, a health check, the
    /// webhooks' fan-out): on SQLite over the request reads' connections on the calling thread, as
    /// [`Store::select_rows`] reads, so that the read pool's connection, with a parsed copy of the schema of its own
    /// (0.9 MB), is opened only by the work that needs it; on PostgreSQL through the pool.
    pub(crate) async fn lookup_rows<T>(&self, sql: &Sql) -> Result<Vec<T>, StoreError>
    where
        T: FromSqliteRow + for<'r> FromRow<'r, PgRow> + Send + Unpin,
    {
        match &self.db {
            Db::Sqlite { inline, .. } => inline.read(|connection| crate::inline::rows(connection, sql)),
            Db::Postgres { pool, .. } => Ok(bind_args!(sqlx::query_as::<_, T>(&sql.text), &sql.args)
                .fetch_all(pool)
                .await?),
        }
    }

    /// The rows `sql` selects, as [`Store::select_rows`] reads them, for a statement whose work is not bounded by its
    /// page (a filter that may pass over many rows to find a few): on SQLite it runs on the blocking threads, so that
    /// it never holds a request thread for long.
    pub(crate) async fn select_rows_unbounded<T>(&self, sql: Sql) -> Result<Vec<T>, StoreError>
    where
        T: FromSqliteRow + FromPgRow + Send + 'static,
    {
        match &self.db {
            Db::Sqlite { inline, .. } => {
                inline
                    .read_blocking(move |connection| crate::inline::rows(connection, &sql))
                    .await
            }
            Db::Postgres { read, .. } => read.fetch_all(&sql.text, &sql.args).await,
        }
    }
}

fn to_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

row_by_position! {
    /// The latest migration of the database and when its schema was made.
    #[derive(Default)]
    struct SchemaIdentity {
        version: Option<i64>,
        applied_at: Option<i64>,
    }
}

row_by_position! {
    /// One id of a list, as its page index reads them.
    struct ListId {
        id: i64,
    }
}

/// Declares a read resource once: its marker type, its row (one field per selected SQL expression, `t.id` always
/// first), its [`ListSpec`], and how each column becomes a field of its wire shape. `audit: standard` stands for the
/// usual audit columns (`t.created_at`, `t.updated_at`, `t.deleted_at`, `t.active`).
///
/// Each field is `name: RowType = "sql expression" => conversion`, where the conversion is one of
/// `plain` (as stored), `at` / `at_opt` (epoch ms to an offset timestamp), `plain_at` (to the v2 plain timestamp),
/// `hectares` (rounded to hundredths), `hectares_text` (a two-decimal string), `ids` (a comma-separated list of
/// integers, e.g. from `string_agg`, to an array) or `words` (a comma-separated text to an array of strings).
#[macro_export]
macro_rules! resource {
    (
        $(#[$meta:meta])*
        $marker:ident, $row:ident => $item:path {
            name: $name:literal,
            from: $from:literal,
            scoping: $scoping:ident,
            $(condition: $condition:literal,)?
            audit: standard,
            fields { $($fields:tt)* }
        }
    ) => {
        $crate::resource! {
            $(#[$meta])*
            $marker, $row => $item {
                name: $name,
                from: $from,
                scoping: $scoping,
                $(condition: $condition,)?
                created: Some("t.created_at"),
                updated: Some("t.updated_at"),
                deleted: Some("t.deleted_at"),
                active: Some("t.active"),
                fields { $($fields)* }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $marker:ident, $row:ident => $item:path {
            name: $name:literal,
            from: $from:literal,
            scoping: $scoping:ident,
            $(condition: $condition:literal,)?
            created: $created:expr,
            updated: $updated:expr,
            deleted: $deleted:expr,
            active: $active:expr,
            fields { $($field:ident : $ty:ty = $sql:literal => $conv:ident),* $(,)? }
        }
    ) => {
        $(#[$meta])*
        pub struct $marker;

        $crate::row_by_position! {
            #[doc = concat!("One row of `", $name, "` as selected.")]
            #[derive(Debug)]
            pub struct $row {
                pub(crate) id: i64,
                $(pub(crate) $field: $ty,)*
            }
        }

        impl $crate::list::Resource for $marker {
            type Row = $row;
            type Item = $item;
            type Related = ();
            const SPEC: $crate::list::ListSpec = $crate::list::ListSpec {
                name: $name,
                from: $from,
                columns: concat!("t.id AS id" $(, ", ", $sql, " AS ", stringify!($field))*),
                scoping: $crate::list::Scoping::$scoping,
                condition: $crate::resource!(@condition $($condition)?),
                created: $created,
                updated: $updated,
                deleted: $deleted,
                active: $active,
            };

            fn id(row: &$row) -> i64 {
                row.id
            }

            #[allow(unused_variables, reason = "catalogues without timestamps do not need the renderer")]
            fn render(row: $row, _related: (), render: &$crate::Render) -> $item {
                $item {
                    id: row.id,
                    $($field: $crate::resource!(@convert $conv, row.$field, render),)*
                }
            }
        }
    };
    (@condition) => { None };
    (@condition $condition:literal) => { Some($condition) };
    (@convert plain, $value:expr, $render:ident) => { $value };
    (@convert at, $value:expr, $render:ident) => { $render.at($value) };
    (@convert at_opt, $value:expr, $render:ident) => { $render.at_opt($value) };
    (@convert plain_at, $value:expr, $render:ident) => { $render.plain($value) };
    (@convert hectares, $value:expr, $render:ident) => { domain::round_hectares($value) };
    (@convert hectares_text, $value:expr, $render:ident) => { format!("{:.2}", $value) };
    (@convert ids, $value:expr, $render:ident) => { $crate::list::parse_ids($value.as_deref()) };
    (@convert words, $value:expr, $render:ident) => { $crate::list::parse_words(&$value) };
}

/// Reads a comma-separated list of words; empty means none.
pub fn parse_words(list: &str) -> Vec<String> {
    list.split(',')
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Reads a comma-separated list of integers, as `string_agg` returns them; absent means empty.
pub fn parse_ids(list: Option<&str>) -> Vec<i64> {
    list.unwrap_or_default()
        .split(',')
        .filter_map(|id| id.trim().parse().ok())
        .collect()
}

/// Declares a resource that is a slice of another's table: the same row and wire shape, its own name and fixed
/// condition (e.g. planting progress within all progress).
#[macro_export]
macro_rules! slice_of {
    ($(#[$meta:meta])* $marker:ident = $whole:ty, $name:literal where $condition:literal) => {
        $(#[$meta])*
        pub struct $marker;

        impl $crate::list::Resource for $marker {
            type Row = <$whole as $crate::list::Resource>::Row;
            type Item = <$whole as $crate::list::Resource>::Item;
            type Related = <$whole as $crate::list::Resource>::Related;
            const SPEC: $crate::list::ListSpec = $crate::list::ListSpec {
                name: $name,
                condition: Some($condition),
                ..<$whole as $crate::list::Resource>::SPEC
            };

            fn render(row: Self::Row, related: Self::Related, render: &$crate::Render) -> Self::Item {
                <$whole as $crate::list::Resource>::render(row, related, render)
            }

            fn id(row: &Self::Row) -> i64 {
                <$whole as $crate::list::Resource>::id(row)
            }
        }
    };
}
