//! Farmers, their establishments and their plots, with names, tax ids and phones that look like each country's.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use store::admin::AdminError;
use store::Store;

use crate::rows::{Ids, Table};
use crate::SocietySeed;

mod countries;
mod tax_ids;

pub(crate) use countries::COUNTRIES;
pub(crate) use tax_ids::company as company_tax_id;

/// How many records the people seed made.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PeopleCounts {
    pub farmers: u64,
    pub establishments: u64,
    pub plots: u64,
}

/// What a country's farm businesses look like.
pub(crate) struct CountryData {
    pub code: &'static str,
    pub legal_name: &'static str,
    first_names: &'static [&'static str],
    last_names: &'static [&'static str],
    companies: &'static [&'static str],
    establishments: &'static [&'static str],
    plot_prefix: &'static str,
    plot_area: (f64, f64),
    phone: fn(&mut StdRng) -> String,
    tax_id: fn(&mut StdRng, bool) -> String,
    email_domain: &'static str,
    /// The society has this fraction (1/n) of the demo's farmers: the five later countries' societies are smaller,
    /// which keeps the demo quick to seed.
    farmers_divisor: u32,
}

fn pick<'a, T>(rng: &mut StdRng, items: &'a [T]) -> &'a T {
    &items[rng.gen_range(0..items.len())]
}

/// `text` in lower-case ASCII, words joined by dots, as in an email's local part.
pub(crate) fn slug(text: &str) -> String {
    let folded: String = text
        .to_lowercase()
        .chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ã' => 'a',
            'é' | 'ê' => 'e',
            'í' => 'i',
            'ó' | 'ô' | 'õ' => 'o',
            'ú' | 'ü' => 'u',
            'ñ' => 'n',
            'ç' => 'c',
            c if c.is_ascii_alphanumeric() => c,
            _ => '.',
        })
        .collect();
    folded
        .split('.')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(".")
}

/// The tables a society's people are written to, with no rows yet: farmers, establishments, plots.
fn tables() -> (Table, Table, Table) {
    let farmer_rows = Table::new(
        "farmers",
        &[
            "id",
            "society_id",
            "name",
            "lastname",
            "cuit",
            "observations",
            "external_code",
            "email",
            "phone_number",
            "created_at",
            "updated_at",
        ],
    );
    let establishment_rows = Table::new(
        "establishments",
        &[
            "id",
            "society_id",
            "farmer_id",
            "name",
            "external_code",
            "created_at",
            "updated_at",
        ],
    );
    let plot_rows = Table::new(
        "plots",
        &[
            "id",
            "society_id",
            "establishment_id",
            "name",
            "area",
            "external_code",
            "created_by",
            "created_at",
            "updated_at",
        ],
    );
    (farmer_rows, establishment_rows, plot_rows)
}

/// Seeds a society's farmers, establishments and plots; `field_user` is who created the plots.
pub(crate) async fn society(
    store: &Store,
    society: &SocietySeed,
    country: &CountryData,
    farmers_at_scale_one: u32,
    field_user: Option<i64>,
) -> Result<PeopleCounts, AdminError> {
    let mut rng = StdRng::seed_from_u64(society.seed);
    let mut summary = PeopleCounts::default();
    let society_id = society.society_id;
    let minute = 60_000;
    let farmers = farmers_at_scale_one
        .div_ceil(country.farmers_divisor.max(1))
        .saturating_mul(society.scale);
    let mut clock = society.origin;
    let mut farmer_ids = Ids::of(store, "farmers").await?;
    let mut establishment_ids = Ids::of(store, "establishments").await?;
    let mut plot_ids = Ids::of(store, "plots").await?;
    let (mut farmer_rows, mut establishment_rows, mut plot_rows) = tables();
    for f in 0..farmers {
        clock += minute * rng.gen_range(1..90);
        let company = rng.gen_bool(0.35);
        let (name, lastname) = if company {
            ((*pick(&mut rng, country.companies)).to_owned(), None)
        } else {
            (
                (*pick(&mut rng, country.first_names)).to_owned(),
                Some((*pick(&mut rng, country.last_names)).to_owned()),
            )
        };
        let email = format!(
            "{}.{}@{}",
            slug(&name),
            slug(lastname.as_deref().unwrap_or("adm")),
            country.email_domain
        );
        let farmer_id = farmer_ids.next();
        let tax_id = (country.tax_id)(&mut rng, company);
        let observations = rng
            .gen_bool(0.2)
            .then_some(crate::words::words(country.code).farmer_note);
        let phone = (country.phone)(&mut rng);
        farmer_rows.row([
            farmer_id.into(),
            society_id.into(),
            name.into(),
            lastname.into(),
            tax_id.into(),
            observations.into(),
            format!("PROD-{:05}", f + 1).into(),
            email.into(),
            phone.into(),
            clock.into(),
            clock.into(),
        ]);
        summary.farmers += 1;
        for _ in 0..rng.gen_range(1..=4) {
            clock += minute * rng.gen_range(1..30);
            summary.establishments += 1;
            let establishment_id = establishment_ids.next();
            establishment_rows.row([
                establishment_id.into(),
                society_id.into(),
                farmer_id.into(),
                (*pick(&mut rng, country.establishments)).into(),
                format!("EST-{:05}", summary.establishments).into(),
                clock.into(),
                clock.into(),
            ]);
            for p in 0..rng.gen_range(2..=8) {
                clock += minute * rng.gen_range(1..5);
                summary.plots += 1;
                let area = (rng.gen_range(country.plot_area.0..country.plot_area.1) * 100.0).round() / 100.0;
                plot_rows.row([
                    plot_ids.next().into(),
                    society_id.into(),
                    establishment_id.into(),
                    format!("{} {}", country.plot_prefix, p + 1).into(),
                    area.into(),
                    format!("LOT-{:06}", summary.plots).into(),
                    field_user.into(),
                    clock.into(),
                    clock.into(),
                ]);
            }
        }
    }
    farmer_rows.write(store).await?;
    establishment_rows.write(store).await?;
    plot_rows.write(store).await?;
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_are_ascii() {
        assert_eq!(slug("María José Larrañaga"), "maria.jose.larranaga");
        assert_eq!(slug("Agro Santa Rosa S.A."), "agro.santa.rosa.s.a");
    }
}
