//! A society's season in the field: what it points at (read once), the placing of its farms and plots, and the
//! scoutings with their measures and pictures; the rest of the season is in [`super::harvest`].

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use store::admin::AdminError;
use store::bulk::Kind;
use store::{Arg, Store};

use super::harvest::{devices, progress_and_controls, silobags, weather};
use super::places::{crop, place, Place};
use super::tables::Season;
use super::{DAY, GROUP, HOUR};
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

/// When a campaign's planting starts: its `planting_date` (else four months into the demo's history), a few days
/// later for some campaigns, as no farm plants every plot on one day.
pub(super) fn planting_start(campaign: &CampaignRow, origin: i64) -> i64 {
    let stagger = campaign.id.rem_euclid(21) * DAY;
    stagger
        + campaign
            .planting_date
            .as_deref()
            .and_then(|d| chrono::NaiveDate::parse_from_str(d.get(..10).unwrap_or(d), "%Y-%m-%d").ok())
            .and_then(|d| d.and_hms_opt(12, 0, 0))
            .map_or(origin + 120 * DAY, |d| d.and_utc().timestamp_millis())
}

pub(super) fn round2(value: f64) -> f64 {
    (value * 100.0).round() / 100.0
}

pub(super) fn round_degrees(value: f64) -> f64 {
    (value * 1_000_000.0).round() / 1_000_000.0
}

/// `value` as written with `decimals` decimals and read back: the number a literal of that text stood for.
pub(super) fn fixed(value: f64, decimals: usize) -> f64 {
    format!("{value:.decimals$}").parse().unwrap_or(value)
}

