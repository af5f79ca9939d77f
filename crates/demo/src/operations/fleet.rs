//! A society's fleet and the people who run it, as drawn: contractors, machines of real brands (some owned by a
//! contractor), applicators with the sprayers they operate, and warehouses.

use rand::rngs::StdRng;
use rand::Rng;

use super::local::Local;
use super::orders::pick;
use super::{email_of, DAY, MODELS};
use crate::people;
use crate::rows::{Ids, Table};
use crate::SocietySeed;

/// What every part of a society's fleet is drawn from.
pub(super) struct Seeding<'a> {
    pub society: &'a SocietySeed,
    pub words: &'static Local,
    pub scale: usize,
    /// When the society's operations start (epoch ms).
    pub start: i64,
}

/// The society's contractors: their rows, and their ids.
pub(super) fn contractors(rng: &mut StdRng, seeding: &Seeding<'_>, contractor_ids: &mut Ids) -> (Table, Vec<i64>) {
    let (society, words, scale, start) = (seeding.society, seeding.words, seeding.scale, seeding.start);
    let society_id = society.society_id;
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
        let tax_id = people::company_tax_id(rng, society.country);
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
    (contractor_rows, contractors)
}

/// The society's machines, some owned by one of `contractors`: their rows, and each one's kind index, id and owner.
pub(super) fn machines(
    rng: &mut StdRng,
    seeding: &Seeding<'_>,
    machine_ids: &mut Ids,
    contractors: &[i64],
) -> (Table, Vec<(usize, i64, Option<i64>)>) {
    let (words, scale, start) = (seeding.words, seeding.scale, seeding.start);
    let society_id = seeding.society.society_id;
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
                pick(rng, contractors).copied()
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
    (machine_rows, machines)
}

/// The society's applicators, each with the `sprayers` they operate: their rows, the rows linking them to their
/// machines, and each one's id with its machines.
pub(super) fn applicators(
    rng: &mut StdRng,
    seeding: &Seeding<'_>,
    applicator_ids: &mut Ids,
    sprayers: &[i64],
) -> (Table, Table, Vec<(i64, Vec<i64>)>) {
    let (words, scale, start) = (seeding.words, seeding.scale, seeding.start);
    let society_id = seeding.society.society_id;
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
        let address = rng.gen_bool(0.7).then(|| pick(rng, words.streets).copied()).flatten();
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
        let mut own: Vec<i64> = (0..count).filter_map(|_| pick(rng, sprayers).copied()).collect();
        own.sort_unstable();
        own.dedup();
        for machine in &own {
            applicator_machines.row([society_id.into(), id.into(), (*machine).into()]);
        }
        applicators.push((id, own));
    }
    (applicator_rows, applicator_machines, applicators)
}

/// The society's warehouses: a central one, and one at each of its first `establishments`.
pub(super) fn warehouses(seeding: &Seeding<'_>, establishments: &[(i64, String)]) -> Table {
    let (words, scale, start) = (seeding.words, seeding.scale, seeding.start);
    let society_id = seeding.society.society_id;
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
    warehouses
}
