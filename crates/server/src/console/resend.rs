//! Whether a recorded request can be sent again as it was recorded. The console's page sends it itself, with its
//! own token: the same method, path, query and body. Secrets were redacted before the request was stored, and a body
//! the console did not keep is gone, so such a request cannot be sent again as it was, and the page says why.

use serde::Serialize;
use serde_json::Value;

use super::redact::REDACTED;

/// Whether a recorded request can be sent again, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resend {
    /// Whether the page can send it again.
    pub allowed: bool,
    /// Why it cannot: `redacted_secret` (its body or query held a secret, stored as `[redacted]`) or
    /// `body_not_kept` (its body was longer than the console keeps, not JSON, or never read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<&'static str>,
}

impl Resend {
    fn refused(reason: &'static str) -> Self {
        Self {
            allowed: false,
            reason: Some(reason),
        }
    }
}

/// Whether `value` holds a redacted value at any depth.
fn holds_redacted(value: &Value) -> bool {
    match value {
        Value::String(text) => text == REDACTED,
        Value::Array(items) => items.iter().any(holds_redacted),
        Value::Object(fields) => fields.values().any(holds_redacted),
        _ => false,
    }
}

/// Whether the request said it carried a body (its `content-length` or `transfer-encoding`).
fn announced_a_body(headers: &Value) -> bool {
    let length = headers["content-length"]
        .as_str()
        .and_then(|n| n.trim().parse::<u64>().ok());
    length.is_some_and(|n| n > 0) || headers.get("transfer-encoding").is_some()
}

/// Judges a recorded request by its stored query, headers and body (the body's stored text: JSON, or the note
/// kept instead of a body that was not kept).
pub fn judge(query: Option<&str>, headers: &Value, body: Option<&str>) -> Resend {
    let query_redacted =
        query.is_some_and(|query| url::form_urlencoded::parse(query.as_bytes()).any(|(_, value)| value == REDACTED));
    let body = match body {
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(json) => Some(json),
            Err(_) => return Resend::refused("body_not_kept"),
        },
        None if announced_a_body(headers) => return Resend::refused("body_not_kept"),
        None => None,
    };
    if query_redacted || body.as_ref().is_some_and(holds_redacted) {
        return Resend::refused("redacted_secret");
    }
    Resend {
        allowed: true,
        reason: None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_request_without_secrets_can_be_sent_again() {
        let headers = json!({"content-length": "17"});
        assert!(judge(Some("page=2&size=5"), &headers, Some(r#"{"name":"Lote 4"}"#)).allowed);
        assert!(judge(None, &json!({}), None).allowed);
    }

    #[test]
    fn a_redacted_secret_in_the_body_or_the_query_forbids_it() {
        let body = r#"{"webhook":{"signing_secret":"[redacted]"}}"#;
        assert_eq!(judge(None, &json!({}), Some(body)).reason, Some("redacted_secret"));
        let query = Some("page=1&access_token=%5Bredacted%5D");
        assert_eq!(judge(query, &json!({}), None).reason, Some("redacted_secret"));
    }

    #[test]
    fn a_body_not_kept_forbids_it() {
        let note = Some("[70000 bytes: longer than the console keeps]");
        assert_eq!(judge(None, &json!({}), note).reason, Some("body_not_kept"));
        let unread = judge(None, &json!({"content-length": "12"}), None);
        assert_eq!(unread.reason, Some("body_not_kept"));
    }
}
