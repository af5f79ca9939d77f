//! Demo data of the operations group: per society, the contractors, machines of real brands, applicators with the
//! machines they operate, warehouses, a season of work orders over the society's campaigns with realistic doses, and
//! a few finished objective-yield jobs.
//!
//! Work orders need the backbone's campaigns and the reference data's products, voucher and labour types; a society
//! without them gets no work orders rather than a failed seed.

use domain::jobs::UPDATE_OBJECTIVE_YIELD;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use store::admin::AdminError;
use store::bulk::Kind;
use store::{Arg, Store};

use crate::people;
use crate::rows::{int, read, text, Ids, Table};
use crate::SocietySeed;
use local::local;
use orders::{pick, plan_jobs, plan_order, targets_and_products, OrderContext, OrderTables};

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
    let labour_types = named(read(store, "labour_types", &id_and("name"), &[]).await?);
    let labour_type = |name: &str| labour_types.iter().find(|(_, n)| n == name).map(|(id, _)| *id);
    let voucher_type = named(read(store, "voucher_types", &id_and("code"), &[]).await?);
    let voucher = |code: &str| voucher_type.iter().find(|(_, c)| c == code).map(|(id, _)| *id);
    let start = society.origin + 20 * DAY;
    let mut contractor_ids = Ids::of(store, "contractors").await?;
    let mut contractor_rows = Table::new(
        "contractors",
        &[
            "id",
            "society_id",
            "name",
            "cuit",
            "email",
            "phone_number",
            "external_code",
            "created_at",
            "updated_at",
        ],
    );
    let mut contractors = Vec::new();
    for n in 0..words.contractors.len() * scale {
        let name = words.contractors[n % words.contractors.len()];
        let name = if n < words.contractors.len() {
            name.to_owned()
        } else {
            format!("{name} ({})", n / words.contractors.len() + 1)
        };
        let at = start + i64::try_from(n).unwrap_or(0) * 3_600_000;
        let id = contractor_ids.next();
        let tax_id = people::company_tax_id(&mut rng, society.country);
        let email = email_of(
            name.split_whitespace().take(2).collect::<Vec<_>>().join(" ").as_str(),
            words.domain,
        );
        let phone = format!(
            "{} {:03}-{:04}",
            words.phone,
            rng.gen_range(100..1000),
            rng.gen_range(0..10_000)
        );
        contractor_rows.row([
            id.into(),
            society_id.into(),
            name.into(),
            tax_id.into(),
            email.into(),
            phone.into(),
            format!("CTR-{:04}", n + 1).into(),
            at.into(),
            at.into(),
        ]);
        contractors.push(id);
    }
    // Machines by kind index, with their owning contractor when they have one.
    let mut machine_ids = Ids::of(store, "machines").await?;
    let mut machine_rows = Table::new(
        "machines",
        &[
            "id",
            "society_id",
            "contractor_id",
            "name",
            "kind",
            "brand",
            "model",
            "year",
            "license_plate",
            "external_code",
            "created_at",
            "updated_at",
        ],
    );
    let mut machines: Vec<(usize, i64, Option<i64>)> = Vec::new();
    for round in 0..scale {
        for (n, (kind, wire_kind, brand, model)) in MODELS.iter().enumerate() {
            let owner = if *kind == 5 || rng.gen_bool(0.3) {
                pick(&mut rng, &contractors).copied()
            } else {
                None
            };
            let plate = if *kind == 5 {
                let letters: String = (0..3).map(|_| char::from(b'A' + rng.gen_range(0..26u8))).collect();
                format!("{}-{letters}", words.aircraft_prefix)
            } else {
                format!(
                    "{}{:03}{}",
                    char::from(b'A' + rng.gen_range(0..26u8)),
                    rng.gen_range(0..1000),
                    char::from(b'A' + rng.gen_range(0..26u8))
                )
            };
            let at = start + i64::try_from(round * MODELS.len() + n).unwrap_or(0) * 3_600_000 + DAY;
            let id = machine_ids.next();
            let year = rng.gen_range(2008_i64..2025);
            machine_rows.row([
                id.into(),
                society_id.into(),
                owner.into(),
                format!("{} {brand} {model}", words.kinds[*kind]).into(),
                (*wire_kind).into(),
                (*brand).into(),
                (*model).into(),
                year.into(),
                plate.into(),
                format!("MAQ-{:04}", machines.len() + 1).into(),
                at.into(),
                at.into(),
            ]);
            machines.push((*kind, id, owner));
        }
    }
    let sprayers: Vec<i64> = machines.iter().filter(|m| m.0 == 0 || m.0 == 5).map(|m| m.1).collect();
    let mut applicator_ids = Ids::of(store, "applicators").await?;
    let mut applicator_rows = Table::new(
        "applicators",
        &[
            "id",
            "society_id",
            "name",
            "address",
            "phone_number",
            "email",
            "external_code",
            "active",
            "created_at",
            "updated_at",
        ],
    );
    let mut applicator_machines = Table::new("applicator_machines", &["society_id", "applicator_id", "machine_id"]);
    let mut applicators = Vec::new();
    for n in 0..words.operators.len() * scale {
        let name = words.operators[n % words.operators.len()];
        let at = start + i64::try_from(n).unwrap_or(0) * 3_600_000 + 2 * DAY;
        let id = applicator_ids.next();
        let address = rng
            .gen_bool(0.7)
            .then(|| pick(&mut rng, words.streets).copied())
            .flatten();
        let phone = rng.gen_bool(0.8).then(|| {
            format!(
                "{} {:03}-{:04}",
                words.phone,
                rng.gen_range(100..1000),
                rng.gen_range(0..10_000)
            )
        });
        let email = rng.gen_bool(0.6).then(|| email_of(name, words.domain));
        applicator_rows.row([
            id.into(),
            society_id.into(),
            name.into(),
            address.into(),
            phone.into(),
            email.into(),
            format!("APL-{:04}", n + 1).into(),
            // One operator retired: inactive, so the `active` filter has something to tell apart.
            (n != 3).into(),
            at.into(),
            at.into(),
        ]);
        // Most operators run one or two sprayers; a few (new hires) none yet.
        let count = if n % 5 == 4 { 0 } else { rng.gen_range(1..=2) };
        let mut own: Vec<i64> = (0..count).filter_map(|_| pick(&mut rng, &sprayers).copied()).collect();
        own.sort_unstable();
        own.dedup();
        for machine in &own {
            applicator_machines.row([society_id.into(), id.into(), (*machine).into()]);
        }
        applicators.push((id, own));
    }
    let mut warehouses = Table::new(
        "warehouses",
        &[
            "society_id",
            "establishment_id",
            "name",
            "address",
            "external_code",
            "created_at",
            "updated_at",
        ],
    );
    let stores = std::iter::once((None, words.central.to_owned())).chain(
        establishments
            .iter()
            .take(4 * scale)
            .map(|(id, name)| (Some(*id), format!("{} {name}", words.store_prefix))),
    );
    for (n, (establishment, name)) in stores.enumerate() {
        let at = start + i64::try_from(n).unwrap_or(0) * 3_600_000;
        warehouses.row([
            society_id.into(),
            establishment.into(),
            name.into(),
            establishment.is_none().then(|| words.streets[0]).into(),
            format!("DEP-{:03}", n + 1).into(),
            at.into(),
            at.into(),
        ]);
    }
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
            .filter_map(|n| plan_order(&mut rng, &ctx, n, &voucher, &labour_type))
            .collect()
    };
    let mut orders_written = OrderTables::new(store).await?;
    for order in &orders {
        orders_written.add(society_id, order);
    }
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
        for job in plan_jobs(&mut rng, &targets, start) {
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
