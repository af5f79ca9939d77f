//! The later part of a society's season: planting and harvest progress with the controls of each campaign,
//! silobags holding the grain, weather samples with anomalies, and devices with a week of hourly readings.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::Rng;

use super::context::{CampaignRow, Context};
use super::draw::{fixed, planting_start, round2, round_degrees};
use super::places::{crop, Crop, Place};
use super::tables::Season;
use super::{DAY, HOUR};
use crate::SocietySeed;

/// Planting and harvest progress, and the controls of each campaign.
pub(super) fn progress_and_controls(rng: &mut StdRng, society: &SocietySeed, ctx: &Context, season: &mut Season) {
    let society_id = society.society_id;
    for campaign in &ctx.campaigns {
        let profile = crop(&campaign.scientific_name, &campaign.species_name);
        let start = planting_start(campaign, society.origin);
        progress(rng, society_id, campaign, start, &profile, season);
        controls(rng, society_id, ctx, campaign, start, &profile, season);
    }
}

/// A campaign's planting progress from `start`, and its harvest progress when it is harvested.
fn progress(
    rng: &mut StdRng,
    society_id: i64,
    campaign: &CampaignRow,
    start: i64,
    profile: &Crop,
    season: &mut Season,
) {
    let mut day = start;
    let mut percent: f64 = 0.0;
    while percent < 100.0 {
        percent = (percent + rng.gen_range(20.0..55.0)).min(100.0);
        let at = day + rng.gen_range(16..20) * HOUR;
        season.progress.row([
            society_id.into(),
            "planting".into(),
            campaign.id.into(),
            campaign.plot_id.into(),
            at.into(),
            fixed(campaign.area * percent / 100.0, 2).into(),
            fixed(percent, 2).into(),
            None::<f64>.into(),
            None::<f64>.into(),
            at.into(),
            at.into(),
        ]);
        day += rng.gen_range(2..6) * DAY;
    }
    // Most campaigns of the demo's season are harvested; the rest are still in the field.
    if rng.gen_bool(0.8) {
        let mut day = start + profile.days * DAY;
        let mut percent: f64 = 0.0;
        let expected = rng.gen_range(profile.yield_kg_ha.0..profile.yield_kg_ha.1);
        while percent < 100.0 {
            percent = (percent + rng.gen_range(15.0..45.0)).min(100.0);
            let at = day + rng.gen_range(17..21) * HOUR;
            let harvested = expected * rng.gen_range(0.92..1.08);
            let humidity = rng.gen_range(profile.humidity.0..profile.humidity.1);
            season.progress.row([
                society_id.into(),
                "harvest".into(),
                campaign.id.into(),
                campaign.plot_id.into(),
                at.into(),
                fixed(campaign.area * percent / 100.0, 2).into(),
                fixed(percent, 2).into(),
                Some(fixed(harvested, 0)).into(),
                Some(fixed(humidity, 1)).into(),
                at.into(),
                at.into(),
            ]);
            day += rng.gen_range(1..5) * DAY;
        }
    }
}

/// The fertilisation, planting and plant-stand controls of a campaign planted at `start`; some are not made.
fn controls(
    rng: &mut StdRng,
    society_id: i64,
    ctx: &Context,
    campaign: &CampaignRow,
    start: i64,
    profile: &Crop,
    season: &mut Season,
) {
    let unit = |abbreviation: &str| ctx.units.iter().find(|(a, _)| a == abbreviation).map(|(_, id)| *id);
    let seed_product = ctx
        .products
        .iter()
        .filter(|(_, s, _)| *s == Some(campaign.species_id))
        .map(|(id, _, _)| *id)
        .next();
    let fertiliser = {
        let fertilisers: Vec<i64> = ctx
            .products
            .iter()
            .filter(|(_, _, code)| code == "FER" || code == "FEL")
            .map(|(id, _, _)| *id)
            .collect();
        (!fertilisers.is_empty()).then(|| fertilisers[rng.gen_range(0..fertilisers.len())])
    };
    let planned = [
        (
            "fertilization",
            unit("kg/ha"),
            fertiliser,
            rng.gen_range(80.0..220.0_f64).round(),
            start - 2 * DAY,
        ),
        (
            "planting",
            unit("semillas/m"),
            seed_product,
            profile.seeds_per_m,
            start + DAY,
        ),
        (
            "plant_stand",
            unit("plantas/ha"),
            None,
            profile.plants_per_ha,
            start + 25 * DAY,
        ),
    ];
    for (kind, unit_id, product, target, day) in planned {
        let Some(unit_id) = unit_id else { continue };
        if !rng.gen_bool(0.75) {
            continue;
        }
        let measured = target * rng.gen_range(0.85..1.06);
        // Plants are counted: a stand is a whole number per hectare.
        let measured = if target >= 1000.0 { measured.round() } else { measured };
        let at = day + rng.gen_range(9..18) * HOUR;
        season.controls.row([
            society_id.into(),
            kind.into(),
            campaign.id.into(),
            campaign.plot_id.into(),
            at.into(),
            product.into(),
            unit_id.into(),
            fixed(target, 2).into(),
            fixed(measured, 2).into(),
            at.into(),
            at.into(),
        ]);
    }
}

