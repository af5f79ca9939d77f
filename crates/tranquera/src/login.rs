//! How the client subcommands (`sync`, `listen`) reach the API and log in: the base URL and header token as flags,
//! the account's email and password from the environment or a prompt. The API is asked to speak the command's
//! language (`Accept-Language`), so its messages read as the command's own.

use std::io::IsTerminal as _;

use clap::Args;
use client::Client;

use crate::say::{accept_language, lang, say, Say};
use crate::settings::Failure;

/// Where the API is. Credentials come from `TRANQUERA_EMAIL` / `TRANQUERA_PASSWORD` or a prompt, never from a flag,
/// so they stay out of shell history and process lists.
#[derive(Debug, Args)]
pub struct Login {
    /// Base URL of the API, e.g. http://127.0.0.1:8080 for `tranquera demo`.
    #[arg(long, env = "TRANQUERA_BASE_URL")]
    base_url: String,
    /// The token in the API's header names (`X-<TOKEN>-SYSTEM-ID`).
    #[arg(long, env = "TRANQUERA_HEADER_TOKEN", default_value = "SVC")]
    header_token: String,
}

impl Login {
    /// A client of the API, logged in.
    pub async fn client(&self) -> Result<Client, Failure> {
        let (email, password) = credentials()?;
        let api = Client::builder(self.base_url.clone())
            .header_token(self.header_token.clone())
            .accept_language(accept_language(lang()))
            .build()?;
        api.login(&email, &password).await?;
        Ok(api)
    }
}

/// The account's email and password: from the environment, else asked on the terminal (the password unechoed).
fn credentials() -> Result<(String, String), Failure> {
    let email = std::env::var("TRANQUERA_EMAIL").ok().filter(|v| !v.is_empty());
    let password = std::env::var("TRANQUERA_PASSWORD").ok().filter(|v| !v.is_empty());
    if let (Some(email), Some(password)) = (&email, &password) {
        return Ok((email.clone(), password.clone()));
    }
    if !std::io::stdin().is_terminal() {
        return Err(say(Say::NoCredentials).into());
    }
    let term = console::Term::stderr();
    let email = match email {
        Some(email) => email,
        None => {
            term.write_str(&say(Say::EmailPrompt))?;
            term.read_line()?
        }
    };
    let password = match password {
        Some(password) => password,
        None => {
            term.write_str(&say(Say::PasswordPrompt))?;
            term.read_secure_line()?
        }
    };
    Ok((email.trim().to_owned(), password))
}
