//! The machine-readable side of every error, beside its words: each [`Msg`]'s `reason` (a stable snake_case name of
//! the situation, the same in every language, that a program branches on), and the problems a 400 or 422 lists in
//! `errors[]`, each with its place, its own reason and its words. Both vocabularies are named here once: the
//! document's enums are made from [`REASONS`] and [`problem_reasons`], and the tests below hold them to what the
//! messages produce, so neither can go stale.

use domain::{FilterError, Lang, Refusal, Rule};
use wire::ErrorProblem;

use super::Msg;
use crate::body::MAX_PROBLEMS;

/// Every `reason` an error answer can carry, in the order `docs/api-decisions.md` lists them.
pub const REASONS: &[&str] = &[
    // 401 and 403: who is calling.
    "missing_system_id",
    "wrong_system_id",
    "missing_token",
    "token_without_bearer",
    "invalid_token",
    "invalid_api_key",
    "bad_credentials",
    "invalid_refresh_token",
    "role_missing",
    // 400, 413, 414, 415, 431: the request as sent.
    "missing_body",
    "unreadable_body",
    "malformed_json",
    "invalid_body",
    "unsupported_media_type",
    "payload_too_large",
    "too_many_items",
    "malformed_query",
    "invalid_parameter",
    "repeated_header",
    "invalid_idempotency_key",
    "uri_too_long",
    "headers_too_large",
    "malformed_request",
    // 404, 405, 410.
    "record_not_found",
    "page_not_found",
    "route_not_found",
    "method_not_allowed",
    "cursor_expired",
    // 409, 412, 422: the write and the records' state.
    "work_order_read_only",
    "external_id_taken",
    "external_code_taken",
    "has_dependants",
    "too_many_webhook_endpoints",
    "idempotency_in_progress",
    "idempotency_answer_lost",
    "idempotency_key_reused",
    "version_mismatch",
    "validation_failed",
    // 408, 429, 500, 503 and the rest: time, load, the server.
    "request_timeout",
    "body_timeout",
    "rate_limited",
    "too_many_failed_logins",
    "logins_busy",
    "unavailable",
    "internal_error",
    "http_error",
];

/// The reasons of `errors[]` that the server names itself; each broken rule of a write names its own
/// ([`Rule::reason`]), and a body that does not fit its schema its problem's ([`crate::body::Problem::reason`]).
const PROBLEM_REASONS: &[&str] = &[
    // A body as a whole.
    "missing_body",
    "unreadable_body",
    "nul_character",
    // A body's value that does not fit the schema.
    "wrong_type",
    "missing_field",
    "not_a_date_time",
    "unacceptable_value",
    "malformed_json",
    // A query parameter, a header, the request line.
    "malformed_query",
    "not_a_positive_integer",
    "out_of_range",
    "not_a_boolean",
    "wrong_generation",
    "unknown_cursor",
    "unknown_event_type",
    "too_many",
    "repeated",
    "invalid_format",
    "reused",
    "malformed_request",
];

/// Every reason an entry of `errors[]` can carry, sorted, each once.
pub fn problem_reasons() -> Vec<&'static str> {
    let mut reasons: Vec<&'static str> = PROBLEM_REASONS.iter().chain(Rule::REASONS).copied().collect();
    reasons.sort_unstable();
    reasons.dedup();
    reasons
}

/// The reason of a refused write.
fn refusal_reason(refusal: &Refusal) -> &'static str {
    match refusal {
        Refusal::Invalid(_) => "validation_failed",
        Refusal::TooManyItems { .. } => "too_many_items",
        Refusal::NotFound => "record_not_found",
        Refusal::HasDependants { .. } => "has_dependants",
        Refusal::ReadOnly => "work_order_read_only",
        Refusal::Stale => "version_mismatch",
        Refusal::DuplicateExternalId(_) => "external_id_taken",
        Refusal::DuplicateExternalCode(_) => "external_code_taken",
    }
}

