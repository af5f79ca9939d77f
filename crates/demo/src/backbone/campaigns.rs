//! Each society's planning: master campaigns per cycle, a campaign per plot and master campaign, and the
//! cultivation (sown variety) of each campaign.

use std::collections::HashMap;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use store::admin::AdminError;
use store::bulk::Kind;
use store::{Arg, Store};

use crate::rows::{float, int, opt_int, read, text, Ids, Table};
use crate::SocietySeed;

/// Master campaigns per country: (country, name, species, planting time, cycle, objective yield t/ha); the
/// catalogues are named by their reference keys.
#[rustfmt::skip] // One master campaign a line reads as the table it is.
const MASTER_CAMPAIGNS: &[(&str, &str, &str, &str, &str, f64)] = &[
    ("AR", "Soja 1ra 24/25", "soja", "ar.planting.primera", "ar.cycle.2024-2025", 3.3),
    ("AR", "Soja 2da 24/25", "soja", "ar.planting.segunda", "ar.cycle.2024-2025", 2.4),
    ("AR", "Maíz temprano 24/25", "maiz", "ar.planting.temprana", "ar.cycle.2024-2025", 9.5),
    ("AR", "Maíz tardío 24/25", "maiz", "ar.planting.tardia", "ar.cycle.2024-2025", 7.8),
    ("AR", "Girasol 24/25", "girasol", "ar.planting.primera", "ar.cycle.2024-2025", 2.3),
    ("AR", "Trigo 2025", "trigo", "ar.planting.invierno", "ar.cycle.2025-2026", 3.6),
    ("AR", "Soja 1ra 25/26", "soja", "ar.planting.primera", "ar.cycle.2025-2026", 3.3),
    ("AR", "Maíz temprano 25/26", "maiz", "ar.planting.temprana", "ar.cycle.2025-2026", 9.5),
    ("BR", "Soja safra 24/25", "soja", "br.planting.safra", "br.cycle.safra-2024-25", 3.7),
    ("BR", "Milho safrinha 2025", "maiz", "br.planting.safrinha", "br.cycle.safrinha-2025", 6.0),
    ("BR", "Algodão safra 24/25", "algodon", "br.planting.safra", "br.cycle.safra-2024-25", 4.6),
    ("BR", "Soja safra 25/26", "soja", "br.planting.safra", "br.cycle.safra-2025-26", 3.7),
    ("MX", "Maíz PV 2025 temporal", "maiz", "mx.planting.temporal", "mx.cycle.pv-2025", 3.2),
    ("MX", "Maíz OI 2024-2025 riego", "maiz", "mx.planting.riego", "mx.cycle.oi-2024-2025", 9.8),
    ("MX", "Sorgo PV 2025", "sorgo", "mx.planting.temporal", "mx.cycle.pv-2025", 5.2),
    ("MX", "Frijol PV 2025", "frijol", "mx.planting.temporal", "mx.cycle.pv-2025", 1.1),
    ("MX", "Trigo OI 2024-2025", "trigo", "mx.planting.riego", "mx.cycle.oi-2024-2025", 6.1),
    ("PY", "Soja zafra 24/25", "soja", "py.planting.zafra", "py.cycle.zafra-2024-25", 3.0),
    ("PY", "Maíz zafriña 2025", "maiz", "py.planting.zafrina", "py.cycle.zafrina-2025", 5.6),
    ("PY", "Trigo 2025", "trigo", "py.planting.invierno", "py.cycle.invierno-2025", 2.6),
    ("PY", "Soja zafra 25/26", "soja", "py.planting.zafra", "py.cycle.zafra-2025-26", 3.0),
    ("BO", "Soya verano 2024/2025", "soja", "bo.planting.verano", "bo.cycle.verano-2024-2025", 2.5),
    ("BO", "Soya invierno 2025", "soja", "bo.planting.invierno", "bo.cycle.invierno-2025", 1.9),
    ("BO", "Trigo invierno 2025", "trigo", "bo.planting.invierno", "bo.cycle.invierno-2025", 1.7),
    ("BO", "Soya verano 2025/2026", "soja", "bo.planting.verano", "bo.cycle.verano-2025-2026", 2.5),
    ("CO", "Arroz 2024-B", "arroz", "co.planting.semestre-b", "co.cycle.2024-b", 5.8),
    ("CO", "Maíz tecnificado 2025-A", "maiz", "co.planting.semestre-a", "co.cycle.2025-a", 5.6),
    ("CO", "Soya altillanura 2025-A", "soja", "co.planting.semestre-a", "co.cycle.2025-a", 2.6),
    ("CO", "Arroz 2025-A", "arroz", "co.planting.semestre-a", "co.cycle.2025-a", 5.8),
    ("UY", "Soja 1ra 24/25", "soja", "uy.planting.primera", "uy.cycle.verano-2024-25", 2.6),
    ("UY", "Maíz 1ra 24/25", "maiz", "uy.planting.primera", "uy.cycle.verano-2024-25", 8.0),
    ("UY", "Arroz 24/25", "arroz", "uy.planting.primera", "uy.cycle.verano-2024-25", 9.0),
    ("UY", "Trigo 2025", "trigo", "uy.planting.invierno", "uy.cycle.invierno-2025", 4.0),
    ("UY", "Cebada 2025", "cebada", "uy.planting.invierno", "uy.cycle.invierno-2025", 4.4),
    ("UY", "Soja 2da 25/26", "soja", "uy.planting.segunda", "uy.cycle.verano-2025-26", 2.2),
    ("VE", "Arroz norte-verano 2024-2025", "arroz", "ve.planting.norte-verano", "ve.cycle.norte-verano-2024-2025", 5.0),
    ("VE", "Maíz invierno 2025", "maiz", "ve.planting.invierno", "ve.cycle.invierno-2025", 4.5),
    ("VE", "Arroz invierno 2025", "arroz", "ve.planting.invierno", "ve.cycle.invierno-2025", 4.6),
    ("VE", "Sorgo invierno 2025", "sorgo", "ve.planting.invierno", "ve.cycle.invierno-2025", 2.8),
];

