//! The language the command line speaks to a person, and every message `login`, `sync`, `listen`, the servers'
//! start and the shared error printing write in it: Spanish, Portuguese or English.
//!
//! The language is chosen once, at start: `--lang`, else the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`, the first one
//! set, as POSIX reads them), else English. The API is asked for the same language (`Accept-Language`), so the
//! server's messages inside the command's own read as one text. Machine words stay as they are in every language:
//! a sync's `--summary-json`, the API's `reason`, resource and event names.

mod words;

use std::sync::OnceLock;

use clap::ValueEnum;
use domain::Lang;

pub use words::Say;

/// A language as `--lang` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LangArg {
    /// Spanish.
    Es,
    /// Portuguese.
    Pt,
    /// English.
    En,
}

impl From<LangArg> for Lang {
    fn from(arg: LangArg) -> Self {
        match arg {
            LangArg::Es => Lang::Es,
            LangArg::Pt => Lang::Pt,
            LangArg::En => Lang::En,
        }
    }
}

/// The language chosen at start; [`lang`] reads it.
static CHOSEN: OnceLock<Lang> = OnceLock::new();

/// Chooses the process's language: `flag`, else the locale's, else English. Only the first call counts.
pub fn choose(flag: Option<LangArg>) {
    let lang = flag.map_or_else(|| of_locale(|name| std::env::var(name).ok()), Lang::from);
    let _ = CHOSEN.set(lang);
}

/// The language messages are written in: the one chosen at start, or English before any choice (unit tests).
pub fn lang() -> Lang {
    CHOSEN.get().copied().unwrap_or(Lang::En)
}

/// The locale's language: the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty decides (so
/// `LC_ALL=C` means English whatever `LANG` says); English when it names no language the command speaks.
pub fn of_locale(var: impl Fn(&str) -> Option<String>) -> Lang {
    ["LC_ALL", "LC_MESSAGES", "LANG"]
        .iter()
        .find_map(|name| var(name).filter(|value| !value.is_empty()))
        .and_then(|locale| Lang::from_locale(&locale))
        .unwrap_or(Lang::En)
}

/// The `Accept-Language` value of `lang`.
pub fn accept_language(lang: Lang) -> &'static str {
    match lang {
        Lang::Es => "es",
        Lang::Pt => "pt",
        Lang::En => "en",
    }
}

/// `message` in the chosen language.
pub fn say(message: Say<'_>) -> String {
    message.text(lang())
}

/// An error of the SDK, in the chosen language: what the API refused keeps the API's own message (asked in the same
/// language) and its `reason`; the other failures are put in words here.
pub fn client_error(error: &client::Error) -> String {
    let lang = lang();
    match error {
        client::Error::Api {
            status, code, message, ..
        } => Say::ApiAnswered {
            status: status.as_u16(),
            code: *code,
            reason: error.reason(),
            message,
        }
        .text(lang),
        client::Error::Timeout => Say::TimedOut.text(lang),
        client::Error::Transport(source) => Say::Unreachable(&transport(source)).text(lang),
        client::Error::Decode { path, reason } => Say::UnexpectedAnswer { path, reason }.text(lang),
        client::Error::NotLoggedIn => Say::NotLoggedIn.text(lang),
        client::Error::Config(detail) => Say::BadClientConfig(detail).text(lang),
        other => other.to_string(),
    }
}

/// A transport failure's detail: the innermost cause (the refused connection, the unknown host), which says more
/// than reqwest's own "error sending request" around it.
fn transport(error: &reqwest::Error) -> String {
    let mut cause: &dyn std::error::Error = error;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    cause.to_string()
}

/// Why `demo` or `serve` cannot listen on `address`, and `flags` to give another with.
pub fn cannot_listen(address: std::net::SocketAddr, error: &std::io::Error, flags: &str) -> String {
    let why = match error.kind() {
        std::io::ErrorKind::AddrInUse => say(Say::AddressInUse),
        std::io::ErrorKind::PermissionDenied => say(Say::AddressForbidden),
        std::io::ErrorKind::AddrNotAvailable => say(Say::AddressNotHere),
        _ => error.to_string(),
    };
    say(Say::CannotListen {
        address: &address.to_string(),
        why: &why,
        flags,
    })
}

/// A failure of any subcommand, in the chosen language: an SDK error is put in words by [`client_error`]; the
/// others already are.
pub fn failure(error: &(dyn std::error::Error + 'static)) -> String {
    match error.downcast_ref::<client::Error>() {
        Some(error) => client_error(error),
        None => error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locale<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned())
    }

    #[test]
    fn the_first_locale_variable_set_decides() {
        assert_eq!(of_locale(locale(&[("LANG", "es_AR.UTF-8")])), Lang::Es);
        assert_eq!(of_locale(locale(&[("LANG", "pt_BR.UTF-8")])), Lang::Pt);
        assert_eq!(
            of_locale(locale(&[("LC_ALL", "pt_BR.UTF-8"), ("LANG", "es_AR.UTF-8")])),
            Lang::Pt
        );
        assert_eq!(
            of_locale(locale(&[("LC_MESSAGES", "es_MX"), ("LANG", "pt_BR")])),
            Lang::Es
        );
        assert_eq!(
            of_locale(locale(&[("LC_ALL", ""), ("LANG", "es_AR.UTF-8")])),
            Lang::Es,
            "an empty variable is not set"
        );
        assert_eq!(of_locale(locale(&[("LC_ALL", "C"), ("LANG", "es_AR.UTF-8")])), Lang::En);
        assert_eq!(of_locale(locale(&[("LANG", "fr_FR.UTF-8")])), Lang::En);
        assert_eq!(of_locale(locale(&[])), Lang::En);
    }

    #[test]
    fn a_taken_address_is_said_without_the_system_words() {
        let taken = std::io::Error::from(std::io::ErrorKind::AddrInUse);
        let address = std::net::SocketAddr::from(([127, 0, 0, 1], 8080));
        assert_eq!(
            cannot_listen(address, &taken, "--listen"),
            "cannot listen on 127.0.0.1:8080: the address is already in use; choose another address with --listen"
        );
        let spanish = Say::CannotListen {
            address: "127.0.0.1:8080",
            why: &Say::AddressInUse.text(Lang::Es),
            flags: "--listen",
        };
        assert_eq!(
            spanish.text(Lang::Es),
            "no se puede escuchar en 127.0.0.1:8080: la dirección ya está en uso; elija otra dirección con --listen"
        );
    }

    #[test]
    fn an_api_error_reads_as_one_language() {
        let error = Say::ApiAnswered {
            status: 401,
            code: 401,
            reason: Some("bad_credentials"),
            message: "Email o contraseña incorrectos.",
        };
        assert_eq!(
            error.text(Lang::Es),
            "la API respondió 401: Email o contraseña incorrectos. (motivo: bad_credentials)"
        );
        let paged = Say::ApiAnswered {
            status: 404,
            code: 0,
            reason: None,
            message: "Page 9 is past the last (1).",
        };
        assert_eq!(
            paged.text(Lang::En),
            "the API answered 404 (code 0): Page 9 is past the last (1)."
        );
    }
}
