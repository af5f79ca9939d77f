//! The texts a write may carry: how long each kind may be, which characters an external code may not hold, and the
//! one form codes are stored and compared in. Every write's rules and the operator's import use these, and the wire
//! schemas state the same maxima as `maxLength`, so that the OpenAPI document refuses exactly what the server does.
//!
//! Lengths count characters (Unicode scalar values, as JSON Schema's `maxLength` counts code points), never bytes,
//! and are checked on the text as sent, before it is trimmed or normalised: a text the schema allows is never refused
//! for its length, and one it forbids never taken.
//!
//! External codes are what an integrator's records are matched by, and a society's live codes are unique per
//! resource. Two texts a person reads as the same code must therefore be one code: a code is stored in Unicode
//! normalisation form KC, so that composed and decomposed accents (NFC and NFD) and fullwidth forms (`ＥＲＰ－１`) are
//! the code they look like (`ERP-1`), and a code with a character that shows nothing (a zero-width space, a
//! direction mark, a control character) is refused, since no one could tell it from the code without it.

use unicode_normalization::UnicodeNormalization;

use crate::refusal::{Refusal, Rule, Violation};

/// Longest external code (`external_code`, a work order's `external_id`), serial number, or other short key, such
/// as a date written as text.
pub const MAX_CODE: usize = 100;
/// Longest name, and longest of the other short texts a record carries (an address, a phone number, a tax id).
pub const MAX_NAME: usize = 200;
/// Longest email address: the longest path SMTP carries (RFC 5321).
pub const MAX_EMAIL: usize = 254;
/// Longest free-text note (a silobag row's `observations`, an imported farmer's).
pub const MAX_OBSERVATIONS: usize = 4_000;
/// Longest description of a webhook endpoint.
pub const MAX_DESCRIPTION: usize = 200;
/// Longest webhook URL.
pub const MAX_URL: usize = 2_048;
/// Longest password a login takes; an account's password is set within it.
pub const MAX_PASSWORD: usize = 256;
/// Longest refresh token a refresh takes: the tokens this server issues are well under it.
pub const MAX_TOKEN: usize = 256;

/// What a text holds, and so how long it may be and what it may contain.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Text {
    /// An external code or another short key: at most [`MAX_CODE`], no invisible character.
    Code,
    /// A short key that is no external code (a serial number, a date as text): at most [`MAX_CODE`].
    Key,
    /// A name or another short text: at most [`MAX_NAME`].
    Name,
    /// An email address: at most [`MAX_EMAIL`].
    Email,
    /// A free-text note: at most [`MAX_OBSERVATIONS`].
    Observations,
    /// A password: at most [`MAX_PASSWORD`].
    Password,
    /// A token: at most [`MAX_TOKEN`].
    Token,
}

impl Text {
    /// The most characters a text of this kind may have.
    pub const fn max(self) -> usize {
        match self {
            Text::Code | Text::Key => MAX_CODE,
            Text::Name => MAX_NAME,
            Text::Email => MAX_EMAIL,
            Text::Observations => MAX_OBSERVATIONS,
            Text::Password => MAX_PASSWORD,
            Text::Token => MAX_TOKEN,
        }
    }
}

/// Checks `value`, as sent, against the rules of `kind`: its length, and for a code, no invisible character.
pub fn check(path: &str, value: &str, kind: Text, violations: &mut Vec<Violation>) {
    if too_long(value, kind.max()) {
        violations.push(Violation::new(path, Rule::TooLong(kind.max())));
    } else if kind == Text::Code {
        if let Some(found) = value.chars().find(|c| invisible(*c)) {
            violations.push(Violation::new(path, Rule::Invisible(found)));
        }
    }
}

/// [`check`] of a text that may be absent.
pub fn check_optional(path: &str, value: Option<&str>, kind: Text, violations: &mut Vec<Violation>) {
    if let Some(value) = value {
        check(path, value, kind, violations);
    }
}

/// Whether `value` has more than `max` characters; counts no further than needed.
pub fn too_long(value: &str, max: usize) -> bool {
    // A character takes at most four bytes and at least one.
    value.len() > max && (value.len() > 4 * max || value.chars().nth(max).is_some())
}

/// The bounds of a login: the email and the password as sent.
pub fn check_login(email: &str, password: &str) -> Result<(), Refusal> {
    let mut violations = Vec::new();
    check("email", email, Text::Email, &mut violations);
    check("password", password, Text::Password, &mut violations);
    crate::refusal::verdict(violations)
}

/// The bound of a refresh: the token as sent.
pub fn check_refresh_token(token: &str) -> Result<(), Refusal> {
    let mut violations = Vec::new();
    check("refresh_token", token, Text::Token, &mut violations);
    crate::refusal::verdict(violations)
}

/// An external code as it is stored and compared: trimmed, in normalisation form KC; none when blank.
pub fn code(value: Option<&str>) -> Option<String> {
    let trimmed = value.map(str::trim).filter(|text| !text.is_empty())?;
    if trimmed.is_ascii() {
        // ASCII is its own normal form.
        return Some(trimmed.to_owned());
    }
    let normal: String = trimmed.nfkc().collect();
    // A compatibility form may decompose into spaces at either end (U+3000, a fullwidth space, is one).
    Some(normal.trim().to_owned()).filter(|text| !text.is_empty())
}

