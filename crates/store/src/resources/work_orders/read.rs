//! Work orders as reads answer them. They are read in two steps: the generic list pages their headers (so paging,
//! audit filters and state flags behave like every other list), then [`Store::list_work_orders`] loads the page's
//! lines and links in two more queries and nests them under each header. A write answers through the same
//! [`assemble`], from the rows it wrote.

use std::collections::HashMap;

use domain::{AuditFilters, NextPagePolicy, PageRequest};
use wire::work_orders::{
    LocalRef, WorkOrder, WorkOrderExtraFields, WorkOrderHeader, WorkOrderLabour, WorkOrderState, WorkOrderSupply,
};
use wire::Page;

use crate::db::{Arg, Sql};
use crate::list::{parse_ids, FlagFilter, ListError};
use crate::{ListSpec, Render, Resource, Scope, Scoping, Store, StoreError};

crate::row_by_position! {
    /// One work order header row.
    #[derive(Debug)]
    pub struct WorkOrderRow {
        pub(crate) id: i64,
        pub(crate) society_id: i64,
        pub(crate) external_id: Option<String>,
        pub(crate) system_id: String,
        pub(crate) name: String,
        pub(crate) date: i64,
        pub(crate) voucher_date: i64,
        pub(crate) voucher_type_id: i64,
        pub(crate) pending: bool,
        pub(crate) executed: bool,
        pub(crate) confirmed: bool,
        pub(crate) is_read_only: bool,
        pub(crate) active: bool,
        pub(crate) created_at: i64,
        pub(crate) updated_at: i64,
        pub(crate) deleted_at: Option<i64>,
    }
}

/// The headers of `GET /api/v3/third_party/work_orders`; [`Store::list_work_orders`] adds their lines.
pub struct WorkOrderHeaders;

impl Resource for WorkOrderHeaders {
    type Row = WorkOrderRow;

    fn id(row: &WorkOrderRow) -> i64 {
        row.id
    }

    type Item = WorkOrderHeader;
    const SPEC: ListSpec = ListSpec {
        name: "work_orders",
        from: "work_orders t",
        columns: "t.id, t.society_id, t.external_id, t.system_id, t.name, t.date, t.voucher_date, t.voucher_type_id, \
                  t.pending, t.executed, t.confirmed, t.is_read_only, t.active, t.created_at, t.updated_at, \
                  t.deleted_at",
        scoping: Scoping::Society,
        condition: None,
        created: Some("t.created_at"),
        updated: Some("t.updated_at"),
        deleted: Some("t.deleted_at"),
        active: Some("t.active"),
    };

    fn render(row: WorkOrderRow, render: &Render) -> WorkOrderHeader {
        WorkOrderHeader {
            local_id: row.id,
            external_id: row.external_id,
            system_id: row.system_id,
            name: row.name,
            date: render.at(row.date),
            voucher_date: render.at(row.voucher_date),
            state: WorkOrderState {
                pending: row.pending,
                executed: row.executed,
                confirmed: row.confirmed,
            },
            extra_fields: WorkOrderExtraFields {
                company: LocalRef {
                    local_id: row.society_id,
                },
                voucher_type: LocalRef {
                    local_id: row.voucher_type_id,
                },
            },
            is_read_only: row.is_read_only,
            active: row.active,
            created_at: render.at(row.created_at),
            updated_at: render.at(row.updated_at),
            deleted_at: render.at_opt(row.deleted_at),
        }
    }
}

/// The state filters of the work-order list; `None` leaves a flag unfiltered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WorkOrderStateFilter {
    /// Only orders whose `pending` flag is this.
    pub pending: Option<bool>,
    /// Only orders whose `executed` flag is this.
    pub executed: Option<bool>,
    /// Only orders whose `confirmed` flag is this.
    pub confirmed: Option<bool>,
}

