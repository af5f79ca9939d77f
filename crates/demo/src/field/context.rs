//! What a society's season in the field points at, read once: its live plots and campaigns, and the catalogues
//! (adversities, hydric and phenological states, units, products, species, anomaly and device event types) its
//! records draw from.

use std::collections::HashMap;

use store::admin::AdminError;
use store::bulk::Kind;
use store::{Arg, Store};

use crate::rows::{float, int, live, opt_int, opt_text, read, text};
use crate::SocietySeed;

/// A live plot of the society.
pub(super) struct PlotRow {
    pub id: i64,
    pub establishment_id: i64,
}

/// A live campaign of the society, with what its season depends on.
pub(super) struct CampaignRow {
    pub id: i64,
    pub plot_id: i64,
    pub establishment_id: i64,
    pub area: f64,
    pub planting_date: Option<String>,
    pub species_id: i64,
    pub species_name: String,
    pub scientific_name: String,
}

/// The `id` and `deleted_at` columns and `more`, as read from a catalogue.
fn with_id(more: &[(&'static str, Kind)]) -> Vec<(&'static str, Kind)> {
    [("id", Kind::Int), ("deleted_at", Kind::Int)]
        .into_iter()
        .chain(more.iter().copied())
        .collect()
}

/// The catalogues and society records the season points at, as the field group reads them.
pub(super) struct Context {
    pub plots: Vec<PlotRow>,
    pub campaigns: Vec<CampaignRow>,
    /// (adversity id, its kind's name).
    pub adversities: Vec<(i64, String)>,
    pub hydric: Vec<i64>,
    /// Live phenological states of each species, in order of position.
    pub states_of: HashMap<i64, Vec<i64>>,
    /// The first id of each unit abbreviation.
    pub units: Vec<(String, i64)>,
    /// (id, species id, formulation code) of the country's live products.
    pub products: Vec<(i64, Option<i64>, String)>,
    pub species: Vec<i64>,
    pub anomaly_types: Vec<i64>,
    /// (code, id) of the live device event types.
    pub event_types: Vec<(String, i64)>,
}

/// Reads what the season of `society` points at.
pub(super) async fn context(store: &Store, society: &SocietySeed) -> Result<Context, AdminError> {
    let society_filter = [("society_id", Arg::from(society.society_id))];
    let plots: Vec<Vec<Arg>> = read(
        store,
        "plots",
        &with_id(&[("establishment_id", Kind::Int)]),
        &society_filter,
    )
    .await?
    .into_iter()
    .filter(|row| live(row, 1))
    .collect();
    let establishment_of: HashMap<i64, i64> = plots.iter().map(|row| (int(row, 0), int(row, 2))).collect();
    let species_rows = read(
        store,
        "species",
        &with_id(&[
            (crate::words::words(society.country).species_name, Kind::Text),
            ("scientific_name", Kind::Text),
        ]),
        &[],
    )
    .await?;
    let species_by_id: HashMap<i64, (String, String)> = species_rows
        .iter()
        .map(|row| (int(row, 0), (text(row, 2), text(row, 3))))
        .collect();
    let campaigns = campaigns(store, &society_filter, &species_by_id).await?;
    let kinds: HashMap<i64, String> = read(
        store,
        "adversity_kinds",
        &[("id", Kind::Int), ("name", Kind::Text)],
        &[],
    )
    .await?
    .iter()
    .map(|row| (int(row, 0), text(row, 1)))
    .collect();
    let adversities = read(store, "adversities", &with_id(&[("adv_kind_id", Kind::Int)]), &[])
        .await?
        .iter()
        .filter(|row| live(row, 1))
        .filter_map(|row| Some((int(row, 0), kinds.get(&int(row, 2))?.clone())))
        .collect();
    let live_ids =
        |rows: Vec<Vec<Arg>>| -> Vec<i64> { rows.iter().filter(|row| live(row, 1)).map(|row| int(row, 0)).collect() };
    let hydric = live_ids(read(store, "hydric_states", &with_id(&[]), &[]).await?);
    let states_of = states_of(store).await?;
    let mut units: Vec<(String, i64)> = Vec::new();
    for row in read(store, "units", &with_id(&[("abbreviation", Kind::Text)]), &[]).await? {
        let abbreviation = text(&row, 2);
        if live(&row, 1) && !units.iter().any(|(a, _)| *a == abbreviation) {
            units.push((abbreviation, int(&row, 0)));
        }
    }
    let products = products(store, society.country).await?;
    let species = species_rows
        .iter()
        .filter(|row| live(row, 1))
        .map(|row| int(row, 0))
        .collect();
    let anomaly_types = live_ids(read(store, "weather_anomaly_types", &with_id(&[]), &[]).await?);
    let event_types = read(store, "device_event_types", &with_id(&[("code", Kind::Text)]), &[])
        .await?
        .iter()
        .filter(|row| live(row, 1))
        .map(|row| (text(row, 2), int(row, 0)))
        .collect();
    let plots = plots
        .iter()
        .map(|row| PlotRow {
            id: int(row, 0),
            establishment_id: establishment_of.get(&int(row, 0)).copied().unwrap_or_default(),
        })
        .collect();
    Ok(Context {
        plots,
        campaigns,
        adversities,
        hydric,
        states_of,
        units,
        products,
        species,
        anomaly_types,
        event_types,
    })
}

/// The society's live campaigns, each with its plot's establishment and its master campaign's species.
async fn campaigns(
    store: &Store,
    society_filter: &[(&str, Arg)],
    species_by_id: &HashMap<i64, (String, String)>,
) -> Result<Vec<CampaignRow>, AdminError> {
    let all_plots: HashMap<i64, i64> = read(
        store,
        "plots",
        &[("id", Kind::Int), ("establishment_id", Kind::Int)],
        society_filter,
    )
    .await?
    .iter()
    .map(|row| (int(row, 0), int(row, 1)))
    .collect();
    let masters: HashMap<i64, i64> = read(
        store,
        "master_campaigns",
        &[("id", Kind::Int), ("species_id", Kind::Int)],
        society_filter,
    )
    .await?
    .iter()
    .map(|row| (int(row, 0), int(row, 1)))
    .collect();
    let campaigns = read(
        store,
        "campaigns",
        &with_id(&[
            ("plot_id", Kind::Int),
            ("area", Kind::Float),
            ("planting_date", Kind::Text),
            ("master_campaign_id", Kind::Int),
        ]),
        society_filter,
    )
    .await?
    .iter()
    .filter(|row| live(row, 1))
    .filter_map(|row| {
        let plot_id = int(row, 2);
        let establishment_id = *all_plots.get(&plot_id)?;
        let species_id = *masters.get(&int(row, 5))?;
        let (species_name, scientific_name) = species_by_id.get(&species_id)?.clone();
        Some(CampaignRow {
            id: int(row, 0),
            plot_id,
            establishment_id,
            area: float(row, 3),
            planting_date: opt_text(row, 4),
            species_id,
            species_name,
            scientific_name,
        })
    })
    .collect();
    Ok(campaigns)
}

/// The live phenological states of each species, in order of position.
async fn states_of(store: &Store) -> Result<HashMap<i64, Vec<i64>>, AdminError> {
    let mut phenological: Vec<(i64, i64, i64)> = read(
        store,
        "phenological_states",
        &with_id(&[("species_id", Kind::Int), ("position", Kind::Int)]),
        &[],
    )
    .await?
    .iter()
    .filter(|row| live(row, 1))
    .map(|row| (int(row, 2), int(row, 3), int(row, 0)))
    .collect();
    phenological.sort_unstable();
    let mut states_of: HashMap<i64, Vec<i64>> = HashMap::new();
    for (species_id, _, id) in phenological {
        states_of.entry(species_id).or_default().push(id);
    }
    Ok(states_of)
}

/// (id, species id, formulation code) of the live products of `country`.
async fn products(store: &Store, country: &str) -> Result<Vec<(i64, Option<i64>, String)>, AdminError> {
    let formulations: HashMap<i64, String> = read(
        store,
        "formulation_types",
        &[("id", Kind::Int), ("code", Kind::Text)],
        &[],
    )
    .await?
    .iter()
    .map(|row| (int(row, 0), text(row, 1)))
    .collect();
    let products = read(
        store,
        "formulateds",
        &with_id(&[("species_id", Kind::Int), ("formulation_type_id", Kind::Int)]),
        &[("country", country.into())],
    )
    .await?
    .iter()
    .filter(|row| live(row, 1))
    .filter_map(|row| {
        Some((
            int(row, 0),
            opt_int(row, 2),
            formulations.get(&opt_int(row, 3)?)?.clone(),
        ))
    })
    .collect();
    Ok(products)
}
