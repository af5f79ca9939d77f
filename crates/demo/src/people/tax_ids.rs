//! Tax ids in each country's format, with valid check digits where the country's id has one, so that an ERP's
//! validation accepts the demo's farmers and contractors.

use rand::rngs::StdRng;
use rand::Rng;

/// A company's tax id in its country's format.
pub(crate) fn company(rng: &mut StdRng, country: &str) -> String {
    match country {
        "BR" => cnpj(rng),
        "MX" => rfc(rng, true),
        "PY" => ruc(rng, true),
        "BO" => nit_bo(rng, true),
        "CO" => nit_co(rng, true),
        "UY" => rut(rng),
        "VE" => rif(rng, true),
        _ => cuit(rng, true),
    }
}

/// An Argentine CUIT with a valid check digit: 30 for companies, 20 or 27 for people.
pub(super) fn cuit(rng: &mut StdRng, company: bool) -> String {
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

fn digits_text(digits: &[u32]) -> String {
    digits.iter().map(|d| char::from_digit(*d, 10).unwrap_or('0')).collect()
}

/// A Brazilian CPF with valid check digits.
pub(super) fn cpf(rng: &mut StdRng) -> String {
    let mut digits: Vec<u32> = (0..9).map(|_| rng.gen_range(0..10)).collect();
    let first = mod11_digit(&digits, (2..=10).rev());
    digits.push(first);
    let second = mod11_digit(&digits, (2..=11).rev());
    digits.push(second);
    let d = digits_text(&digits);
    format!("{}.{}.{}-{}", &d[0..3], &d[3..6], &d[6..9], &d[9..11])
}

/// A Brazilian CNPJ (head office, 0001) with valid check digits.
pub(super) fn cnpj(rng: &mut StdRng) -> String {
    let mut digits: Vec<u32> = (0..8).map(|_| rng.gen_range(0..10)).collect();
    digits.extend([0, 0, 0, 1]);
    let weights = |n: usize| [6u32, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2].into_iter().skip(13 - n);
    let first = mod11_digit(&digits, weights(12));
    digits.push(first);
    let second = mod11_digit(&digits, weights(13));
    digits.push(second);
    let d = digits_text(&digits);
    format!("{}.{}.{}/{}-{}", &d[0..2], &d[2..5], &d[5..8], &d[8..12], &d[12..14])
}

/// A plausible Mexican RFC: 3 letters for companies, 4 for people, a date and a homoclave.
pub(super) fn rfc(rng: &mut StdRng, company: bool) -> String {
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

/// A Paraguayan RUC: a person's identity-card number, or a company's number in the 80 million range, then the SET's
/// check digit (modulus 11, weights 2, 3, 4… from the right).
pub(super) fn ruc(rng: &mut StdRng, company: bool) -> String {
    let base: u32 = if company {
        rng.gen_range(80_000_000..80_150_000)
    } else {
        rng.gen_range(500_000..7_000_000)
    };
    let digits: Vec<u32> = base.to_string().chars().filter_map(|c| c.to_digit(10)).collect();
    let sum: u32 = digits.iter().rev().zip(2..).map(|(d, w)| d * w).sum();
    let check = match sum % 11 {
        0 | 1 => 0,
        rest => 11 - rest,
    };
    format!("{base}-{check}")
}

/// A Bolivian NIT: companies' ten-digit numbers, and people's identity-card number with the suffix the tax office adds.
/// The NIT has no public check digit.
pub(super) fn nit_bo(rng: &mut StdRng, company: bool) -> String {
    if company {
        format!("{}{:08}", rng.gen_range(10..40), rng.gen_range(0..100_000_000))
    } else {
        format!("{}01{}", rng.gen_range(1_000_000..10_000_000), rng.gen_range(0..10))
    }
}

/// A Colombian NIT with the DIAN's check digit: companies' numbers in the 800 and 900 millions, people's citizenship
/// card numbers otherwise.
pub(super) fn nit_co(rng: &mut StdRng, company: bool) -> String {
    let base: u64 = if company {
        rng.gen_range(800_000_000..902_000_000)
    } else {
        rng.gen_range(10_000_000..1_100_000_000)
    };
    let weights = [3u64, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];
    let digits: Vec<u64> = base
        .to_string()
        .chars()
        .filter_map(|c| c.to_digit(10))
        .map(u64::from)
        .collect();
    let sum: u64 = digits.iter().rev().zip(weights).map(|(d, w)| d * w).sum();
    let check = match sum % 11 {
        rest @ (0 | 1) => rest,
        rest => 11 - rest,
    };
    let grouped = base
        .to_string()
        .as_bytes()
        .rchunks(3)
        .rev()
        .map(|chunk| String::from_utf8_lossy(chunk).into_owned())
        .collect::<Vec<_>>()
        .join(".");
    format!("{grouped}-{check}")
}

/// An Uruguayan RUT: the department's two digits, six digits, 001, and the DGI's check digit (modulus 11); numbers
/// whose check would be 10 are not issued, so another is drawn.
pub(super) fn rut(rng: &mut StdRng) -> String {
    let weights = [4u32, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    loop {
        let mut digits: Vec<u32> = format!("{:02}{:06}001", rng.gen_range(1..22), rng.gen_range(0..1_000_000))
            .chars()
            .filter_map(|c| c.to_digit(10))
            .collect();
        let sum: u32 = digits.iter().zip(weights).map(|(d, w)| d * w).sum();
        let check = match 11 - sum % 11 {
            11 => 0,
            10 => continue,
            other => other,
        };
        digits.push(check);
        return digits_text(&digits);
    }
}

/// A Venezuelan RIF: J for companies, V for people, eight digits and the SENIAT's check digit.
pub(super) fn rif(rng: &mut StdRng, company: bool) -> String {
    let (letter, letter_value) = if company { ('J', 3) } else { ('V', 1) };
    let body: u32 = if company {
        rng.gen_range(29_000_000..50_000_000)
    } else {
        rng.gen_range(5_000_000..30_000_000)
    };
    let digits: Vec<u32> = format!("{body:08}").chars().filter_map(|c| c.to_digit(10)).collect();
    let weights = [3, 2, 7, 6, 5, 4, 3, 2];
    let sum: u32 = letter_value * 4 + digits.iter().zip(weights).map(|(d, w)| d * w).sum::<u32>();
    let check = match 11 - sum % 11 {
        10 | 11 => 0,
        other => other,
    };
    format!("{letter}-{body:08}-{check}")
}

#[cfg(test)]
mod tests {
    use rand::SeedableRng;

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
    fn the_same_seed_gives_the_same_ids() {
        let mut a = StdRng::seed_from_u64(1);
        let mut b = StdRng::seed_from_u64(1);
        assert_eq!(cuit(&mut a, true), cuit(&mut b, true));
        assert_eq!(rfc(&mut a, false), rfc(&mut b, false));
        for country in ["PY", "BO", "CO", "UY", "VE"] {
            assert_eq!(company(&mut a, country), company(&mut b, country));
        }
    }

    /// The digits of `id` before its check digit, and the check digit.
    fn split_check(id: &str) -> (Vec<u32>, u32) {
        let mut digits: Vec<u32> = id.chars().filter_map(|c| c.to_digit(10)).collect();
        let last = digits.pop().expect("a check digit");
        (digits, last)
    }

    #[test]
    fn colombian_nits_match_published_examples_and_their_own_check() {
        // 800.197.268-4 is the DIAN's own NIT.
        let weights = [3u32, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];
        let check = |digits: &[u32]| {
            let sum: u32 = digits.iter().rev().zip(weights).map(|(d, w)| d * w).sum();
            match sum % 11 {
                rest @ (0 | 1) => rest,
                rest => 11 - rest,
            }
        };
        assert_eq!(check(&[8, 0, 0, 1, 9, 7, 2, 6, 8]), 4);
        let mut rng = StdRng::seed_from_u64(3);
        for company in [true, false] {
            for _ in 0..30 {
                let nit = nit_co(&mut rng, company);
                let (digits, last) = split_check(&nit);
                assert_eq!(check(&digits), last, "{nit}");
            }
        }
    }

    #[test]
    fn paraguayan_rucs_carry_the_sets_check_digit() {
        let check = |digits: &[u32]| {
            let sum: u32 = digits.iter().rev().zip(2..).map(|(d, w)| d * w).sum();
            match sum % 11 {
                0 | 1 => 0,
                rest => 11 - rest,
            }
        };
        // 80012345 by hand: 5·2 + 4·3 + 3·4 + 2·5 + 1·6 + 8·9 = 122, 122 mod 11 = 1, so 0.
        assert_eq!(check(&[8, 0, 0, 1, 2, 3, 4, 5]), 0);
        let mut rng = StdRng::seed_from_u64(5);
        for company in [true, false] {
            for _ in 0..30 {
                let ruc = ruc(&mut rng, company);
                let (digits, last) = split_check(&ruc);
                assert_eq!(check(&digits), last, "{ruc}");
                assert_eq!(company, ruc.starts_with("80"), "{ruc}");
            }
        }
    }

    #[test]
    fn uruguayan_ruts_have_twelve_digits_and_a_valid_check() {
        let mut rng = StdRng::seed_from_u64(11);
        for _ in 0..50 {
            let rut = rut(&mut rng);
            assert_eq!(rut.len(), 12, "{rut}");
            assert_eq!(&rut[8..11], "001", "{rut}");
            let (digits, last) = split_check(&rut);
            let sum: u32 = digits
                .iter()
                .zip([4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2])
                .map(|(d, w)| d * w)
                .sum();
            assert_eq!((11 - sum % 11) % 11, last, "{rut}");
        }
    }

    #[test]
    fn venezuelan_rifs_carry_the_seniats_check_digit() {
        // J-00006372 by hand: 3·4 + 6·5 + 3·4 + 7·3 + 2·2 = 79, 79 mod 11 = 2, so 11 - 2 = 9.
        let check = |letter: u32, digits: &[u32]| {
            let sum: u32 = letter * 4
                + digits
                    .iter()
                    .zip([3, 2, 7, 6, 5, 4, 3, 2])
                    .map(|(d, w)| d * w)
                    .sum::<u32>();
            match 11 - sum % 11 {
                10 | 11 => 0,
                other => other,
            }
        };
        assert_eq!(check(3, &[0, 0, 0, 0, 6, 3, 7, 2]), 9);
        let mut rng = StdRng::seed_from_u64(13);
        for company in [true, false] {
            for _ in 0..30 {
                let rif = rif(&mut rng, company);
                let (digits, last) = split_check(&rif);
                assert_eq!(check(if company { 3 } else { 1 }, &digits), last, "{rif}");
                assert_eq!(company, rif.starts_with("J-"), "{rif}");
            }
        }
    }
}
