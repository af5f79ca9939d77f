//! The items of the plots (v2) and campaigns (v3) lists, decoded from their rows and shaped as the API answers them.

use std::collections::HashMap;

use serde::Serialize;

use crate::rows::{Clock, Columns};
use crate::Result;

#[derive(Serialize)]
pub(crate) struct PlotV2 {
    id: i64,
    name: String,
    area: String,
    external_code: Option<String>,
    farmer_id: i64,
    farmer_name: String,
    establishment_id: i64,
    establishment_name: String,
    created_by_id: Option<i64>,
    created_by_name: Option<String>,
    created_by_lastname: Option<String>,
    created_by_fullname: Option<String>,
    created_at: String,
    tags: String,
}

/// A plot as its page statement reads it, before its establishment and farmer are added.
pub(crate) struct PlotRow {
    id: i64,
    name: String,
    area: f64,
    external_code: Option<String>,
    pub(crate) establishment_id: i64,
    created_by_id: Option<i64>,
    created_by_name: Option<String>,
    created_by_lastname: Option<String>,
    created_by_fullname: Option<String>,
    created_at: i64,
    tags: String,
}

pub(crate) fn plot_row(row: &impl Columns) -> Result<PlotRow> {
    Ok(PlotRow {
        id: row.column(0)?,
        name: row.column(1)?,
        area: row.column(2)?,
        external_code: row.column(3)?,
        establishment_id: row.column(4)?,
        created_by_id: row.column(5)?,
        created_by_name: row.column(6)?,
        created_by_lastname: row.column(7)?,
        created_by_fullname: row.column(8)?,
        created_at: row.column(9)?,
        tags: row.column(10)?,
    })
}

/// An establishment of a page of plots, with its farmer.
pub(crate) struct Owner {
    id: i64,
    name: String,
    farmer_id: i64,
    farmer_name: Option<String>,
}

pub(crate) fn owner(row: &impl Columns) -> Result<Owner> {
    Ok(Owner {
        id: row.column(0)?,
        name: row.column(1)?,
        farmer_id: row.column(2)?,
        farmer_name: row.column(3)?,
    })
}

/// The page's plots with their establishments and farmers; a plot whose establishment or farmer is not read is left
/// out, as the API leaves it out.
pub(crate) fn plots(rows: Vec<PlotRow>, owners: &[Owner], clock: Clock) -> Vec<PlotV2> {
    let owners: HashMap<i64, &Owner> = owners.iter().map(|owner| (owner.id, owner)).collect();
    rows.into_iter()
        .filter_map(|row| {
            let owner = owners.get(&row.establishment_id)?;
            let farmer_name = owner.farmer_name.clone()?;
            Some(PlotV2 {
                id: row.id,
                name: row.name,
                area: format!("{:.2}", row.area),
                external_code: row.external_code,
                farmer_id: owner.farmer_id,
                farmer_name,
                establishment_id: row.establishment_id,
                establishment_name: owner.name.clone(),
                created_by_id: row.created_by_id,
                created_by_name: row.created_by_name,
                created_by_lastname: row.created_by_lastname,
                created_by_fullname: row.created_by_fullname,
                created_at: clock.plain(row.created_at),
                tags: row.tags,
            })
        })
        .collect()
}

#[derive(Serialize)]
pub(crate) struct Campaign {
    id: i64,
    master_campaign_id: i64,
    plot_id: i64,
    name: String,
    external_code: Option<String>,
    area: f64,
    planting_date: Option<String>,
    objective_yield: Option<f64>,
    activity_status_id: Option<i64>,
    active: bool,
    created_at: String,
    updated_at: String,
    deleted_at: Option<String>,
}

pub(crate) fn campaign(row: &impl Columns, clock: Clock) -> Result<Campaign> {
    Ok(Campaign {
        id: row.column(0)?,
        master_campaign_id: row.column(1)?,
        plot_id: row.column(2)?,
        name: row.column(3)?,
        external_code: row.column(4)?,
        area: (row.column::<f64>(5)? * 100.0).round() / 100.0,
        planting_date: row.column(6)?,
        objective_yield: row.column(7)?,
        activity_status_id: row.column(8)?,
        active: row.column(9)?,
        created_at: clock.at(row.column(10)?),
        updated_at: clock.at(row.column(11)?),
        deleted_at: row.column::<Option<i64>>(12)?.map(|at| clock.at(at)),
    })
}
