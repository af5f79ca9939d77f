//! The error answers of every operation: which statuses an operation can answer, found from what it takes (its
//! method, parameters, body and security), and why each is answered, all with the error envelope.

use std::collections::BTreeMap;

use utoipa::openapi::path::{Operation, ParameterIn};
use utoipa::openapi::{ContentBuilder, Paths, Ref, RefOr, ResponseBuilder, Schema};
use utoipa::ToSchema;

use crate::i18n::reasons::{problem_reasons, REASONS};

use super::BEARER;

/// Why each error status is answered, as the document says it.
const ERROR_STATUSES: [(u16, &str); 16] = [
    (
        400,
        "The request is malformed: a parameter or a value of the wrong type or form (`invalid_parameter`, \
           `invalid_body`, `malformed_json`), a missing body (`missing_body`), a NUL character in the query \
           (`malformed_query`), a credential header sent twice (`repeated_header`), or a request line HTTP cannot \
           read. `errors` lists every problem, each at its place.",
    ),
    (
        401,
        "The token is missing (`missing_token`), not sent as `Bearer <token>` (`token_without_bearer`), invalid or \
           expired (`invalid_token`), the credentials are wrong (`bad_credentials`), or the X-…-SYSTEM-ID header is \
           missing or not 8 (`missing_system_id`, `wrong_system_id`).",
    ),
    (
        403,
        "The account lacks the `api_integrated` role (`role_missing`): a valid token's account, or the one login or refresh names.",
    ),
    (
        404,
        "No record of yours has this id (`record_not_found`), or the page is past the last (`page_not_found`).",
    ),
    (
        408,
        "The request, or the reading of its body, took longer than the server waits.",
    ),
    (
        409,
        "The write conflicts with the state of the records, and `reason` says how: a read-only work order \
           (`work_order_read_only`), a record still referenced (`has_dependants`), an `external_id` or \
           `external_code` already taken (`external_id_taken`, `external_code_taken`), the most webhook endpoints \
           a society may have (`too_many_webhook_endpoints`), or an `Idempotency-Key` whose first request is \
           still in flight (`idempotency_in_progress`, with `Retry-After`: retry) or was written and its answer \
           is not kept (`idempotency_answer_lost`, no `Retry-After`: do not retry).",
    ),
    (410, "The cursor is older than the events kept: resync."),
    (
        412,
        "`If-Match` names a version the work order no longer has (`version_mismatch`): read it again.",
    ),
    (
        413,
        "The body is larger than the server takes, or holds more items than a request may.",
    ),
    (414, "The URI (path and query) is longer than the server reads."),
    (415, "The body is not declared as `application/json`."),
    (
        422,
        "The body is well formed but breaks a rule (`validation_failed`: a value outside its set, a reference to \
           a record the caller's society does not have; `errors` lists every one, each at its path), or an \
           `Idempotency-Key` is reused with another request (`idempotency_key_reused`).",
    ),
    (429, "Too many requests: wait for `Retry-After` seconds."),
    (431, "The request's headers are larger, or more, than the server reads."),
    (500, "An unexpected failure, logged with its cause; it reveals nothing."),
    (
        503,
        "The database is unreachable, or (a login) too many passwords are being checked at once: retry after \
           `Retry-After` seconds.",
    ),
];

/// The error statuses an operation can answer, from what it takes: `method`, its parameters, its body and its
/// security.
fn error_statuses(method: &str, operation: &Operation) -> Vec<u16> {
    let parameters = operation.parameters.as_deref().unwrap_or_default();
    let takes = |place: ParameterIn| parameters.iter().any(|parameter| parameter.parameter_in == place);
    let named = |name: &str| parameters.iter().any(|parameter| parameter.name == name);
    let body = operation.request_body.is_some();
    let security = serde_json::to_value(&operation.security).unwrap_or_default();
    let secured = security.as_array().is_some_and(|requirements| !requirements.is_empty());
    let caller = security
        .as_array()
        .is_some_and(|requirements| requirements.iter().any(|requirement| requirement.get(BEARER).is_some()));
    let write = caller && method != "get";
    let rules = [
        // Any request may be malformed in its head: a NUL in a query, a repeated credential header.
        (400, true),
        (401, secured),
        // A login or refresh of an account without the role is refused like a token of one.
        (403, secured),
        (
            404,
            takes(ParameterIn::Path) || named("page") || ["put", "patch", "delete"].contains(&method),
        ),
        (408, true),
        (409, write),
        (410, named("after")),
        (412, named("If-Match")),
        (413, body || write),
        (414, true),
        (415, body),
        (422, body || write),
        // The address limit reaches every route, the public documents and `/health` too (see `crate::ratelimit`).
        (429, true),
        (431, true),
        (500, true),
        (503, true),
    ];
    rules
        .into_iter()
        .filter(|(_, applies)| *applies)
        .map(|(status, _)| status)
        .collect()
}

/// Lists on every operation each error status it can answer, with the error envelope; `system_id` is the name of the
/// system-id header.
pub(super) fn list_errors(paths: &mut Paths, system_id: &str) {
    let error = || -> RefOr<Schema> { RefOr::Ref(Ref::from_schema_name(wire::ErrorBody::name())) };
    for item in paths.paths.values_mut() {
        let operations = [
            ("get", &mut item.get),
            ("put", &mut item.put),
            ("post", &mut item.post),
            ("delete", &mut item.delete),
            ("patch", &mut item.patch),
        ];
        for (method, operation) in operations {
            let Some(operation) = operation else { continue };
            for status in error_statuses(method, operation) {
                let description = ERROR_STATUSES
                    .iter()
                    .find(|(known, _)| *known == status)
                    .map_or("An error.", |(_, description)| description)
                    .replace("X-…-SYSTEM-ID", system_id);
                let answer = ResponseBuilder::new()
                    .description(description)
                    .content("application/json", ContentBuilder::new().schema(Some(error())).build());
                operation
                    .responses
                    .responses
                    .insert(status.to_string(), answer.build().into());
            }
        }
    }
}

/// Lists every reason as the enum of the error envelope's `reason`, and every problem's reason as the enum of
/// `errors[].reason`, from the one list of each (see [`crate::i18n::reasons`]).
pub(super) fn list_reasons(schemas: &mut BTreeMap<String, RefOr<Schema>>) {
    let lists = [
        (wire::ErrorDetail::name(), REASONS.to_vec()),
        (wire::ErrorProblem::name(), problem_reasons()),
    ];
    for (schema, reasons) in lists {
        let Some(RefOr::T(Schema::Object(object))) = schemas.get_mut(schema.as_ref()) else {
            continue;
        };
        if let Some(RefOr::T(Schema::Object(reason))) = object.properties.get_mut("reason") {
            reason.enum_values = Some(reasons.into_iter().map(serde_json::Value::from).collect());
        }
    }
}