/// A record's audit: created a little after `date`; a few are inactive, and fewer logically deleted later.
/// Returns (created_at, updated_at, deleted_at, active).
pub(super) fn audit(rng: &mut StdRng, date: i64) -> (i64, i64, Option<i64>, bool) {
    let created = date + rng.gen_range(HOUR..(30 * HOUR));
    if rng.gen_bool(0.02) {
        let deleted = created + rng.gen_range(DAY..(20 * DAY));
        (created, deleted, Some(deleted), true)
    } else if rng.gen_bool(0.04) {
        let updated = created + rng.gen_range(HOUR..(10 * DAY));
        (created, updated, None, false)
    } else {
        (created, created, None, true)
    }
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
async fn context(store: &Store, society: &SocietySeed) -> Result<Context, AdminError> {
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
    let all_plots: HashMap<i64, i64> = read(
        store,
        "plots",
        &[("id", Kind::Int), ("establishment_id", Kind::Int)],
        &society_filter,
    )
    .await?
    .iter()
    .map(|row| (int(row, 0), int(row, 1)))
    .collect();
    let species_rows = read(
        store,
        "species",
        &with_id(&[("name", Kind::Text), ("scientific_name", Kind::Text)]),
        &[],
    )
    .await?;
    let species_by_id: HashMap<i64, (String, String)> = species_rows
        .iter()
        .map(|row| (int(row, 0), (text(row, 2), text(row, 3))))
        .collect();
    let masters: HashMap<i64, i64> = read(
        store,
        "master_campaigns",
        &[("id", Kind::Int), ("species_id", Kind::Int)],
        &society_filter,
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
        &society_filter,
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
    let mut units: Vec<(String, i64)> = Vec::new();
    for row in read(store, "units", &with_id(&[("abbreviation", Kind::Text)]), &[]).await? {
        let abbreviation = text(&row, 2);
        if live(&row, 1) && !units.iter().any(|(a, _)| *a == abbreviation) {
            units.push((abbreviation, int(&row, 0)));
        }
    }
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
        &[("country", society.country.into())],
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

/// Seeds the field group's data of one society.
pub(crate) async fn society(store: &Store, society: &SocietySeed) -> Result<(), AdminError> {
    let mut rng = StdRng::seed_from_u64(society.seed ^ GROUP);
    let place = place(society.country);
    let ctx = context(store, society).await?;
    let mut season = Season::new(store).await?;
    // Each establishment sits somewhere around the country's centre; its plots within a few kilometres.
    let mut farm_at: HashMap<i64, (f64, f64)> = HashMap::new();
    let mut plot_at: HashMap<i64, (f64, f64)> = HashMap::new();
    for plot in &ctx.plots {
        let centre = place.centre;
        let farm = *farm_at
            .entry(plot.establishment_id)
            .or_insert_with(|| (centre.0 + rng.gen_range(-0.6..0.6), centre.1 + rng.gen_range(-0.6..0.6)));
        plot_at.insert(
            plot.id,
            (farm.0 + rng.gen_range(-0.03..0.03), farm.1 + rng.gen_range(-0.03..0.03)),
        );
    }
    scoutings(&mut rng, society, &place, &ctx, &plot_at, &mut season);
    progress_and_controls(&mut rng, society, &ctx, &mut season);
    let silobags = silobags(&mut rng, society, &place, &ctx, &farm_at, &mut season);
    weather(&mut rng, society, &place, &ctx, &mut season);
    devices(&mut rng, society, &place, &ctx, &farm_at, &silobags, &mut season);
    season.write(store).await
}

/// Scoutings, their measures and their pictures.
fn scoutings(
    rng: &mut StdRng,
    society: &SocietySeed,
    place: &Place,
    ctx: &Context,
    plot_at: &HashMap<i64, (f64, f64)>,
    season: &mut Season,
) {
    let society_id = society.society_id;
    let origin = society.origin;
    let of_kind = |kind: &str| -> Vec<i64> {
        ctx.adversities
            .iter()
            .filter(|(_, k)| k == kind)
            .map(|(id, _)| *id)
            .collect()
    };
    let (pests, diseases, weeds) = (of_kind("Plaga"), of_kind("Enfermedad"), of_kind("Maleza"));
    let any_adversity: Vec<i64> = ctx.adversities.iter().map(|(id, _)| *id).collect();
    let mut campaigns_of: HashMap<i64, Vec<&CampaignRow>> = HashMap::new();
    for campaign in &ctx.campaigns {
        campaigns_of.entry(campaign.plot_id).or_default().push(campaign);
    }
    let mut trap_scouting = 1000;
    for plot in &ctx.plots {
        let visits: Vec<(Option<&CampaignRow>, i64, f64)> = match campaigns_of.get(&plot.id) {
            Some(list) => list
                .iter()
                .flat_map(|c| {
                    let start = planting_start(c, origin);
                    let days = crop(&c.scientific_name, &c.species_name).days;
                    (0..3).map(move |v| (Some(*c), start + (15 + v * days / 3) * DAY, v as f64 / 3.0))
                })
                .collect(),
            None => (0..2).map(|v| (None, origin + (30 + v * 90) * DAY, 0.0)).collect(),
        };
        for (campaign, day, progress) in visits {
            let date = day + rng.gen_range(8..18) * HOUR + rng.gen_range(0..60) * 60_000;
            let kind = *["pests", "pests", "diseases", "weeds", "general"]
                .get(rng.gen_range(0..5))
                .unwrap_or(&"general");
            let phenological_state = campaign
                .and_then(|c| ctx.states_of.get(&c.species_id))
                .filter(|states| !states.is_empty())
                .and_then(|states| {
                    let index = ((progress * states.len() as f64) as usize).min(states.len() - 1);
                    states.get(index).copied()
                });
            let hydric_state = (!ctx.hydric.is_empty() && rng.gen_bool(0.9))
                .then(|| ctx.hydric.get(rng.gen_range(0..ctx.hydric.len())).copied())
                .flatten();
            let note = rng
                .gen_bool(0.6)
                .then(|| place.notes.get(rng.gen_range(0..place.notes.len())).copied())
                .flatten();
            let scout = place
                .scouts
                .get(rng.gen_range(0..place.scouts.len()))
                .copied()
                .unwrap_or("Agrónomo");
            let (created, updated, deleted, active) = audit(rng, date);
            let scouting_id = season.scouting_ids.next();
            season.scoutings.row([
                scouting_id.into(),
                society_id.into(),
                plot.id.into(),
                campaign.map(|c| c.id).into(),
                kind.into(),
                date.into(),
                scout.into(),
                phenological_state.into(),
                hydric_state.into(),
                note.into(),
                active.into(),
                created.into(),
                updated.into(),
                deleted.into(),
            ]);
            let samples = rng.gen_range(1..=3);
            for sample in 1..=samples {
                let pool_of = match kind {
                    "pests" => &pests,
                    "diseases" => &diseases,
                    "weeds" => &weeds,
                    _ => &any_adversity,
                };
                if pool_of.is_empty() {
                    continue;
                }
                for _ in 0..rng.gen_range(1..=2) {
                    let adversity = pool_of[rng.gen_range(0..pool_of.len())];
                    let is_pest = pests.contains(&adversity);
                    let is_disease = diseases.contains(&adversity);
                    let incidence = round2(rng.gen_range(0.0..45.0));
                    let severity = is_disease.then(|| round2(incidence * rng.gen_range(0.05..0.6)));
                    let individuals: Option<i64> = is_pest.then(|| rng.gen_range(0..25));
                    season.measures.row([
                        society_id.into(),
                        scouting_id.into(),
                        adversity.into(),
                        i64::from(sample).into(),
                        fixed(incidence, 2).into(),
                        severity.map(|v| fixed(v, 2)).into(),
                        individuals.into(),
                        active.into(),
                        created.into(),
                        updated.into(),
                        deleted.into(),
                    ]);
                }
            }
            // Pictures of some samples, and now and then of a pheromone trap read in the same visit.
            for sample in 1..=samples {
                if !rng.gen_bool(0.45) {
                    continue;
                }
                let (parent_type, parent_id) = if rng.gen_bool(0.25) {
                    trap_scouting += 1;
                    ("trap_scoutings", trap_scouting)
                } else {
                    ("scoutings", scouting_id)
                };
                let at = date + i64::from(sample) * rng.gen_range(2..15) * 60_000;
                let (lat, lon) = plot_at.get(&plot.id).copied().unwrap_or(place.centre);
                let fix = rng.gen_bool(0.95);
                let stamp = chrono::DateTime::from_timestamp_millis(at).unwrap_or_default();
                let file_name = format!("IMG_{}.jpg", stamp.format("%Y%m%d_%H%M%S"));
                let (wp_created, wp_updated, wp_deleted, wp_active) = audit(rng, at);
                let lat = fix.then(|| format!("{:.6}", lat + rng.gen_range(-0.002..0.002)));
                let lon = fix.then(|| format!("{:.6}", lon + rng.gen_range(-0.002..0.002)));
                let accuracy = format!("{:.1}", rng.gen_range(2.0..15.0));
                let observations = rng
                    .gen_bool(0.3)
                    .then(|| place.notes.get(rng.gen_range(0..place.notes.len())).copied())
                    .flatten();
                let url = format!(
                    "https://storage.tranquera.invalid/societies/{society_id}/{parent_type}/{parent_id}/{file_name}"
                );
                season.waypoints.row([
                    society_id.into(),
                    parent_id.into(),
                    parent_type.into(),
                    i64::from(sample).into(),
                    "picture".into(),
                    lat.into(),
                    lon.into(),
                    accuracy.into(),
                    observations.into(),
                    file_name.into(),
                    url.into(),
                    at.into(),
                    wp_active.into(),
                    wp_created.into(),
                    wp_updated.into(),
                    wp_deleted.into(),
                ]);
            }
        }
    }
}
