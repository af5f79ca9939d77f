//! W3C Trace Context: a request's `traceparent` is taken up (a malformed one is ignored, as the recommendation says),
//! a request without one starts a trace of its own, and either way the request's log span carries the trace id
//! beside the request id, and the answer's `traceparent` names the trace and this server's part in it. A client, or
//! the proxy in front of us, can then find a request in the server's logs by either id.

use axum::extract::Request;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use rand::RngCore;

/// The header, in both directions.
pub const TRACEPARENT: HeaderName = HeaderName::from_static("traceparent");

/// A request's place in a trace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// 32 lowercase hex digits, shared by every part of the trace.
    pub trace_id: String,
    /// 16 lowercase hex digits naming this server's handling of the request.
    pub span_id: String,
    /// The caller's flags (`01`: sampled), kept as they came; `00` for a trace started here.
    pub flags: String,
}

impl TraceContext {
    /// The context of a request whose `traceparent` was `header`, or of one that starts a trace.
    pub fn continue_or_start(header: Option<&str>) -> Self {
        let (trace_id, flags) = match header.and_then(parse) {
            Some((trace_id, flags)) => (trace_id.to_owned(), flags.to_owned()),
            None => (random_hex::<16>(), "00".to_owned()),
        };
        Self {
            trace_id,
            span_id: random_hex::<8>(),
            flags,
        }
    }

    /// The `traceparent` that names this server's part of the trace.
    pub fn header_value(&self) -> String {
        format!("00-{}-{}-{}", self.trace_id, self.span_id, self.flags)
    }
}

/// The trace id and flags of a well-formed `traceparent`: version `00` exactly as specified, or a later version's
/// first four fields; the ids lowercase hex and not all zeros.
fn parse(header: &str) -> Option<(&str, &str)> {
    let header = header.trim();
    let mut fields = header.split('-');
    let (version, trace_id, parent_id, flags) = (fields.next()?, fields.next()?, fields.next()?, fields.next()?);
    let more = fields.next().is_some();
    let hex = |field: &str, len: usize| {
        field.len() == len
            && field
                .bytes()
                .all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
    };
    let valid = hex(version, 2)
        && version != "ff"
        && (version != "00" || !more)
        && hex(trace_id, 32)
        && trace_id.bytes().any(|byte| byte != b'0')
        && hex(parent_id, 16)
        && parent_id.bytes().any(|byte| byte != b'0')
        && hex(flags, 2);
    valid.then_some((trace_id, flags))
}

fn random_hex<const N: usize>() -> String {
    let mut bytes = [0u8; N];
    loop {
        rand::thread_rng().fill_bytes(&mut bytes);
        if bytes.iter().any(|byte| *byte != 0) {
            break;
        }
    }
    store::hex(&bytes)
}

/// Takes up or starts the request's trace (see the module's doc), for the log span to read, and names it in the
/// answer.
pub async fn trace_context(mut request: Request, next: Next) -> Response {
    let context =
        TraceContext::continue_or_start(request.headers().get(TRACEPARENT).and_then(|value| value.to_str().ok()));
    let value = HeaderValue::from_str(&context.header_value());
    request.extensions_mut().insert(context);
    let mut response = next.run(request).await;
    if let Ok(value) = value {
        response.headers_mut().insert(TRACEPARENT, value);
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    const INCOMING: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_well_formed_traceparent_is_continued_with_a_span_of_ours() {
        let context = TraceContext::continue_or_start(Some(INCOMING));
        assert_eq!(context.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(context.flags, "01");
        assert_ne!(context.span_id, "00f067aa0ba902b7");
        assert_eq!(context.span_id.len(), 16);
        assert_eq!(
            context.header_value(),
            format!("00-4bf92f3577b34da6a3ce929d0e0e4736-{}-01", context.span_id)
        );
    }

    #[test]
    fn a_later_version_is_read_by_its_first_four_fields() {
        let context = TraceContext::continue_or_start(Some(&format!("cc{}-what-comes-next", &INCOMING[2..])));
        assert_eq!(context.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
    }

    #[test]
    fn a_malformed_traceparent_starts_a_new_trace() {
        for malformed in [
            "",
            "garbage",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
        ] {
            let context = TraceContext::continue_or_start(Some(malformed));
            assert_ne!(context.trace_id, "4bf92f3577b34da6a3ce929d0e0e4736", "{malformed}");
            assert_eq!(context.trace_id.len(), 32, "{malformed}");
            assert_eq!(context.flags, "00", "{malformed}");
        }
    }

    #[test]
    fn a_request_without_one_starts_a_trace() {
        let first = TraceContext::continue_or_start(None);
        let second = TraceContext::continue_or_start(None);
        assert_ne!(first.trace_id, second.trace_id);
        assert!(parse(&first.header_value()).is_some(), "{}", first.header_value());
    }
}
