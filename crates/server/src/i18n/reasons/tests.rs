//! The reason vocabularies held to the messages: every reason a message gives is listed, every listed reason is given
//! by some message, and every 400 and 422 names its problems.

use std::collections::BTreeSet;

use domain::{FilterError, Lang, Refusal, Rule, Violation};

use super::{problem_reasons, Msg, PROBLEM_REASONS, REASONS};
use crate::body::{BodyError, Expected, JsonKind, Problem, Segment};

/// Which variant `msg` is. A new variant fails to compile here until it is numbered, and then the test fails until
/// it has a sample.
fn variant(msg: &Msg) -> usize {
    match msg {
        Msg::MissingSystemId(_) => 0,
        Msg::WrongSystemId(_) => 1,
        Msg::MissingToken => 2,
        Msg::TokenWithoutBearer => 3,
        Msg::InvalidToken => 4,
        Msg::Forbidden => 5,
        Msg::BadCredentials => 6,
        Msg::NotPermitted => 7,
        Msg::Throttled(_) => 8,
        Msg::LoginsBusy(_) => 9,
        Msg::InvalidRefreshToken => 10,
        Msg::MissingBody => 11,
        Msg::MalformedBody(_) => 12,
        Msg::Body(_) => 13,
        Msg::NulInBody => 14,
        Msg::UnsupportedMediaType => 15,
        Msg::PayloadTooLarge(_) => 16,
        Msg::MalformedQuery(_) => 17,
        Msg::NulInQuery => 18,
        Msg::RepeatedHeader(_) => 19,
        Msg::UriTooLong(_) => 20,
        Msg::HeadersTooLarge(_) => 21,
        Msg::MalformedRequest => 22,
        Msg::InvalidPage(_) => 23,
        Msg::InvalidSize(..) => 24,
        Msg::PageNotFound { .. } => 25,
        Msg::Filter(_) => 26,
        Msg::NotFound { .. } => 27,
        Msg::RouteNotFound(_) => 28,
        Msg::MethodNotAllowed { .. } => 29,
        Msg::Timeout => 30,
        Msg::SlowBody(_) => 31,
        Msg::RateLimited(_) => 32,
        Msg::Unavailable => 33,
        Msg::Internal => 34,
        Msg::BadCursor(_) => 35,
        Msg::UnknownEventType(_) => 36,
        Msg::TooManyEventTypes(_) => 37,
        Msg::InvalidFeedSize(..) => 38,
        Msg::FeedExpired(_) => 39,
        Msg::Status(_) => 40,
        Msg::PageBeyondMaximum { .. } => 41,
        Msg::InvalidFlag { .. } => 42,
        Msg::InvalidIdempotencyKey => 43,
        Msg::IdempotencyMismatch => 44,
        Msg::IdempotencyInProgress => 45,
        Msg::IdempotencyAnswerLost => 46,
        Msg::InvalidApiKey(_) => 47,
        Msg::Refused { .. } => 48,
        Msg::JobRows { .. } => 49,
        Msg::TooManyWebhookEndpoints(_) => 50,
    }
}

const VARIANTS: usize = 51;

/// One of every body problem; a new one fails to compile in the match until it is added.
fn every_problem() -> Vec<Problem> {
    let problems = vec![
        Problem::WrongType {
            expected: Expected::NUMBER,
            found: JsonKind::Text,
        },
        Problem::Missing,
        Problem::MissingLines,
        Problem::NotDateTime,
        Problem::Nul,
        Problem::Unacceptable {
            expected: Expected::INTEGER,
        },
        Problem::Syntax { line: 1, column: 2 },
        Problem::Truncated { line: 1, column: 2 },
    ];
    for problem in &problems {
        match problem {
            Problem::WrongType { .. }
            | Problem::Missing
            | Problem::MissingLines
            | Problem::NotDateTime
            | Problem::Nul
            | Problem::Unacceptable { .. }
            | Problem::Syntax { .. }
            | Problem::Truncated { .. } => {}
        }
    }
    problems
}

