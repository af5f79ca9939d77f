//! Work orders: read ([`read`]), and written whole (header and lines added, changed, removed) in one transaction
//! that asks about every reference the body makes before anything is written ([`Plan`]), then writes the header and
//! every line in one batch ([`lines`]). [`Store::write_work_order`] reads as its steps. It takes a command whose own
//! rules the caller has checked (`WorkOrderCommand::check`) and decides nothing itself: what it finds (the order
//! replaced, the references) is judged by `domain::work_orders`. A create on PostgreSQL asks before its transaction
//! begins, and its batch, with the order's event, is usually one statement, which is then its whole transaction
//! ([`crate::write::BeginWrite::begin_write_lazily`]).
//!
//! Lines sent with a `local_id` keep it; lines sent without one are new; lines of the order not sent are removed.
//! The order's row is locked for the transaction (PostgreSQL `FOR UPDATE`; SQLite has one writer), so concurrent
//! replacements of one order apply one after the other and never interleave their lines.

mod lines;
pub(crate) mod payload;
pub(crate) mod read;

use std::collections::BTreeSet;

use domain::work_orders::{deletable, replaceable, Current, Found as References, StateFlags, WorkOrderCommand};
use domain::Refusal;
use wire::work_orders::WorkOrder;

use read::assemble;
pub use read::{WorkOrderHeaders, WorkOrderRow, WorkOrderStateFilter};

use self::lines::{line_inserts_of, written_rows, Kept, Order};
use self::payload::WORK_ORDER;
use crate::db::{with_reader, with_writer};
use crate::lookups::{ask, Found, Kind, Lookups, Owner, Reservation};
use crate::sql::{bind_args, Arg, Batch, RowLock, Sql};
use crate::write::BeginWrite;
use crate::{now_millis, Dialect, Resource, Scope, Store, StoreError};

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

/// Another live order of the society with the external id (`?`: the society, the external id, the order written,
/// which a replacement keeps): what a write looks for before it writes, and again if the database then refuses it.
const EXTERNAL_ID_HOLDER: &str =
    "id FROM work_orders WHERE society_id = ? AND external_id = ? AND deleted_at IS NULL AND id <> ?";

/// The arguments of [`EXTERNAL_ID_HOLDER`].
fn external_id_holder_args(society_id: i64, external_id: &str, own_id: i64) -> [Arg; 3] {
    [
        Arg::Int(society_id),
        Arg::Text(external_id.to_owned()),
        Arg::Int(own_id),
    ]
}

/// Everything one write asks the database before it writes, and what it answers.
struct Plan<'a> {
    society_id: i64,
    /// The order written: a replacement's own, 0 for a new one.
    pub own_id: i64,
    /// The external id as stored: trimmed, none when blank.
    pub external_id: Option<&'a str>,
    pub lookups: Lookups,
    kinds: ReferenceKinds,
    duplicate: Option<Kind>,
    pub new_order: Reservation,
    pub new_supplies: Reservation,
    pub new_labours: Reservation,
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

