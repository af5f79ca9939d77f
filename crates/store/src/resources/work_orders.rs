//! Work-order writes: create, and replace the whole structure (header and lines added, changed, removed), each in
//! one transaction that checks every reference against the caller's society before anything is written.
//!
//! Lines sent with a `local_id` keep it; lines sent without one are new; lines of the order not sent are removed.
//! The order's row is locked for the transaction (PostgreSQL `FOR UPDATE`; SQLite has one writer), so concurrent
//! replacements of one order apply one after the other and never interleave their lines.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use domain::work_orders::{check, LabourLine, Rule, StateFlags, Violation, WorkOrderCommand};
use wire::operations::WorkOrder;

use crate::db::{bind_args, with_reader, with_writer, Arg, Batch, BeginWrite, Dialect, RowLock, Sql, IDS_PER_QUERY};
use crate::resources::operations::{assemble, LabourRow, SupplyRow, WorkOrderHeaders, WorkOrderRow};
use crate::{now_millis, Resource, Scope, Store, StoreError};

/// Another live order of the society with the external id (`?`: the society, the external id, the order written,
/// which a replacement keeps): what a write looks for before it writes, and again if the database then refuses it.
const EXTERNAL_ID_HOLDER: &str =
    "id FROM work_orders WHERE society_id = ? AND external_id = ? AND deleted_at IS NULL AND id <> ?";

fn external_id_holder_args(society_id: i64, external_id: &str, own_id: i64) -> [Arg; 3] {
    [
        Arg::Int(society_id),
        Arg::Text(external_id.to_owned()),
        Arg::Int(own_id),
    ]
}

/// Rows of one multi-row `INSERT` of lines: 13 values a row keeps a statement far within both backends' limits.
const LINES_PER_INSERT: usize = 100;

/// What one write must know from the database before it writes, asked together: for each kind of reference, which
/// of the ids sent exist; whether another order has the external id; ids for the new rows. While their ids fit
/// [`IDS_PER_QUERY`] one `UNION ALL` statement answers every lookup, so a typical order costs one round trip for them.
#[derive(Default)]
struct Lookups {
    kinds: Vec<Lookup>,
}

struct Lookup {
    /// What the lookup answers and where from: `{value} FROM {table} WHERE {condition}`, with a `?` for each of
    /// `fixed`.
    select: String,
    fixed: Vec<Arg>,
    /// The ids asked about (`AND id IN (…)`), or none for a lookup whose condition says it all.
    ids: Option<Vec<i64>>,
}

/// Which of the lookups of a [`Lookups`] is meant.
#[derive(Clone, Copy)]
struct Kind(usize);

/// Ids for the new rows of a table, asked for with the lookups (see [`Lookups::reserve`]).
struct Reservation {
    kind: Option<Kind>,
    count: usize,
    /// The lookup answers the first id, and the rest follow it.
    consecutive: bool,
}

impl Lookups {
    /// Asks which of `ids` `table` has under `condition`.
    fn add(
        &mut self,
        table: &'static str,
        condition: &'static str,
        fixed: &[Arg],
        ids: impl Iterator<Item = i64>,
    ) -> Kind {
        self.kinds.push(Lookup {
            select: format!("id FROM {table} WHERE {condition}"),
            fixed: fixed.to_vec(),
            ids: Some(ids.collect::<BTreeSet<_>>().into_iter().collect()),
        });
        Kind(self.kinds.len() - 1)
    }

    /// Asks for whatever `select` (`{value} FROM …`) answers.
    fn add_query(&mut self, select: String, fixed: &[Arg]) -> Kind {
        self.kinds.push(Lookup {
            select,
            fixed: fixed.to_vec(),
            ids: None,
        });
        Kind(self.kinds.len() - 1)
    }

    /// Asks for ids for `count` new rows of `table`, so that rows referring to them can be written along with them.
    /// PostgreSQL draws them from the table's identity sequence. SQLite's writer holds the database's lock from
    /// `BEGIN IMMEDIATE` on, so the ids after the largest are free, and they are what SQLite would have picked.
    fn reserve(&mut self, dialect: Dialect, table: &'static str, count: usize) -> Reservation {
        let (select, consecutive) = match dialect {
            Dialect::Sqlite => (format!("COALESCE(MAX(id), 0) + 1 FROM {table}"), true),
            Dialect::Postgres => (
                format!("nextval(pg_get_serial_sequence('{table}', 'id')) FROM generate_series(1, {count})"),
                false,
            ),
        };
        Reservation {
            kind: (count > 0).then(|| self.add_query(select, &[])),
            count,
            consecutive,
        }
    }

