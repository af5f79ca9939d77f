//! `tranquera listen`: follows a society's change feed and forwards each event to a local URL, signed as a real
//! webhook delivery, so an integrator develops a webhook handler against the sandbox or the real service without
//! exposing a port (what `stripe listen` does for Stripe).
//!
//! A delivery is the feed item's JSON, with `webhook-id: evt_<id>`, `webhook-timestamp` and `webhook-signature`
//! signed with the session's `whsec_` secret by the SDK's [`client::webhooks::delivery_headers`], which is how the
//! platform signs; a handler that verifies these verifies real deliveries with the endpoint's own secret.
//!
//! Each forward's line starts with its time in the society's offset, written as the API writes times
//! (`2026-03-01T10:00:00-03:00`): the offset is the one the API gave the event's `occurred_at`, so the lines read
//! beside the events' own times and the society's records.

use std::time::{Duration, Instant};

use base64::Engine as _;
use clap::Args;
use client::EventStream;
use futures_util::StreamExt as _;
use rand::RngCore as _;

use crate::login::Login;
use crate::say::{client_error, say, Say};
use crate::settings::Failure;

/// How long the local handler has to answer: the platform's own delivery time-out.
const FORWARD_TIMEOUT: Duration = Duration::from_secs(10);
/// The wait before the one retry of a failed forward.
const RETRY_AFTER: Duration = Duration::from_secs(1);
/// The wait before following the feed again after the API could not be reached.
const RECONNECT_AFTER: Duration = Duration::from_secs(5);

/// What `tranquera listen --help` adds after the options.
const AFTER_HELP: &str = "Each event is POSTed to --forward-to with the headers of a real delivery (webhook-id, \
webhook-timestamp, webhook-signature) signed with the secret printed first. A forward that fails (no answer within \
10 s, or a status other than 2xx) is printed and retried once, a second later, and then left: unlike the \
platform's deliveries, listen does not keep retrying. Stop with Ctrl-C; the last line then gives the cursor to \
pass to --after to carry on where it stopped.";

/// Arguments of `tranquera listen`.
#[derive(Debug, Args)]
#[command(after_help = AFTER_HELP)]
pub struct ListenArgs {
    #[command(flatten)]
    login: Login,
    /// The local URL each event is POSTed to, e.g. http://localhost:3000/hooks.
    #[arg(long, value_name = "URL")]
    forward_to: reqwest::Url,
    /// Forward only these event types (`work_order.updated`) or resources (`plot.*`); repeatable or comma-separated.
    #[arg(long, value_name = "TYPE", value_delimiter = ',')]
    types: Vec<String>,
    /// Start after this feed cursor instead of at the present moment (a cursor `listen` printed when it stopped).
    #[arg(long, value_name = "CURSOR")]
    after: Option<String>,
    /// The `whsec_` secret to sign with; a fresh one is generated for the session when omitted.
    #[arg(long, env = "TRANQUERA_LISTEN_SECRET", value_name = "WHSEC")]
    secret: Option<String>,
}

/// Runs `tranquera listen`.
pub async fn run(args: ListenArgs) -> Result<(), Failure> {
    let secret = match &args.secret {
        Some(secret) => secret.clone(),
        None => generate_secret(),
    };
    // Checked before anything is forwarded, so a mistyped --secret fails at once rather than on every event.
    client::webhooks::delivery_headers(&secret, 0, 0, b"{}").map_err(|e| format!("--secret: {e}"))?;
    let api = args.login.client().await?;
    let http = reqwest::Client::builder()
        .timeout(FORWARD_TIMEOUT)
        .user_agent(concat!("tranquera-listen/", env!("CARGO_PKG_VERSION")))
        .build()?;
    let types: Vec<&str> = args.types.iter().map(String::as_str).collect();
    let start = match &args.after {
        Some(after) => after.clone(),
        // The head is read before "Ready!", so every change committed after that line is forwarded.
        None => match api.event_page(Some(client::NOW), &types, 1).await {
            Ok(page) => page.next_cursor,
            Err(error) => return Err(feed_failure(error)),
        },
    };
    println!("{}", say(Say::Ready(&secret)));
    let mut cursor = Some(start);
    let forwarder = Forwarder {
        http,
        url: args.forward_to.clone(),
        secret,
    };
    loop {
        let mut events = api.events(cursor.as_deref(), &types);
        let outcome = tokio::select! {
            outcome = follow(&mut events, &forwarder) => outcome,
            _ = tokio::signal::ctrl_c() => Ok(()),
        };
        cursor = events.cursor();
        match outcome {
            Ok(()) => {
                if let Some(cursor) = &cursor {
                    println!("{}", say(Say::Stopped(cursor)));
                }
                return Ok(());
            }
            Err(error @ (client::Error::Timeout | client::Error::Transport(_))) => {
                eprintln!("tranquera: {}", say(Say::Reconnecting(&client_error(&error))));
                tokio::time::sleep(RECONNECT_AFTER).await;
            }
            Err(error) => return Err(feed_failure(error)),
        }
    }
}

