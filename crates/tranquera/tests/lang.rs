//! The command line speaks the user's language: `--lang`, else the locale (`LC_ALL`, `LC_MESSAGES`, `LANG`), else
//! English; and it asks the API for the same language, so a refusal reads as one text, with the API's `reason`.

mod sandbox;

use std::path::Path;

use sandbox::{sandbox, scratch, Sandbox};

/// What one run of `tranquera sync` printed on standard error, and whether it succeeded.
struct Printed {
    ok: bool,
    stderr: String,
}

impl Sandbox {
    /// `tranquera sync` of the establishments into `out`, with `args` before the subcommand's own, `locale` as the
    /// environment's only locale variable, and `password`.
    async fn sync_as(&self, out: &Path, args: &[&str], locale: Option<&str>, password: &str) -> Printed {
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_tranquera"));
        command
            .args(args)
            .arg("sync")
            .args(["--base-url", &self.base, "--resource", "establishments", "--out"])
            .arg(out)
            .env("TRANQUERA_EMAIL", self.email)
            .env("TRANQUERA_PASSWORD", password)
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env_remove("LANG")
            .stdin(std::process::Stdio::null());
        if let Some(locale) = locale {
            command.env("LANG", locale);
        }
        let output = command.output().await.expect("run tranquera sync");
        Printed {
            ok: output.status.success(),
            stderr: String::from_utf8(output.stderr).expect("UTF-8"),
        }
    }
}

/// Words of the English messages that must not appear in another language's.
const ENGLISH: [&str; 6] = ["answered", "Unauthorized", "the API", "Wrong", "reason", "code"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wrong_password_is_refused_in_one_language_chosen_by_the_locale_or_the_flag() {
    let sandbox = sandbox("lang").await;
    let out = scratch("lang-out");
    let cases: [(&[&str], Option<&str>, &str); 6] = [
        (
            &[],
            Some("es_AR.UTF-8"),
            "tranquera: la API respondió 401: Email o contraseña incorrectos. (motivo: bad_credentials)\n",
        ),
        (
            &[],
            Some("pt_BR.UTF-8"),
            "tranquera: a API respondeu 401: Email ou senha incorretos. (motivo: bad_credentials)\n",
        ),
        (
            &[],
            Some("fr_FR.UTF-8"),
            "tranquera: the API answered 401: Wrong email or password. (reason: bad_credentials)\n",
        ),
        (
            &[],
            None,
            "tranquera: the API answered 401: Wrong email or password. (reason: bad_credentials)\n",
        ),
        (
            &["--lang", "en"],
            Some("es_AR.UTF-8"),
            "tranquera: the API answered 401: Wrong email or password. (reason: bad_credentials)\n",
        ),
        (
            &["--lang", "pt"],
            Some("es_AR.UTF-8"),
            "tranquera: a API respondeu 401: Email ou senha incorretos. (motivo: bad_credentials)\n",
        ),
    ];
    for (args, locale, expected) in cases {
        let printed = sandbox.sync_as(&out, args, locale, "not-the-password").await;
        assert!(!printed.ok, "{args:?} {locale:?}");
        assert_eq!(printed.stderr, expected, "{args:?} {locale:?}");
        if expected.contains("motivo") {
            for word in ENGLISH {
                assert!(!printed.stderr.contains(word), "{word:?} in {}", printed.stderr);
            }
        }
    }
    let _ = std::fs::remove_dir_all(out);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_reports_in_the_language_asked_after_the_subcommand_too() {
    let sandbox = sandbox("lang-sync").await;
    for (lang, done, last) in [
        ("es", "sync establishments: listo, ", " recursos sincronizados en "),
        ("pt", "sync establishments: pronto, ", " recursos sincronizados em "),
        ("en", "sync establishments: done, ", "synced 1 resources into "),
    ] {
        let out = scratch("lang-sync-out");
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_tranquera"));
        let output = command
            .args([
                "sync",
                "--lang",
                lang,
                "--base-url",
                &sandbox.base,
                "--resource",
                "establishments",
            ])
            .arg("--out")
            .arg(&out)
            .env("TRANQUERA_EMAIL", sandbox.email)
            .env("TRANQUERA_PASSWORD", sandbox.password)
            .env_remove("LC_ALL")
            .env_remove("LC_MESSAGES")
            .env("LANG", "es_AR.UTF-8")
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .expect("run tranquera sync");
        let stdout = String::from_utf8(output.stdout).expect("UTF-8");
        assert!(output.status.success(), "{lang}: {stdout}");
        assert!(stdout.contains(done), "{lang}: {stdout}");
        assert!(stdout.contains(last), "{lang}: {stdout}");
        let _ = std::fs::remove_dir_all(out);
    }
}