impl WorkOrderStateFilter {
    fn flags(self) -> Vec<FlagFilter> {
        [
            ("t.pending", self.pending),
            ("t.executed", self.executed),
            ("t.confirmed", self.confirmed),
        ]
        .into_iter()
        .filter_map(|(column, value)| value.map(|value| FlagFilter { column, value }))
        .collect()
    }
}

crate::row_by_position! {
    #[derive(Debug)]
    pub(crate) struct SupplyRow {
        pub(crate) id: i64,
        pub(crate) work_order_id: i64,
        pub(crate) campaign_id: i64,
        pub(crate) formulated_id: i64,
        pub(crate) area_applied: f64,
        pub(crate) total_applied: f64,
        pub(crate) date: i64,
        pub(crate) pending: bool,
        pub(crate) executed: bool,
        pub(crate) confirmed: bool,
    }
}

crate::row_by_position! {
    #[derive(Debug)]
    pub(crate) struct LabourRow {
        pub(crate) id: i64,
        pub(crate) work_order_id: i64,
        pub(crate) campaign_id: i64,
        pub(crate) labour_type_id: Option<i64>,
        pub(crate) area_applied: f64,
        pub(crate) date: i64,
        pub(crate) pending: bool,
        pub(crate) executed: bool,
        pub(crate) confirmed: bool,
        pub(crate) contractors: Option<String>,
        pub(crate) machines: Option<String>,
        pub(crate) applicators: Option<String>,
    }
}

pub(crate) const SUPPLY_COLUMNS: &str = "s.id, s.work_order_id, s.campaign_id, s.formulated_id, s.area_applied, \
                              s.total_applied, s.date, s.pending, s.executed, s.confirmed";

// Each link list is aggregated per line in the same query, so a page of orders costs three queries in all. The
// aggregates are not ordered in SQL: an ordered aggregate sorts once per line, a quarter of the statement's time on
// PostgreSQL for a sync's page of 500 orders (about 5,000 labours), and [`refs`] puts each list in id order instead.
pub(crate) const LABOUR_COLUMNS: &str =
    "l.id, l.work_order_id, l.campaign_id, l.labour_type_id, l.area_applied, l.date, \
     l.pending, l.executed, l.confirmed, \
     (SELECT string_agg(CAST(x.contractor_id AS TEXT), ',') \
      FROM work_order_labour_contractors x WHERE x.society_id = l.society_id AND x.labour_id = l.id) AS contractors, \
     (SELECT string_agg(CAST(x.machine_id AS TEXT), ',') \
      FROM work_order_labour_machines x WHERE x.society_id = l.society_id AND x.labour_id = l.id) AS machines, \
     (SELECT string_agg(CAST(x.applicator_id AS TEXT), ',') \
      FROM work_order_labour_applicators x WHERE x.society_id = l.society_id AND x.labour_id = l.id) AS applicators";

/// A labour's link list, in id order.
fn refs(list: Option<&str>) -> Vec<LocalRef> {
    let mut ids = parse_ids(list);
    ids.sort_unstable();
    ids.into_iter().map(|local_id| LocalRef { local_id }).collect()
}

/// `SELECT <columns> FROM <table> <alias> WHERE <alias>.society_id = $1 AND <alias>.work_order_id IN (…)`, lines in
/// their stored order.
pub(crate) fn lines_query(columns: &str, table: &str, alias: &str, society_id: i64, orders: &[i64]) -> Sql {
    let mut sql = Sql::default();
    sql.push(&format!(
        "SELECT {columns} FROM {table} {alias} WHERE {alias}.society_id = "
    ))
    .arg(Arg::Int(society_id));
    sql.push(&format!(" AND {alias}.work_order_id IN "))
        .id_list(orders)
        .push(&format!(
            " ORDER BY {alias}.work_order_id, {alias}.position, {alias}.id"
        ));
    sql
}