/// Silobags on some establishments, holding the grain of their campaigns: (id, establishment, position) of each.
pub(super) fn silobags(
    rng: &mut StdRng,
    society: &SocietySeed,
    place: &Place,
    ctx: &Context,
    farm_at: &HashMap<i64, (f64, f64)>,
    season: &mut Season,
) -> Vec<(i64, i64, (f64, f64))> {
    let society_id = society.society_id;
    let words = crate::words::words(society.country);
    let origin = society.origin;
    let mut silobags: Vec<(i64, i64, (f64, f64))> = Vec::new();
    if ctx.species.is_empty() {
        return silobags;
    }
    for &establishment in establishments(ctx).iter().step_by(3).take(12) {
        let here: Vec<&CampaignRow> = ctx
            .campaigns
            .iter()
            .filter(|c| c.establishment_id == establishment)
            .collect();
        for n in 0..rng.gen_range(1..=3) {
            let (species_id, harvested) = match here.get(rng.gen_range(0..here.len().max(1))) {
                Some(c) => (c.species_id, Some(*c)),
                None => (ctx.species[rng.gen_range(0..ctx.species.len())], None),
            };
            let farm = farm_at.get(&establishment).copied().unwrap_or(place.centre);
            let position = (farm.0 + rng.gen_range(-0.01..0.01), farm.1 + rng.gen_range(-0.01..0.01));
            let filled = harvested.map_or(origin + 300 * DAY, |c| {
                planting_start(c, origin) + crop(&c.scientific_name, &c.species_name).days * DAY
            }) + rng.gen_range(0..10) * DAY;
            let capacity = if rng.gen_bool(0.7) { 200.0 } else { 250.0 };
            let species_name = harvested.map_or(words.grain, |c| c.species_name.as_str());
            let silobag_id = season.silobag_ids.next();
            let external_code = rng.gen_bool(0.5).then(|| format!("SB-{establishment}-{}", n + 1));
            let closed_at = rng.gen_bool(0.8).then_some(filled + 3 * DAY);
            season.silobags.row([
                silobag_id.into(),
                society_id.into(),
                establishment.into(),
                species_id.into(),
                format!("{} {} - {}", place.silo_word, n + 1, species_name).into(),
                external_code.into(),
                capacity.into(),
                (if capacity > 200.0 { 75.0 } else { 60.0 }).into(),
                round_degrees(position.0).into(),
                round_degrees(position.1).into(),
                closed_at.into(),
                filled.into(),
                filled.into(),
            ]);
            silobags.push((silobag_id, establishment, position));
            let Some(campaign) = harvested else { continue };
            let mut left = capacity * rng.gen_range(0.85..0.99);
            for row in 0..rng.gen_range(1..=2) {
                let quantity = if row == 0 { left * rng.gen_range(0.5..1.0) } else { left };
                left -= quantity;
                let humidity = rng.gen_range(12.0..15.5);
                let semaphore: i64 = if humidity > 14.5 {
                    3
                } else if humidity > 13.5 {
                    2
                } else {
                    1
                };
                let at = filled + i64::from(row) * DAY;
                season.silobag_campaigns.row([
                    society_id.into(),
                    silobag_id.into(),
                    campaign.id.into(),
                    round2(quantity).into(),
                    round2(humidity).into(),
                    semaphore.into(),
                    (if semaphore == 3 { words.silobag_note } else { "" }).into(),
                    at.into(),
                    at.into(),
                ]);
            }
        }
    }
    silobags
}

/// The establishments of the society's live plots, by id.
fn establishments(ctx: &Context) -> Vec<i64> {
    let mut establishments: Vec<i64> = ctx.plots.iter().map(|p| p.establishment_id).collect();
    establishments.sort_unstable();
    establishments.dedup();
    establishments
}