    /// The statements that answer every lookup, each row `(kind, value)`; none when nothing is asked.
    fn statements(&self) -> Vec<Sql> {
        let mut statements = Vec::new();
        let mut current = Sql::default();
        let mut arms = 0;
        let mut ids_in_current = 0;
        for (kind, lookup) in self.kinds.iter().enumerate() {
            let chunks: Vec<Option<&[i64]>> = match &lookup.ids {
                Some(ids) => ids.chunks(IDS_PER_QUERY).map(Some).collect(),
                None => vec![None],
            };
            for chunk in chunks {
                let size = chunk.map_or(0, <[i64]>::len);
                if arms > 0 && ids_in_current + size > IDS_PER_QUERY {
                    statements.push(std::mem::take(&mut current));
                    arms = 0;
                    ids_in_current = 0;
                }
                if arms > 0 {
                    current.push(" UNION ALL ");
                }
                current
                    .push(&format!("SELECT CAST({kind} AS BIGINT) AS kind, "))
                    .push_with(&lookup.select, &lookup.fixed);
                if let Some(chunk) = chunk {
                    current.push(" AND id IN ").id_list(chunk);
                }
                arms += 1;
                ids_in_current += size;
            }
        }
        if arms > 0 {
            statements.push(current);
        }
        statements
    }

    /// Sorts the rows the statements answered by kind.
    fn found(&self, rows: impl IntoIterator<Item = (i64, i64)>) -> Found {
        let mut found = vec![BTreeSet::new(); self.kinds.len()];
        for (kind, id) in rows {
            if let Some(ids) = usize::try_from(kind).ok().and_then(|kind| found.get_mut(kind)) {
                ids.insert(id);
            }
        }
        Found(found)
    }
}

/// The ids [`Lookups`] found, by kind.
struct Found(Vec<BTreeSet<i64>>);

impl Found {
    fn of(&self, kind: Kind) -> &BTreeSet<i64> {
        &self.0[kind.0]
    }

    /// The ids reserved for new rows, in increasing order.
    fn reserved(&self, reservation: &Reservation) -> Result<Vec<i64>, StoreError> {
        let answered = reservation.kind.map(|kind| self.of(kind));
        let ids: Vec<i64> = match (answered, reservation.consecutive) {
            (None, _) => Vec::new(),
            (Some(first), true) => first
                .first()
                .map(|first| (*first..).take(reservation.count).collect())
                .unwrap_or_default(),
            (Some(ids), false) => ids.iter().copied().collect(),
        };
        if ids.len() == reservation.count {
            Ok(ids)
        } else {
            Err(StoreError::Database(
                format!("{} ids reserved for {} new rows", ids.len(), reservation.count).into(),
            ))
        }
    }

    /// Each line's id: its own when it was sent with one, else the next of those `reservation` reserved.
    fn line_ids(
        &self,
        reservation: &Reservation,
        own_ids: impl Iterator<Item = Option<i64>>,
    ) -> Result<Vec<i64>, StoreError> {
        let mut reserved = self.reserved(reservation)?.into_iter();
        Ok(own_ids.filter_map(|own| own.or_else(|| reserved.next())).collect())
    }
}

/// Multi-row `INSERT`s of `rows` (each an optional own id and the values of `columns`) into `table`, added to
/// `batch`. A row with its own id names the `id` column and one without lets the database pick, so the two go in
/// separate statements.
fn line_inserts(batch: &mut Batch, table: &str, columns: &str, rows: Vec<(Option<i64>, Vec<Arg>)>) {
    let (kept, new): (Vec<_>, Vec<_>) = rows.into_iter().partition(|(id, _)| id.is_some());
    for (id_column, rows) in [("id, ", kept), ("", new)] {
        for chunk in rows.chunks(LINES_PER_INSERT) {
            let sql = batch.statement();
            sql.push(&format!("INSERT INTO {table} ({id_column}{columns}) VALUES "));
            for (index, (id, values)) in chunk.iter().enumerate() {
                if index > 0 {
                    sql.push(", ");
                }
                sql.row(id.map(Arg::Int).into_iter().chain(values.iter().cloned()));
            }
        }
    }
}

/// A line's position in its order, as stored.
fn position(index: usize) -> Arg {
    Arg::Int(i64::try_from(index).unwrap_or(i64::MAX))
}

/// The kinds of reference a work order's body makes, as asked of [`Lookups`].
struct ReferenceKinds {
    vouchers: Kind,
    campaigns: Kind,
    formulateds: Kind,
    labour_types: Kind,
    contractors: Kind,
    machines: Kind,
    applicators: Kind,
    kept_supplies: Kind,
    kept_labours: Kind,
}