/// One of every refusal, with the status `ApiError::refusal` answers it with.
fn every_refusal() -> Vec<(u16, Refusal)> {
    let violations = vec![
        Violation::new("area", Rule::NotPositive(-1.0)),
        Violation::new("establishment_id", Rule::Unknown(9)),
    ];
    let refusals = vec![
        (422, Refusal::Invalid(violations)),
        (413, Refusal::TooManyItems { sent: 2, max: 1 }),
        (404, Refusal::NotFound),
        (
            409,
            Refusal::HasDependants {
                resource: "plots",
                count: 1,
            },
        ),
        (409, Refusal::ReadOnly),
        (412, Refusal::Stale),
        (409, Refusal::DuplicateExternalId(1)),
        (409, Refusal::DuplicateExternalCode(1)),
    ];
    for (_, refusal) in &refusals {
        match refusal {
            Refusal::Invalid(_)
            | Refusal::TooManyItems { .. }
            | Refusal::NotFound
            | Refusal::HasDependants { .. }
            | Refusal::ReadOnly
            | Refusal::Stale
            | Refusal::DuplicateExternalId(_)
            | Refusal::DuplicateExternalCode(_) => {}
        }
    }
    refusals
}

/// One of every message (and of every body problem, filter error and refusal inside one), with its status.
fn samples() -> Vec<(u16, Msg)> {
    let text = || "x".to_owned();
    let mut samples = vec![
        (401, Msg::MissingSystemId(text())),
        (401, Msg::WrongSystemId(text())),
        (401, Msg::MissingToken),
        (401, Msg::TokenWithoutBearer),
        (401, Msg::InvalidToken),
        (401, Msg::InvalidApiKey(text())),
        (401, Msg::BadCredentials),
        (401, Msg::InvalidRefreshToken),
        (403, Msg::Forbidden),
        (403, Msg::NotPermitted),
        (429, Msg::Throttled(1)),
        (503, Msg::LoginsBusy(1)),
        (400, Msg::MissingBody),
        (400, Msg::MalformedBody(text())),
        (400, Msg::NulInBody),
        (415, Msg::UnsupportedMediaType),
        (413, Msg::PayloadTooLarge(1)),
        (400, Msg::MalformedQuery(text())),
        (400, Msg::NulInQuery),
        (400, Msg::RepeatedHeader("Authorization".into())),
        (414, Msg::UriTooLong(1)),
        (431, Msg::HeadersTooLarge(1)),
        (400, Msg::MalformedRequest),
        (400, Msg::InvalidPage(text())),
        (400, Msg::InvalidSize(text(), 1)),
        (404, Msg::PageNotFound { page: 2, last: 1 }),
        (404, Msg::PageBeyondMaximum { page: 2, max: 1 }),
        (
            404,
            Msg::NotFound {
                resource: "plots",
                id: text(),
            },
        ),
        (404, Msg::RouteNotFound(text())),
        (405, Msg::MethodNotAllowed { elsewhere: None }),
        (
            405,
            Msg::MethodNotAllowed {
                elsewhere: Some("GET /api/v2/third_party/plots".into()),
            },
        ),
        (408, Msg::Timeout),
        (408, Msg::SlowBody(1)),
        (429, Msg::RateLimited(1)),
        (503, Msg::Unavailable),
        (500, Msg::Internal),
        (400, Msg::BadCursor(text())),
        (400, Msg::UnknownEventType(text())),
        (400, Msg::TooManyEventTypes(1)),
        (400, Msg::InvalidFeedSize(text(), 1)),
        (410, Msg::FeedExpired(30)),
        (418, Msg::Status(418)),
        (
            400,
            Msg::InvalidFlag {
                param: "pending",
                value: text(),
            },
        ),
        (400, Msg::InvalidIdempotencyKey),
        (422, Msg::IdempotencyMismatch),
        (409, Msg::IdempotencyInProgress),
        (409, Msg::IdempotencyAnswerLost),
        (422, Msg::JobRows { count: 0, max: 1 }),
        (409, Msg::TooManyWebhookEndpoints(1)),
    ];
    let filters = [
        FilterError::InvalidDate {
            param: "updated_at_from",
            value: text(),
        },
        FilterError::InvalidActive(text()),
        FilterError::WrongGeneration {
            sent: "updated_from",
            expected: "updated_at_from",
        },
    ];
    samples.extend(filters.into_iter().map(|error| (400, Msg::Filter(error))));
    let path = vec![Segment::Key("supplies".to_owned()), Segment::Index(0)];
    samples.extend(
        every_problem()
            .into_iter()
            .map(|problem| (400, Msg::Body(BodyError::at(path.clone(), problem)))),
    );
    samples.extend(every_refusal().into_iter().map(|(status, refusal)| {
        let msg = Msg::Refused {
            resource: "plots",
            id: "1".into(),
            refusal,
        };
        (status, msg)
    }));
    samples
}

