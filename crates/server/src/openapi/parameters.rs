//! The parameters of operations: the query parameters of a list of each generation and of the change feed, the
//! `{id}` path parameter of a detail, and the request headers a write reads (`Idempotency-Key`, `If-Match`), each
//! with the form the server reads and the example Swagger UI starts from.

use domain::Generation;
use serde_json::json;
use utoipa::openapi::path::{ParameterBuilder, ParameterIn};
use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::Required;

use super::{event_types_pattern, int64, integer, WHITE_SPACE};

/// The filter dates the server accepts: `Y-m-dTH:i:sP` (or a `Z` offset), whole seconds. RFC 3339 allows more
/// (fractions of a second), so `format: date-time` alone would promise what is answered with 400.
const FILTER_DATE_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$";

/// An optional query parameter. Only the page and its size have an example: Swagger UI's try-it-out starts from the
/// examples, and a filter's example (a date, a flag, a cursor) would turn an integrator's first try of a list into an
/// empty or partial page. Each filter's description shows its form instead.
fn query(name: &str, description: &str, schema: ObjectBuilder) -> utoipa::openapi::path::Parameter {
    let example = match name {
        "page" => Some(json!(1)),
        "size" => Some(json!(100)),
        _ => None,
    };
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(schema.build()))
        .example(example)
        .build()
}

fn boolean_text(name: &str, description: &str) -> utoipa::openapi::path::Parameter {
    query(
        name,
        description,
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(["1", "0", "true", "false"])),
    )
}

/// The query parameters of the change feed.
pub fn feed_parameters() -> Vec<utoipa::openapi::path::Parameter> {
    vec![
        query(
            "after",
            "Where to continue: the `next_cursor` of the previous page, or `now` for only what commits from now on. \
             Omitted: from just after the last event pruned (events are kept 30 days; a cursor from before the last \
             event pruned answers 410). A cursor is opaque: one the server did not answer is 400.",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(format!("^[{WHITE_SPACE}]*[A-Za-z0-9_-]*[{WHITE_SPACE}]*$"))),
        ),
        query(
            "types",
            "Comma-separated event types (`work_order.updated`) or whole resources (`plot.*`); all when omitted. \
             At most 1000 entries, repeats counted (more is 400); a repeated entry is read once.",
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(event_types_pattern())),
        ),
        query(
            "size",
            "Events per page, 1 to 1000; 100 when omitted.",
            integer().minimum(Some(1)).maximum(Some(1000)),
        ),
    ]
}

/// The query parameters of a list of generation `generation`, plus boolean `flags` (e.g. work-order states).
pub fn list_parameters(generation: Generation, flags: &[&str]) -> Vec<utoipa::openapi::path::Parameter> {
    let names = generation.audit_names();
    let date = |name: &str, what: &str| {
        query(
            name,
            &format!("Only records {what} at or after this instant, Y-m-dTH:i:sP (e.g. 2024-03-01T00:00:00-03:00)."),
            ObjectBuilder::new()
                .schema_type(Type::String)
                .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                    utoipa::openapi::KnownFormat::DateTime,
                )))
                .pattern(Some(FILTER_DATE_PATTERN)),
        )
    };
    let mut parameters = vec![query(
        "page",
        "Page number, from 1; a page past the last is 404.",
        int64().minimum(Some(1)),
    )];
    if generation == Generation::V3 {
        parameters.push(query(
            "size",
            "Items per page, 1 to 500; 100 when omitted.",
            integer().minimum(Some(1)).maximum(Some(500)),
        ));
    }
    parameters.push(date(names.updated, "modified"));
    parameters.push(date(names.created, "created"));
    parameters.push(date(
        names.deleted,
        "logically deleted (deleted records are listed only with this filter)",
    ));
    parameters.push(boolean_text(
        "active",
        "Only active (1, true) or inactive (0, false) records.",
    ));
    for flag in flags {
        parameters.push(boolean_text(
            flag,
            &format!("Only records whose `{flag}` flag is this value."),
        ));
    }
    parameters.push(
        ParameterBuilder::new()
            .name(IF_NONE_MATCH)
            .parameter_in(ParameterIn::Header)
            .required(Required::False)
            .description(Some(
                "The `ETag` of a copy of this page the client already has: 304, without a body, while it is current.",
            ))
            .schema(Some(ObjectBuilder::new().schema_type(Type::String).build()))
            .build(),
    );
    parameters
}

/// The conditional-request header of lists.
pub(super) const IF_NONE_MATCH: &str = "If-None-Match";

/// The `{name}` path parameter of a detail.
pub fn id_parameter(name: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Path)
        .required(Required::True)
        .description(Some("The record's id; one that names no record of yours is 404."))
        .schema(Some(int64().minimum(Some(i64::MIN)).build()))
        .example(Some(json!(1)))
        .build()
}

/// An optional request header of a write, in the form `pattern` states.
fn header(name: &str, description: &str, pattern: &str) -> utoipa::openapi::path::Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Header)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(pattern))
                .build(),
        ))
        .build()
}

/// `Idempotency-Key`, which every authenticated POST honours (see `crate::idempotency`): 1 to 255 visible ASCII
/// characters, between the blanks HTTP takes off a header's value.
pub fn idempotency_key() -> utoipa::openapi::path::Parameter {
    header(
        "Idempotency-Key",
        "A key of yours for this request, 1 to 255 visible ASCII characters (a UUID is a good one). A retry with the \
         same key, method, path, query and body within 24 hours is answered the first successful answer again, with \
         `Idempotent-Replayed: true`, and nothing is written twice (an answer holding a signing secret is not kept: \
         its retry is 409). The same key with another request is 422; a retry while the first request is still \
         being answered is 409 with `Retry-After`.",
        r"^[\t ]*[!-~]{1,255}[\t ]*$",
    )
}

/// `If-Match`, which a work order's replacement reads: the `ETag` of the version it replaces.
pub fn if_match() -> utoipa::openapi::path::Parameter {
    header(
        "If-Match",
        "The `ETag` of the work order as you read it (`GET /api/v3/third_party/work_orders/{id}` or the answer of \
         your last write), e.g. `\"12-3\"`: the replacement applies only while the order is at that version, \
         else it is 412 and nothing is written. `*` or no header: the write applies whatever the version.",
        r#"^[\t ]*(\*|"?[0-9]+-[0-9]+"?)[\t ]*$"#,
    )
}