/// The lookups of every reference `command` makes, in the caller's society (and country, for products); lines sent
/// with a `local_id` must be lines of order `own_id`.
fn reference_lookups(command: &WorkOrderCommand, scope: &Scope, own_id: i64) -> (Lookups, ReferenceKinds) {
    let society = [Arg::Int(scope.society_id())];
    let own_lines = [Arg::Int(scope.society_id()), Arg::Int(own_id)];
    let live = "deleted_at IS NULL AND society_id = ?";
    let labours = &command.labours;
    let mut lookups = Lookups::default();
    let kinds = ReferenceKinds {
        vouchers: lookups.add(
            "voucher_types",
            "deleted_at IS NULL",
            &[],
            [command.voucher_type_id].into_iter(),
        ),
        campaigns: lookups.add("campaigns", live, &society, command.campaign_ids()),
        formulateds: lookups.add(
            "formulateds",
            "deleted_at IS NULL AND country = ?",
            &[Arg::Text(scope.country().to_owned())],
            command.supplies.iter().map(|s| s.formulated_id),
        ),
        labour_types: lookups.add(
            "labour_types",
            "deleted_at IS NULL",
            &[],
            labours.iter().filter_map(|l| l.labour_type_id),
        ),
        contractors: lookups.add(
            "contractors",
            live,
            &society,
            labours.iter().flat_map(|l| l.contractor_ids.iter().copied()),
        ),
        machines: lookups.add(
            "machines",
            live,
            &society,
            labours.iter().flat_map(|l| l.machine_ids.iter().copied()),
        ),
        applicators: lookups.add(
            "applicators",
            live,
            &society,
            labours.iter().flat_map(|l| l.applicator_ids.iter().copied()),
        ),
        kept_supplies: lookups.add(
            "work_order_supplies",
            "society_id = ? AND work_order_id = ?",
            &own_lines,
            command.supplies.iter().filter_map(|s| s.local_id),
        ),
        kept_labours: lookups.add(
            "work_order_labours",
            "society_id = ? AND work_order_id = ?",
            &own_lines,
            labours.iter().filter_map(|l| l.local_id),
        ),
    };
    (lookups, kinds)
}

/// Every reference of `command` that [`Lookups`] did not find, by the path of the field that makes it. A missing
/// cultivation comes with what its id is instead (`missing_campaigns`: id, is a species, is a cultivation).
fn reference_violations(
    command: &WorkOrderCommand,
    found: &Found,
    kinds: &ReferenceKinds,
    missing_campaigns: &BTreeSet<(i64, bool, bool)>,
) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (kind, lines) in [
        (
            "supplies",
            command.supplies.iter().map(|s| s.campaign_id).collect::<Vec<_>>(),
        ),
        ("labours", command.labours.iter().map(|l| l.campaign_id).collect()),
    ] {
        for (index, campaign) in lines.iter().enumerate() {
            if let Some((id, species, cultivation)) = missing_campaigns.iter().find(|m| m.0 == *campaign) {
                let rule = Rule::NotACampaign {
                    id: *id,
                    species: *species,
                    cultivation: *cultivation,
                };
                violations.push(Violation::new(format!("{kind}[{index}].cultivation.local_id"), rule));
            }
        }
    }
    for (index, supply) in command.supplies.iter().enumerate() {
        if !found.of(kinds.formulateds).contains(&supply.formulated_id) {
            let path = format!("supplies[{index}].formulated.local_id");
            violations.push(Violation::new(path, Rule::Unknown(supply.formulated_id)));
        }
    }
    for (index, labour) in command.labours.iter().enumerate() {
        if let Some(labour_type) = labour
            .labour_type_id
            .filter(|id| !found.of(kinds.labour_types).contains(id))
        {
            let path = format!("labours[{index}].labour_type.local_id");
            violations.push(Violation::new(path, Rule::Unknown(labour_type)));
        }
        for (field, kind, ids) in [
            ("contractors", kinds.contractors, &labour.contractor_ids),
            ("machines", kinds.machines, &labour.machine_ids),
            ("applicators", kinds.applicators, &labour.applicator_ids),
        ] {
            for (position, id) in ids.iter().enumerate().filter(|(_, id)| !found.of(kind).contains(id)) {
                let path = format!("labours[{index}].{field}[{position}].local_id");
                violations.push(Violation::new(path, Rule::Unknown(*id)));
            }
        }
    }
    for (kind, lookup, ids) in [
        (
            "supplies",
            kinds.kept_supplies,
            command.supplies.iter().map(|s| s.local_id).collect::<Vec<_>>(),
        ),
        (
            "labours",
            kinds.kept_labours,
            command.labours.iter().map(|l| l.local_id).collect(),
        ),
    ] {
        for (index, id) in ids.iter().enumerate() {
            if let Some(id) = id.filter(|id| !found.of(lookup).contains(id)) {
                violations.push(Violation::new(
                    format!("{kind}[{index}].local_id"),
                    Rule::UnknownLine(id),
                ));
            }
        }
    }
    violations
}

/// What one line of either kind stores besides the columns every line has.
struct LineRow {
    /// Its own id or one reserved for it: every line's id is known before it is written.
    id: i64,
    campaign_id: i64,
    /// Values of the kind's own columns, in their order.
    own: Vec<Arg>,
    date: DateTime<Utc>,
    state: StateFlags,
}

