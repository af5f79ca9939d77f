//! Demo data of the operations group: per society, the contractors, machines of real brands, applicators with the
//! machines they operate, warehouses, a season of work orders over the society's campaigns with realistic doses, and
//! a few finished objective-yield jobs.
//!
//! Work orders need the backbone's campaigns and the reference data's products, voucher and labour types; a society
//! without them gets no work orders rather than a failed seed.

use domain::jobs::UPDATE_OBJECTIVE_YIELD;
use rand::rngs::StdRng;
use rand::SeedableRng;

use store::admin::AdminError;
use store::bulk::Kind;
use store::{Arg, Store};

use crate::people;
use crate::rows::{int, read, text, Ids, Table};
use crate::words::LabourKeys;
use crate::SocietySeed;
use fleet::Seeding;
use local::local;
use orders::{plan_jobs, plan_order, targets_and_products, OrderContext, OrderTables, Target};

mod fleet;
mod local;
mod orders;

const DAY: i64 = 24 * 3_600_000;

/// Machine models: (kind index into [`Local::kinds`], wire kind, brand, model).
const MODELS: &[(usize, &str, &str, &str)] = &[
    (0, "sprayer", "Metalfor", "Multiple 3200"),
    (0, "sprayer", "Pla", "MAP II 3250"),
    (0, "sprayer", "John Deere", "4730"),
    (0, "sprayer", "Jacto", "Uniport 3030"),
    (0, "sprayer", "Stara", "Imperador 3.0"),
    (1, "planter", "Agrometal", "TX Mega"),
    (1, "planter", "John Deere", "1113"),
    (1, "planter", "Stara", "Absoluta 34"),
    (2, "harvester", "John Deere", "S780"),
    (2, "harvester", "Case IH", "Axial-Flow 8250"),
    (3, "tractor", "John Deere", "8R 340"),
    (3, "tractor", "Case IH", "Magnum 340"),
    (3, "tractor", "Agrale", "BX 6180"),
    (3, "tractor", "Massey Ferguson", "7719"),
    (4, "spreader", "Fertec", "Fertil 4000"),
    (5, "aircraft", "Air Tractor", "AT-402B"),
];

fn email_of(name: &str, domain: &str) -> String {
    format!("{}@{domain}", people::slug(name))
}

/// (id, name) rows.
type Named = Vec<(i64, String)>;

/// The voucher and labour types of the shipped catalogues, by reference key, with the labour types' names.
pub(crate) struct Catalogue {
    vouchers: Vec<(i64, String)>,
    labours: Vec<(i64, String, String)>,
}

impl Catalogue {
    async fn read(store: &Store) -> Result<Self, AdminError> {
        let keyed = [("id", Kind::Int), ("reference_key", Kind::Text)];
        let vouchers = read(store, "voucher_types", &keyed, &[]).await?;
        let labours = read(store, "labour_types", &[keyed[0], keyed[1], ("name", Kind::Text)], &[]).await?;
        Ok(Self {
            vouchers: vouchers.iter().map(|row| (int(row, 0), text(row, 1))).collect(),
            labours: labours
                .iter()
                .map(|row| (int(row, 0), text(row, 1), text(row, 2)))
                .collect(),
        })
    }

    /// The voucher type's id, and the labour type's id and name, of `keys`.
    pub(crate) fn labour(&self, keys: LabourKeys) -> Option<(i64, i64, &str)> {
        let voucher = self.vouchers.iter().find(|(_, key)| key == keys.voucher)?.0;
        let (id, _, name) = self.labours.iter().find(|(_, key, _)| key == keys.labour)?;
        Some((voucher, *id, name))
    }
}