/// A code as a write's command carries it: in the form it is stored and compared in ([`code`]'s, untrimmed) when it
/// keeps the code rules as sent, else exactly as sent, so that the rules refuse what the document's `maxLength` and
/// `pattern` forbid, judged on the text sent and not on its normal form.
pub fn sent_code(value: Option<String>) -> Option<String> {
    let mut violations = Vec::new();
    check_optional("", value.as_deref(), Text::Code, &mut violations);
    match value {
        Some(sent) if violations.is_empty() && !sent.is_ascii() => Some(sent.nfkc().collect()),
        other => other,
    }
}

/// Whether `c` shows nothing, so that a code holding it cannot be told from the code without it: control
/// characters, format characters (zero-width spaces and joiners, direction marks and isolates, the byte-order mark,
/// invisible operators, tags), line and paragraph separators, variation selectors, the combining grapheme joiner and
/// the Hangul fillers (Unicode's default-ignorable code points).
pub fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{0}'..='\u{1F}'
            | '\u{7F}'..='\u{9F}'
            | '\u{AD}'
            | '\u{34F}'
            | '\u{61C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFFB}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn violations(value: &str, kind: Text) -> Vec<Rule> {
        let mut found = Vec::new();
        check("field", value, kind, &mut found);
        found.into_iter().map(|violation| violation.rule).collect()
    }

    #[test]
    fn lengths_count_characters_not_bytes() {
        let hundred = "ñ".repeat(MAX_CODE);
        assert!(violations(&hundred, Text::Code).is_empty());
        assert_eq!(
            violations(&format!("{hundred}a"), Text::Code),
            [Rule::TooLong(MAX_CODE)]
        );
        assert!(!too_long("", 0));
        assert!(too_long("a", 0));
        assert!(!too_long(&"🌾".repeat(10), 10));
        assert!(too_long(&"🌾".repeat(11), 10));
    }

    #[test]
    fn each_kind_has_its_bound() {
        for (kind, max) in [
            (Text::Name, MAX_NAME),
            (Text::Email, MAX_EMAIL),
            (Text::Observations, MAX_OBSERVATIONS),
            (Text::Password, MAX_PASSWORD),
            (Text::Token, MAX_TOKEN),
            (Text::Key, MAX_CODE),
        ] {
            assert!(violations(&"x".repeat(max), kind).is_empty(), "{kind:?}");
            assert_eq!(violations(&"x".repeat(max + 1), kind), [Rule::TooLong(max)], "{kind:?}");
        }
        assert_eq!(check_login("a@b.ar", "secreto"), Ok(()));
        assert!(check_login(&"a".repeat(MAX_EMAIL + 1), "secreto").is_err());
        assert!(check_refresh_token(&"1.".repeat(MAX_TOKEN)).is_err());
    }

    #[test]
    fn a_code_may_hold_no_invisible_character() {
        for hidden in [
            '\u{200B}',
            '\u{200D}',
            '\u{FEFF}',
            '\u{202E}',
            '\u{2060}',
            '\t',
            '\u{E0041}',
            '\u{AD}',
        ] {
            assert_eq!(
                violations(&format!("ERP{hidden}1"), Text::Code),
                [Rule::Invisible(hidden)],
                "{:X}",
                hidden as u32
            );
        }
        // Names are not codes: they keep whatever they are sent with, within their length.
        assert!(violations("Lote\u{200B}1", Text::Name).is_empty());
        // Accents, spaces and signs are visible.
        assert!(violations("Lote Ñandú 1/2 - Año", Text::Code).is_empty());
    }

    #[test]
    fn codes_that_look_the_same_are_one_code() {
        let composed = "Maní-Ñ";
        let decomposed = "Man\u{0069}\u{0301}-N\u{0303}";
        assert_ne!(composed, decomposed);
        assert_eq!(code(Some(composed)), code(Some(decomposed)));
        assert_eq!(code(Some(composed)).as_deref(), Some(composed));
        assert_eq!(code(Some("ＥＲＰ－１")).as_deref(), Some("ERP-1"));
        assert_eq!(code(Some("\u{3000}ERP-1\u{3000}")).as_deref(), Some("ERP-1"));
        assert_eq!(code(Some("  ERP-1 ")).as_deref(), Some("ERP-1"));
        assert_eq!(code(Some("   ")), None);
        assert_eq!(code(Some("\u{3000}")), None);
        assert_eq!(code(None), None);
    }

    #[test]
    fn a_command_carries_a_code_in_its_normal_form_only_when_it_keeps_the_rules_as_sent() {
        assert_eq!(sent_code(Some("ＥＲＰ－１".into())).as_deref(), Some("ERP-1"));
        assert_eq!(sent_code(Some(" ERP-1 ".into())).as_deref(), Some(" ERP-1 "));
        assert_eq!(sent_code(None), None);
        // 101 characters as sent, 100 once composed: refused as the schema refuses it.
        let decomposed = format!("{}e\u{301}", "x".repeat(MAX_CODE - 1));
        assert_eq!(decomposed.chars().count(), MAX_CODE + 1);
        let carried = sent_code(Some(decomposed.clone()));
        assert_eq!(carried.as_deref(), Some(decomposed.as_str()));
        let mut found = Vec::new();
        check_optional("external_code", carried.as_deref(), Text::Code, &mut found);
        assert_eq!(found, [Violation::new("external_code", Rule::TooLong(MAX_CODE))]);
        let hidden = "ERP\u{200B}－１".to_owned();
        assert_eq!(sent_code(Some(hidden.clone())), Some(hidden));
    }
}
