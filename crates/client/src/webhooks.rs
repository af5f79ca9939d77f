//! Webhook deliveries as the Standard Webhooks specification signs them: checking one that arrived ([`verify`]),
//! and signing one the way the platform does ([`delivery_headers`]), for tools and tests that play the sender.
//!
//! The cryptography is the `standardwebhooks` crate's (the specification's reference library), so a delivery this
//! module accepts is one every other Standard Webhooks library accepts too.

use reqwest::header::{HeaderValue, CONTENT_TYPE};
use standardwebhooks::{Webhook, WebhookError, HEADER_WEBHOOK_ID, HEADER_WEBHOOK_SIGNATURE, HEADER_WEBHOOK_TIMESTAMP};
use wire::events::Event;

/// The header map [`verify`] reads and [`delivery_headers`] fills: `http`'s, which axum, hyper and reqwest share.
pub use reqwest::header::HeaderMap;

/// Why a delivery was refused. Answer it with a 4xx and do not act on the body.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// The secret is not `whsec_` followed by base64: check what was copied from the endpoint's creation.
    #[error("the signing secret is not a whsec_ secret: {0}")]
    Secret(String),
    /// A `webhook-id`, `webhook-timestamp` or `webhook-signature` header is missing or unreadable.
    #[error("the delivery's headers are incomplete: {0}")]
    Headers(String),
    /// The timestamp is more than five minutes away from this machine's clock: a replayed delivery, or a clock
    /// that needs fixing.
    #[error("the delivery's timestamp is outside the five-minute tolerance")]
    Timestamp,
    /// No signature matches the body with this secret: a forged or altered delivery, or another endpoint's secret.
    #[error("the delivery's signature does not match")]
    Signature,
    /// Signed correctly but not an event (never from the platform).
    #[error("the delivery's body is not an event: {0}")]
    Body(String),
}

impl From<WebhookError> for VerifyError {
    fn from(error: WebhookError) -> Self {
        match error {
            WebhookError::InvalidSecret(reason) => VerifyError::Secret(reason.to_string()),
            WebhookError::TimestampTooOldError | WebhookError::FutureTimestampError => VerifyError::Timestamp,
            WebhookError::InvalidSignature => VerifyError::Signature,
            WebhookError::InvalidPayload => VerifyError::Body("not UTF-8".to_owned()),
            other => VerifyError::Headers(other.to_string()),
        }
    }
}

/// Checks a delivery's signature and timestamp with the endpoint's `secret`, then decodes its event. Pass the
/// body's bytes exactly as received: parsing and re-serialising them first breaks the signature.
///
/// During a secret rotation the platform signs with both secrets; either one verifies.
///
/// ```no_run
/// # fn handle(headers: &client::webhooks::HeaderMap, body: &[u8]) {
/// match client::webhooks::verify("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", headers, body) {
///     Ok(event) => println!("{} {}", event.kind, event.resource_id),
///     Err(refusal) => eprintln!("refused: {refusal}"), // answer 400 and ignore the body
/// }
/// # }
/// ```
pub fn verify(secret: &str, headers: &HeaderMap, body: &[u8]) -> Result<Event, VerifyError> {
    Webhook::new(secret)?.verify(body, headers)?;
    serde_json::from_slice(body).map_err(|e| VerifyError::Body(e.to_string()))
}

/// The headers a delivery of event `event_id` with `body`, signed with `secret` at `timestamp` (Unix seconds),
/// carries: `webhook-id: evt_<id>`, `webhook-timestamp`, `webhook-signature: v1,<base64>` and the JSON content
/// type. [`verify`] accepts them with the same secret.
///
/// ```
/// let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
/// let body = br#"{"id":7,"type":"plot.deleted","resource":"plot","resource_id":3,
///     "occurred_at":"2026-01-01T00:00:00-03:00","data":{"id":3}}"#;
/// let headers = client::webhooks::delivery_headers(secret, 7, chrono::Utc::now().timestamp(), body)?;
/// assert_eq!(client::webhooks::verify(secret, &headers, body)?.id, 7);
/// # Ok::<(), client::webhooks::VerifyError>(())
/// ```
pub fn delivery_headers(secret: &str, event_id: i64, timestamp: i64, body: &[u8]) -> Result<HeaderMap, VerifyError> {
    let id = format!("evt_{event_id}");
    let signature = Webhook::new(secret)?.sign(&id, timestamp, body)?;
    let value = |text: String| HeaderValue::from_str(&text).map_err(|e| VerifyError::Headers(e.to_string()));
    let mut headers = HeaderMap::new();
    headers.insert(HEADER_WEBHOOK_ID, value(id)?);
    headers.insert(HEADER_WEBHOOK_TIMESTAMP, value(timestamp.to_string())?);
    headers.insert(HEADER_WEBHOOK_SIGNATURE, value(signature)?);
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    Ok(headers)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
    const BODY: &[u8] = br#"{"id":42,"type":"work_order.updated","resource":"work_order","resource_id":9,"occurred_at":"2026-03-01T10:00:00-03:00","data":{"header":{"local_id":9}}}"#;

    fn now() -> i64 {
        chrono::Utc::now().timestamp()
    }

    #[test]
    fn a_real_signature_is_accepted_and_its_event_decoded() {
        let headers = delivery_headers(SECRET, 42, now(), BODY).expect("signed");
        assert_eq!(headers["webhook-id"], "evt_42");
        assert!(headers["webhook-signature"].to_str().expect("text").starts_with("v1,"));
        let event = verify(SECRET, &headers, BODY).expect("verified");
        assert_eq!(
            (event.id, event.kind.as_str(), event.resource_id),
            (42, "work_order.updated", 9)
        );
    }

    #[test]
    fn a_tampered_body_is_refused() {
        let headers = delivery_headers(SECRET, 42, now(), BODY).expect("signed");
        let tampered = String::from_utf8_lossy(BODY).replace("\"resource_id\":9", "\"resource_id\":8");
        assert!(matches!(
            verify(SECRET, &headers, tampered.as_bytes()),
            Err(VerifyError::Signature)
        ));
    }

    #[test]
    fn another_secret_is_refused() {
        let headers = delivery_headers(SECRET, 42, now(), BODY).expect("signed");
        let other = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD";
        assert!(matches!(verify(other, &headers, BODY), Err(VerifyError::Signature)));
        assert!(matches!(
            verify("whsec_%%%", &headers, BODY),
            Err(VerifyError::Secret(_))
        ));
    }

    #[test]
    fn an_old_or_future_timestamp_is_refused_even_when_signed() {
        for timestamp in [now() - 6 * 60, now() + 6 * 60] {
            let headers = delivery_headers(SECRET, 42, timestamp, BODY).expect("signed");
            assert!(matches!(verify(SECRET, &headers, BODY), Err(VerifyError::Timestamp)));
        }
    }

    #[test]
    fn missing_headers_are_named() {
        let mut headers = delivery_headers(SECRET, 42, now(), BODY).expect("signed");
        headers.remove("webhook-signature");
        assert!(matches!(verify(SECRET, &headers, BODY), Err(VerifyError::Headers(_))));
    }
}
