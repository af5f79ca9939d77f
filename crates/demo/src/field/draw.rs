//! The small rules every record of a season is drawn by: when a campaign's planting starts, how numbers are rounded
//! as the records hold them, and a record's audit (created, updated, perhaps inactive or deleted).

use rand::rngs::StdRng;
use rand::Rng;

use super::context::CampaignRow;
use super::{DAY, HOUR};

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