/// A plot of the society, as its campaigns need it.
struct PlotRow {
    id: i64,
    area: f64,
    created_at: i64,
}

/// Ids by reference key.
type ByKey = HashMap<String, i64>;

/// A master campaign of the society and what its campaigns need.
struct Planning {
    id: i64,
    name: &'static str,
    objective_yield: f64,
    varieties: Vec<i64>,
    planting_date: String,
}

/// The ids of the shipped rows of `table`, by reference key; `filters` as in [`read`].
async fn by_key(store: &Store, table: &str, filters: &[(&str, Arg)]) -> Result<ByKey, AdminError> {
    let rows = read(
        store,
        table,
        &[("id", Kind::Int), ("reference_key", Kind::Text)],
        filters,
    )
    .await?;
    Ok(rows.iter().map(|row| (text(row, 1), int(row, 0))).collect())
}

/// Seeds a society's master campaigns, a campaign per plot for one or two of them, and each campaign's cultivation.
///
/// Cultivations are numbered after the society's last campaign, so that no cultivation of a society has the id of
/// one of its campaigns: a client that sends a cultivation's id where a campaign's is due (`cultivation.local_id` of a
/// work-order line) then fails in the sandbox as it would in production, instead of hitting a campaign by chance.
pub(crate) async fn society(store: &Store, society: &SocietySeed) -> Result<(), AdminError> {
    let mut rng = StdRng::seed_from_u64(society.seed ^ 0x4241_434b);
    let society_id = society.society_id;
    let plots: Vec<PlotRow> = read(
        store,
        "plots",
        &[("id", Kind::Int), ("area", Kind::Float), ("created_at", Kind::Int)],
        &[("society_id", society_id.into())],
    )
    .await?
    .iter()
    .map(|row| PlotRow {
        id: int(row, 0),
        area: float(row, 1),
        created_at: int(row, 2),
    })
    .collect();
    let created = society.origin + 45 * 24 * 3_600_000;
    let (masters, plans) = masters(store, society, created).await?;
    let statuses: Vec<i64> = read(store, "activity_statuses", &[("id", Kind::Int)], &[])
        .await?
        .iter()
        .map(|row| int(row, 0))
        .collect();
    let mut campaign_ids = Ids::of(store, "campaigns").await?;
    let mut campaigns = Table::new(
        "campaigns",
        &[
            "id",
            "society_id",
            "master_campaign_id",
            "plot_id",
            "activity_status_id",
            "name",
            "external_code",
            "area",
            "planting_date",
            "objective_yield",
            "created_at",
            "updated_at",
        ],
    );
    // Cultivation rows wait for their ids until the society's last campaign id is known.
    let mut sown: Vec<[Arg; 6]> = Vec::new();
    let mut campaign_number = 0;
    for plot in &plots {
        // A plot carries one or two campaigns: a summer crop, sometimes preceded by a winter one.
        let count = if rng.gen_bool(0.35) { 2 } else { 1 };
        let first = rng.gen_range(0..plans.len().max(1));
        for offset in 0..count {
            let Some(plan) = plans.get((first + offset * 3) % plans.len().max(1)) else {
                continue;
            };
            campaign_number += 1;
            let area = (plot.area * rng.gen_range(0.85..=1.0) * 100.0).round() / 100.0;
            let at = plot.created_at.max(created) + i64::from(campaign_number) * 60_000;
            let status = statuses.get(rng.gen_range(0..statuses.len().max(1))).copied();
            let campaign_id = campaign_ids.next();
            let objective_yield = (plan.objective_yield * rng.gen_range(0.9..1.1) * 100.0).round() / 100.0;
            campaigns.row([
                campaign_id.into(),
                society_id.into(),
                plan.id.into(),
                plot.id.into(),
                status.into(),
                plan.name.into(),
                format!("CMP-{campaign_number:06}").into(),
                area.into(),
                plan.planting_date.clone().into(),
                objective_yield.into(),
                at.into(),
                at.into(),
            ]);
            // A campaign still being planned has nothing sown yet, so no cultivation row.
            let is_sown = status != statuses.first().copied();
            if let Some(variety) = plan
                .varieties
                .get(rng.gen_range(0..plan.varieties.len().max(1)))
                .filter(|_| is_sown)
            {
                sown.push([
                    society_id.into(),
                    plot.id.into(),
                    campaign_id.into(),
                    (*variety).into(),
                    area.into(),
                    at.into(),
                ]);
            }
        }
    }
    let cultivations = cultivations(store, sown, campaign_ids.peek()).await?;
    masters.write(store).await?;
    campaigns.write(store).await?;
    cultivations.write(store).await?;
    Ok(())
}