impl Store {
    /// One page of the caller's work orders, each with its supply and labour lines.
    #[tracing::instrument(skip(self, scope), fields(society = scope.society_id()))]
    pub async fn list_work_orders(
        &self,
        scope: &Scope,
        filters: &AuditFilters,
        state: WorkOrderStateFilter,
        page: PageRequest,
        policy: NextPagePolicy,
    ) -> Result<Page<WorkOrder>, ListError> {
        let headers = self
            .list_flagged::<WorkOrderHeaders>(scope, filters, &state.flags(), page, policy)
            .await?;
        let items = self.with_lines(scope, headers.items).await?;
        Ok(Page {
            items,
            current_page: headers.current_page,
            next_page: headers.next_page,
            total_pages: headers.total_pages,
            total_items: headers.total_items,
        })
    }

    /// One work order of the caller's society with its lines, logically deleted ones included.
    #[tracing::instrument(skip(self, scope), fields(society = scope.society_id()))]
    pub async fn find_work_order(&self, scope: &Scope, id: i64) -> Result<Option<WorkOrder>, StoreError> {
        let Some(header) = self.find::<WorkOrderHeaders>(scope, id).await? else {
            return Ok(None);
        };
        Ok(self.with_lines(scope, vec![header]).await?.pop())
    }

    /// Nests each header's lines under it.
    async fn with_lines(&self, scope: &Scope, headers: Vec<WorkOrderHeader>) -> Result<Vec<WorkOrder>, StoreError> {
        if headers.is_empty() {
            return Ok(Vec::new());
        }
        let society_id = scope.society_id();
        let ids: Vec<i64> = headers.iter().map(|h| h.local_id).collect();
        let supplies_sql = lines_query(SUPPLY_COLUMNS, "work_order_supplies", "s", society_id, &ids);
        let labours_sql = lines_query(LABOUR_COLUMNS, "work_order_labours", "l", society_id, &ids);
        let supplies = self.select_rows(&supplies_sql).await?;
        let labours = self.select_rows(&labours_sql).await?;
        Ok(assemble(headers, supplies, labours, &scope.render()))
    }
}

/// Nests lines under their headers, in the order given (the stored order).
pub(crate) fn assemble(
    headers: Vec<WorkOrderHeader>,
    supplies: Vec<SupplyRow>,
    labours: Vec<LabourRow>,
    render: &Render,
) -> Vec<WorkOrder> {
    let mut lines: HashMap<i64, (Vec<WorkOrderSupply>, Vec<WorkOrderLabour>)> = HashMap::new();
    for row in supplies {
        lines.entry(row.work_order_id).or_default().0.push(WorkOrderSupply {
            local_id: row.id,
            cultivation: LocalRef {
                local_id: row.campaign_id,
            },
            formulated: LocalRef {
                local_id: row.formulated_id,
            },
            area_applied: row.area_applied,
            total_applied: row.total_applied,
            date: render.at(row.date),
            state: WorkOrderState {
                pending: row.pending,
                executed: row.executed,
                confirmed: row.confirmed,
            },
        });
    }
    for row in labours {
        lines.entry(row.work_order_id).or_default().1.push(WorkOrderLabour {
            local_id: row.id,
            cultivation: LocalRef {
                local_id: row.campaign_id,
            },
            labour_type: row.labour_type_id.map(|local_id| LocalRef { local_id }),
            area_applied: row.area_applied,
            contractors: refs(row.contractors.as_deref()),
            machines: refs(row.machines.as_deref()),
            applicators: refs(row.applicators.as_deref()),
            date: render.at(row.date),
            state: WorkOrderState {
                pending: row.pending,
                executed: row.executed,
                confirmed: row.confirmed,
            },
        });
    }
    headers
        .into_iter()
        .map(|header| {
            let (supplies, labours) = lines.remove(&header.local_id).unwrap_or_default();
            WorkOrder {
                header,
                supplies,
                labours,
            }
        })
        .collect()
}
