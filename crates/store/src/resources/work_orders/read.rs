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

use crate::list::{FlagFilter, ListError};
use crate::sql::{Arg, IdSet, Sql};
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
    type Related = ();
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

    fn render(row: WorkOrderRow, _related: (), render: &Render) -> WorkOrderHeader {
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
    }
}

crate::row_by_position! {
    /// One link of a labour: which of its lists ([`LINK_TABLES`]' index), the labour, and the linked row.
    #[derive(Debug)]
    pub(crate) struct LabourLinkRow {
        pub(crate) list: i64,
        pub(crate) labour_id: i64,
        pub(crate) linked_id: i64,
    }
}

pub(crate) const SUPPLY_COLUMNS: &str = "s.id, s.work_order_id, s.campaign_id, s.formulated_id, s.area_applied, \
                              s.total_applied, s.date, s.pending, s.executed, s.confirmed";

pub(crate) const LABOUR_COLUMNS: &str = "l.id, l.work_order_id, l.campaign_id, l.labour_type_id, l.area_applied, \
                              l.date, l.pending, l.executed, l.confirmed";

/// A labour's link lists, in the order a labour answers them: contractors, machines, applicators.
const LINK_TABLES: [(&str, &str); 3] = [
    ("work_order_labour_contractors", "contractor_id"),
    ("work_order_labour_machines", "machine_id"),
    ("work_order_labour_applicators", "applicator_id"),
];

/// The statements that read the links of `labours`, all three lists in one statement.
///
/// A page's labours were written together, so their ids are usually one dense run: then the links are read by the
/// run's id range (see [`IdSet`]), which PostgreSQL answers much sooner than a subquery per labour or a join
/// (docs/performance.md). Scattered ids (lines rewritten since) are read by `IN` lists instead.
pub(crate) fn links_queries(society_id: i64, labours: &[i64]) -> Vec<Sql> {
    IdSet::chunked(labours)
        .iter()
        .map(|set| links_query(society_id, set))
        .collect()
}

/// `SELECT list, labour_id, linked_id` over the three link tables, `labours` completing each `x.labour_id …`.
fn links_query(society_id: i64, labours: &IdSet) -> Sql {
    let mut sql = Sql::default();
    for (list, (table, column)) in LINK_TABLES.iter().enumerate() {
        if list > 0 {
            sql.push(" UNION ALL ");
        }
        sql.push(&format!(
            "SELECT CAST({list} AS BIGINT), x.labour_id, x.{column} FROM {table} x WHERE x.society_id = "
        ))
        .arg(Arg::Int(society_id))
        .push(" AND x.labour_id");
        labours.complete(&mut sql);
    }
    sql
}

/// A page's labour links, one list per link table ([`LINK_TABLES`]), each of `(labour id, linked id)` pairs in order,
/// so that a labour's links are one run found by binary search. A map from each labour to three vectors of its own
/// allocated and hashed for each of a page's thousands of labours was a noticeable part of a sync's work while it
/// read work orders, and of the server's page faults.
#[derive(Debug, Default)]
pub(crate) struct LabourLinks([Vec<(i64, i64)>; 3]);

impl LabourLinks {
    pub(crate) fn new(rows: Vec<LabourLinkRow>) -> Self {
        let mut links = Self::default();
        for row in rows {
            if let Some(list) = usize::try_from(row.list).ok().and_then(|list| links.0.get_mut(list)) {
                list.push((row.labour_id, row.linked_id));
            }
        }
        // The statements read each table in its key's order, so the sort mostly finds a list in order: one pass.
        for list in &mut links.0 {
            list.sort_unstable();
        }
        links
    }

    /// Labour `id`'s contractors, machines and applicators, each in id order.
    fn of(&self, id: i64) -> [Vec<LocalRef>; 3] {
        self.0.each_ref().map(|list| {
            let first = list.partition_point(|&(labour_id, _)| labour_id < id);
            list.get(first..)
                .unwrap_or_default()
                .iter()
                .take_while(|&&(labour_id, _)| labour_id == id)
                .map(|&(_, local_id)| LocalRef { local_id })
                .collect()
        })
    }
}