/// Adds to `batch` the statements that insert `rows`, in order, into `table` for order `order_id`: the columns every
/// line has (society, order, position, campaign, date, flags, timestamps) around the kind's `own_columns`.
fn line_row_inserts(
    batch: &mut Batch,
    table: &str,
    own_columns: &str,
    rows: impl Iterator<Item = LineRow>,
    society_id: i64,
    order_id: i64,
    now: i64,
) {
    let rows = rows.enumerate().map(|(index, row)| {
        let mut values = vec![
            Arg::Int(society_id),
            Arg::Int(order_id),
            position(index),
            Arg::Int(row.campaign_id),
        ];
        values.extend(row.own);
        values.extend([
            Arg::Int(row.date.timestamp_millis()),
            Arg::Bool(row.state.pending),
            Arg::Bool(row.state.executed),
            Arg::Bool(row.state.confirmed),
            Arg::Int(now),
            Arg::Int(now),
        ]);
        (Some(row.id), values)
    });
    let columns = format!(
        "society_id, work_order_id, position, campaign_id, {own_columns}, date, pending, executed, confirmed, \
         created_at, updated_at"
    );
    line_inserts(batch, table, &columns, rows.collect());
}

/// Adds to `batch` the statements that insert the supplies of `command` into order `order_id`, with the ids
/// `supply_ids` holds by position.
fn supply_inserts(
    batch: &mut Batch,
    command: &WorkOrderCommand,
    supply_ids: &[i64],
    society_id: i64,
    order_id: i64,
    now: i64,
) {
    let rows = command.supplies.iter().zip(supply_ids).map(|(supply, id)| LineRow {
        id: *id,
        campaign_id: supply.campaign_id,
        own: vec![
            Arg::Int(supply.formulated_id),
            Arg::Float(supply.area_applied),
            Arg::Float(supply.total_applied),
        ],
        date: supply.date,
        state: supply.state,
    });
    let own_columns = "formulated_id, area_applied, total_applied";
    line_row_inserts(
        batch,
        "work_order_supplies",
        own_columns,
        rows,
        society_id,
        order_id,
        now,
    );
}

/// Adds to `batch` the statements that insert the labours of `command` into order `order_id`, with the ids
/// `labour_ids` holds by position.
fn labour_inserts(
    batch: &mut Batch,
    command: &WorkOrderCommand,
    labour_ids: &[i64],
    society_id: i64,
    order_id: i64,
    now: i64,
) {
    let rows = command.labours.iter().zip(labour_ids).map(|(labour, id)| LineRow {
        id: *id,
        campaign_id: labour.campaign_id,
        own: vec![Arg::OptionalInt(labour.labour_type_id), Arg::Float(labour.area_applied)],
        date: labour.date,
        state: labour.state,
    });
    let own_columns = "labour_type_id, area_applied";
    line_row_inserts(
        batch,
        "work_order_labours",
        own_columns,
        rows,
        society_id,
        order_id,
        now,
    );
}

/// Adds to `batch` the statements that link each labour (whose ids `labour_ids` holds by position) to its
/// contractors, machines and applicators.
fn labour_link_inserts(batch: &mut Batch, command: &WorkOrderCommand, society_id: i64, labour_ids: &[i64]) {
    for (table, column, ids_of) in [
        (
            "work_order_labour_contractors",
            "contractor_id",
            (|l: &LabourLine| &l.contractor_ids) as fn(&LabourLine) -> &Vec<i64>,
        ),
        ("work_order_labour_machines", "machine_id", |l| &l.machine_ids),
        ("work_order_labour_applicators", "applicator_id", |l| &l.applicator_ids),
    ] {
        let rows = command.labours.iter().zip(labour_ids).flat_map(|(labour, labour_id)| {
            ids_of(labour)
                .iter()
                .map(move |id| (None, vec![Arg::Int(society_id), Arg::Int(*labour_id), Arg::Int(*id)]))
        });
        line_inserts(
            batch,
            table,
            &format!("society_id, labour_id, {column}"),
            rows.collect(),
        );
    }
}

/// Why a work-order write was refused.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkOrderRefusal {
    /// The body breaks these rules; nothing was written.
    Invalid(Vec<Violation>),
    /// No live order of the caller's society has this `local_id`.
    NotFound,
    /// The order is read-only (`is_read_only`).
    ReadOnly,
    /// `If-Match` named a version the order no longer has.
    Stale,
    /// Another live order of the society already has this `external_id`; its `local_id`.
    DuplicateExternalId(i64),
}

/// How a write treats an existing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// A new order.
    Create,
    /// Replace order `local_id`; when `expected_version` is given, only if the order is still at that version.
    Replace {
        /// The order.
        local_id: i64,
        /// The version (`updated_at` in epoch ms) the client read, from `If-Match`.
        expected_version: Option<i64>,
    },
}

/// A stored work order in its read shape, and its new version (`updated_at` in epoch ms), which its `ETag` names.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    /// The order as a read answers it.
    pub order: WorkOrder,
    /// Its version.
    pub version: i64,
}

