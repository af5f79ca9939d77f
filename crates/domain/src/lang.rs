//! The language of human-readable messages: Spanish, the platform's language, unless `Accept-Language` prefers
//! Portuguese or English.

/// A language the API writes messages in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    /// Spanish, the default.
    #[default]
    Es,
    /// Portuguese.
    Pt,
    /// English.
    En,
}

impl Lang {
    /// Picks the most preferred language we speak from an `Accept-Language` value, honouring `q` weights; Spanish
    /// when none matches.
    pub fn negotiate(accept_language: Option<&str>) -> Lang {
        let Some(header) = accept_language else {
            return Lang::Es;
        };
        let mut best: Option<(f32, Lang)> = None;
        for entry in header.split(',') {
            let mut parts = entry.trim().split(';');
            let tag = parts.next().unwrap_or_default().trim().to_ascii_lowercase();
            let weight = parts
                .find_map(|p| p.trim().strip_prefix("q=").and_then(|q| q.parse::<f32>().ok()))
                .unwrap_or(1.0);
            let primary = tag.split('-').next().unwrap_or_default();
            let lang = match primary {
                "es" => Lang::Es,
                "pt" => Lang::Pt,
                "en" => Lang::En,
                _ => continue,
            };
            if weight > 0.0 && best.is_none_or(|(w, _)| weight > w) {
                best = Some((weight, lang));
            }
        }
        best.map_or(Lang::Es, |(_, lang)| lang)
    }

    /// The language of a POSIX locale such as `pt_BR.UTF-8` (an operator's `LC_ALL` or `LANG`), or of a bare code
    /// such as `en`; none when it is no language we speak.
    pub fn from_locale(locale: &str) -> Option<Lang> {
        let primary = locale
            .trim()
            .split(['_', '-', '.', '@'])
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        match primary.as_str() {
            "es" => Some(Lang::Es),
            "pt" => Some(Lang::Pt),
            "en" => Some(Lang::En),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spanish_is_the_default() {
        assert_eq!(Lang::negotiate(None), Lang::Es);
        assert_eq!(Lang::negotiate(Some("fr-FR, de")), Lang::Es);
    }

    #[test]
    fn the_first_language_we_speak_wins() {
        assert_eq!(Lang::negotiate(Some("pt-BR,pt;q=0.9,en;q=0.8")), Lang::Pt);
        assert_eq!(Lang::negotiate(Some("fr, en-US;q=0.7")), Lang::En);
    }

    #[test]
    fn locales_name_their_language_and_others_name_none() {
        assert_eq!(Lang::from_locale("pt_BR.UTF-8"), Some(Lang::Pt));
        assert_eq!(Lang::from_locale("en_US"), Some(Lang::En));
        assert_eq!(Lang::from_locale("es"), Some(Lang::Es));
        assert_eq!(Lang::from_locale("C.UTF-8"), None);
        assert_eq!(Lang::from_locale(""), None);
    }

    #[test]
    fn weights_decide_over_order() {
        assert_eq!(Lang::negotiate(Some("en;q=0.5, pt;q=0.8")), Lang::Pt);
        assert_eq!(Lang::negotiate(Some("pt;q=0, en")), Lang::En);
    }
}
