//! Farmers, their establishments and their plots, with names, tax ids and phones that look like each country's.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use store::admin::AdminError;
use store::Store;

use crate::rows::{Ids, Table};
use crate::SocietySeed;

/// How many records the people seed made.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PeopleCounts {
    pub farmers: u64,
    pub establishments: u64,
    pub plots: u64,
}

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
}

pub(crate) const COUNTRIES: &[CountryData] = &[
    CountryData {
        code: "AR",
        legal_name: "Agropecuaria La Pampa S.A.",
        first_names: &[
            "Martín",
            "Juan Pablo",
            "Gustavo",
            "Carlos",
            "Roberto",
            "María José",
            "Silvina",
            "Diego",
            "Hernán",
            "Agustina",
            "Ricardo",
            "Laura",
        ],
        last_names: &[
            "Gómez",
            "Rodríguez",
            "Fernández",
            "López",
            "Martínez",
            "Pereyra",
            "Sosa",
            "Giménez",
            "Bianchi",
            "Ferrari",
            "Etcheverry",
            "Larrañaga",
        ],
        companies: &[
            "Don Julio S.A.",
            "Los Caldenes S.R.L.",
            "Agro Santa Rosa S.A.",
            "El Ombú Agropecuaria S.A.",
            "La Celina S.C.A.",
            "Hermanos Bianchi S.H.",
        ],
        establishments: &[
            "La Esperanza",
            "San José",
            "El Ombú",
            "Los Álamos",
            "La Carolina",
            "Santa Rosa",
            "El Recuerdo",
            "La Porteña",
            "Don Ángel",
            "Las Acacias",
            "El Caldén",
            "La Margarita",
        ],
        plot_prefix: "Lote",
        plot_area: (25.0, 160.0),
        phone: |rng| {
            format!(
                "+54 9 2954 {:02}-{:04}",
                rng.gen_range(40..80),
                rng.gen_range(0..10_000)
            )
        },
        tax_id: |rng, company| cuit(rng, company),
        email_domain: "campo.com.ar",
    },
    CountryData {
        code: "BR",
        legal_name: "Fazenda Cerrado Agronegócios Ltda.",
        first_names: &[
            "João",
            "José",
            "Antônio",
            "Francisco",
            "Carlos",
            "Ana Paula",
            "Mariana",
            "Luiz",
            "Rafael",
            "Fernanda",
            "Paulo",
            "Juliana",
        ],
        last_names: &[
            "Silva",
            "Santos",
            "Oliveira",
            "Souza",
            "Pereira",
            "Costa",
            "Rodrigues",
            "Almeida",
            "Nascimento",
            "Carvalho",
            "Ribeiro",
            "Schneider",
        ],
        companies: &[
            "Agropecuária Boa Vista Ltda.",
            "Grãos do Cerrado S.A.",
            "Fazendas Reunidas Ltda.",
            "Agro Rio Verde Ltda.",
            "Sementes Planalto S.A.",
        ],
        establishments: &[
            "Fazenda Santa Luzia",
            "Fazenda Boa Vista",
            "Fazenda São João",
            "Fazenda Três Irmãos",
            "Fazenda Água Limpa",
            "Fazenda Rio Verde",
            "Fazenda Santa Helena",
            "Fazenda Bela Vista",
            "Sítio Esperança",
            "Fazenda Pontal",
        ],
        plot_prefix: "Talhão",
        plot_area: (60.0, 420.0),
        phone: |rng| {
            format!(
                "+55 64 9{:04}-{:04}",
                rng.gen_range(1000..10_000),
                rng.gen_range(0..10_000)
            )
        },
        tax_id: |rng, company| if company { cnpj(rng) } else { cpf(rng) },
        email_domain: "fazenda.com.br",
    },
    CountryData {
        code: "MX",
        legal_name: "Agrícola del Bajío S.A. de C.V.",
        first_names: &[
            "José Luis",
            "Juan",
            "Miguel Ángel",
            "Francisco",
            "Alejandro",
            "Guadalupe",
            "María Elena",
            "Jesús",
            "Rosa María",
            "Arturo",
            "Fernando",
            "Verónica",
        ],
        last_names: &[
            "Hernández",
            "García",
            "Martínez",
            "López",
            "González",
            "Pérez",
            "Rodríguez",
            "Sánchez",
            "Ramírez",
            "Cruz",
            "Flores",
            "Villaseñor",
        ],
        companies: &[
            "Agroindustrias San Isidro S.A. de C.V.",
            "Granos del Bajío S.P.R. de R.L.",
            "Productores Unidos de Celaya S.P.R.",
            "Hortalizas La Loma S.A. de C.V.",
        ],
        establishments: &[
            "Rancho El Mezquite",
            "Rancho San Isidro",
            "Rancho La Loma",
            "Rancho Santa Fe",
            "Ejido San Miguel",
            "Rancho El Sabino",
            "Rancho Los Pinos",
            "Rancho La Huerta",
        ],
        plot_prefix: "Parcela",
        plot_area: (4.0, 45.0),
        phone: |rng| {
            format!(
                "+52 461 {:03} {:04}",
                rng.gen_range(100..1000),
                rng.gen_range(0..10_000)
            )
        },
        tax_id: |rng, company| rfc(rng, company),
        email_domain: "agro.com.mx",
    },
];

/// A company's tax id in its country's format: a CNPJ in Brazil, an RFC in Mexico, a CUIT elsewhere.
pub(crate) fn company_tax_id(rng: &mut StdRng, country: &str) -> String {
    match country {
        "BR" => cnpj(rng),
        "MX" => rfc(rng, true),
        _ => cuit(rng, true),
    }
}