/// Seeds a society's contractors, machines, applicators, warehouses, work orders and objective-yield jobs.
pub(crate) async fn society(store: &Store, society: &SocietySeed) -> Result<(), AdminError> {
    let mut rng = StdRng::seed_from_u64(society.seed ^ 0x4f50_4552);
    let words = local(society.country);
    let society_id = society.society_id;
    let scale = usize::try_from(society.scale.max(1)).unwrap_or(1);
    let (targets, products) = targets_and_products(store, society).await?;
    let named = |rows: Vec<Vec<Arg>>| -> Named { rows.iter().map(|row| (int(row, 0), text(row, 1))).collect() };
    let id_and = |column| [("id", Kind::Int), (column, Kind::Text)];
    let establishments = named(
        read(
            store,
            "establishments",
            &id_and("name"),
            &[("society_id", society_id.into())],
        )
        .await?,
    );
    let language = crate::words::words(society.country);
    let catalogue = Catalogue::read(store).await?;
    let start = society.origin + 20 * DAY;
    let seeding = Seeding {
        society,
        words,
        scale,
        start,
    };
    let mut contractor_ids = Ids::of(store, "contractors").await?;
    let (contractor_rows, contractors) = fleet::contractors(&mut rng, &seeding, &mut contractor_ids);
    // Machines by kind index, with their owning contractor when they have one.
    let mut machine_ids = Ids::of(store, "machines").await?;
    let (machine_rows, machines) = fleet::machines(&mut rng, &seeding, &mut machine_ids, &contractors);
    let sprayers: Vec<i64> = machines.iter().filter(|m| m.0 == 0 || m.0 == 5).map(|m| m.1).collect();
    let mut applicator_ids = Ids::of(store, "applicators").await?;
    let (applicator_rows, applicator_machines, applicators) =
        fleet::applicators(&mut rng, &seeding, &mut applicator_ids, &sprayers);
    let warehouses = fleet::warehouses(&seeding, &establishments);
    let ctx = OrderContext {
        targets: &targets,
        products: &products,
        machines: &machines,
        applicators: &applicators,
        start,
    };
    let orders = if targets.is_empty() || products.is_empty() {
        Vec::new()
    } else {
        (0..250 * scale)
            .filter_map(|n| plan_order(&mut rng, &ctx, n, language, &catalogue))
            .collect()
    };
    let mut orders_written = OrderTables::new(store).await?;
    for order in &orders {
        orders_written.add(society_id, order);
    }
    let (jobs, job_effects) = jobs(&mut rng, society_id, &targets, start);
    contractor_rows.write(store).await?;
    machine_rows.write(store).await?;
    applicator_rows.write(store).await?;
    applicator_machines.write(store).await?;
    warehouses.write(store).await?;
    orders_written.write(store).await?;
    jobs.write(store).await?;
    store
        .bulk_update(
            "campaigns",
            &["society_id", "id"],
            &["objective_yield", "updated_at"],
            job_effects,
        )
        .await?;
    Ok(())
}

/// The society's finished objective-yield jobs over `targets`: their rows, and the campaign values they left
/// (society, campaign, objective yield, instant; four arguments a campaign).
fn jobs(rng: &mut StdRng, society_id: i64, targets: &[Target], start: i64) -> (Table, Vec<Arg>) {
    let mut jobs = Table::new(
        "jobs",
        &[
            "society_id",
            "kind",
            "status",
            "input",
            "total_items",
            "processed_items",
            "failed_items",
            "result",
            "attempts",
            "started_at",
            "finished_at",
            "created_at",
            "updated_at",
        ],
    );
    let mut job_effects = Vec::new();
    if !targets.is_empty() {
        for job in plan_jobs(rng, targets, start) {
            jobs.row([
                society_id.into(),
                UPDATE_OBJECTIVE_YIELD.into(),
                "finished".into(),
                job.input.into(),
                job.total.into(),
                job.total.into(),
                job.failed.into(),
                job.result.into(),
                1_i64.into(),
                (job.created + 2_000).into(),
                job.finished.into(),
                job.created.into(),
                job.finished.into(),
            ]);
            // The job's effect, as the worker would have left it.
            for (campaign_id, objective_yield) in job.applied {
                job_effects.extend([
                    Arg::from(society_id),
                    Arg::from(campaign_id),
                    Arg::from(objective_yield),
                    Arg::from(job.finished),
                ]);
            }
        }
    }
    (jobs, job_effects)
}
