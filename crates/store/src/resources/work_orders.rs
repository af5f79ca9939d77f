//! Work-order writes: create, and replace the whole structure (header and lines added, changed, removed), each in
//! one transaction that checks every reference against the caller's society before anything is written.
//!
//! Lines sent with a `local_id` keep it; lines sent without one are new; lines of the order not sent are removed.
//! The order's row is locked for the transaction (PostgreSQL `FOR UPDATE`; SQLite has one writer), so concurrent
//! replacements of one order apply one after the other and never interleave their lines.

use std::collections::BTreeSet;

use domain::work_orders::{check, Rule, StateFlags, Violation, WorkOrderCommand};

use crate::db::{bind_args, with_reader, with_writer, Arg, BeginWrite, Dialect, Sql, IDS_PER_QUERY};
use crate::{now_millis, Scope, Store, StoreError};

/// The ids among `$ids` that `$table` has under `$condition` (whose placeholders `$fixed` binds), as a set: one
/// query inside transaction `$tx` per [`IDS_PER_QUERY`] distinct ids, none when there are no ids.
macro_rules! existing {
    ($tx:ident, $table:expr, $condition:expr, $fixed:expr, $ids:expr) => {{
        let wanted: Vec<i64> = $ids.collect::<BTreeSet<i64>>().into_iter().collect();
        let fixed: Vec<Arg> = $fixed.into_iter().collect();
        let mut found = BTreeSet::new();
        for chunk in wanted.chunks(IDS_PER_QUERY) {
            let mut sql = Sql {
                args: fixed.clone(),
                ..Sql::default()
            };
            sql.push(&format!("SELECT id FROM {} WHERE {} AND id IN ", $table, $condition))
                .id_list(chunk);
            let rows: Vec<i64> = bind_args!(sqlx::query_scalar(&sql.text), &sql.args)
                .fetch_all(&mut *$tx)
                .await?;
            found.extend(rows);
        }
        found
    }};
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

#[derive(sqlx::FromRow)]
struct OrderState {
    updated_at: i64,
    is_read_only: bool,
    deleted_at: Option<i64>,
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
                "SELECT updated_at, is_read_only, deleted_at FROM work_orders WHERE society_id = $1 AND id = $2",
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

    /// Creates or replaces a work order; answers its `local_id`.
    #[tracing::instrument(skip(self, scope, command), fields(society = scope.society_id()))]
    pub async fn write_work_order(
        &self,
        scope: &Scope,
        mode: WriteMode,
        command: &WorkOrderCommand,
    ) -> Result<Result<i64, WorkOrderRefusal>, StoreError> {
        let society_id = scope.society_id();
        let country = scope.country().to_owned();
        let mut violations = check(command, society_id);
        let now = now_millis();
        let lock = match self.db.dialect() {
            Dialect::Postgres => " FOR UPDATE",
            Dialect::Sqlite => "",
        };
        let external_id = command
            .external_id
            .as_deref()
            .map(str::trim)
            .filter(|id| !id.is_empty());
        with_writer!(&self.db, pool => {
            let mut tx = pool.begin_write().await?;
            if let WriteMode::Replace { local_id, expected_version } = mode {
                let state: Option<OrderState> = sqlx::query_as(&format!(
                    "SELECT updated_at, is_read_only, deleted_at FROM work_orders WHERE society_id = $1 AND id = $2{lock}"
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
                    Some(_) => {}
                }
            }
            let own_id = match mode {
                WriteMode::Create => 0,
                WriteMode::Replace { local_id, .. } => local_id,
            };
            if let Some(external_id) = external_id {
                let other: Option<i64> = sqlx::query_scalar(
                    "SELECT id FROM work_orders WHERE society_id = $1 AND external_id = $2 AND deleted_at IS NULL AND id <> $3",
                )
                .bind(society_id)
                .bind(external_id)
                .bind(own_id)
                .fetch_optional(&mut *tx)
                .await?;
                if let Some(other) = other {
                    return Ok(Err(WorkOrderRefusal::DuplicateExternalId(other)));
                }
            }
            let voucher: Option<i64> =
                sqlx::query_scalar("SELECT id FROM voucher_types WHERE id = $1 AND deleted_at IS NULL")
                    .bind(command.voucher_type_id)
                    .fetch_optional(&mut *tx)
                    .await?;
            if voucher.is_none() {
                let path = "header.extra_fields.voucher_type.local_id";
                violations.push(Violation::new(path, Rule::Unknown(command.voucher_type_id)));
            }
            // Each kind of reference is checked in one query for all its distinct ids; every line that carries a
            // missing one is reported.
            let society = Arg::Int(society_id);
            let live = "deleted_at IS NULL AND society_id = $1";
            let campaigns = existing!(tx, "campaigns", live, [society.clone()],
                command.supplies.iter().map(|s| s.campaign_id).chain(command.labours.iter().map(|l| l.campaign_id)));
            let mut missing_campaigns = BTreeSet::new();
            for line in command.supplies.iter().map(|s| s.campaign_id).chain(command.labours.iter().map(|l| l.campaign_id)) {
                if !campaigns.contains(&line) && !missing_campaigns.iter().any(|(id, _, _)| *id == line) {
                    let species: Option<i64> = sqlx::query_scalar("SELECT id FROM species WHERE id = $1")
                        .bind(line).fetch_optional(&mut *tx).await?;
                    let cultivation: Option<i64> = sqlx::query_scalar(
                        "SELECT id FROM cultivations WHERE society_id = $1 AND id = $2",
                    )
                    .bind(society_id).bind(line).fetch_optional(&mut *tx).await?;
                    missing_campaigns.insert((line, species.is_some(), cultivation.is_some()));
                }
            }
            for (kind, lines) in [
                ("supplies", command.supplies.iter().map(|s| s.campaign_id).collect::<Vec<_>>()),
                ("labours", command.labours.iter().map(|l| l.campaign_id).collect()),
            ] {
                for (index, campaign) in lines.iter().enumerate() {
                    if let Some((id, species, cultivation)) = missing_campaigns.iter().find(|m| m.0 == *campaign) {
                        let rule = Rule::NotACampaign { id: *id, species: *species, cultivation: *cultivation };
                        violations.push(Violation::new(format!("{kind}[{index}].cultivation.local_id"), rule));
                    }
                }
            }
            let formulateds = existing!(tx, "formulateds", "deleted_at IS NULL AND country = $1",
                [Arg::Text(country.clone())], command.supplies.iter().map(|s| s.formulated_id));
            for (index, supply) in command.supplies.iter().enumerate() {
                if !formulateds.contains(&supply.formulated_id) {
                    let path = format!("supplies[{index}].formulated.local_id");
                    violations.push(Violation::new(path, Rule::Unknown(supply.formulated_id)));
                }
            }
            let labour_types = existing!(tx, "labour_types", "deleted_at IS NULL", [],
                command.labours.iter().filter_map(|l| l.labour_type_id));
            let contractors = existing!(tx, "contractors", live, [society.clone()],
                command.labours.iter().flat_map(|l| l.contractor_ids.iter().copied()));
            let machines = existing!(tx, "machines", live, [society.clone()],
                command.labours.iter().flat_map(|l| l.machine_ids.iter().copied()));
            let applicators = existing!(tx, "applicators", live, [society.clone()],
                command.labours.iter().flat_map(|l| l.applicator_ids.iter().copied()));
            for (index, labour) in command.labours.iter().enumerate() {
                if let Some(labour_type) = labour.labour_type_id.filter(|id| !labour_types.contains(id)) {
                    let path = format!("labours[{index}].labour_type.local_id");
                    violations.push(Violation::new(path, Rule::Unknown(labour_type)));
                }
                for (field, found, ids) in [
                    ("contractors", &contractors, &labour.contractor_ids),
                    ("machines", &machines, &labour.machine_ids),
                    ("applicators", &applicators, &labour.applicator_ids),
                ] {
                    for (position, id) in ids.iter().enumerate().filter(|(_, id)| !found.contains(id)) {
                        let path = format!("labours[{index}].{field}[{position}].local_id");
                        violations.push(Violation::new(path, Rule::Unknown(*id)));
                    }
                }
            }
            let own_lines = [society.clone(), Arg::Int(own_id)];
            for (kind, table, ids) in [
                ("supplies", "work_order_supplies", command.supplies.iter().map(|s| s.local_id).collect::<Vec<_>>()),
                ("labours", "work_order_labours", command.labours.iter().map(|l| l.local_id).collect()),
            ] {
                let found = existing!(tx, table, "society_id = $1 AND work_order_id = $2", own_lines.clone(),
                    ids.iter().flatten().copied());
                for (index, id) in ids.iter().enumerate() {
                    if let Some(id) = id.filter(|id| !found.contains(id)) {
                        violations.push(Violation::new(format!("{kind}[{index}].local_id"), Rule::UnknownLine(id)));
                    }
                }
            }
            if !violations.is_empty() {
                return Ok(Err(WorkOrderRefusal::Invalid(violations)));
            }
            let StateFlags { pending, executed, confirmed } = command.state;
            let local_id: i64 = match mode {
                WriteMode::Create => sqlx::query_scalar(
                    "INSERT INTO work_orders (society_id, external_id, system_id, name, date, voucher_date, \
                     voucher_type_id, pending, executed, confirmed, created_at, updated_at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING id",
                )
                .bind(society_id).bind(external_id).bind(&command.system_id).bind(command.name.trim())
                .bind(command.date.timestamp_millis()).bind(command.voucher_date.timestamp_millis())
                .bind(command.voucher_type_id).bind(pending).bind(executed).bind(confirmed).bind(now)
                .fetch_one(&mut *tx)
                .await?,
                WriteMode::Replace { local_id, .. } => {
                    // A replacement within the same millisecond still gets a new version, so If-Match sees it.
                    sqlx::query(
                        "UPDATE work_orders SET external_id = $3, system_id = $4, name = $5, date = $6, voucher_date = $7, \
                         voucher_type_id = $8, pending = $9, executed = $10, confirmed = $11, \
                         updated_at = CASE WHEN updated_at >= $12 THEN updated_at + 1 ELSE $12 END \
                         WHERE society_id = $1 AND id = $2",
                    )
                    .bind(society_id).bind(local_id).bind(external_id).bind(&command.system_id)
                    .bind(command.name.trim()).bind(command.date.timestamp_millis())
                    .bind(command.voucher_date.timestamp_millis()).bind(command.voucher_type_id)
                    .bind(pending).bind(executed).bind(confirmed).bind(now)
                    .execute(&mut *tx)
                    .await?;
                    for table in ["work_order_labour_contractors", "work_order_labour_machines", "work_order_labour_applicators"] {
                        sqlx::query(&format!(
                            "DELETE FROM {table} WHERE society_id = $1 AND labour_id IN \
                             (SELECT id FROM work_order_labours WHERE society_id = $1 AND work_order_id = $2)"
                        ))
                        .bind(society_id).bind(local_id).execute(&mut *tx).await?;
                    }
                    for table in ["work_order_supplies", "work_order_labours"] {
                        sqlx::query(&format!("DELETE FROM {table} WHERE society_id = $1 AND work_order_id = $2"))
                            .bind(society_id).bind(local_id).execute(&mut *tx).await?;
                    }
                    local_id
                }
            };
            for (position, supply) in command.supplies.iter().enumerate() {
                let StateFlags { pending, executed, confirmed } = supply.state;
                // A kept line is inserted with its own id; a new one takes the next id the database hands out.
                let (id_column, id_value) = if supply.local_id.is_some() { ("id, ", "$13, ") } else { ("", "") };
                let sql = format!(
                    "INSERT INTO work_order_supplies ({id_column}society_id, work_order_id, position, campaign_id, \
                     formulated_id, area_applied, total_applied, date, pending, executed, confirmed, created_at, updated_at) \
                     VALUES ({id_value}$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)"
                );
                let mut insert = sqlx::query(&sql)
                .bind(society_id).bind(local_id).bind(i64::try_from(position).unwrap_or(i64::MAX))
                .bind(supply.campaign_id).bind(supply.formulated_id).bind(supply.area_applied).bind(supply.total_applied)
                .bind(supply.date.timestamp_millis()).bind(pending).bind(executed).bind(confirmed).bind(now);
                if let Some(id) = supply.local_id {
                    insert = insert.bind(id);
                }
                insert.execute(&mut *tx).await?;
            }
            for (position, labour) in command.labours.iter().enumerate() {
                let StateFlags { pending, executed, confirmed } = labour.state;
                let (id_column, id_value) = if labour.local_id.is_some() { ("id, ", "$12, ") } else { ("", "") };
                let sql = format!(
                    "INSERT INTO work_order_labours ({id_column}society_id, work_order_id, position, campaign_id, \
                     labour_type_id, area_applied, date, pending, executed, confirmed, created_at, updated_at) \
                     VALUES ({id_value}$1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11) RETURNING id"
                );
                let mut insert = sqlx::query_scalar(&sql)
                .bind(society_id).bind(local_id).bind(i64::try_from(position).unwrap_or(i64::MAX))
                .bind(labour.campaign_id).bind(labour.labour_type_id).bind(labour.area_applied)
                .bind(labour.date.timestamp_millis()).bind(pending).bind(executed).bind(confirmed).bind(now);
                if let Some(id) = labour.local_id {
                    insert = insert.bind(id);
                }
                let labour_id: i64 = insert.fetch_one(&mut *tx).await?;
                for (table, column, ids) in [
                    ("work_order_labour_contractors", "contractor_id", &labour.contractor_ids),
                    ("work_order_labour_machines", "machine_id", &labour.machine_ids),
                    ("work_order_labour_applicators", "applicator_id", &labour.applicator_ids),
                ] {
                    for id in ids {
                        sqlx::query(&format!("INSERT INTO {table} (society_id, labour_id, {column}) VALUES ($1, $2, $3)"))
                            .bind(society_id).bind(labour_id).bind(*id).execute(&mut *tx).await?;
                    }
                }
            }
            tx.commit().await?;
            Ok(Ok(local_id))
        })
    }
}