/// `SELECT <columns> FROM <table> <alias> WHERE <alias>.society_id = $1 AND <alias>.work_order_id …`, the lines of
/// `orders` in their stored order: by the orders' id range when they are a dense run (a page of orders usually is),
/// else by an `IN` list of them ([`IdSet::whole`]: a page's at most 500 orders fit one list).
///
/// The range reads the lines in the order the `(society_id, work_order_id, position)` index holds them, where an `IN`
/// list sorted the whole answer and read many more buffers. The index is unique (migration 20), so no tie is left
/// for a further key to break, and the rows need no sort at all.
pub(crate) fn lines_query(columns: &str, table: &str, alias: &str, society_id: i64, orders: &[i64]) -> Sql {
    let mut sql = Sql::default();
    sql.push(&format!(
        "SELECT {columns} FROM {table} {alias} WHERE {alias}.society_id = "
    ))
    .arg(Arg::Int(society_id));
    sql.push(&format!(" AND {alias}.work_order_id"));
    IdSet::whole(orders).complete(&mut sql);
    sql.push(&format!(" ORDER BY {alias}.work_order_id, {alias}.position"));
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
        let labours: Vec<LabourRow> = self.select_rows(&labours_sql).await?;
        let mut links = Vec::new();
        for sql in links_queries(society_id, &labours.iter().map(|labour| labour.id).collect::<Vec<_>>()) {
            links.extend(self.select_rows::<LabourLinkRow>(&sql).await?);
        }
        Ok(assemble(
            headers,
            supplies,
            labours,
            LabourLinks::new(links),
            &scope.render(),
        ))
    }
}

/// Nests lines under their headers, in the order given (the stored order).
pub(crate) fn assemble(
    headers: Vec<WorkOrderHeader>,
    supplies: Vec<SupplyRow>,
    labours: Vec<LabourRow>,
    links: LabourLinks,
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
        let [contractors, machines, applicators] = links.of(row.id);
        lines.entry(row.work_order_id).or_default().1.push(WorkOrderLabour {
            local_id: row.id,
            cultivation: LocalRef {
                local_id: row.campaign_id,
            },
            labour_type: row.labour_type_id.map(|local_id| LocalRef { local_id }),
            area_applied: row.area_applied,
            contractors,
            machines,
            applicators,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_labour_ids_are_read_by_their_range_and_scattered_ones_by_lists() {
        let dense = links_queries(7, &[12, 10, 11, 14]);
        assert_eq!(dense.len(), 1);
        assert_eq!(dense[0].text.matches("BETWEEN").count(), LINK_TABLES.len());
        assert_eq!(dense[0].args[..3], [Arg::Int(7), Arg::Int(10), Arg::Int(14)]);

        let scattered: Vec<i64> = (0..1_200).map(|n| n * 10).collect();
        let lists = links_queries(7, &scattered);
        assert_eq!(lists.len(), scattered.len().div_ceil(crate::sql::IDS_PER_QUERY));
        assert!(lists.iter().all(|sql| !sql.text.contains("BETWEEN")));
        assert_eq!(
            lists.iter().map(|sql| sql.args.len()).sum::<usize>(),
            LINK_TABLES.len() * (scattered.len() + lists.len())
        );
        assert!(links_queries(7, &[]).is_empty());
    }

    #[test]
    fn a_dense_page_of_orders_reads_its_lines_by_range_and_a_scattered_one_by_list() {
        let dense = lines_query(SUPPLY_COLUMNS, "work_order_supplies", "s", 7, &[21, 20, 23]);
        assert!(
            dense.text.contains("s.work_order_id BETWEEN $2 AND $3 ORDER BY"),
            "{}",
            dense.text
        );
        assert_eq!(dense.args, [Arg::Int(7), Arg::Int(20), Arg::Int(23)]);

        let scattered = lines_query(SUPPLY_COLUMNS, "work_order_supplies", "s", 7, &[3, 40, 900]);
        assert!(
            scattered.text.contains("s.work_order_id IN ($2, $3, $4) ORDER BY"),
            "{}",
            scattered.text
        );
        assert_eq!(scattered.args.len(), 4);
    }

    #[test]
    fn each_labour_gets_its_own_links_in_id_order() {
        let row = |list, labour_id, linked_id| LabourLinkRow {
            list,
            labour_id,
            linked_id,
        };
        let links = LabourLinks::new(vec![
            row(1, 5, 30),
            row(0, 5, 9),
            row(1, 5, 20),
            row(2, 6, 1),
            row(7, 5, 1),
        ]);
        let ids = |refs: &[LocalRef]| refs.iter().map(|r| r.local_id).collect::<Vec<_>>();
        let [contractors, machines, applicators] = links.of(5);
        assert_eq!(
            (ids(&contractors), ids(&machines), ids(&applicators)),
            (vec![9], vec![20, 30], vec![])
        );
        let [_, _, applicators] = links.of(6);
        assert_eq!(ids(&applicators), vec![1]);
        assert!(links.of(4).iter().all(Vec::is_empty), "a labour without links");
        assert!(links.of(7).iter().all(Vec::is_empty), "past the last labour");
    }
}
