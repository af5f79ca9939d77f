//! The countries the platform operates in, and each one's usual time zone and language.

use crate::Lang;

/// A country the platform operates in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Country {
    /// ISO 3166-1 alpha-2 code.
    pub code: &'static str,
    /// Name in the country's language.
    pub name: &'static str,
    /// The IANA time zone of its main agricultural region, used when a society names none.
    pub time_zone: &'static str,
    /// The language its people read: a society's messages use it when a request names none.
    pub language: Lang,
}

/// Every country the platform operates in.
pub const COUNTRIES: &[Country] = &[
    Country {
        code: "AR",
        name: "Argentina",
        time_zone: "America/Argentina/Buenos_Aires",
        language: Lang::Es,
    },
    Country {
        code: "BR",
        name: "Brasil",
        time_zone: "America/Sao_Paulo",
        language: Lang::Pt,
    },
    Country {
        code: "PY",
        name: "Paraguay",
        time_zone: "America/Asuncion",
        language: Lang::Es,
    },
    Country {
        code: "BO",
        name: "Bolivia",
        time_zone: "America/La_Paz",
        language: Lang::Es,
    },
    Country {
        code: "CO",
        name: "Colombia",
        time_zone: "America/Bogota",
        language: Lang::Es,
    },
    Country {
        code: "MX",
        name: "México",
        time_zone: "America/Mexico_City",
        language: Lang::Es,
    },
    Country {
        code: "UY",
        name: "Uruguay",
        time_zone: "America/Montevideo",
        language: Lang::Es,
    },
    Country {
        code: "VE",
        name: "Venezuela",
        time_zone: "America/Caracas",
        language: Lang::Es,
    },
];

/// The country with this code (case-insensitive), if the platform operates there.
pub fn country(code: &str) -> Option<&'static Country> {
    COUNTRIES.iter().find(|c| c.code.eq_ignore_ascii_case(code.trim()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eight_countries_are_known_and_others_are_not() {
        assert_eq!(COUNTRIES.len(), 8);
        assert_eq!(country("ar").map(|c| c.code), Some("AR"));
        assert_eq!(country("CL"), None);
    }
}
