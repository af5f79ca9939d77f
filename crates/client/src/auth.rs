//! The session: login, and the refresh that keeps the access token valid without the caller noticing.
//!
//! The session lives behind one `tokio::sync::Mutex`. A call takes it only to read the token; when the token is
//! about to expire (or has just been refused with 401), the call that notices refreshes while holding it, and the
//! calls that queue behind it read the new token instead of refreshing again. That matters because a refresh token
//! works once: two concurrent refreshes with the same token would make the server revoke the whole family.

use chrono::{DateTime, FixedOffset, Utc};
use reqwest::{Method, StatusCode};
use secrecy::{ExposeSecret, SecretString};
use wire::auth::{LoginRequest, LoginResponse, RefreshRequest, SocietySummary};

use crate::client::{Call, Client};
use crate::Error;

const LOGIN: &str = "/api/v2/login";
const REFRESH: &str = "/api/v2/login/refresh";

/// The account's credentials, kept so the client can log in again when its refresh token is refused (expired
/// after 30 days, or revoked). `Debug` never shows the password.
#[derive(Clone, Debug)]
pub(crate) struct Credentials {
    email: String,
    password: SecretString,
}

/// The live token pair and when its access token stops working; `Debug` never shows the tokens.
#[derive(Debug)]
pub(crate) struct Session {
    access: SecretString,
    refresh: SecretString,
    expires_at: DateTime<FixedOffset>,
    /// How long the access token lived when it was issued; bounds the refresh margin, so a server configured with
    /// very short tokens is not refreshed on every call.
    lifetime: chrono::Duration,
    /// `None` for a session adopted with [`Client::resume`]: a refused refresh token is then the caller's error.
    credentials: Option<Credentials>,
    society: SocietySummary,
}

impl Session {
    fn new(grant: LoginResponse, credentials: Option<Credentials>) -> Self {
        let expires_at = grant.expiration_datetime.0;
        Self {
            lifetime: expires_at.to_utc() - Utc::now(),
            access: grant.access_token.into(),
            refresh: grant.refresh_token.into(),
            expires_at,
            credentials,
            society: grant.society,
        }
    }

    /// Whether the access token expires within `margin` (at most half its lifetime) from now.
    fn expires_soon(&self, margin: std::time::Duration) -> bool {
        let margin = chrono::Duration::from_std(margin).unwrap_or(chrono::Duration::MAX);
        let margin = margin.min(self.lifetime / 2);
        self.expires_at.to_utc() - Utc::now() <= margin
    }
}

impl Client {
    /// Logs in with `POST /api/v2/login`, and keeps the session for every later call.
    ///
    /// Returns the caller's society, whose `sync_check` changes whenever any of its data changes. A wrong email or
    /// password is [`Error::Api`] with status 401; an account without the `api_integrated` role, 403.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), client::Error> {
    /// let api = client::Client::builder("http://127.0.0.1:8080").build()?;
    /// let society = api.login("integrador@lapampa.com.ar", "LaPampa-2026").await?;
    /// println!("logged in to {} ({})", society.legal_name, society.sync_check);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn login(&self, email: &str, password: &str) -> Result<SocietySummary, Error> {
        let credentials = Credentials {
            email: email.to_owned(),
            password: password.into(),
        };
        let grant = self.request_login(&credentials).await?;
        let session = Session::new(grant, Some(credentials));
        let society = session.society.clone();
        *self.inner.session.lock().await = Some(session);
        tracing::debug!(society = society.id, "logged in");
        Ok(society)
    }

    /// Adopts a session obtained elsewhere: the answer of a login or refresh that the caller stored, so a restarted
    /// process need not log in again. The client refreshes it like its own; since it has no credentials, a refused
    /// refresh token (used already, revoked, or older than its 30 days) is returned as [`Error::Api`] with status 401.
    ///
    /// ```no_run
    /// # async fn run(stored: client::wire::auth::LoginResponse) -> Result<(), client::Error> {
    /// let api = client::Client::builder("http://127.0.0.1:8080").build()?;
    /// api.resume(stored).await;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn resume(&self, grant: LoginResponse) {
        *self.inner.session.lock().await = Some(Session::new(grant, None));
    }

    /// The society of the current session, with the `sync_check` of the last login or refresh.
    pub async fn society(&self) -> Option<SocietySummary> {
        self.inner.session.lock().await.as_ref().map(|s| s.society.clone())
    }

    /// Forgets the session; later authenticated calls answer [`Error::NotLoggedIn`] until the next login.
    pub async fn logout(&self) {
        *self.inner.session.lock().await = None;
    }

    /// The access token to send. With `refused`, the token a call just had refused with 401: unless another call
    /// has replaced it meanwhile, it is refreshed. Without, it is refreshed when about to expire.
    pub(crate) async fn bearer(&self, refused: Option<&str>) -> Result<String, Error> {
        let mut guard = self.inner.session.lock().await;
        let session = guard.as_mut().ok_or(Error::NotLoggedIn)?;
        let renew = match refused {
            Some(token) => session.access.expose_secret() == token,
            None => session.expires_soon(self.inner.refresh_margin),
        };
        if renew {
            self.renew(session).await?;
        }
        Ok(session.access.expose_secret().to_owned())
    }

    /// Trades the refresh token for a new pair; logs in again when the refresh token is refused.
    async fn renew(&self, session: &mut Session) -> Result<(), Error> {
        let body = RefreshRequest {
            refresh_token: session.refresh.expose_secret().to_owned(),
        };
        let call = Call::new(Method::POST, REFRESH).json(&body)?.retry_post();
        let grant = match self.transmit(&call, None).await {
            Ok(answer) => answer.decode::<LoginResponse>()?,
            Err(Error::Api { status, .. }) if status == StatusCode::UNAUTHORIZED && session.credentials.is_some() => {
                tracing::info!("refresh token refused; logging in again");
                match &session.credentials {
                    Some(credentials) => self.request_login(credentials).await?,
                    None => return Err(Error::NotLoggedIn),
                }
            }
            Err(error) => return Err(error),
        };
        *session = Session::new(grant, session.credentials.clone());
        tracing::debug!(expires_at = %session.expires_at, "access token refreshed");
        Ok(())
    }

    async fn request_login(&self, credentials: &Credentials) -> Result<LoginResponse, Error> {
        let body = LoginRequest {
            email: credentials.email.clone(),
            password: credentials.password.expose_secret().to_owned(),
        };
        // Login creates nothing, so a retry after a lost answer is harmless; the server ignores idempotency keys on
        // it. A 429 lockout asks for minutes, longer than the policy waits, so it reaches the caller.
        let call = Call::new(Method::POST, LOGIN).json(&body)?.retry_post();
        self.transmit(&call, None).await?.decode()
    }
}

#[cfg(test)]
mod tests {
    use wire::Timestamp;

    use super::*;

    #[test]
    fn debug_output_redacts_the_password_and_the_tokens() {
        let credentials = Credentials {
            email: "a@b.ar".into(),
            password: "password-secret".into(),
        };
        let grant = LoginResponse {
            access_token: "access-secret".into(),
            refresh_token: "refresh-secret".into(),
            expiration_datetime: Timestamp(Utc::now().fixed_offset()),
            society: SocietySummary {
                id: 1,
                legal_name: "La Pampa".into(),
                sync_check: "1-2".into(),
            },
        };
        let session = Session::new(grant, Some(credentials.clone()));
        for text in [format!("{credentials:?}"), format!("{session:?}")] {
            assert!(!text.contains("secret"), "{text}");
            assert!(text.to_ascii_lowercase().contains("redacted"), "{text}");
        }
    }
}
