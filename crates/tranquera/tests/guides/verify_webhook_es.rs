use client::webhooks::{verify, HeaderMap, VerifyError};
use client::wire::events::Event;

/// Verifica una entrega con el secreto del endpoint antes de actuar sobre ella. `body` son los bytes del pedido
/// tal como llegaron: interpretarlos y volver a serializarlos antes rompe la firma.
pub fn handle_delivery(secret: &str, headers: &HeaderMap, body: &[u8]) -> Result<Event, VerifyError> {
    // Ante un error, responda 400 y no actúe sobre el cuerpo.
    let event = verify(secret, headers, body)?;
    // `webhook-id` es el mismo en cada intento de un evento: omita un id que ya procesó.
    println!("{} {} {}", event.id, event.kind, event.resource_id);
    Ok(event)
}