/// What to tell the user when the feed refuses to be followed.
fn feed_failure(error: client::Error) -> Failure {
    match error.status() {
        Some(client::StatusCode::GONE) => say(Say::CursorExpired(&client_error(&error))).into(),
        Some(client::StatusCode::NOT_FOUND) => say(Say::NoFeed(&client_error(&error))).into(),
        _ => error.into(),
    }
}

/// Forwards every event of the stream until it fails; the stream itself never ends.
async fn follow(events: &mut EventStream, forwarder: &Forwarder) -> Result<(), client::Error> {
    while let Some(event) = events.next().await {
        let event = event?;
        forwarder.forward(&event).await;
    }
    Ok(())
}

/// Where and how events are forwarded.
struct Forwarder {
    http: reqwest::Client,
    url: reqwest::Url,
    secret: String,
}

impl Forwarder {
    /// Forwards one event, once more after a failure, printing one line per attempt.
    async fn forward(&self, event: &client::wire::events::Event) {
        let body = match serde_json::to_vec(event) {
            Ok(body) => body,
            Err(error) => {
                let error = error.to_string();
                eprintln!(
                    "tranquera: {}",
                    say(Say::Unserializable {
                        event: event.id,
                        error: &error
                    })
                );
                return;
            }
        };
        for attempt in 1..=2 {
            let started = Instant::now();
            let answer = self.post(event.id, &body).await;
            let elapsed = started.elapsed().as_millis();
            let time = society_time(event, chrono::Utc::now());
            let retry = if attempt == 2 {
                format!(" {}", say(Say::Retry))
            } else {
                String::new()
            };
            let line = format!("{time}  --> {:<28} {:>8}", event.kind, event.resource_id);
            match answer {
                Ok(status) if status.is_success() => {
                    println!(
                        "{line}  <-- [{}] POST {} [{elapsed} ms]{retry}",
                        status.as_u16(),
                        self.url
                    );
                    return;
                }
                Ok(status) => {
                    println!(
                        "{line}  <-- [{}] POST {} [{elapsed} ms] {}{retry}",
                        status.as_u16(),
                        self.url,
                        say(Say::ForwardFailed)
                    );
                }
                Err(reason) => println!("{line}  <-- [ERR] POST {} [{elapsed} ms] {reason}{retry}", self.url),
            }
            if attempt == 1 {
                tokio::time::sleep(RETRY_AFTER).await;
            }
        }
    }

    /// One signed POST; the status the local handler answered, or why there was none.
    async fn post(&self, event_id: i64, body: &[u8]) -> Result<reqwest::StatusCode, String> {
        let headers = client::webhooks::delivery_headers(&self.secret, event_id, chrono::Utc::now().timestamp(), body)
            .map_err(|e| e.to_string())?;
        let response = self
            .http
            .post(self.url.clone())
            .headers(headers)
            .body(body.to_vec())
            .send()
            .await
            .map_err(|e| {
                if e.is_timeout() {
                    say(Say::NoAnswer)
                } else if e.is_connect() {
                    say(Say::ConnectionRefused)
                } else {
                    e.to_string()
                }
            })?;
        Ok(response.status())
    }
}

/// `now` in the offset the API gave `event`'s `occurred_at` (the society's), written as the API writes times.
fn society_time(event: &client::wire::events::Event, now: chrono::DateTime<chrono::Utc>) -> String {
    now.with_timezone(event.occurred_at.0.offset())
        .format(client::wire::time::OFFSET_FORMAT)
        .to_string()
}

/// A fresh `whsec_` secret: 32 random bytes in base64, as the platform makes them.
fn generate_secret() -> String {
    let mut key = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut key);
    format!("whsec_{}", base64::engine::general_purpose::STANDARD.encode(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_secrets_sign_and_differ() {
        let (one, two) = (generate_secret(), generate_secret());
        assert_ne!(one, two);
        assert!(one.starts_with("whsec_"));
        let body = br#"{"id":1,"type":"plot.created","resource":"plot","resource_id":1,"occurred_at":"2026-01-01T00:00:00-03:00","data":{}}"#;
        let headers =
            client::webhooks::delivery_headers(&one, 1, chrono::Utc::now().timestamp(), body).expect("signed");
        assert!(client::webhooks::verify(&one, &headers, body).is_ok());
        assert!(client::webhooks::verify(&two, &headers, body).is_err());
    }

    #[test]
    fn times_are_written_in_the_society_offset_as_the_api_writes_them() {
        let event = |at: &str| -> client::wire::events::Event {
            serde_json::from_value(serde_json::json!({
                "id": 1, "type": "plot.created", "resource": "plot", "resource_id": 1, "occurred_at": at, "data": {}
            }))
            .expect("an event")
        };
        let now = chrono::DateTime::parse_from_rfc3339("2026-03-01T13:00:00.25Z")
            .expect("an instant")
            .to_utc();
        assert_eq!(
            society_time(&event("2026-03-01T09:59:00-03:00"), now),
            "2026-03-01T10:00:00-03:00"
        );
        assert_eq!(
            society_time(&event("2026-03-01T08:00:00-06:00"), now),
            "2026-03-01T07:00:00-06:00"
        );
    }
}
