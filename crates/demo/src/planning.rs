//! Demo data of the planning group: each society's plot tags (a two-level hierarchy of groups and values, in the
//! country's language), every plot's tags with the v2 `tags` string they denormalise to, and the plots' associations
//! with the society's external systems (the ERPs its plots are mapped to, which the society is created with).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use wire::planning::PlotTag;

use store::admin::AdminError;
use store::bulk::Kind;
use store::Store;

use crate::rows::{int, read, text, Ids, Table};
use crate::SocietySeed;
use countries::COUNTRIES;

mod countries;

/// This group's salt of the society seed ("PLAN"), so its draws do not depend on other groups'.
const SALT: u64 = 0x504c_414e;
const MINUTE: i64 = 60_000;
const DAY: i64 = 24 * 60 * MINUTE;

/// A tag value: its name, and whether it is live, inactive or deleted (the last two are never put on a plot, and
/// are there so the `active` and deletion filters have something to find).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Live,
    Inactive,
    Deleted,
}

/// A tag group and its values; `every_plot` groups tag each plot, the others only some.
struct TagGroup {
    name: &'static str,
    values: &'static [(&'static str, Status)],
    every_plot: bool,
}

/// A tag group as stored: its id, and its live values' ids and names, which are all a plot may carry.
struct StoredGroup {
    id: i64,
    group: &'static TagGroup,
    live: Vec<(i64, &'static str)>,
}

/// An ERP a society's plots are mapped to (as the reference data names it), and how it spells a plot's id.
struct System {
    name: &'static str,
    code_prefix: &'static str,
}

/// How a system the demo does not know spells a plot's id.
const OTHER_SYSTEM_PREFIX: &str = "ERP-";

struct CountryPlanning {
    code: &'static str,
    tags: &'static [TagGroup],
    systems: &'static [System],
}

/// The society's tag groups and values, created at `tags_at`: their rows, and each group as stored.
fn tags(
    country: &'static CountryPlanning,
    society: &SocietySeed,
    tag_ids: &mut Ids,
    tags_at: i64,
) -> (Table, Vec<StoredGroup>) {
    let society_id = society.society_id;
    let mut tag_rows = Table::new(
        "tags",
        &[
            "id",
            "society_id",
            "parent_id",
            "name",
            "active",
            "created_at",
            "updated_at",
            "deleted_at",
        ],
    );
    let mut groups: Vec<StoredGroup> = Vec::new();
    for (g, group) in country.tags.iter().enumerate() {
        let group_at = tags_at + i64::try_from(g).unwrap_or_default() * MINUTE;
        let group_id = tag_ids.next();
        tag_rows.row([
            group_id.into(),
            society_id.into(),
            None::<i64>.into(),
            group.name.into(),
            true.into(),
            group_at.into(),
            group_at.into(),
            None::<i64>.into(),
        ]);
        let mut live = Vec::new();
        for &(name, status) in group.values {
            let deleted_at = (status == Status::Deleted).then_some(society.origin + 20 * DAY);
            let id = tag_ids.next();
            tag_rows.row([
                id.into(),
                society_id.into(),
                Some(group_id).into(),
                name.into(),
                (status == Status::Live).into(),
                group_at.into(),
                deleted_at.unwrap_or(group_at).into(),
                deleted_at.into(),
            ]);
            if status == Status::Live {
                live.push((id, name));
            }
        }
        groups.push(StoredGroup {
            id: group_id,
            group,
            live,
        });
    }
    (tag_rows, groups)
}

/// The society's external systems (its country's, as reference data made them), each with how it spells a plot's
/// id.
async fn systems(
    store: &Store,
    country: &'static CountryPlanning,
    society_id: i64,
) -> Result<Vec<(i64, &'static str)>, AdminError> {
    let systems: Vec<(i64, &str)> = read(
        store,
        "external_systems",
        &[("id", Kind::Int), ("name", Kind::Text)],
        &[("society_id", society_id.into())],
    )
    .await?
    .iter()
    .map(|row| {
        let name = text(row, 1);
        let prefix = country
            .systems
            .iter()
            .find(|system| system.name == name)
            .map_or(OTHER_SYSTEM_PREFIX, |system| system.code_prefix);
        (int(row, 0), prefix)
    })
    .collect();
    Ok(systems)
}

/// The plots' associations with external systems, with no rows yet.
fn associations_table() -> Table {
    Table::new(
        "external_plot_associations",
        &[
            "society_id",
            "plot_id",
            "external_system_id",
            "external_id",
            "active",
            "created_at",
            "updated_at",
            "deleted_at",
        ],
    )
}

/// Seeds one society's tags and plot tags, and maps its plots to its external systems.
pub(crate) async fn society(store: &Store, society: &SocietySeed) -> Result<(), AdminError> {
    let Some(country) = COUNTRIES.iter().find(|c| c.code == society.country) else {
        return Ok(());
    };
    let mut rng = StdRng::seed_from_u64(society.seed ^ SALT);
    let society_id = society.society_id;
    // Tags and systems exist before the first plot, so every plot could carry them from its creation.
    let tags_at = society.origin - 30 * DAY;
    let systems_at = society.origin - 10 * DAY;
    let mut tag_ids = Ids::of(store, "tags").await?;
    let (tag_rows, groups) = tags(country, society, &mut tag_ids, tags_at);

    // The society was created with its country's systems (reference data); the demo dates them before its plots.
    let systems = systems(store, country, society_id).await?;
    let mut systems_dated = Vec::new();
    for (s, (id, _)) in systems.iter().enumerate() {
        let at = systems_at + i64::try_from(s).unwrap_or_default() * DAY;
        systems_dated.extend([society_id.into(), (*id).into(), at.into(), at.into()]);
    }
    let mut systems: Vec<(i64, &str, u32)> = systems.into_iter().map(|(id, prefix)| (id, prefix, 0)).collect();

    let plots: Vec<(i64, i64)> = read(
        store,
        "plots",
        &[("id", Kind::Int), ("created_at", Kind::Int)],
        &[("society_id", society_id.into())],
    )
    .await?
    .iter()
    .map(|row| (int(row, 0), int(row, 1)))
    .collect();
    let mut plot_tags = Table::new("plot_tags", &["society_id", "plot_id", "tag_id"]);
    let mut tags_json = Vec::new();
    let mut associations = associations_table();
    for &(plot_id, created_at) in &plots {
        let mut tags = Vec::new();
        for stored in &groups {
            if stored.live.is_empty() || (!stored.group.every_plot && rng.gen_bool(0.4)) {
                continue;
            }
            let (tag_id, tag_name) = stored.live[rng.gen_range(0..stored.live.len())];
            tags.push(PlotTag {
                tag_id,
                tag_name: tag_name.to_owned(),
                tag_parent_id: Some(stored.id),
                tag_parent_name: Some(stored.group.name.to_owned()),
            });
        }
        for tag in &tags {
            plot_tags.row([society_id.into(), plot_id.into(), tag.tag_id.into()]);
        }
        tags_json.extend([society_id.into(), plot_id.into(), PlotTag::encode(&tags).into()]);

        // Most plots are mapped to the main ERP, some also to the second; a few mappings were later dropped,
        // so incremental sync of associations sees deletions.
        for (s, (system_id, code_prefix, numbered)) in systems.iter_mut().enumerate() {
            let share = if s == 0 { 0.8 } else { 0.3 };
            if !rng.gen_bool(share) {
                continue;
            }
            // Each ERP numbers the plots it knows in the order it learnt them.
            *numbered += 1;
            let at = created_at + rng.gen_range(1..72) * 60 * MINUTE;
            let deleted_at = rng.gen_bool(0.05).then(|| at + rng.gen_range(5..60) * DAY);
            associations.row([
                society_id.into(),
                plot_id.into(),
                (*system_id).into(),
                format!("{code_prefix}{numbered:05}").into(),
                deleted_at.is_none().into(),
                at.into(),
                deleted_at.unwrap_or(at).into(),
                deleted_at.into(),
            ]);
        }
    }
    tag_rows.write(store).await?;
    store
        .bulk_update(
            "external_systems",
            &["society_id", "id"],
            &["created_at", "updated_at"],
            systems_dated,
        )
        .await?;
    plot_tags.write(store).await?;
    store
        .bulk_update("plots", &["society_id", "id"], &["tags_json"], tags_json)
        .await?;
    associations.write(store).await?;
    Ok(())
}