/// Weather samples with the anomalies seen in them.
pub(super) fn weather(rng: &mut StdRng, society: &SocietySeed, place: &Place, ctx: &Context, season: &mut Season) {
    let society_id = society.society_id;
    if ctx.anomaly_types.is_empty() {
        return;
    }
    for plot in ctx.plots.iter().step_by(5).take(30) {
        let date = society.origin + rng.gen_range(10..330) * DAY + rng.gen_range(8..19) * HOUR;
        let (created, updated, deleted, active) = super::draw::audit(rng, date);
        let sample_id = season.sample_ids.next();
        let observations = rng
            .gen_bool(0.4)
            .then(|| place.notes.get(rng.gen_range(0..place.notes.len())).copied())
            .flatten();
        season.samples.row([
            sample_id.into(),
            society_id.into(),
            plot.id.into(),
            date.into(),
            observations.into(),
            active.into(),
            created.into(),
            updated.into(),
            deleted.into(),
        ]);
        for _ in 0..rng.gen_range(1..=2) {
            let (created, updated, deleted, active) = super::draw::audit(rng, date);
            let anomaly_type = ctx.anomaly_types[rng.gen_range(0..ctx.anomaly_types.len())];
            season.anomalies.row([
                society_id.into(),
                anomaly_type.into(),
                sample_id.into(),
                active.into(),
                created.into(),
                updated.into(),
                deleted.into(),
            ]);
        }
    }
}

/// Weather stations on a few establishments and sensors in a few silobags, each with a week of hourly readings.
pub(super) fn devices(
    rng: &mut StdRng,
    society: &SocietySeed,
    place: &Place,
    ctx: &Context,
    farm_at: &HashMap<i64, (f64, f64)>,
    silobags: &[(i64, i64, (f64, f64))],
    season: &mut Season,
) {
    let society_id = society.society_id;
    let words = crate::words::words(society.country);
    let installed = society.origin + 150 * DAY;
    let mut devices: Vec<(i64, &str)> = Vec::new();
    for (n, &establishment) in establishments(ctx).iter().take(3).enumerate() {
        let farm = farm_at.get(&establishment).copied().unwrap_or(place.centre);
        let id = season.device_ids.next();
        let serial = format!("WS-{society_id:02}-{:05}", rng.gen_range(10_000..100_000));
        season.devices.row([
            id.into(),
            society_id.into(),
            establishment.into(),
            None::<i64>.into(),
            format!("{} {}", words.weather_station, n + 1).into(),
            "weather_station".into(),
            serial.into(),
            round_degrees(farm.0).into(),
            round_degrees(farm.1).into(),
            installed.into(),
            installed.into(),
        ]);
        devices.push((id, "weather_station"));
    }
    for (n, &(silobag_id, establishment, position)) in silobags.iter().take(3).enumerate() {
        let id = season.device_ids.next();
        let serial = format!("SBS-{society_id:02}-{:05}", rng.gen_range(10_000..100_000));
        season.devices.row([
            id.into(),
            society_id.into(),
            establishment.into(),
            Some(silobag_id).into(),
            format!("{} {}", words.silobag_sensor, n + 1).into(),
            "silobag_sensor".into(),
            serial.into(),
            round_degrees(position.0).into(),
            round_degrees(position.1).into(),
            installed.into(),
            installed.into(),
        ]);
        devices.push((id, "silobag_sensor"));
    }
    let event_type = |code: &str| ctx.event_types.iter().find(|(c, _)| c == code).map(|(_, id)| *id);
    let start = installed + DAY;
    for (device_id, kind) in &devices {
        let codes: &[&str] = if *kind == "weather_station" {
            &["temperature", "relative_humidity", "rain", "soil_moisture"]
        } else {
            &["temperature", "relative_humidity", "co2"]
        };
        let mut soil: f64 = rng.gen_range(18.0..32.0);
        let mut co2: f64 = rng.gen_range(600.0..1200.0);
        for hour in 0..(7 * 24) {
            let at = start + hour * HOUR;
            // Air temperature peaks mid-afternoon; inside a silobag it barely follows it.
            let phase = ((hour % 24) as f64 - 9.0) / 24.0 * std::f64::consts::TAU;
            let outside = 20.0 + 8.0 * phase.sin() + rng.gen_range(-1.0..1.0);
            let raining = rng.gen_bool(0.04);
            soil = (soil + if raining { rng.gen_range(1.0..4.0) } else { -0.05 }).clamp(8.0, 45.0);
            co2 = (co2 + rng.gen_range(-15.0..20.0)).clamp(400.0, 5000.0);
            for code in codes {
                let Some(type_id) = event_type(code) else { continue };
                let value = match (*code, *kind) {
                    ("temperature", "weather_station") => outside,
                    ("temperature", _) => 18.0 + (outside - 20.0) * 0.15,
                    ("relative_humidity", "weather_station") => (85.0 - (outside - 12.0) * 2.5).clamp(25.0, 100.0),
                    ("relative_humidity", _) => rng.gen_range(60.0..70.0),
                    ("rain", _) => {
                        if raining {
                            rng.gen_range(0.2..12.0)
                        } else {
                            0.0
                        }
                    }
                    ("soil_moisture", _) => soil,
                    _ => co2,
                };
                let created = at + 5 * 60_000;
                season.readings.row([
                    society_id.into(),
                    (*device_id).into(),
                    type_id.into(),
                    at.into(),
                    fixed(value, 2).into(),
                    created.into(),
                    created.into(),
                ]);
            }
        }
    }
}