/// An Argentine CUIT with a valid check digit: 30 for companies, 20 or 27 for people.
fn cuit(rng: &mut StdRng, company: bool) -> String {
    let prefix = if company {
        30
    } else if rng.gen_bool(0.5) {
        20
    } else {
        27
    };
    let body: u64 = rng.gen_range(10_000_000..40_000_000);
    let digits: Vec<u32> = format!("{prefix}{body:08}")
        .chars()
        .filter_map(|c| c.to_digit(10))
        .collect();
    let weights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
    let sum: u32 = digits.iter().zip(weights).map(|(d, w)| d * w).sum();
    let check = match 11 - sum % 11 {
        11 => 0,
        10 => 9,
        other => other,
    };
    format!("{prefix}-{body:08}-{check}")
}

fn mod11_digit(digits: &[u32], weights: impl Iterator<Item = u32>) -> u32 {
    let sum: u32 = digits.iter().zip(weights).map(|(d, w)| d * w).sum();
    match sum % 11 {
        0 | 1 => 0,
        rest => 11 - rest,
    }
}

/// A Brazilian CPF with valid check digits.
fn cpf(rng: &mut StdRng) -> String {
    let mut digits: Vec<u32> = (0..9).map(|_| rng.gen_range(0..10)).collect();
    let first = mod11_digit(&digits, (2..=10).rev());
    digits.push(first);
    let second = mod11_digit(&digits, (2..=11).rev());
    digits.push(second);
    let d: String = digits.iter().map(|d| char::from_digit(*d, 10).unwrap_or('0')).collect();
    format!("{}.{}.{}-{}", &d[0..3], &d[3..6], &d[6..9], &d[9..11])
}

/// A Brazilian CNPJ (head office, 0001) with valid check digits.
fn cnpj(rng: &mut StdRng) -> String {
    let mut digits: Vec<u32> = (0..8).map(|_| rng.gen_range(0..10)).collect();
    digits.extend([0, 0, 0, 1]);
    let weights = |n: usize| [6u32, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2].into_iter().skip(13 - n);
    let first = mod11_digit(&digits, weights(12));
    digits.push(first);
    let second = mod11_digit(&digits, weights(13));
    digits.push(second);
    let d: String = digits.iter().map(|d| char::from_digit(*d, 10).unwrap_or('0')).collect();
    format!("{}.{}.{}/{}-{}", &d[0..2], &d[2..5], &d[5..8], &d[8..12], &d[12..14])
}

/// A plausible Mexican RFC: 3 letters for companies, 4 for people, a date and a homoclave.
fn rfc(rng: &mut StdRng, company: bool) -> String {
    const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNPQRSTUVWXYZ0123456789";
    let letters = if company { 3 } else { 4 };
    let mut rfc: String = (0..letters)
        .map(|_| char::from(LETTERS[rng.gen_range(0..LETTERS.len())]))
        .collect();
    rfc.push_str(&format!(
        "{:02}{:02}{:02}",
        rng.gen_range(50..100),
        rng.gen_range(1..13),
        rng.gen_range(1..29)
    ));
    rfc.extend((0..3).map(|_| char::from(ALNUM[rng.gen_range(0..ALNUM.len())])));
    rfc
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
    let farmers = farmers_at_scale_one.saturating_mul(society.scale);
    let mut clock = society.origin;
    let mut farmer_ids = Ids::of(store, "farmers").await?;
    let mut establishment_ids = Ids::of(store, "establishments").await?;
    let mut plot_ids = Ids::of(store, "plots").await?;
    let mut farmer_rows = Table::new(
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
    let mut establishment_rows = Table::new(
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
    let mut plot_rows = Table::new(
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
        let observations = rng.gen_bool(0.2).then_some("Cliente desde 2015");
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
    fn cuits_carry_a_valid_check_digit() {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..50 {
            let cuit = cuit(&mut rng, false);
            let digits: Vec<u32> = cuit.chars().filter_map(|c| c.to_digit(10)).collect();
            let weights = [5, 4, 3, 2, 7, 6, 5, 4, 3, 2];
            let sum: u32 = digits[..10].iter().zip(weights).map(|(d, w)| d * w).sum();
            let expected = match 11 - sum % 11 {
                11 => 0,
                10 => 9,
                other => other,
            };
            assert_eq!(digits[10], expected, "{cuit}");
        }
    }

    #[test]
    fn a_known_cpf_check_is_reproduced() {
        // 111.444.777-35 is the textbook example of a valid CPF.
        let digits = [1, 1, 1, 4, 4, 4, 7, 7, 7];
        assert_eq!(mod11_digit(&digits, (2..=10).rev()), 3);
        let with_first = [1, 1, 1, 4, 4, 4, 7, 7, 7, 3];
        assert_eq!(mod11_digit(&with_first, (2..=11).rev()), 5);
    }

    #[test]
    fn slugs_are_ascii() {
        assert_eq!(slug("María José Larrañaga"), "maria.jose.larranaga");
        assert_eq!(slug("Agro Santa Rosa S.A."), "agro.santa.rosa.s.a");
    }

    #[test]
    fn the_same_seed_gives_the_same_ids() {
        let mut a = StdRng::seed_from_u64(1);
        let mut b = StdRng::seed_from_u64(1);
        assert_eq!(cuit(&mut a, true), cuit(&mut b, true));
        assert_eq!(rfc(&mut a, false), rfc(&mut b, false));
    }
}