impl<'a> Plan<'a> {
    /// The lookups of every reference `command` makes, in the caller's society (and country, for products), added to
    /// `lookups`; lines sent with a `local_id` must be lines of the order replaced.
    pub fn new(mut lookups: Lookups, scope: &'a Scope, mode: WriteMode, command: &'a WorkOrderCommand) -> Self {
        let society_id = scope.society_id();
        let own_id = match mode {
            WriteMode::Create => 0,
            WriteMode::Replace { local_id, .. } => local_id,
        };
        let society = Owner::Society(society_id);
        let own_lines = [Arg::Int(society_id), Arg::Int(own_id)];
        let labours = &command.labours;
        let kinds = ReferenceKinds {
            vouchers: lookups.live("voucher_types", Owner::Everyone, [command.voucher_type_id]),
            campaigns: lookups.live("campaigns", society, command.campaign_ids()),
            formulateds: lookups.live(
                "formulateds",
                Owner::Country(scope.country()),
                command.supplies.iter().map(|s| s.formulated_id),
            ),
            labour_types: lookups.live(
                "labour_types",
                Owner::Everyone,
                labours.iter().filter_map(|l| l.labour_type_id),
            ),
            contractors: lookups.live(
                "contractors",
                society,
                labours.iter().flat_map(|l| l.contractor_ids.iter().copied()),
            ),
            machines: lookups.live(
                "machines",
                society,
                labours.iter().flat_map(|l| l.machine_ids.iter().copied()),
            ),
            applicators: lookups.live(
                "applicators",
                society,
                labours.iter().flat_map(|l| l.applicator_ids.iter().copied()),
            ),
            kept_supplies: lookups.rows(
                "work_order_supplies",
                "society_id = ? AND work_order_id = ?",
                &own_lines,
                command.supplies.iter().filter_map(|s| s.local_id),
            ),
            kept_labours: lookups.rows(
                "work_order_labours",
                "society_id = ? AND work_order_id = ?",
                &own_lines,
                labours.iter().filter_map(|l| l.local_id),
            ),
        };
        let external_id = command.stored_external_id();
        let duplicate = external_id.map(|external_id| {
            let args = external_id_holder_args(society_id, external_id, own_id);
            lookups.query(EXTERNAL_ID_HOLDER.to_owned(), &args)
        });
        let new_order = lookups.reserve("work_orders", usize::from(mode == WriteMode::Create));
        let new_supplies = lookups.reserve(
            "work_order_supplies",
            command.supplies.iter().filter(|s| s.local_id.is_none()).count(),
        );
        let new_labours = lookups.reserve(
            "work_order_labours",
            labours.iter().filter(|l| l.local_id.is_none()).count(),
        );
        Self {
            society_id,
            own_id,
            external_id,
            lookups,
            kinds,
            duplicate,
            new_order,
            new_supplies,
            new_labours,
        }
    }

    /// What the lookups found about the body's references, for the domain to judge. The ids of each kind are taken
    /// out of `found`, which keeps the ids reserved for the new rows.
    pub fn references(&self, found: &mut Found) -> References {
        let kinds = &self.kinds;
        References {
            voucher_types: found.take(kinds.vouchers),
            campaigns: found.take(kinds.campaigns),
            formulateds: found.take(kinds.formulateds),
            labour_types: found.take(kinds.labour_types),
            contractors: found.take(kinds.contractors),
            machines: found.take(kinds.machines),
            applicators: found.take(kinds.applicators),
            own_supplies: found.take(kinds.kept_supplies),
            own_labours: found.take(kinds.kept_labours),
            external_id_holder: self.duplicate.and_then(|kind| found.of(kind).first().copied()),
            species: BTreeSet::new(),
            cultivations: BTreeSet::new(),
        }
    }

    /// The lookups that tell what each campaign id in `missing` is instead, the usual confusions of the homonym rule:
    /// a crop species, or one of the society's v3 cultivation rows.
    pub fn homonym_lookups(&self, dialect: Dialect, missing: &BTreeSet<i64>) -> (Lookups, Kind, Kind) {
        let mut lookups = Lookups::new(dialect);
        let species = lookups.rows("species", "TRUE", &[], missing.iter().copied());
        let society = [Arg::Int(self.society_id)];
        let cultivations = lookups.rows("cultivations", "society_id = ?", &society, missing.iter().copied());
        (lookups, species, cultivations)
    }
}

#[derive(sqlx::FromRow)]
struct OrderState {
    updated_at: i64,
    is_read_only: bool,
    deleted_at: Option<i64>,
    active: bool,
    created_at: i64,
}

/// The statement that reads an order's state, locking its row when `lock` says so.
fn order_state_query(lock: &str) -> String {
    format!(
        "SELECT updated_at, is_read_only, deleted_at, active, created_at FROM work_orders \
         WHERE society_id = $1 AND id = $2{lock}"
    )
}

impl OrderState {
    /// The order as the domain judges it.
    fn current(&self) -> Current {
        Current {
            version: self.updated_at,
            read_only: self.is_read_only,
            deleted: self.deleted_at.is_some(),
        }
    }
}

/// What a replacement of the order in `state` keeps, once the domain has judged that a write that read
/// `expected_version` may replace it.
fn kept(state: Option<OrderState>, expected_version: Option<i64>) -> Result<Kept, Refusal> {
    replaceable(state.as_ref().map(OrderState::current), expected_version)?;
    let state = state.ok_or(Refusal::NotFound)?;
    Ok(Kept {
        active: state.active,
        created_at: state.created_at,
    })
}