#[test]
fn every_message_has_a_sample() {
    let seen: BTreeSet<usize> = samples().iter().map(|(_, msg)| variant(msg)).collect();
    assert_eq!(seen, (0..VARIANTS).collect::<BTreeSet<_>>());
}

#[test]
fn every_reason_given_is_listed_and_every_listed_reason_is_given() {
    let given: BTreeSet<&str> = samples().iter().map(|(_, msg)| msg.reason()).collect();
    let listed: BTreeSet<&str> = REASONS.iter().copied().collect();
    assert_eq!(listed.len(), REASONS.len(), "each reason is listed once");
    assert_eq!(given, listed);
}

#[test]
fn every_400_and_422_names_its_problems_with_listed_reasons_and_no_other_does() {
    let listed: BTreeSet<&str> = problem_reasons().into_iter().collect();
    let mut given = BTreeSet::new();
    for (status, msg) in samples() {
        let problems = msg.problems(Lang::Es);
        assert_eq!(
            !problems.is_empty(),
            matches!(status, 400 | 422),
            "{msg:?} answered {status}"
        );
        for problem in problems {
            assert!(listed.contains(problem.reason.as_str()), "{msg:?}: {}", problem.reason);
            assert!(!problem.message.is_empty());
            given.insert(problem.reason);
        }
    }
    // The rules' own reasons are each given by their rule (a test of `domain` holds them); the server's, here.
    for reason in PROBLEM_REASONS {
        assert!(given.contains(*reason), "{reason} is given by no message");
    }
}

#[test]
fn every_reason_is_snake_case_and_documented() {
    let decisions = include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/api-decisions.md"));
    for reason in REASONS.iter().copied().chain(problem_reasons()) {
        assert!(
            !reason.is_empty() && reason.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'),
            "{reason} is snake_case"
        );
        assert!(
            decisions.contains(&format!("`{reason}`")),
            "docs/api-decisions.md names `{reason}`"
        );
    }
}

#[test]
fn a_refused_body_lists_each_violation_at_its_path_in_the_callers_language() {
    let violations = vec![
        Violation::new("area", Rule::NotPositive(-1.0)),
        Violation::new("establishment_id", Rule::Unknown(9)),
    ];
    let msg = Msg::Refused {
        resource: "plots",
        id: String::new(),
        refusal: Refusal::Invalid(violations),
    };
    let problems = msg.problems(Lang::Pt);
    let listed: Vec<(&str, &str)> = problems
        .iter()
        .map(|problem| (problem.path.as_str(), problem.reason.as_str()))
        .collect();
    assert_eq!(
        listed,
        [("area", "not_positive"), ("establishment_id", "unknown_reference")]
    );
    assert_eq!(problems[0].message, "area deve ser maior que zero (recebido -1)");
    assert_eq!(msg.reason(), "validation_failed");
}