/// The society's master campaigns of its country, created at `created`: their rows, and what each one's campaigns
/// need.
async fn masters(store: &Store, society: &SocietySeed, created: i64) -> Result<(Table, Vec<Planning>), AdminError> {
    let society_id = society.society_id;
    let species = by_key(store, "species", &[]).await?;
    let cycles: HashMap<String, (i64, String)> = read(
        store,
        "master_campaign_cycles",
        &[
            ("id", Kind::Int),
            ("reference_key", Kind::Text),
            ("start_date", Kind::Text),
        ],
        &[("country", society.country.into())],
    )
    .await?
    .iter()
    .map(|row| (text(row, 1), (int(row, 0), text(row, 2))))
    .collect();
    let times = by_key(store, "planting_times", &[("country", society.country.into())]).await?;
    let varieties: Vec<(i64, i64)> = read(
        store,
        "formulateds",
        &[("id", Kind::Int), ("species_id", Kind::Int)],
        &[("country", society.country.into())],
    )
    .await?
    .iter()
    .filter_map(|row| opt_int(row, 1).map(|species_id| (int(row, 0), species_id)))
    .collect();
    let mut master_ids = Ids::of(store, "master_campaigns").await?;
    let mut masters = Table::new(
        "master_campaigns",
        &[
            "id",
            "society_id",
            "name",
            "species_id",
            "planting_time_id",
            "cycle_id",
            "created_at",
            "updated_at",
        ],
    );
    let mut plans = Vec::new();
    for (_, name, species_key, time, cycle, objective) in MASTER_CAMPAIGNS.iter().filter(|m| m.0 == society.country) {
        let (Some(species_id), Some(time_id), Some((cycle_id, cycle_start))) =
            (species.get(*species_key), times.get(*time), cycles.get(*cycle))
        else {
            continue;
        };
        let id = master_ids.next();
        masters.row([
            id.into(),
            society_id.into(),
            (*name).into(),
            (*species_id).into(),
            (*time_id).into(),
            (*cycle_id).into(),
            created.into(),
            created.into(),
        ]);
        plans.push(Planning {
            id,
            name,
            objective_yield: *objective,
            varieties: varieties
                .iter()
                .filter(|(_, s)| s == species_id)
                .map(|(id, _)| *id)
                .collect(),
            planting_date: planting_date(cycle_start, society.country),
        });
    }
    Ok((masters, plans))
}

/// The cultivations of the campaigns `sown`, numbered from the first id after both the table's and the society's
/// campaigns (`after_campaigns`).
async fn cultivations(store: &Store, sown: Vec<[Arg; 6]>, after_campaigns: i64) -> Result<Table, AdminError> {
    let next_cultivation = store.next_id("cultivations").await?;
    let mut cultivation_ids = Ids::from(next_cultivation.max(after_campaigns));
    let mut cultivations = Table::new(
        "cultivations",
        &[
            "id",
            "society_id",
            "plot_id",
            "campaign_id",
            "formulated_id",
            "area",
            "created_at",
            "updated_at",
        ],
    );
    for [society, plot, campaign, variety, area, at] in sown {
        cultivations.row([
            cultivation_ids.next().into(),
            society,
            plot,
            campaign,
            variety,
            area,
            at.clone(),
            at,
        ]);
    }
    Ok(cultivations)
}

/// A sowing date typical of the cycle: spring sowing in Argentina and Brazil, the middle of the cycle's first month
/// elsewhere.
fn planting_date(cycle_start: &str, country: &str) -> String {
    let year = cycle_start.get(..4).unwrap_or("2025");
    match country {
        "AR" => format!("{year}-10-15"),
        "BR" => format!("{year}-10-01"),
        _ => format!("{}-15", cycle_start.get(..7).unwrap_or("2025-04")),
    }
}
