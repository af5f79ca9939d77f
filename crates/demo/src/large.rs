//! The large society of the benchmark: the demo's Argentine society grown to the size a big customer has
//! (hundreds of thousands of plots, a million work-order lines, a million device readings), so `bench/run` measures
//! paging, writes and sync where a count or an `OFFSET` would hurt.
//!
//! It is added to an already seeded demo (its accounts stay the way in). Every row is drawn from a generator seeded
//! by the row's own number, so the same options give the same rows and ids on either backend, and each table is
//! written by an independent pass. Ids are given explicitly (after the largest existing one), so children can be
//! written without reading their parents' ids back, many rows to an `INSERT` (the store's bulk insert) and one
//! transaction per table.

mod passes;
mod plan;

use std::time::Instant;

use store::admin::AdminError;
use store::bulk::Kind;
use store::{Arg, Store};

use crate::rows::{int, live, opt_int, read, text};
use crate::DEMO_ACCOUNTS;
use plan::{Bases, Plan, References, TagGroup, EVENT_CODES};

/// External codes of the farmers this module makes start with this, which tells a grown society from a demo one.
const MARK: &str = "BENCH-";

/// How large the society grows.
#[derive(Debug, Clone, Copy)]
pub struct LargeOptions {
    /// Farmers added.
    pub farmers: usize,
    /// Establishments of each farmer.
    pub establishments_per_farmer: usize,
    /// Plots of each establishment (each plot gets one campaign).
    pub plots_per_establishment: usize,
    /// Work orders added.
    pub work_orders: usize,
    /// Supply plus labour lines of a work order, on average (pairs of orders add up to twice this).
    pub lines_per_order: usize,
    /// Weather stations added.
    pub devices: usize,
    /// Readings of all of them together.
    pub device_events: usize,
    /// The random seed.
    pub seed: u64,
}

impl Default for LargeOptions {
    fn default() -> Self {
        Self {
            farmers: 2_000,
            establishments_per_farmer: 10,
            plots_per_establishment: 10,
            work_orders: 50_000,
            lines_per_order: 20,
            devices: 300,
            device_events: 1_000_000,
            seed: 20_260_601,
        }
    }
}

