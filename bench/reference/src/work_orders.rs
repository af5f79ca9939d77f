//! The items of the work-orders list (v3): each order decoded from its row, with its supply and labour lines and each
//! labour's links nested under it, shaped as the API answers them.

use std::collections::HashMap;

use serde::Serialize;

use crate::rows::{Clock, Columns};
use crate::Result;

#[derive(Serialize, Clone, Copy)]
pub(crate) struct LocalRef {
    local_id: i64,
}

#[derive(Serialize)]
pub(crate) struct State {
    pending: bool,
    executed: bool,
    confirmed: bool,
}

#[derive(Serialize)]
pub(crate) struct ExtraFields {
    company: LocalRef,
    voucher_type: LocalRef,
}

#[derive(Serialize)]
pub(crate) struct Header {
    pub(crate) local_id: i64,
    external_id: Option<String>,
    system_id: String,
    name: String,
    date: String,
    voucher_date: String,
    state: State,
    extra_fields: ExtraFields,
    is_read_only: bool,
    active: bool,
    created_at: String,
    updated_at: String,
    deleted_at: Option<String>,
}

#[derive(Serialize)]
pub(crate) struct Supply {
    local_id: i64,
    cultivation: LocalRef,
    formulated: LocalRef,
    area_applied: f64,
    total_applied: f64,
    date: String,
    state: State,
}

#[derive(Serialize)]
pub(crate) struct Labour {
    pub(crate) local_id: i64,
    cultivation: LocalRef,
    labour_type: Option<LocalRef>,
    area_applied: f64,
    contractors: Vec<LocalRef>,
    machines: Vec<LocalRef>,
    applicators: Vec<LocalRef>,
    date: String,
    state: State,
}

#[derive(Serialize)]
pub(crate) struct WorkOrder {
    pub(crate) header: Header,
    supplies: Vec<Supply>,
    labours: Vec<Labour>,
}

pub(crate) fn header(row: &impl Columns, clock: Clock) -> Result<WorkOrder> {
    let header = Header {
        local_id: row.column(0)?,
        external_id: row.column(2)?,
        system_id: row.column(3)?,
        name: row.column(4)?,
        date: clock.at(row.column(5)?),
        voucher_date: clock.at(row.column(6)?),
        state: State {
            pending: row.column(8)?,
            executed: row.column(9)?,
            confirmed: row.column(10)?,
        },
        extra_fields: ExtraFields {
            company: LocalRef {
                local_id: row.column(1)?,
            },
            voucher_type: LocalRef {
                local_id: row.column(7)?,
            },
        },
        is_read_only: row.column(11)?,
        active: row.column(12)?,
        created_at: clock.at(row.column(13)?),
        updated_at: clock.at(row.column(14)?),
        deleted_at: row.column::<Option<i64>>(15)?.map(|at| clock.at(at)),
    };
    Ok(WorkOrder {
        header,
        supplies: Vec::new(),
        labours: Vec::new(),
    })
}

/// A link row: which list, the labour, the linked row.
pub(crate) fn link(row: &impl Columns) -> Result<(i64, i64, i64)> {
    Ok((row.column(0)?, row.column(1)?, row.column(2)?))
}

/// A supply line and the order it belongs to.
pub(crate) fn supply(row: &impl Columns, clock: Clock) -> Result<(i64, Supply)> {
    let supply = Supply {
        local_id: row.column(0)?,
        cultivation: LocalRef {
            local_id: row.column(2)?,
        },
        formulated: LocalRef {
            local_id: row.column(3)?,
        },
        area_applied: row.column(4)?,
        total_applied: row.column(5)?,
        date: clock.at(row.column(6)?),
        state: State {
            pending: row.column(7)?,
            executed: row.column(8)?,
            confirmed: row.column(9)?,
        },
    };
    Ok((row.column(1)?, supply))
}

/// A labour line and the order it belongs to.
pub(crate) fn labour(row: &impl Columns, clock: Clock) -> Result<(i64, Labour)> {
    let labour = Labour {
        local_id: row.column(0)?,
        cultivation: LocalRef {
            local_id: row.column(2)?,
        },
        labour_type: row.column::<Option<i64>>(3)?.map(|local_id| LocalRef { local_id }),
        area_applied: row.column(4)?,
        contractors: Vec::new(),
        machines: Vec::new(),
        applicators: Vec::new(),
        date: clock.at(row.column(5)?),
        state: State {
            pending: row.column(6)?,
            executed: row.column(7)?,
            confirmed: row.column(8)?,
        },
    };
    Ok((row.column(1)?, labour))
}

/// Nests each line under its order, in the order read (the stored order).
pub(crate) fn nest(
    orders: &mut [WorkOrder],
    supplies: impl IntoIterator<Item = Result<(i64, Supply)>>,
    labours: impl IntoIterator<Item = Result<(i64, Labour)>>,
    links: impl IntoIterator<Item = Result<(i64, i64, i64)>>,
) -> Result<()> {
    let mut lists: HashMap<i64, [Vec<i64>; 3]> = HashMap::new();
    for link in links {
        let (list, labour, linked) = link?;
        if let Some(ids) = lists.entry(labour).or_default().get_mut(usize::try_from(list)?) {
            ids.push(linked);
        }
    }
    let position: HashMap<i64, usize> = orders
        .iter()
        .enumerate()
        .map(|(index, order)| (order.header.local_id, index))
        .collect();
    for line in supplies {
        let (order, supply) = line?;
        if let Some(index) = position.get(&order) {
            orders[*index].supplies.push(supply);
        }
    }
    for line in labours {
        let (order, mut labour) = line?;
        let [contractors, machines, applicators] = lists.remove(&labour.local_id).unwrap_or_default().map(|mut ids| {
            ids.sort_unstable();
            ids.into_iter().map(|local_id| LocalRef { local_id }).collect()
        });
        (labour.contractors, labour.machines, labour.applicators) = (contractors, machines, applicators);
        if let Some(index) = position.get(&order) {
            orders[*index].labours.push(labour);
        }
    }
    Ok(())
}
