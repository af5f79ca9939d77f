//! The SDK's one error type: what the API refused (decoded from its error envelope), and what went wrong on the
//! way there (transport, time-out, an answer that is not the expected shape).

use reqwest::StatusCode;
use wire::ErrorBody;
pub use wire::ErrorProblem;

/// Everything a call of the SDK can fail with.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The API answered with an error status and, usually, its envelope
    /// `{"error":{"code","message","exception","reason","errors"}}`.
    ///
    /// Branch on `reason` (see [`Error::reason`]), the stable name of the situation, the same in every language:
    /// the three 409s, for one, are `work_order_read_only`, `external_id_taken` and `idempotency_in_progress`.
    /// `code` is the envelope's code, which is the HTTP status everywhere except the applicators list past its last
    /// page, where the platform answers code 0. An answer without the envelope (say, a proxy's HTML page) keeps the
    /// status as its code, the start of its body as its message, and has no reason.
    #[error("the API answered {status} (code {code}): {message}")]
    Api {
        /// HTTP status of the answer.
        status: StatusCode,
        /// `error.code` of the envelope.
        code: i64,
        /// `error.message` of the envelope, in the language `Accept-Language` asked for.
        message: String,
        /// `error.reason` of the envelope: why, as a stable snake_case name (`docs/api-decisions.md` lists them);
        /// `None` for an answer without the envelope.
        reason: Option<String>,
        /// `error.errors` of the envelope: on a 400 or 422, every problem of the request, each with its path, its
        /// own reason and its message; empty otherwise.
        errors: Vec<ErrorProblem>,
    },
    /// The request or its answer took longer than the client's time-out, on every attempt allowed.
    #[error("the request timed out")]
    Timeout,
    /// The request could not be sent or its answer not read (connection refused or reset, TLS, DNS…), on every
    /// attempt allowed.
    #[error("transport error: {0}")]
    Transport(#[source] reqwest::Error),
    /// A successful answer that is not the shape the SDK expected.
    #[error("unexpected answer from {path}: {reason}")]
    Decode {
        /// The path that answered.
        path: String,
        /// What did not match.
        reason: String,
    },
    /// An authenticated call made before [`crate::Client::login`] succeeded.
    #[error("not logged in: call Client::login first")]
    NotLoggedIn,
    /// The client was configured with a value that cannot work (an unparsable base URL, a header token that is not
    /// a valid header name…).
    #[error("invalid client configuration: {0}")]
    Config(String),
}

impl Error {
    /// The HTTP status of an [`Error::Api`]; `None` for the other variants.
    ///
    /// ```
    /// # use client::Error;
    /// # fn check(error: &Error) {
    /// if error.status() == Some(client::StatusCode::NOT_FOUND) {
    ///     // the record is gone: drop it locally
    /// }
    /// # }
    /// ```
    pub fn status(&self) -> Option<StatusCode> {
        match self {
            Error::Api { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// The envelope's `error.code` of an [`Error::Api`].
    pub fn code(&self) -> Option<i64> {
        match self {
            Error::Api { code, .. } => Some(*code),
            _ => None,
        }
    }

    /// The envelope's `error.reason` of an [`Error::Api`]: why the API refused, as a stable snake_case name, the same
    /// in every language. `None` for the other variants, and for an answer that is not the envelope.
    ///
    /// ```
    /// # use client::Error;
    /// # fn check(error: &Error) {
    /// match error.reason() {
    ///     Some("idempotency_in_progress") => { /* the first try is still running: retry after Retry-After */ }
    ///     Some("external_id_taken") => { /* the order exists already: look it up by its external_id */ }
    ///     Some("work_order_read_only") => { /* leave it as it is */ }
    ///     _ => { /* decide by error.status() */ }
    /// }
    /// # }
    /// ```
    pub fn reason(&self) -> Option<&str> {
        match self {
            Error::Api { reason, .. } => reason.as_deref().filter(|reason| !reason.is_empty()),
            _ => None,
        }
    }

    /// The envelope's `error.errors` of an [`Error::Api`]: on a 400 or 422, every problem of the request, each with
    /// its `path` (a JSON path in the body, a query parameter's or a header's name), `reason` and `message`. Empty
    /// for anything else.
    pub fn problems(&self) -> &[ErrorProblem] {
        match self {
            Error::Api { errors, .. } => errors,
            _ => &[],
        }
    }

    /// Decodes an error answer: the envelope when the body is one, the status and the body's start otherwise.
    pub(crate) fn from_answer(status: StatusCode, body: &[u8]) -> Self {
        match serde_json::from_slice::<ErrorBody>(body) {
            Ok(envelope) => Error::Api {
                status,
                code: envelope.error.code,
                message: envelope.error.message,
                reason: Some(envelope.error.reason).filter(|reason| !reason.is_empty()),
                errors: envelope.error.errors.unwrap_or_default(),
            },
            Err(_) => {
                // Bounded, so an HTML error page of a proxy does not become a megabyte-long message.
                let text = String::from_utf8_lossy(body);
                let message: String = text.chars().take(300).collect();
                Error::Api {
                    status,
                    code: i64::from(status.as_u16()),
                    message,
                    reason: None,
                    errors: Vec::new(),
                }
            }
        }
    }

    /// A transport failure, told apart from a time-out.
    pub(crate) fn from_transport(error: reqwest::Error) -> Self {
        if error.is_timeout() {
            Error::Timeout
        } else {
            Error::Transport(error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_envelope_is_decoded_with_its_own_code() {
        let body =
            br#"{"error":{"code":0,"message":"La pagina solicitada (9) supera la pagina maxima (1).","exception":[]}}"#;
        let error = Error::from_answer(StatusCode::NOT_FOUND, body);
        assert_eq!(error.status(), Some(StatusCode::NOT_FOUND));
        assert_eq!(error.code(), Some(0));
        assert_eq!(error.reason(), None, "an envelope of a server that names no reason");
    }

    #[test]
    fn the_reason_and_every_problem_are_decoded() {
        let body = br#"{"error":{"code":422,"message":"area debe ser mayor que cero (se recibio -1); ...",
            "exception":[],"reason":"validation_failed","errors":[
            {"path":"area","reason":"not_positive","message":"area debe ser mayor que cero (se recibio -1)"},
            {"path":"establishment_id","reason":"unknown_reference","message":"establishment_id: 9 no existe"}]}}"#;
        let error = Error::from_answer(StatusCode::UNPROCESSABLE_ENTITY, body);
        assert_eq!(error.reason(), Some("validation_failed"));
        let places: Vec<(&str, &str)> = error
            .problems()
            .iter()
            .map(|problem| (problem.path.as_str(), problem.reason.as_str()))
            .collect();
        assert_eq!(
            places,
            [("area", "not_positive"), ("establishment_id", "unknown_reference")]
        );
    }

    #[test]
    fn a_body_that_is_not_the_envelope_keeps_the_status_as_code() {
        let error = Error::from_answer(StatusCode::BAD_GATEWAY, b"<html>bad gateway</html>");
        assert_eq!(error.code(), Some(502));
        assert_eq!(error.reason(), None);
        assert!(error.problems().is_empty());
        assert!(error.to_string().contains("bad gateway"));
    }
}
