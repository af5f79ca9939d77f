//! A society's season in the field: the placing of its farms and plots, and the scoutings with their measures and
//! pictures; what it points at is read by [`super::context`], the rest of the season is in [`super::harvest`].

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use store::admin::AdminError;
use store::Store;

use super::context::{context, CampaignRow, Context};
use super::draw::{audit, fixed, planting_start, round2};
use super::harvest::{devices, progress_and_controls, silobags, weather};
use super::places::{crop, place, Place};
use super::tables::Season;
use super::{DAY, GROUP, HOUR};
use crate::SocietySeed;

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
    let pools = Pools {
        pests: of_kind("Plaga"),
        diseases: of_kind("Enfermedad"),
        weeds: of_kind("Maleza"),
        any_adversity: ctx.adversities.iter().map(|(id, _)| *id).collect(),
    };
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
                .unwrap_or(crate::words::words(society.country).scout);
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
            let visit = Visit {
                scouting_id,
                plot_id: plot.id,
                date,
                kind,
                samples,
                audit: (created, updated, deleted, active),
            };
            measures(rng, society_id, &pools, &visit, season);
            pictures(rng, society_id, place, plot_at, &visit, &mut trap_scouting, season);
        }
    }
}

/// The adversities a scouting's measures draw from, by the kind of scouting.
struct Pools {
    pests: Vec<i64>,
    diseases: Vec<i64>,
    weeds: Vec<i64>,
    any_adversity: Vec<i64>,
}

/// A scouting as written, for its measures and pictures.
struct Visit {
    scouting_id: i64,
    plot_id: i64,
    date: i64,
    kind: &'static str,
    /// How many samples it took, numbered from 1.
    samples: i32,
    /// (created_at, updated_at, deleted_at, active).
    audit: (i64, i64, Option<i64>, bool),
}

/// The measures of each sample of `visit`: one or two adversities of its kind.
fn measures(rng: &mut StdRng, society_id: i64, pools: &Pools, visit: &Visit, season: &mut Season) {
    let Pools {
        pests,
        diseases,
        weeds,
        any_adversity,
    } = pools;
    let (scouting_id, kind, samples) = (visit.scouting_id, visit.kind, visit.samples);
    let (created, updated, deleted, active) = visit.audit;
    for sample in 1..=samples {
        let pool_of = match kind {
            "pests" => pests,
            "diseases" => diseases,
            "weeds" => weeds,
            _ => any_adversity,
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
}

/// Pictures of some samples of `visit`, and now and then of a pheromone trap read in the same visit (numbered on from
/// `trap_scouting`).
fn pictures(
    rng: &mut StdRng,
    society_id: i64,
    place: &Place,
    plot_at: &HashMap<i64, (f64, f64)>,
    visit: &Visit,
    trap_scouting: &mut i64,
    season: &mut Season,
) {
    let (scouting_id, date, samples) = (visit.scouting_id, visit.date, visit.samples);
    // Pictures of some samples, and now and then of a pheromone trap read in the same visit.
    for sample in 1..=samples {
        if !rng.gen_bool(0.45) {
            continue;
        }
        let (parent_type, parent_id) = if rng.gen_bool(0.25) {
            *trap_scouting += 1;
            ("trap_scoutings", *trap_scouting)
        } else {
            ("scoutings", scouting_id)
        };
        let at = date + i64::from(sample) * rng.gen_range(2..15) * 60_000;
        let (lat, lon) = plot_at.get(&visit.plot_id).copied().unwrap_or(place.centre);
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
        let url =
            format!("https://storage.tranquera.invalid/societies/{society_id}/{parent_type}/{parent_id}/{file_name}");
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
