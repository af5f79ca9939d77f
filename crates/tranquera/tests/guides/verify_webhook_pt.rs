use client::webhooks::{verify, HeaderMap, VerifyError};
use client::wire::events::Event;

/// Verifica uma entrega com o segredo do endpoint antes de agir sobre ela. `body` são os bytes da requisição
/// exatamente como chegaram: interpretá-los e serializá-los de novo antes quebra a assinatura.
pub fn handle_delivery(secret: &str, headers: &HeaderMap, body: &[u8]) -> Result<Event, VerifyError> {
    // Em caso de erro, responda 400 e não aja sobre o corpo.
    let event = verify(secret, headers, body)?;
    // `webhook-id` é o mesmo em cada tentativa de um evento: ignore um id que você já processou.
    println!("{} {} {}", event.id, event.kind, event.resource_id);
    Ok(event)
}