/// The statement that inserts a new order's header, into `batch`.
fn header_insert(batch: &mut Batch, command: &WorkOrderCommand, order: &Order, external_id: Option<&str>) {
    let StateFlags {
        pending,
        executed,
        confirmed,
    } = command.state;
    batch
        .statement()
        .push(
            "INSERT INTO work_orders (id, society_id, external_id, system_id, name, date, voucher_date, \
             voucher_type_id, pending, executed, confirmed, created_at, updated_at) VALUES ",
        )
        .row([
            Arg::Int(order.id),
            Arg::Int(order.society_id),
            Arg::OptionalText(external_id.map(str::to_owned)),
            Arg::Text(command.system_id.clone()),
            Arg::Text(command.name.trim().to_owned()),
            Arg::Int(command.date.timestamp_millis()),
            Arg::Int(command.voucher_date.timestamp_millis()),
            Arg::Int(command.voucher_type_id),
            Arg::Bool(pending),
            Arg::Bool(executed),
            Arg::Bool(confirmed),
            Arg::Int(order.now),
            Arg::Int(order.now),
        ]);
}

/// The statement that replaces an existing order's header; it answers the new version. A replacement within the
/// same millisecond still gets a new version, so `If-Match` sees it.
const HEADER_UPDATE: &str = "UPDATE work_orders SET external_id = $3, system_id = $4, name = $5, date = $6, \
     voucher_date = $7, voucher_type_id = $8, pending = $9, executed = $10, confirmed = $11, \
     updated_at = CASE WHEN updated_at >= $12 THEN updated_at + 1 ELSE $12 END \
     WHERE society_id = $1 AND id = $2 RETURNING updated_at";

