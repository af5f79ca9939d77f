//! Webhook endpoints and their deliveries: `…/third_party/webhook_endpoints` and what it answers.

use std::fmt;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::Timestamp;

/// The body of `POST /api/v3/third_party/webhook_endpoints`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WebhookEndpointWrite {
    /// Where deliveries are sent: `https://`, to a public address (the server refuses loopback, private, link-local
    /// and metadata addresses, at creation and again at every delivery).
    #[schema(example = "https://erp.example.com/tranquera/webhooks", max_length = 2048)]
    pub url: String,
    /// The event types wanted, e.g. `work_order.created`, or `work_order.*` for every action on work orders;
    /// omitted or empty for every type.
    #[serde(default)]
    pub types: Vec<String>,
    /// What the endpoint is for, for people; at most 200 characters.
    #[serde(default)]
    #[schema(max_length = 200, example = "ERP sync")]
    pub description: Option<String>,
}

/// A webhook endpoint. Its signing secret is answered only by the create and by `rotate_secret`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WebhookEndpoint {
    /// The endpoint's id.
    pub id: i64,
    /// Where deliveries are sent.
    pub url: String,
    /// The event types delivered; empty for every type.
    pub types: Vec<String>,
    /// What the endpoint is for.
    pub description: Option<String>,
    /// `enabled`, or `disabled` once deliveries to it failed for 3 days (it then receives nothing until replaced).
    #[schema(example = "enabled")]
    pub state: String,
    /// When it was disabled.
    pub disabled_at: Option<Timestamp>,
    /// When it was registered.
    pub created_at: Timestamp,
    /// When it last changed (a rotation of its secret included).
    pub updated_at: Timestamp,
    /// When it was deleted.
    pub deleted_at: Option<Timestamp>,
}

/// An endpoint with its signing secret: the answer of the create and of `rotate_secret`, the only times the secret
/// is shown.
#[derive(Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WebhookEndpointWithSecret {
    /// The endpoint.
    #[serde(flatten)]
    pub endpoint: WebhookEndpoint,
    /// The secret deliveries are signed with (Standard Webhooks: `whsec_` and base64). Keep it: it is not shown
    /// again. After a rotation the previous secret also signs deliveries for 24 hours.
    #[schema(example = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")]
    pub secret: String,
}

impl fmt::Debug for WebhookEndpointWithSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebhookEndpointWithSecret")
            .field("endpoint", &self.endpoint)
            .field("secret", &"[REDACTED]")
            .finish()
    }
}

/// One delivery of one event to one endpoint, with each attempt made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WebhookDelivery {
    /// The delivery's id.
    pub id: i64,
    /// The endpoint.
    pub endpoint_id: i64,
    /// The event delivered (`webhook-id` is `evt_<event_id>`).
    pub event_id: i64,
    /// The event's type.
    #[schema(example = "work_order.updated")]
    pub event_type: String,
    /// `pending` (waiting for its next attempt), `delivering`, `succeeded`, `failed` (retried for 3 days) or
    /// `abandoned` (its endpoint was deleted or disabled).
    #[schema(example = "succeeded")]
    pub status: String,
    /// When the next attempt is due, while pending.
    pub next_attempt_at: Option<Timestamp>,
    /// When the event was first queued for this endpoint.
    pub created_at: Timestamp,
    /// When a 2xx answer was received.
    pub delivered_at: Option<Timestamp>,
    /// Every attempt, oldest first.
    pub attempts: Vec<WebhookAttempt>,
}

/// One attempt of a delivery.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct WebhookAttempt {
    /// When it was sent.
    pub attempted_at: Timestamp,
    /// The receiver's HTTP status; absent when no answer came (refused connection, time-out).
    pub status_code: Option<i64>,
    /// How long the answer took, in milliseconds.
    pub latency_ms: i64,
    /// The first 512 bytes of the answer's body.
    pub response_head: Option<String>,
    /// Why no answer came, or why the address was refused.
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_a_secret() {
        let endpoint = WebhookEndpoint {
            id: 1,
            url: "https://erp.example.com/".into(),
            types: vec![],
            description: None,
            state: "enabled".into(),
            disabled_at: None,
            created_at: crate::Timestamp(chrono::DateTime::UNIX_EPOCH.fixed_offset()),
            updated_at: crate::Timestamp(chrono::DateTime::UNIX_EPOCH.fixed_offset()),
            deleted_at: None,
        };
        let with_secret = WebhookEndpointWithSecret {
            endpoint,
            secret: "whsec_c2VjcmV0".into(),
        };
        let printed = format!("{with_secret:?}");
        assert!(
            !printed.contains("c2VjcmV0") && printed.contains("REDACTED"),
            "{printed}"
        );
    }
}