#[derive(sqlx::FromRow)]
struct OrderState {
    updated_at: i64,
    is_read_only: bool,
    deleted_at: Option<i64>,
    active: bool,
    created_at: i64,
}

/// What a stored order keeps of itself when it is replaced.
struct Kept {
    active: bool,
    created_at: i64,
}

/// The rows a read of the order just written would find: the write knows every value, so its answer is made from
/// them rather than read back, through the same rendering as a read.
fn written_rows(
    command: &WorkOrderCommand,
    ids: (i64, &[i64], &[i64]),
    society_id: i64,
    external_id: Option<&str>,
    kept: &Kept,
    version: i64,
) -> (WorkOrderRow, Vec<SupplyRow>, Vec<LabourRow>) {
    let (order_id, supply_ids, labour_ids) = ids;
    let header = WorkOrderRow {
        id: order_id,
        society_id,
        external_id: external_id.map(str::to_owned),
        system_id: command.system_id.clone(),
        name: command.name.trim().to_owned(),
        date: command.date.timestamp_millis(),
        voucher_date: command.voucher_date.timestamp_millis(),
        voucher_type_id: command.voucher_type_id,
        pending: command.state.pending,
        executed: command.state.executed,
        confirmed: command.state.confirmed,
        is_read_only: false,
        active: kept.active,
        created_at: kept.created_at,
        updated_at: version,
        deleted_at: None,
    };
    let supplies = command
        .supplies
        .iter()
        .zip(supply_ids)
        .map(|(supply, id)| SupplyRow {
            id: *id,
            work_order_id: order_id,
            campaign_id: supply.campaign_id,
            formulated_id: supply.formulated_id,
            area_applied: supply.area_applied,
            total_applied: supply.total_applied,
            date: supply.date.timestamp_millis(),
            pending: supply.state.pending,
            executed: supply.state.executed,
            confirmed: supply.state.confirmed,
        })
        .collect();
    // A read aggregates each link list in id order.
    let links = |ids: &[i64]| {
        let mut ids = ids.to_vec();
        ids.sort_unstable();
        (!ids.is_empty()).then(|| ids.iter().map(i64::to_string).collect::<Vec<_>>().join(","))
    };
    let labours = command
        .labours
        .iter()
        .zip(labour_ids)
        .map(|(labour, id)| LabourRow {
            id: *id,
            work_order_id: order_id,
            campaign_id: labour.campaign_id,
            labour_type_id: labour.labour_type_id,
            area_applied: labour.area_applied,
            date: labour.date.timestamp_millis(),
            pending: labour.state.pending,
            executed: labour.state.executed,
            confirmed: labour.state.confirmed,
            contractors: links(&labour.contractor_ids),
            machines: links(&labour.machine_ids),
            applicators: links(&labour.applicator_ids),
        })
        .collect();
    (header, supplies, labours)
}

impl Store {
    /// The current version of a live work order (its `updated_at`), for `ETag`s.
    pub async fn work_order_version(&self, scope: &Scope, local_id: i64) -> Result<Option<i64>, StoreError> {
        Ok(with_reader!(&self.db, pool => {
            sqlx::query_scalar("SELECT updated_at FROM work_orders WHERE society_id = $1 AND id = $2")
                .bind(scope.society_id())
                .bind(local_id)
                .fetch_optional(pool)
                .await?
        }))
    }