/// The statements that remove an order's lines and their links. Lines kept go back in with their ids, so they must
/// be gone first: a batch's statements have no order on PostgreSQL, so these are a batch of their own.
fn line_removal(batch: &mut Batch, society_id: i64, order_id: i64) {
    let own_labours = "(SELECT id FROM work_order_labours WHERE society_id = ? AND work_order_id = ?)";
    let order = [Arg::Int(society_id), Arg::Int(order_id)];
    for table in [
        "work_order_labour_contractors",
        "work_order_labour_machines",
        "work_order_labour_applicators",
    ] {
        batch
            .statement()
            .push_with(
                &format!("DELETE FROM {table} WHERE society_id = ? AND labour_id IN "),
                &order[..1],
            )
            .push_with(own_labours, &order);
    }
    for table in ["work_order_supplies", "work_order_labours"] {
        batch.statement().push_with(
            &format!("DELETE FROM {table} WHERE society_id = ? AND work_order_id = ?"),
            &order,
        );
    }
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
    pub async fn delete_work_order(&self, scope: &Scope, local_id: i64) -> Result<Result<(), Refusal>, StoreError> {
        let society_id = scope.society_id();
        let now = now_millis();
        let query = order_state_query("");
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            let state: Option<OrderState> =
                sqlx::query_as(&query).bind(society_id).bind(local_id).fetch_optional(&mut *tx).await?;
            match deletable(state.as_ref().map(OrderState::current)) {
                Err(refusal) => Ok(Err(refusal)),
                Ok(false) => Ok(Ok(())),
                Ok(true) => {
                    sqlx::query("UPDATE work_orders SET deleted_at = $3, updated_at = $3 WHERE society_id = $1 AND id = $2")
                        .bind(society_id)
                        .bind(local_id)
                        .bind(now)
                        .execute(&mut *tx)
                        .await?;
                    tx.changed(society_id, &WORK_ORDER, [local_id], "deleted");
                    tx.commit().await?;
                    Ok(Ok(()))
                }
            }
        })
    }

    /// What the rules about the records `command` names answer (the homonym rule's hints included), asked without
    /// writing (reads that lock nothing and reserve no ids) and without looking at the order a replacement names:
    /// for a body refused for its own rules, so that its refusal names these too.
    #[tracing::instrument(skip(self, scope, command), fields(society = scope.society_id()))]
    pub async fn work_order_references(
        &self,
        scope: &Scope,
        mode: WriteMode,
        command: &WorkOrderCommand,
    ) -> Result<Result<(), Refusal>, StoreError> {
        let dialect = self.db.dialect();
        let plan = Plan::new(Lookups::reading(dialect), scope, mode, command);
        let mut found = self.ask_reading(&plan.lookups).await?;
        let mut references = plan.references(&mut found);
        let missing = command.homonyms_to_ask(&references);
        if !missing.is_empty() {
            let (lookups, species, cultivations) = plan.homonym_lookups(dialect, &missing);
            let mut answered = self.ask_reading(&lookups).await?;
            references.species = answered.take(species);
            references.cultivations = answered.take(cultivations);
        }
        Ok(command.references_hold(&references))
    }

    /// Creates or replaces a work order; answers it as a read would, with its new version.
    #[tracing::instrument(skip(self, scope, command), fields(society = scope.society_id()))]
    pub async fn write_work_order(
        &self,
        scope: &Scope,
        mode: WriteMode,
        command: &WorkOrderCommand,
    ) -> Result<Result<Written, Refusal>, StoreError> {
        let mut draws = 1;
        loop {
            match self.write_work_order_with_ids_drawn(scope, mode, command).await {
                Ok(answer) => return Ok(answer),
                Err(WriteFailure::Store(error)) => return Err(error),
                Err(WriteFailure::IdsTaken(error)) if draws < ID_DRAWS => {
                    tracing::warn!(%error, draws, "a work order's new ids were already taken: drawing others");
                    draws += 1;
                }
                Err(WriteFailure::IdsTaken(error)) => return Err(StoreError::Unavailable(Box::new(error))),
            }
        }
    }

    /// One attempt of [`Self::write_work_order`], with ids for its new rows drawn once.
    async fn write_work_order_with_ids_drawn(
        &self,
        scope: &Scope,
        mode: WriteMode,
        command: &WorkOrderCommand,
    ) -> Result<Result<Written, Refusal>, WriteFailure> {
        let society_id = scope.society_id();
        let dialect = self.db.dialect();
        let plan = Plan::new(Lookups::new(dialect), scope, mode, command);
        let (own_id, external_id) = (plan.own_id, plan.external_id);
        let now = now_millis();
        let state_query = order_state_query(dialect.lock_rows(RowLock::Update));
        with_writer!(&self.db, pool => {
            // A create reads before it writes only what needs no lock, so PostgreSQL may write it in one statement.
            let mut tx = match mode {
                WriteMode::Create => pool.begin_write_lazily().await?,
                WriteMode::Replace { .. } => pool.begin_write().await?,
            };
            // 1. The order replaced: locked, live, writable, and at the version `If-Match` names.
            let kept = match mode {
                WriteMode::Create => Kept { active: true, created_at: now },
                WriteMode::Replace { local_id, expected_version } => {
                    let state = sqlx::query_as(&state_query).bind(society_id).bind(local_id).fetch_optional(&mut *tx).await?;
                    match kept(state, expected_version) {
                        Ok(kept) => kept,
                        Err(refusal) => return Ok(Err(refusal)),
                    }
                }
            };
            // 2. Every reference, and ids for the new rows, in one round trip.
            let mut found = ask!(plan.lookups, tx);
            let mut references = plan.references(&mut found);
            // 3. What a line's missing campaign is instead, asked only when the domain needs it.
            let missing = command.homonyms_to_ask(&references);
            if !missing.is_empty() {
                let (lookups, species, cultivations) = plan.homonym_lookups(dialect, &missing);
                let mut answered = ask!(lookups, tx);
                references.species = answered.take(species);
                references.cultivations = answered.take(cultivations);
            }
            if let Err(refusal) = command.references_hold(&references) {
                return Ok(Err(refusal));
            }
            // 4. The header, then every line in one batch.
            let supply_ids = found.line_ids(&plan.new_supplies, command.supplies.iter().map(|s| s.local_id))?;
            let labour_ids = found.line_ids(&plan.new_labours, command.labours.iter().map(|l| l.local_id))?;
            let mut batch = Batch::new(dialect);
            let (order, version) = match mode {
                WriteMode::Create => {
                    let local_id = found.reserved(&plan.new_order)?.first().copied().unwrap_or_default();
                    let order = Order { society_id, id: local_id, now };
                    header_insert(&mut batch, command, &order, external_id);
                    (order, now)
                }
                WriteMode::Replace { local_id, .. } => {
                    let StateFlags { pending, executed, confirmed } = command.state;
                    let version = sqlx::query_scalar(HEADER_UPDATE)
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
                    let mut removal = Batch::new(dialect);
                    line_removal(&mut removal, society_id, local_id);
                    for sql in removal.into_queries() {
                        bind_args!(sqlx::query(&sql.text), &sql.args).execute(&mut *tx).await?;
                    }
                    (Order { society_id, id: local_id, now }, version)
                }
            };
            line_inserts_of(&mut batch, command, &order, &supply_ids, &labour_ids);
            // 5. The answer, from the rows the batch writes; it is also the payload of the order's event, written
            // whole with them.
            let (header, supplies, labours, links) =
                written_rows(command, (order.id, &supply_ids, &labour_ids), society_id, external_id, &kept, version);
            let render = scope.render();
            let header = WorkOrderHeaders::render(header, (), &render);
            let written = assemble(vec![header], supplies, labours, links, &render)
                .pop()
                .ok_or_else(|| StoreError::Database("an order assembled from nothing".into()))?;
            let action = match mode {
                WriteMode::Create => "created",
                WriteMode::Replace { .. } => "updated",
            };
            tx.event(society_id, &WORK_ORDER, order.id, action, now, &written)?;
            if let Err(error) = tx.commit_with(batch).await {
                return self.answer_write_error(error, society_id, external_id, own_id).await;
            }
            Ok(Ok(Written { order: written, version }))
        })
    }

    /// What to answer for a write the database refused. A unique violation of a primary key means ids drawn for the
    /// new rows were taken ([`WriteFailure::IdsTaken`]). One of another index means a concurrent write stored another
    /// live order with the external id after this one's lookup found none (migration 8's index): it is answered as
    /// that lookup would have answered it. Anything else is a failure.
    async fn answer_write_error(
        &self,
        error: sqlx::Error,
        society_id: i64,
        external_id: Option<&str>,
        own_id: i64,
    ) -> Result<Result<Written, Refusal>, WriteFailure> {
        let unique = error
            .as_database_error()
            .filter(|error| error.kind() == sqlx::error::ErrorKind::UniqueViolation);
        if unique
            .and_then(|error| error.constraint())
            .is_some_and(|name| name.ends_with("_pkey"))
        {
            return Err(WriteFailure::IdsTaken(error));
        }
        if let (true, Some(external_id)) = (unique.is_some(), external_id) {
            let mut select = Sql::default();
            select.push("SELECT ").push_with(
                EXTERNAL_ID_HOLDER,
                &external_id_holder_args(society_id, external_id, own_id),
            );
            let holder: Option<i64> = with_reader!(&self.db, pool => {
                bind_args!(sqlx::query_scalar(&select.text), &select.args).fetch_optional(pool).await?
            });
            if let Some(holder) = holder {
                return Ok(Err(Refusal::DuplicateExternalId(holder)));
            }
        }
        Err(WriteFailure::Store(error.into()))
    }
}

/// How many times a work-order write draws ids for its new rows before it answers that the database is unavailable.
const ID_DRAWS: usize = 4;

/// Why an attempt of a work-order write failed.
enum WriteFailure {
    /// A primary key refused ids drawn for the new rows: a sequence behind rows that exist. A create on PostgreSQL
    /// draws its ids in a statement before its write (see the module's doc), and an id drawn from a range the
    /// sequence had logged but the standby had not yet received is handed out again once the standby is promoted:
    /// the write that lands after a failover, through a repointed pooler, meets the new primary's own draws. The
    /// sequence has moved past the ids taken, so drawing again settles it.
    IdsTaken(sqlx::Error),
    /// Any other failure.
    Store(StoreError),
}

impl From<StoreError> for WriteFailure {
    fn from(error: StoreError) -> Self {
        Self::Store(error)
    }
}

impl From<sqlx::Error> for WriteFailure {
    fn from(error: sqlx::Error) -> Self {
        Self::Store(error.into())
    }
}
