//! A work order's events: the order with its lines and links, read and rendered for a payload as its `GET` shows it.

use std::collections::BTreeMap;

use sqlx::{PgConnection, SqliteConnection};

use super::read::{
    assemble, lines_query, links_queries, LabourLinkRow, LabourLinks, LabourRow, SupplyRow, WorkOrderHeaders,
    WorkOrderRow, LABOUR_COLUMNS, SUPPLY_COLUMNS,
};
use crate::events::{encode, records, EventResource, Rendering};
use crate::sql::{bind_args, IDS_PER_QUERY};
use crate::{Render, Resource};

/// A work order's events: a change of its header, a line or a link is the order's.
pub(crate) static WORK_ORDER: EventResource = EventResource {
    name: "work_order",
    tables: &[
        "work_orders",
        "work_order_supplies",
        "work_order_labours",
        "work_order_labour_contractors",
        "work_order_labour_machines",
        "work_order_labour_applicators",
    ],
    sqlite: sqlite::orders,
    postgres: postgres::orders,
};

/// Writes the renderer of one backend.
macro_rules! renderer {
    ($connection:ty) => {
        /// Work orders `ids` with their lines, rendered, by id.
        pub(super) fn orders<'a>(
            conn: &'a mut $connection,
            society_id: i64,
            ids: &'a [i64],
            render: &'a Render,
        ) -> Rendering<'a> {
            Box::pin(async move {
                let mut rendered = BTreeMap::new();
                for chunk in ids.chunks(IDS_PER_QUERY) {
                    let sql = records(&WorkOrderHeaders::SPEC, society_id, chunk);
                    let headers: Vec<_> = bind_args!(sqlx::query_as::<_, WorkOrderRow>(&sql.text), &sql.args)
                        .fetch_all(&mut *conn)
                        .await?
                        .into_iter()
                        .map(|row| WorkOrderHeaders::render(row, (), render))
                        .collect();
                    let supplies_sql = lines_query(SUPPLY_COLUMNS, "work_order_supplies", "s", society_id, chunk);
                    let labours_sql = lines_query(LABOUR_COLUMNS, "work_order_labours", "l", society_id, chunk);
                    let supplies: Vec<SupplyRow> = bind_args!(
                        sqlx::query_as::<_, SupplyRow>(&supplies_sql.text),
                        &supplies_sql.args
                    )
                    .fetch_all(&mut *conn)
                    .await?;
                    let labours: Vec<LabourRow> = bind_args!(
                        sqlx::query_as::<_, LabourRow>(&labours_sql.text),
                        &labours_sql.args
                    )
                    .fetch_all(&mut *conn)
                    .await?;
                    let labour_ids: Vec<i64> = labours.iter().map(|labour| labour.id).collect();
                    let mut links = Vec::new();
                    for sql in links_queries(society_id, &labour_ids) {
                        links.extend(
                            bind_args!(sqlx::query_as::<_, LabourLinkRow>(&sql.text), &sql.args)
                                .fetch_all(&mut *conn)
                                .await?,
                        );
                    }
                    for order in assemble(headers, supplies, labours, LabourLinks::new(links), render) {
                        rendered.insert(
                            order.header.local_id,
                            serde_json::to_string(&order).map_err(encode)?,
                        );
                    }
                }
                Ok(rendered)
            })
        }
    };
}

mod sqlite {
    use super::*;

    renderer!(SqliteConnection);
}

mod postgres {
    use super::*;

    renderer!(PgConnection);
}
