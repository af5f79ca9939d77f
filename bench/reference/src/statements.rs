//! The statements the API runs for a page of each list, with their arguments: the page itself, a page of plots'
//! establishments, and a page of work orders' lines and their labours' links.

use std::fmt::Write as _;

use crate::lists::PlotRow;

pub(crate) const PLOTS: &str =
    "SELECT t.id, t.name, t.area, t.external_code, t.establishment_id, u.id, u.name, u.lastname, \
     TRIM(u.name || ' ' || COALESCE(u.lastname, '')), t.created_at, t.tags_json \
     FROM plots t LEFT JOIN users u ON u.society_id = t.society_id AND u.id = t.created_by \
     WHERE 1 = 1 AND t.society_id = $1 AND t.deleted_at IS NULL AND t.id >= $2 AND t.id < $3 ORDER BY t.id LIMIT $4";

/// A page of plots' establishments, each with its farmer's name (`NULL` when the farmer is not found), completed by
/// [`owners_statement`].
pub(crate) const OWNERS: &str =
    "SELECT e.id, e.name, e.farmer_id, (SELECT TRIM(f.name || ' ' || COALESCE(f.lastname, '')) \
     FROM farmers f WHERE f.society_id = e.society_id AND f.id = e.farmer_id) FROM establishments e \
     WHERE e.society_id = $1 AND e.id";

pub(crate) const CAMPAIGNS: &str =
    "SELECT t.id, t.master_campaign_id, t.plot_id, t.name, t.external_code, t.area, t.planting_date, \
     t.objective_yield, t.activity_status_id, t.active, t.created_at, t.updated_at, t.deleted_at FROM campaigns t \
     WHERE 1 = 1 AND t.society_id = $1 AND t.deleted_at IS NULL AND t.id >= $2 AND t.id < $3 ORDER BY t.id LIMIT $4";

pub(crate) const WORK_ORDERS: &str =
    "SELECT t.id, t.society_id, t.external_id, t.system_id, t.name, t.date, t.voucher_date, \
     t.voucher_type_id, t.pending, t.executed, t.confirmed, t.is_read_only, t.active, t.created_at, t.updated_at, \
     t.deleted_at FROM work_orders t \
     WHERE 1 = 1 AND t.society_id = $1 AND t.deleted_at IS NULL AND t.id >= $2 AND t.id < $3 ORDER BY t.id LIMIT $4";

pub(crate) const SUPPLIES: &str =
    "SELECT s.id, s.work_order_id, s.campaign_id, s.formulated_id, s.area_applied, s.total_applied, \
     s.date, s.pending, s.executed, s.confirmed FROM work_order_supplies s \
     WHERE s.society_id = $1 AND s.work_order_id IN ";

pub(crate) const LABOURS: &str =
    "SELECT l.id, l.work_order_id, l.campaign_id, l.labour_type_id, l.area_applied, l.date, \
     l.pending, l.executed, l.confirmed FROM work_order_labours l WHERE l.society_id = $1 AND l.work_order_id IN ";

/// A labour's link lists, in the order it answers them.
pub(crate) const LINK_TABLES: [(&str, &str); 3] = [
    ("work_order_labour_contractors", "contractor_id"),
    ("work_order_labour_machines", "machine_id"),
    ("work_order_labour_applicators", "applicator_id"),
];

/// The statement and arguments that read the links of `labours` as the API's does: by the ids' range when they are
/// dense, by an `IN` list otherwise (one statement: a page of 100 orders has fewer labours than the API's chunk).
pub(crate) fn links_statement(society: i64, labours: &[i64]) -> Option<(String, Vec<i64>)> {
    let (low, high) = (*labours.iter().min()?, *labours.iter().max()?);
    let dense = high - low < 2 * labours.len() as i64;
    let mut sql = String::new();
    let mut arguments = Vec::new();
    for (list, (table, column)) in LINK_TABLES.iter().enumerate() {
        if list > 0 {
            sql.push_str(" UNION ALL ");
        }
        arguments.push(society);
        let _ = write!(
            sql,
            "SELECT CAST({list} AS BIGINT), x.labour_id, x.{column} FROM {table} x WHERE x.society_id = ${} AND x.labour_id",
            arguments.len()
        );
        let ids: &[i64] = if dense { &[low, high] } else { labours };
        let first = arguments.len() + 1;
        arguments.extend_from_slice(ids);
        let placeholders: Vec<String> = (first..=arguments.len()).map(|n| format!("${n}")).collect();
        if dense {
            let _ = write!(sql, " BETWEEN {} AND {}", placeholders[0], placeholders[1]);
        } else {
            let _ = write!(sql, " IN ({})", placeholders.join(", "));
        }
    }
    Some((sql, arguments))
}

/// The statement and arguments that read the establishments of a page of plots as the API's does: by the ids' range
/// when they are dense, by an `IN` list padded to a power of two otherwise.
pub(crate) fn owners_statement(society: i64, plots: &[PlotRow]) -> Option<(String, Vec<i64>)> {
    let mut ids: Vec<i64> = plots.iter().map(|plot| plot.establishment_id).collect();
    ids.sort_unstable();
    ids.dedup();
    let (low, high) = (*ids.first()?, *ids.last()?);
    if high - low < 2 * ids.len() as i64 {
        return Some((format!("{OWNERS} BETWEEN $2 AND $3"), vec![society, low, high]));
    }
    let width = ids.len().next_power_of_two();
    ids.resize(width, high);
    let placeholders: Vec<String> = (2..width + 2).map(|n| format!("${n}")).collect();
    let sql = format!("{OWNERS} IN ({})", placeholders.join(", "));
    Some((sql, std::iter::once(society).chain(ids).collect()))
}

/// A page's lines statement, `IN ($2, $3, …)` and the order, as the API writes the statements for a page's lines.
pub(crate) fn lines_statement(select: &str, alias: &str, orders: usize) -> String {
    let placeholders: Vec<String> = (2..orders + 2).map(|n| format!("${n}")).collect();
    format!(
        "{select}({}) ORDER BY {alias}.work_order_id, {alias}.position, {alias}.id",
        placeholders.join(", ")
    )
}

/// The statement that reads a list's page (the headers, for work orders).
pub(crate) fn list_statement(list: &str) -> &'static str {
    match list {
        "plots" => PLOTS,
        "campaigns" => CAMPAIGNS,
        _ => WORK_ORDERS,
    }
}

pub(crate) fn ids_statement(table: &str) -> String {
    format!("SELECT t.id FROM {table} t WHERE t.society_id = $1 AND t.deleted_at IS NULL ORDER BY t.id")
}

pub(crate) fn table(list: &str) -> &'static str {
    match list {
        "plots" => "plots",
        "campaigns" => "campaigns",
        _ => "work_orders",
    }
}