    /// Logically deletes a work order; a read-only one is refused, an already deleted one is left as it is (so a
    /// retried delete succeeds).
    #[tracing::instrument(skip(self, scope), fields(society = scope.society_id()))]
    pub async fn delete_work_order(
        &self,
        scope: &Scope,
        local_id: i64,
    ) -> Result<Result<(), WorkOrderRefusal>, StoreError> {
        let society_id = scope.society_id();
        let now = now_millis();
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let state: Option<OrderState> = sqlx::query_as(
                "SELECT updated_at, is_read_only, deleted_at, active, created_at FROM work_orders \
                 WHERE society_id = $1 AND id = $2",
            )
            .bind(society_id)
            .bind(local_id)
            .fetch_optional(&mut *tx)
            .await?;
            match state {
                None => Ok(Err(WorkOrderRefusal::NotFound)),
                Some(OrderState { deleted_at: Some(_), .. }) => Ok(Ok(())),
                Some(OrderState { is_read_only: true, .. }) => Ok(Err(WorkOrderRefusal::ReadOnly)),
                Some(_) => {
                    sqlx::query("UPDATE work_orders SET deleted_at = $3, updated_at = $3 WHERE society_id = $1 AND id = $2")
                        .bind(society_id)
                        .bind(local_id)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                    tx.commit().await?;
                    Ok(Ok(()))
                }
            }
        })
    }

    /// Creates or replaces a work order; answers its `local_id` and new version.
    #[tracing::instrument(skip(self, scope, command), fields(society = scope.society_id()))]
    pub async fn write_work_order(
        &self,
        scope: &Scope,
        mode: WriteMode,
        command: &WorkOrderCommand,
    ) -> Result<Result<Written, WorkOrderRefusal>, StoreError> {
        let society_id = scope.society_id();
        let own_id = match mode {
            WriteMode::Create => 0,
            WriteMode::Replace { local_id, .. } => local_id,
        };
        let dialect = self.db.dialect();
        let external_id = command
            .external_id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty());
        let (mut lookups, kinds) = reference_lookups(command, scope, own_id);
        let duplicate = external_id.map(|external_id| {
            lookups.add_query(
                EXTERNAL_ID_HOLDER.to_owned(),
                &external_id_holder_args(society_id, external_id, own_id),
            )
        });
        let new_order = lookups.reserve(dialect, "work_orders", usize::from(mode == WriteMode::Create));
        let new_supplies = command.supplies.iter().filter(|s| s.local_id.is_none()).count();
        let new_supplies = lookups.reserve(dialect, "work_order_supplies", new_supplies);
        let new_labours = command.labours.iter().filter(|l| l.local_id.is_none()).count();
        let new_labours = lookups.reserve(dialect, "work_order_labours", new_labours);
        let lookup_statements = lookups.statements();
        let mut violations = check(command, society_id);
        let now = now_millis();
        let lock = dialect.lock_rows(RowLock::Update);
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let mut kept = Kept { active: true, created_at: now };
            if let WriteMode::Replace { local_id, expected_version } = mode {
                let state: Option<OrderState> = sqlx::query_as(&format!(
                    "SELECT updated_at, is_read_only, deleted_at, active, created_at FROM work_orders \
                     WHERE society_id = $1 AND id = $2{lock}"
                ))
                .bind(society_id)
                .bind(local_id)
                .fetch_optional(&mut *tx)
                .await?;
                match state {
                    None | Some(OrderState { deleted_at: Some(_), .. }) => return Ok(Err(WorkOrderRefusal::NotFound)),
                    Some(OrderState { is_read_only: true, .. }) => return Ok(Err(WorkOrderRefusal::ReadOnly)),
                    Some(state) if expected_version.is_some_and(|v| v != state.updated_at) => {
                        return Ok(Err(WorkOrderRefusal::Stale))
                    }
                    Some(state) => kept = Kept { active: state.active, created_at: state.created_at },
                }
            }
            let rows: Vec<(i64, i64)> = {
                let mut rows = Vec::new();
                for sql in &lookup_statements {
                    rows.extend(bind_args!(sqlx::query_as::<_, (i64, i64)>(&sql.text), &sql.args).fetch_all(&mut *tx).await?);
                }
                rows
            };
            let found = lookups.found(rows);
            if let Some(other) = duplicate.and_then(|kind| found.of(kind).first().copied()) {
                return Ok(Err(WorkOrderRefusal::DuplicateExternalId(other)));
            }
            if !found.of(kinds.vouchers).contains(&command.voucher_type_id) {
                let path = "header.extra_fields.voucher_type.local_id";
                violations.push(Violation::new(path, Rule::Unknown(command.voucher_type_id)));
            }
            let mut missing_campaigns = BTreeSet::new();
            for line in command.campaign_ids() {
                if !found.of(kinds.campaigns).contains(&line) && !missing_campaigns.iter().any(|(id, _, _)| *id == line) {
                    let species: Option<i64> = sqlx::query_scalar("SELECT id FROM species WHERE id = $1")
                        .bind(line).fetch_optional(&mut *tx).await?;
                    let cultivation: Option<i64> = sqlx::query_scalar(
                        "SELECT id FROM cultivations WHERE society_id = $1 AND id = $2",
                    )
                    .bind(society_id).bind(line).fetch_optional(&mut *tx).await?;
                    missing_campaigns.insert((line, species.is_some(), cultivation.is_some()));
                }
            }
            violations.extend(reference_violations(command, &found, &kinds, &missing_campaigns));
            if !violations.is_empty() {
                return Ok(Err(WorkOrderRefusal::Invalid(violations)));
            }
            let supply_ids = found.line_ids(&new_supplies, command.supplies.iter().map(|s| s.local_id))?;
            let labour_ids = found.line_ids(&new_labours, command.labours.iter().map(|l| l.local_id))?;
            let StateFlags { pending, executed, confirmed } = command.state;
            let mut batch = Batch::new(dialect);
            let (local_id, version): (i64, i64) = match mode {
                WriteMode::Create => {
                    let local_id = found.reserved(&new_order)?.first().copied().unwrap_or_default();
                    batch
                        .statement()
                        .push(
                            "INSERT INTO work_orders (id, society_id, external_id, system_id, name, date, voucher_date, \
                             voucher_type_id, pending, executed, confirmed, created_at, updated_at) VALUES ",
                        )
                        .row([
                            Arg::Int(local_id),
                            Arg::Int(society_id),
                            Arg::OptionalText(external_id.map(str::to_owned)),
                            Arg::Text(command.system_id.clone()),
                            Arg::Text(command.name.trim().to_owned()),
                            Arg::Int(command.date.timestamp_millis()),
                            Arg::Int(command.voucher_date.timestamp_millis()),
                            Arg::Int(command.voucher_type_id),
                            Arg::Bool(pending),
                            Arg::Bool(executed),
                            Arg::Bool(confirmed),
                            Arg::Int(now),
                            Arg::Int(now),
                        ]);
                    (local_id, now)
                }
                WriteMode::Replace { local_id, .. } => {
                    // A replacement within the same millisecond still gets a new version, so If-Match sees it.
                    let version = sqlx::query_scalar(
                        "UPDATE work_orders SET external_id = $3, system_id = $4, name = $5, date = $6, voucher_date = $7, \
                         voucher_type_id = $8, pending = $9, executed = $10, confirmed = $11, \
                         updated_at = CASE WHEN updated_at >= $12 THEN updated_at + 1 ELSE $12 END \
                         WHERE society_id = $1 AND id = $2 RETURNING updated_at",
                    )
                    .bind(society_id).bind(local_id).bind(external_id).bind(&command.system_id)
                    .bind(command.name.trim()).bind(command.date.timestamp_millis())
                    .bind(command.voucher_date.timestamp_millis()).bind(command.voucher_type_id)
                    .bind(pending).bind(executed).bind(confirmed).bind(now)
                    .fetch_one(&mut *tx)
                    .await;
                    let version = match version {
                        Ok(version) => version,
                        Err(error) => {
                            drop(tx);
                            return self.answer_write_error(error, society_id, external_id, own_id).await;
                        }
                    };
                    // Lines kept go back in with their ids, so they must be gone first: a batch's statements have no
                    // order on PostgreSQL.
                    let mut removal = Batch::new(dialect);
                    for table in ["work_order_labour_contractors", "work_order_labour_machines", "work_order_labour_applicators"] {
                        removal
                            .statement()
                            .push_with(&format!("DELETE FROM {table} WHERE society_id = ? AND labour_id IN "), &[Arg::Int(society_id)])
                            .push_with(
                                "(SELECT id FROM work_order_labours WHERE society_id = ? AND work_order_id = ?)",
                                &[Arg::Int(society_id), Arg::Int(local_id)],
                            );
                    }
                    for table in ["work_order_supplies", "work_order_labours"] {
                        removal.statement().push_with(
                            &format!("DELETE FROM {table} WHERE society_id = ? AND work_order_id = ?"),
                            &[Arg::Int(society_id), Arg::Int(local_id)],
                        );
                    }
                    for sql in removal.into_queries() {
                        bind_args!(sqlx::query(&sql.text), &sql.args).execute(&mut *tx).await?;
                    }
                    (local_id, version)
                }
            };
            supply_inserts(&mut batch, command, &supply_ids, society_id, local_id, now);
            labour_inserts(&mut batch, command, &labour_ids, society_id, local_id, now);
            labour_link_inserts(&mut batch, command, society_id, &labour_ids);
            for sql in batch.into_queries() {
                if let Err(error) = bind_args!(sqlx::query(&sql.text), &sql.args).execute(&mut *tx).await {
                    drop(tx);
                    return self.answer_write_error(error, society_id, external_id, own_id).await;
                }
            }
            tx.commit().await?;
            let (header, supplies, labours) = written_rows(
                command,
                (local_id, &supply_ids, &labour_ids),
                society_id,
                external_id,
                &kept,
                version,
            );
            let render = scope.render();
            let header = WorkOrderHeaders::render(header, &render);
            let order = assemble(vec![header], supplies, labours, &render).pop();
            Ok(Ok(Written {
                order: order.ok_or_else(|| StoreError::Database("an order assembled from nothing".into()))?,
                version,
            }))
        })
    }

    /// What to answer for a header write the database refused. A unique violation there means a concurrent write
    /// stored another live order with the external id after this one's lookup found none (migration 8's index): it
    /// is answered as that lookup would have answered it. Anything else is a failure.
    async fn answer_write_error(
        &self,
        error: sqlx::Error,
        society_id: i64,
        external_id: Option<&str>,
        own_id: i64,
    ) -> Result<Result<Written, WorkOrderRefusal>, StoreError> {
        let unique = error
            .as_database_error()
            .is_some_and(|error| error.kind() == sqlx::error::ErrorKind::UniqueViolation);
        if let (true, Some(external_id)) = (unique, external_id) {
            let mut select = Sql::default();
            select.push("SELECT ").push_with(
                EXTERNAL_ID_HOLDER,
                &external_id_holder_args(society_id, external_id, own_id),
            );
            let holder: Option<i64> = with_reader!(&self.db, pool => {
                bind_args!(sqlx::query_scalar(&select.text), &select.args).fetch_optional(pool).await?
            });
            if let Some(holder) = holder {
                return Ok(Err(WorkOrderRefusal::DuplicateExternalId(holder)));
            }
        }
        Err(error.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookups_share_one_statement_while_their_ids_fit() {
        let mut lookups = Lookups::default();
        let society = [Arg::Int(7)];
        let machines = lookups.add("machines", "society_id = ?", &society, [3, 1, 3].into_iter());
        let vouchers = lookups.add("voucher_types", "deleted_at IS NULL", &[], [9].into_iter());
        lookups.add("contractors", "society_id = ?", &society, std::iter::empty());
        let statements = lookups.statements();
        assert_eq!(statements.len(), 1);
        assert_eq!(
            statements[0].text,
            "SELECT CAST(0 AS BIGINT) AS kind, id FROM machines WHERE society_id = $1 AND id IN ($2, $3) UNION ALL \
             SELECT CAST(1 AS BIGINT) AS kind, id FROM voucher_types WHERE deleted_at IS NULL AND id IN ($4)"
        );
        assert_eq!(statements[0].args, [Arg::Int(7), Arg::Int(1), Arg::Int(3), Arg::Int(9)]);
        let found = lookups.found([(0, 3), (1, 9), (5, 1)]);
        assert_eq!(found.of(machines), &BTreeSet::from([3]));
        assert_eq!(found.of(vouchers), &BTreeSet::from([9]));
    }

    #[test]
    fn lookups_beyond_one_statements_worth_are_split_and_none_are_lost() {
        let mut lookups = Lookups::default();
        lookups.add("machines", "deleted_at IS NULL", &[], 0..(IDS_PER_QUERY as i64 + 10));
        lookups.add("contractors", "deleted_at IS NULL", &[], 0..5);
        let statements = lookups.statements();
        assert_eq!(statements.len(), 2);
        let bound: usize = statements.iter().map(|sql| sql.args.len()).sum();
        assert_eq!(bound, IDS_PER_QUERY + 15);
        assert!(statements.iter().all(|sql| sql.args.len() <= IDS_PER_QUERY));
        assert!(Lookups::default().statements().is_empty());
    }

    #[test]
    fn lines_with_their_own_ids_are_inserted_apart_from_new_ones() {
        let rows = vec![
            (None, vec![Arg::Int(1)]),
            (Some(40), vec![Arg::Int(2)]),
            (None, vec![Arg::Int(3)]),
        ];
        let mut batch = Batch::new(Dialect::Sqlite);
        line_inserts(&mut batch, "lines", "position", rows);
        let queries = batch.into_queries();
        assert_eq!(queries.len(), 1);
        assert_eq!(
            queries[0].text,
            "INSERT INTO lines (id, position) VALUES ($1, $2);\nINSERT INTO lines (position) VALUES ($3), ($4)"
        );
        assert_eq!(queries[0].args, [Arg::Int(40), Arg::Int(2), Arg::Int(1), Arg::Int(3)]);
    }

    #[test]
    fn conditions_and_reservations_are_asked_with_the_id_lookups() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            let mut lookups = Lookups::default();
            let machines = lookups.add("machines", "society_id = ?", &[Arg::Int(7)], [3].into_iter());
            let duplicate = lookups.add_query("id FROM orders WHERE name = ?".to_owned(), &[Arg::Text("x".to_owned())]);
            let orders = lookups.reserve(dialect, "orders", 1);
            let lines = lookups.reserve(dialect, "lines", 3);
            let none = lookups.reserve(dialect, "lines", 0);
            assert!(none.kind.is_none(), "nothing to ask for no rows");
            let statements = lookups.statements();
            assert_eq!(statements.len(), 1);
            assert_eq!(
                statements[0].text.matches("UNION ALL").count(),
                3,
                "{}",
                statements[0].text
            );
            assert!(statements[0]
                .text
                .contains("SELECT CAST(1 AS BIGINT) AS kind, id FROM orders WHERE name = $3"));
            let rows = match dialect {
                // SQLite answers the first free id of each table.
                Dialect::Sqlite => vec![(0, 3), (1, 12), (2, 51), (3, 900)],
                Dialect::Postgres => vec![(0, 3), (1, 12), (2, 51), (3, 905), (3, 900), (3, 903)],
            };
            let found = lookups.found(rows);
            assert_eq!(found.of(machines), &BTreeSet::from([3]));
            assert_eq!(found.of(duplicate), &BTreeSet::from([12]));
            assert_eq!(found.reserved(&orders).expect("one id"), [51]);
            let expected = match dialect {
                Dialect::Sqlite => [900, 901, 902],
                Dialect::Postgres => [900, 903, 905],
            };
            assert_eq!(found.reserved(&lines).expect("three ids"), expected);
            assert!(found.reserved(&none).expect("no ids").is_empty());
            assert!(
                lookups.found([(0, 3)]).reserved(&lines).is_err(),
                "a reservation unanswered is an error"
            );
        }
    }
}