/// What was added, and how long each table took.
#[derive(Debug, Clone, Default)]
pub struct LargeSummary {
    /// The society that grew.
    pub society_id: i64,
    /// (table, rows, seconds), in the order written.
    pub tables: Vec<(&'static str, u64, f64)>,
}

/// Reads what the new rows point at, from the demo society of the first demo account.
async fn references(store: &Store) -> Result<References, AdminError> {
    let integrator = DEMO_ACCOUNTS.first().map_or("", |a| a.email);
    let field_user = DEMO_ACCOUNTS
        .iter()
        .find(|a| a.country == "AR" && !a.api_role)
        .map_or("", |a| a.email);
    let user = |email: &str| {
        let email = Arg::from(email);
        async move {
            read(
                store,
                "users",
                &[("id", Kind::Int), ("society_id", Kind::Int)],
                &[("email", email)],
            )
            .await
        }
    };
    let society_id = user(integrator)
        .await?
        .first()
        .map(|row| int(row, 1))
        .ok_or_else(|| AdminError::Invalid(format!("no demo account {integrator}: seed the demo first")))?;
    let creator = user(field_user).await?.first().map(|row| int(row, 0));
    let society = [("society_id", Arg::from(society_id))];
    let live_rows = |rows: Vec<Vec<Arg>>| -> Vec<Vec<Arg>> { rows.into_iter().filter(|row| live(row, 1)).collect() };
    let ids = |rows: Vec<Vec<Arg>>| -> Vec<i64> { live_rows(rows).iter().map(|row| int(row, 0)).collect() };
    let masters = live_rows(
        read(
            store,
            "master_campaigns",
            &with_id(&[("name", Kind::Text), ("species_id", Kind::Int)]),
            &society,
        )
        .await?,
    )
    .iter()
    .map(|row| (int(row, 0), text(row, 2), int(row, 3)))
    .collect();
    let formulateds = live_rows(
        read(
            store,
            "formulateds",
            &with_id(&[("species_id", Kind::Int)]),
            &[("country", "AR".into())],
        )
        .await?,
    );
    let varieties = formulateds
        .iter()
        .filter_map(|row| opt_int(row, 2).map(|species_id| (int(row, 0), species_id)))
        .collect();
    let products = formulateds
        .iter()
        .filter(|row| opt_int(row, 2).is_none())
        .map(|row| int(row, 0))
        .collect();
    let statuses = ids(read(store, "activity_statuses", &with_id(&[]), &[]).await?);
    let voucher_types = ids(read(store, "voucher_types", &with_id(&[]), &[]).await?);
    let labour_types = ids(read(store, "labour_types", &with_id(&[]), &[]).await?);
    let machines = live_rows(read(store, "machines", &with_id(&[("contractor_id", Kind::Int)]), &society).await?)
        .iter()
        .map(|row| (int(row, 0), opt_int(row, 2)))
        .collect();
    let applicators = ids(read(store, "applicators", &with_id(&[]), &society).await?);
    let event_types = event_types(store).await?;
    let tags = tag_groups(store, &society).await?;
    Ok(References {
        society_id,
        creator,
        masters,
        varieties,
        products,
        statuses,
        voucher_types,
        labour_types,
        machines,
        applicators,
        event_types,
        tags,
    })
}

/// The columns `id` and `deleted_at`, then `more`.
fn with_id(more: &[(&'static str, Kind)]) -> Vec<(&'static str, Kind)> {
    [("id", Kind::Int), ("deleted_at", Kind::Int)]
        .into_iter()
        .chain(more.iter().copied())
        .collect()
}

/// The ids of the device event types the readings are drawn from, in the order of [`EVENT_CODES`].
async fn event_types(store: &Store) -> Result<Vec<i64>, AdminError> {
    let event_type_rows = read(
        store,
        "device_event_types",
        &[("id", Kind::Int), ("code", Kind::Text)],
        &[],
    )
    .await?;
    let event_types = EVENT_CODES
        .iter()
        .filter_map(|code| {
            event_type_rows
                .iter()
                .find(|row| text(row, 1) == *code)
                .map(|row| int(row, 0))
        })
        .collect();
    Ok(event_types)
}

/// The society's live, active tag values, grouped under their groups, by group and value id.
async fn tag_groups(store: &Store, society: &[(&str, Arg)]) -> Result<Vec<TagGroup>, AdminError> {
    let tag_rows = read(
        store,
        "tags",
        &with_id(&[("name", Kind::Text), ("parent_id", Kind::Int), ("active", Kind::Bool)]),
        society,
    )
    .await?;
    let group_name = |id: i64| tag_rows.iter().find(|row| int(row, 0) == id).map(|row| text(row, 2));
    let mut values: Vec<(i64, String, i64, String)> = tag_rows
        .iter()
        .filter(|row| live(row, 1) && row.get(4).and_then(Arg::bool) == Some(true))
        .filter_map(|row| {
            let group_id = opt_int(row, 3)?;
            Some((group_id, group_name(group_id)?, int(row, 0), text(row, 2)))
        })
        .collect();
    values.sort_by_key(|(group_id, _, id, _)| (*group_id, *id));
    let mut tags: Vec<TagGroup> = Vec::new();
    for (group_id, group_name, value_id, value_name) in values {
        match tags.last_mut() {
            Some(last) if last.0 == group_id => last.2.push((value_id, value_name)),
            _ => tags.push((group_id, group_name, vec![(value_id, value_name)])),
        }
    }
    Ok(tags)
}

/// Whether the demo society already grew (it grows once).
pub async fn is_large(store: &Store) -> Result<bool, AdminError> {
    let farmers = read(
        store,
        "farmers",
        &[("id", Kind::Int)],
        &[("external_code", format!("{MARK}00001").into())],
    )
    .await?;
    Ok(!farmers.is_empty())
}

/// The first free id of every table the society grows in, for a society `society_id` that gains `plots` plots.
async fn bases(store: &Store, society_id: i64, plots: usize) -> Result<Bases, AdminError> {
    let campaign = store.next_id("campaigns").await?;
    // No new campaign may take the id of one of the society's cultivations, nor any new cultivation the id of one
    // of its campaigns (see `backbone::society`): campaigns are numbered after the society's cultivations, and
    // cultivations after the new campaigns.
    let society_cultivations = read(
        store,
        "cultivations",
        &[("id", Kind::Int)],
        &[("society_id", society_id.into())],
    )
    .await?;
    let campaign = campaign.max(
        society_cultivations
            .iter()
            .map(|row| int(row, 0) + 1)
            .max()
            .unwrap_or(0),
    );
    let bases = Bases {
        farmer: store.next_id("farmers").await?,
        establishment: store.next_id("establishments").await?,
        plot: store.next_id("plots").await?,
        campaign,
        cultivation: store
            .next_id("cultivations")
            .await?
            .max(campaign + i64::try_from(plots).unwrap_or(i64::MAX)),
        work_order: store.next_id("work_orders").await?,
        supply: store.next_id("work_order_supplies").await?,
        labour: store.next_id("work_order_labours").await?,
        device: store.next_id("devices").await?,
        event: store.next_id("device_events").await?,
    };
    Ok(bases)
}

/// Grows the demo's Argentine society (see the module's documentation); the demo must be seeded, and not yet grown.
/// `progress` is told each table as it is written.
pub async fn grow(
    store: &Store,
    options: &LargeOptions,
    progress: impl Fn(&str, u64, f64),
) -> Result<LargeSummary, AdminError> {
    if is_large(store).await? {
        return Err(AdminError::Invalid("the demo society has already grown".into()));
    }
    let refs = references(store).await?;
    if refs.masters.is_empty() || refs.event_types.is_empty() || refs.voucher_types.is_empty() {
        return Err(AdminError::Invalid(
            "the demo's catalogues are missing: seed the demo first".into(),
        ));
    }
    let plots = options.farmers * options.establishments_per_farmer * options.plots_per_establishment;
    let bases = bases(store, refs.society_id, plots).await?;
    let origin = chrono::NaiveDate::from_ymd_opt(2025, 6, 2)
        .and_then(|d| d.and_hms_opt(11, 0, 0))
        .map_or(0, |t| t.and_utc().timestamp_millis());
    let plan = Plan {
        lines: Plan::line_counts(options, options.seed),
        options: *options,
        refs,
        bases,
        origin,
    };
    let society_id = plan.refs.society_id;
    let mut summary = LargeSummary {
        society_id,
        tables: Vec::new(),
    };
    let passes = passes::all(&plan, options, plots);
    for (table, columns, units, rows) in &passes {
        let table: &'static str = table;
        let started = Instant::now();
        let values = (0..*units).flat_map(|unit| {
            let mut values = Vec::new();
            rows(unit, &mut values);
            values
        });
        let written = store.bulk_insert(table, columns, values).await?;
        let seconds = started.elapsed().as_secs_f64();
        progress(table, written, seconds);
        summary.tables.push((table, written, seconds));
    }
    // The bulk inserts moved PostgreSQL's sequences past the explicit ids, and their transactions the society's
    // change counters.
    store.vacuum_after_load().await?;
    Ok(summary)
}