impl Msg {
    /// Why, as a program reads it: one of [`REASONS`].
    pub fn reason(&self) -> &'static str {
        match self {
            Msg::MissingSystemId(_) => "missing_system_id",
            Msg::WrongSystemId(_) => "wrong_system_id",
            Msg::MissingToken => "missing_token",
            Msg::TokenWithoutBearer => "token_without_bearer",
            Msg::InvalidToken => "invalid_token",
            Msg::InvalidApiKey(_) => "invalid_api_key",
            Msg::BadCredentials => "bad_credentials",
            Msg::InvalidRefreshToken => "invalid_refresh_token",
            Msg::Forbidden | Msg::NotPermitted => "role_missing",
            Msg::MissingBody => "missing_body",
            Msg::MalformedBody(_) => "unreadable_body",
            Msg::Body(error) if error.malformed() => "malformed_json",
            Msg::Body(_) | Msg::NulInBody => "invalid_body",
            Msg::UnsupportedMediaType => "unsupported_media_type",
            Msg::PayloadTooLarge(_) => "payload_too_large",
            Msg::MalformedQuery(_) | Msg::NulInQuery => "malformed_query",
            Msg::InvalidPage(_)
            | Msg::InvalidSize(..)
            | Msg::Filter(_)
            | Msg::InvalidFlag { .. }
            | Msg::BadCursor(_)
            | Msg::UnknownEventType(_)
            | Msg::TooManyEventTypes(_)
            | Msg::InvalidFeedSize(..) => "invalid_parameter",
            Msg::RepeatedHeader(_) => "repeated_header",
            Msg::InvalidIdempotencyKey => "invalid_idempotency_key",
            Msg::UriTooLong(_) => "uri_too_long",
            Msg::HeadersTooLarge(_) => "headers_too_large",
            Msg::MalformedRequest => "malformed_request",
            Msg::NotFound { .. } => "record_not_found",
            Msg::PageNotFound { .. } | Msg::PageBeyondMaximum { .. } => "page_not_found",
            Msg::RouteNotFound(_) => "route_not_found",
            Msg::MethodNotAllowed { .. } => "method_not_allowed",
            Msg::FeedExpired(_) => "cursor_expired",
            Msg::Refused { refusal, .. } => refusal_reason(refusal),
            Msg::TooManyWebhookEndpoints(_) => "too_many_webhook_endpoints",
            Msg::IdempotencyInProgress => "idempotency_in_progress",
            Msg::IdempotencyAnswerLost => "idempotency_answer_lost",
            Msg::IdempotencyMismatch => "idempotency_key_reused",
            Msg::JobRows { .. } => "validation_failed",
            Msg::Timeout => "request_timeout",
            Msg::SlowBody(_) => "body_timeout",
            Msg::RateLimited(_) => "rate_limited",
            Msg::Throttled(_) => "too_many_failed_logins",
            Msg::LoginsBusy(_) => "logins_busy",
            Msg::Unavailable => "unavailable",
            Msg::Internal => "internal_error",
            Msg::Status(_) => "http_error",
        }
    }

    /// Every problem of the request, in `lang`, for `errors[]`: a refused body's and a broken rule's each at its JSON
    /// path, a query parameter's or a header's at its name, the body or the request as a whole at the empty path.
    /// Empty for a message that is not about the request as sent (a 401, a 409…). At most [`MAX_PROBLEMS`]: the
    /// message says when there are more.
    pub fn problems(&self, lang: Lang) -> Vec<ErrorProblem> {
        let one = |path: &str, reason: &str| {
            vec![ErrorProblem {
                path: path.to_owned(),
                reason: reason.to_owned(),
                message: self.text(lang),
            }]
        };
        match self {
            Msg::Body(error) => error
                .problems()
                .take(MAX_PROBLEMS)
                .map(|(path, problem)| ErrorProblem {
                    message: problem.text(&path, lang),
                    reason: problem.reason().to_owned(),
                    path,
                })
                .collect(),
            Msg::Refused {
                refusal: Refusal::Invalid(violations),
                ..
            } => violations
                .iter()
                .take(MAX_PROBLEMS)
                .map(|violation| ErrorProblem {
                    path: violation.path.clone(),
                    reason: violation.rule.reason().to_owned(),
                    message: super::refusal::violation_text(violation, lang),
                })
                .collect(),
            Msg::MissingBody => one("", "missing_body"),
            Msg::MalformedBody(_) => one("", "unreadable_body"),
            Msg::NulInBody => one("", "nul_character"),
            Msg::MalformedQuery(_) => one("", "malformed_query"),
            Msg::NulInQuery => one("", "nul_character"),
            Msg::InvalidPage(_) => one("page", "not_a_positive_integer"),
            Msg::InvalidSize(..) | Msg::InvalidFeedSize(..) => one("size", "out_of_range"),
            Msg::Filter(FilterError::InvalidDate { param, .. }) => one(param, "not_a_date_time"),
            Msg::Filter(FilterError::InvalidActive(_)) => one("active", "not_a_boolean"),
            Msg::Filter(FilterError::WrongGeneration { sent, .. }) => one(sent, "wrong_generation"),
            Msg::InvalidFlag { param, .. } => one(param, "not_a_boolean"),
            Msg::BadCursor(_) => one("after", "unknown_cursor"),
            Msg::UnknownEventType(_) => one("types", "unknown_event_type"),
            Msg::TooManyEventTypes(_) => one("types", "too_many"),
            Msg::RepeatedHeader(header) => one(header, "repeated"),
            Msg::InvalidIdempotencyKey => one("Idempotency-Key", "invalid_format"),
            Msg::IdempotencyMismatch => one("Idempotency-Key", "reused"),
            Msg::MalformedRequest => one("", "malformed_request"),
            Msg::JobRows { .. } => one("campaigns", "out_of_range"),
            Msg::MissingSystemId(_)
            | Msg::WrongSystemId(_)
            | Msg::MissingToken
            | Msg::TokenWithoutBearer
            | Msg::InvalidToken
            | Msg::InvalidApiKey(_)
            | Msg::BadCredentials
            | Msg::InvalidRefreshToken
            | Msg::Forbidden
            | Msg::NotPermitted
            | Msg::UnsupportedMediaType
            | Msg::PayloadTooLarge(_)
            | Msg::UriTooLong(_)
            | Msg::HeadersTooLarge(_)
            | Msg::NotFound { .. }
            | Msg::PageNotFound { .. }
            | Msg::PageBeyondMaximum { .. }
            | Msg::RouteNotFound(_)
            | Msg::MethodNotAllowed { .. }
            | Msg::FeedExpired(_)
            | Msg::Refused { .. }
            | Msg::TooManyWebhookEndpoints(_)
            | Msg::IdempotencyInProgress
            | Msg::IdempotencyAnswerLost
            | Msg::Timeout
            | Msg::SlowBody(_)
            | Msg::RateLimited(_)
            | Msg::Throttled(_)
            | Msg::LoginsBusy(_)
            | Msg::Unavailable
            | Msg::Internal
            | Msg::Status(_) => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
