//! The rows a work-order write stores: its lines and their links as multi-row `INSERT`s of one batch, and the rows a
//! read of the order just written would find, from which the write answers without reading back.

use chrono::{DateTime, Utc};
use domain::work_orders::{LabourLine, StateFlags, WorkOrderCommand};

use super::read::{LabourLinkRow, LabourLinks, LabourRow, SupplyRow, WorkOrderRow};
use crate::sql::{Arg, Batch};

/// Rows of one multi-row `INSERT` of lines: 13 values a row keeps a statement far within both backends' limits.
const LINES_PER_INSERT: usize = 100;

/// Where the lines of an order go: its society, its id, and when they are written.
pub(super) struct Order {
    pub society_id: i64,
    pub id: i64,
    pub now: i64,
}

/// What a stored order keeps of itself when it is replaced.
pub(super) struct Kept {
    pub active: bool,
    pub created_at: i64,
}

/// Adds to `batch` every line of `command` and its links, with the ids `supply_ids` and `labour_ids` hold by position.
pub(super) fn line_inserts_of(
    batch: &mut Batch,
    command: &WorkOrderCommand,
    order: &Order,
    supply_ids: &[i64],
    labour_ids: &[i64],
) {
    supply_inserts(batch, command, supply_ids, order);
    labour_inserts(batch, command, labour_ids, order);
    labour_link_inserts(batch, command, order.society_id, labour_ids);
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
    order: &Order,
) {
    let Order {
        society_id,
        id: order_id,
        now,
    } = *order;
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
fn supply_inserts(batch: &mut Batch, command: &WorkOrderCommand, supply_ids: &[i64], order: &Order) {
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
    line_row_inserts(batch, "work_order_supplies", own_columns, rows, order);
}

/// Adds to `batch` the statements that insert the labours of `command` into order `order_id`, with the ids
/// `labour_ids` holds by position.
fn labour_inserts(batch: &mut Batch, command: &WorkOrderCommand, labour_ids: &[i64], order: &Order) {
    let rows = command.labours.iter().zip(labour_ids).map(|(labour, id)| LineRow {
        id: *id,
        campaign_id: labour.campaign_id,
        own: vec![Arg::OptionalInt(labour.labour_type_id), Arg::Float(labour.area_applied)],
        date: labour.date,
        state: labour.state,
    });
    let own_columns = "labour_type_id, area_applied";
    line_row_inserts(batch, "work_order_labours", own_columns, rows, order);
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

/// The rows a read of the order just written would find: the write knows every value, so its answer is made from
/// them rather than read back, through the same rendering as a read.
pub(super) fn written_rows(
    command: &WorkOrderCommand,
    ids: (i64, &[i64], &[i64]),
    society_id: i64,
    external_id: Option<&str>,
    kept: &Kept,
    version: i64,
) -> (WorkOrderRow, Vec<SupplyRow>, Vec<LabourRow>, LabourLinks) {
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
    let mut links = Vec::new();
    for (labour, id) in command.labours.iter().zip(labour_ids) {
        let lists = [&labour.contractor_ids, &labour.machine_ids, &labour.applicator_ids];
        for (list, linked) in (0..).zip(lists) {
            links.extend(linked.iter().map(|linked_id| LabourLinkRow {
                list,
                labour_id: *id,
                linked_id: *linked_id,
            }));
        }
    }
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
        })
        .collect();
    (header, supplies, labours, LabourLinks::new(links))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sql::Dialect;

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
}
