use client::webhooks::{verify, HeaderMap, VerifyError};
use client::wire::events::Event;

/// Checks a delivery with the endpoint's secret before anything acts on it. `body` is the request's bytes exactly
/// as they arrived: parsing and re-serialising them first breaks the signature.
pub fn handle_delivery(secret: &str, headers: &HeaderMap, body: &[u8]) -> Result<Event, VerifyError> {
    // On an error, answer 400 and do not act on the body.
    let event = verify(secret, headers, body)?;
    // `webhook-id` is the same on every attempt of one event: skip an id you have already processed.
    println!("{} {} {}", event.id, event.kind, event.resource_id);
    Ok(event)
}
