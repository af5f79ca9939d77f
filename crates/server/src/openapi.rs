//! The pieces of the OpenAPI 3.1 document that every operation shares: security schemes, the list parameters of
//! each generation, the list envelope around an item schema, and the error envelope. Operations themselves are
//! added by the route table (see [`crate::routes::table`]) as it registers each route, so the document and the
//! routes come from one declaration and cannot drift apart.

use std::collections::BTreeMap;

use domain::Generation;
use serde_json::json;
use utoipa::openapi::path::{Operation, OperationBuilder, ParameterBuilder, ParameterIn};
use utoipa::openapi::request_body::RequestBodyBuilder;
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, OneOfBuilder, SchemaType, Type};
use utoipa::openapi::security::{
    ApiKey, ApiKeyValue, HttpAuthScheme, HttpBuilder, SecurityRequirement, SecurityScheme,
};
use utoipa::openapi::{
    ComponentsBuilder, ContentBuilder, InfoBuilder, OpenApi, OpenApiBuilder, Paths, Ref, RefOr, Required,
    ResponseBuilder, Schema,
};
use utoipa::ToSchema;

/// Security scheme name of the bearer token.
pub const BEARER: &str = "bearer";
/// Security scheme name of the system-id header.
pub const SYSTEM_ID: &str = "system_id";

/// The schemas an operation refers to, collected as operations are added.
#[derive(Default, Clone)]
pub struct Schemas(BTreeMap<String, RefOr<Schema>>);

impl Schemas {
    /// Registers `T` and the schemas it refers to; answers a reference to it.
    pub fn of<T: ToSchema>(&mut self) -> RefOr<Schema> {
        let name = T::name().to_string();
        self.0.insert(name.clone(), T::schema());
        let mut dependencies = Vec::new();
        T::schemas(&mut dependencies);
        self.0.extend(dependencies);
        RefOr::Ref(Ref::from_schema_name(name))
    }

    /// Registers `T` and the list envelope around it, named `<T>Page` (`WorkOrderPage`, `FarmerV3Page`) so that
    /// generated clients name it too; answers a reference to the envelope.
    pub fn page_of<T: ToSchema>(&mut self) -> RefOr<Schema> {
        let item = self.of::<T>();
        let name = format!("{}Page", T::name());
        self.0.insert(name.clone(), page_envelope(item, &T::name()));
        RefOr::Ref(Ref::from_schema_name(name))
    }
}

/// Which security an operation needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// The system-id header and a bearer token: every API call but login and refresh.
    Caller,
    /// Only the system-id header: login and refresh.
    SystemId,
    /// Nothing: operational routes.
    None,
}

/// The filter dates the server accepts: `Y-m-dTH:i:sP` (or a `Z` offset), whole seconds. RFC 3339 allows more
/// (fractions of a second), so `format: date-time` alone would promise what is answered with 400.
const FILTER_DATE_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(Z|[+-]\d{2}:\d{2})$";

fn integer() -> ObjectBuilder {
    ObjectBuilder::new().schema_type(Type::Integer)
}

/// An integer the server reads as a signed 64-bit one: so declared, with its range, so that no client sends a
/// number the server cannot read.
fn int64() -> ObjectBuilder {
    integer()
        .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
            utoipa::openapi::KnownFormat::Int64,
        )))
        .maximum(Some(i64::MAX))
}

/// The characters Rust's `str::trim` removes (Unicode `White_Space`), for patterns that must agree with it exactly.
const WHITE_SPACE: &str = r"\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

/// The pattern of every text of a request body that states none of its own: no NUL, which PostgreSQL cannot store
/// (see `crate::body`).
pub const NO_NUL: &str = r"^[^\u0000]*$";

/// One event type as the feed names it, `<resource>.<action>` or `<resource>.*`, as a regular expression.
fn event_type_expression() -> String {
    let alternatives: Vec<String> = domain::events::RESOURCES
        .iter()
        .map(|(resource, extra)| {
            let actions: Vec<&str> = domain::events::ACTIONS.iter().chain(extra.iter()).copied().collect();
            format!(r"{resource}\.(?:{}|\*)", actions.join("|"))
        })
        .collect();
    format!("(?:{})", alternatives.join("|"))
}

/// The pattern of one event type, as a webhook endpoint's `types` takes it (surrounding white space is ignored).
pub fn event_type_pattern() -> String {
    format!("^[{WHITE_SPACE}]*{}[{WHITE_SPACE}]*$", event_type_expression())
}

/// The pattern of the feed's `types`: event types separated by commas; empty entries are skipped.
fn event_types_pattern() -> String {
    let entry = format!("[{WHITE_SPACE}]*{}?[{WHITE_SPACE}]*", event_type_expression());
    format!("^{entry}(?:,{entry})*$")
}

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
const IF_NONE_MATCH: &str = "If-None-Match";

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

/// The list envelope around items of schema `item`, named `item_name`.
fn page_envelope(item: RefOr<Schema>, item_name: &str) -> RefOr<Schema> {
    let page = |description: &str, example: i64| {
        int64()
            .minimum(Some(1))
            .description(Some(description))
            .examples([example])
    };
    ObjectBuilder::new()
        .description(Some(format!(
            "One page of {item_name} records, and where it stands among the pages."
        )))
        .property(
            "items",
            ArrayBuilder::new().items(item).description(Some(
                "The records of this page, in a stable order; empty when there are none.",
            )),
        )
        .required("items")
        .property("current_page", page("This page's number, from 1.", 2))
        .required("current_page")
        .property(
            "next_page",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                    utoipa::openapi::KnownFormat::Int64,
                )))
                .description(Some("The next page; null on the last page."))
                .examples([json!(3)]),
        )
        .required("next_page")
        .property("total_pages", page("How many pages there are; 1 for an empty list.", 3))
        .required("total_pages")
        .property(
            "total_items",
            int64()
                .minimum(Some(0))
                .description(Some("How many records there are in all, on every page."))
                .examples([240]),
        )
        .required("total_items")
        .into()
}

/// A JSON array of `item`.
pub fn array_of(item: RefOr<Schema>) -> RefOr<Schema> {
    ArrayBuilder::new().items(item).into()
}

/// One `item`, or a JSON array of them: the answer of a write that takes either and answers in kind.
pub fn one_or_array_of(item: RefOr<Schema>) -> RefOr<Schema> {
    OneOfBuilder::new()
        .item(item.clone())
        .item(array_of(item))
        .description(Some(
            "One object when one was sent; an array, in the order sent, when an array was sent.",
        ))
        .into()
}

/// What an operation is, for the document.
pub struct OperationDoc<'a> {
    /// Stable id, e.g. `listFarmersV3`.
    pub id: String,
    /// One line on what it does.
    pub summary: &'a str,
    /// Its group in the docs page.
    pub tag: &'a str,
    /// Path and query parameters.
    pub parameters: Vec<utoipa::openapi::path::Parameter>,
    /// The JSON body, if it takes one, with an example.
    pub body: Option<(RefOr<Schema>, Option<serde_json::Value>)>,
    /// The success status and body.
    pub success: (u16, RefOr<Schema>),
    /// Which credentials it needs.
    pub security: Security,
}

/// Builds an operation: its success answer (of `media` type). Its error answers are listed by [`document`], which
/// sees every operation with its method.
pub fn operation(doc: OperationDoc<'_>, media: &str) -> Operation {
    let json = |schema: RefOr<Schema>| ContentBuilder::new().schema(Some(schema)).build();
    let conditional = doc.parameters.iter().any(|parameter| parameter.name == IF_NONE_MATCH);
    let mut builder = OperationBuilder::new()
        .operation_id(Some(doc.id))
        .summary(Some(doc.summary))
        .tag(doc.tag)
        .parameters(Some(doc.parameters))
        .response(
            doc.success.0.to_string(),
            ResponseBuilder::new()
                .description("Success.")
                .content(media, json(doc.success.1)),
        );
    if conditional {
        builder = builder.response(
            "304",
            ResponseBuilder::new().description(
                "Not modified: the page is as the `ETag` in `If-None-Match` names it. Every list answer carries its \
                 `ETag`, which changes only when the society's data does.",
            ),
        );
    }
    if let Some((schema, example)) = doc.body {
        let mut content = ContentBuilder::new().schema(Some(schema));
        if let Some(example) = example {
            content = content.example(Some(example));
        }
        builder = builder.request_body(Some(
            RequestBodyBuilder::new()
                .required(Some(Required::True))
                .content("application/json", content.build())
                .build(),
        ));
    }
    let requirement = |names: &[&str]| {
        names.iter().fold(SecurityRequirement::default(), |requirement, name| {
            requirement.add::<&str, [&str; 0], &str>(name, [])
        })
    };
    builder = match doc.security {
        Security::Caller => builder.security(requirement(&[BEARER, SYSTEM_ID])),
        Security::SystemId => builder.security(requirement(&[SYSTEM_ID])),
        Security::None => builder,
    };
    builder.build()
}

/// Why each error status is answered, as the document says it.
const ERROR_STATUSES: [(u16, &str); 16] = [
    (
        400,
        "The request is malformed: a parameter or a value of the wrong type or form, a missing body, a NUL \
           character in the query, a credential header sent twice, or a request line HTTP cannot read.",
    ),
    (
        401,
        "The token is missing, invalid or expired, the credentials are wrong, or the X-…-SYSTEM-ID header is \
           missing or not 8.",
    ),
    (
        403,
        "The token is valid but its account lacks the `api_integrated` role.",
    ),
    (404, "No record of yours has this id, or the page is past the last."),
    (
        408,
        "The request, or the reading of its body, took longer than the server waits.",
    ),
    (
        409,
        "The write conflicts with the state of the records: read-only, still referenced, an `external_id` or \
           `external_code` already taken, the most webhook endpoints a society may have, or an \
           `Idempotency-Key` whose first request is still in flight (with `Retry-After`: retry) or was written \
           and its answer is not kept (no `Retry-After`: do not retry).",
    ),
    (410, "The cursor is older than the events kept: resync."),
    (
        412,
        "`If-Match` names a version the work order no longer has: read it again.",
    ),
    (
        413,
        "The body is larger than the server takes, or holds more items than a request may.",
    ),
    (414, "The URI (path and query) is longer than the server reads."),
    (415, "The body is not declared as `application/json`."),
    (
        422,
        "The body is well formed but breaks a rule (a value outside its set, a reference to a record the \
           caller's society does not have), or an `Idempotency-Key` is reused with another request.",
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
        (403, caller),
        (
            404,
            takes(ParameterIn::Path) || named("page") || ["put", "patch", "delete"].contains(&method),
        ),
        (408, true),
        (409, write),
        (410, named("after")),
        (412, method == "patch"),
        (413, body || write),
        (414, true),
        (415, body),
        (422, body || write),
        (429, secured),
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
fn list_errors(paths: &mut Paths, system_id: &str) {
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

/// Gives every text of a request body that states no form of its own (a pattern, a set of values, a format) the
/// [`NO_NUL`] pattern: the server refuses NUL in every text it reads.
fn nul_free_request_texts(paths: &Paths, schemas: &mut BTreeMap<String, RefOr<Schema>>) {
    let mut pending: Vec<String> = paths
        .paths
        .values()
        .flat_map(|item| [&item.put, &item.post, &item.patch])
        .flatten()
        .filter_map(|operation| operation.request_body.as_ref())
        .flat_map(|body| body.content.values())
        .filter_map(|content| content.schema.as_ref())
        .flat_map(references)
        .collect();
    let mut done = std::collections::BTreeSet::new();
    while let Some(name) = pending.pop() {
        if !done.insert(name.clone()) {
            continue;
        }
        if let Some(schema) = schemas.get_mut(&name) {
            pending.extend(references(schema));
            forbid_nul(schema);
        }
    }
}

/// The names of the components `schema` refers to, directly or within.
fn references(schema: &RefOr<Schema>) -> Vec<String> {
    match schema {
        RefOr::Ref(reference) => reference
            .ref_location
            .strip_prefix("#/components/schemas/")
            .map(str::to_owned)
            .into_iter()
            .collect(),
        RefOr::T(Schema::Object(object)) => object.properties.values().flat_map(references).collect(),
        RefOr::T(Schema::Array(array)) => match &array.items {
            utoipa::openapi::schema::ArrayItems::RefOrSchema(items) => references(items),
            _ => Vec::new(),
        },
        RefOr::T(Schema::OneOf(one_of)) => one_of.items.iter().flat_map(references).collect(),
        RefOr::T(Schema::AllOf(all_of)) => all_of.items.iter().flat_map(references).collect(),
        RefOr::T(Schema::AnyOf(any_of)) => any_of.items.iter().flat_map(references).collect(),
        RefOr::T(_) => Vec::new(),
    }
}

fn forbid_nul(schema: &mut RefOr<Schema>) {
    match schema {
        RefOr::T(Schema::Object(object)) => {
            let text = match &object.schema_type {
                SchemaType::Type(kind) => *kind == Type::String,
                SchemaType::Array(kinds) => kinds.contains(&Type::String),
                SchemaType::AnyValue => false,
            };
            if text && object.pattern.is_none() && object.enum_values.is_none() && object.format.is_none() {
                object.pattern = Some(NO_NUL.to_owned());
            }
            object.properties.values_mut().for_each(forbid_nul);
        }
        RefOr::T(Schema::Array(array)) => {
            if let utoipa::openapi::schema::ArrayItems::RefOrSchema(items) = &mut array.items {
                forbid_nul(items);
            }
        }
        RefOr::T(Schema::OneOf(one_of)) => one_of.items.iter_mut().for_each(forbid_nul),
        RefOr::T(Schema::AllOf(all_of)) => all_of.items.iter_mut().for_each(forbid_nul),
        RefOr::T(Schema::AnyOf(any_of)) => any_of.items.iter_mut().for_each(forbid_nul),
        RefOr::T(_) | RefOr::Ref(_) => {}
    }
}

/// States the pattern of each event type a webhook endpoint's `types` takes: the vocabulary is the domain's, which the
/// wire types cannot see.
fn event_types_of_endpoints(schemas: &mut BTreeMap<String, RefOr<Schema>>) {
    let Some(RefOr::T(Schema::Object(endpoint))) =
        schemas.get_mut(wire::webhooks::WebhookEndpointWrite::name().as_ref())
    else {
        return;
    };
    if let Some(RefOr::T(Schema::Array(types))) = endpoint.properties.get_mut("types") {
        types.items = utoipa::openapi::schema::ArrayItems::RefOrSchema(Box::new(
            ObjectBuilder::new()
                .schema_type(Type::String)
                .pattern(Some(event_type_pattern()))
                .description(Some(
                    "An event type, `<resource>.<action>`, or `<resource>.*` for every action.",
                ))
                .examples(["work_order.updated"])
                .into(),
        ));
        types.examples = vec![json!(["work_order.*", "plot.created"])];
    }
}

/// Gives every property of `schemas` that has no example one made from what the schema says of it: the first value
/// its description quotes (`pests`), its set of values, its format, or what a field of its name usually holds, within
/// its bounds. A property that refers to another component shows that component's example.
fn exemplify(schemas: &mut BTreeMap<String, RefOr<Schema>>) {
    for schema in schemas.values_mut() {
        if let RefOr::T(Schema::Object(object)) = schema {
            for (name, property) in object.properties.iter_mut() {
                match property {
                    RefOr::T(Schema::Object(property))
                        if property.example.is_none() && property.examples.is_empty() =>
                    {
                        property.examples = example_of(name, property).into_iter().collect();
                    }
                    RefOr::T(Schema::Array(array)) if array.example.is_none() && array.examples.is_empty() => {
                        if let utoipa::openapi::schema::ArrayItems::RefOrSchema(items) = &array.items {
                            if let RefOr::T(Schema::Object(item)) = items.as_ref() {
                                array.examples = example_of(name, item).map(|one| json!([one])).into_iter().collect();
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }
}

/// An example for property `name` of schema `schema`, if its type is one an example can be made for.
fn example_of(name: &str, schema: &utoipa::openapi::schema::Object) -> Option<serde_json::Value> {
    let kinds: Vec<Type> = match &schema.schema_type {
        SchemaType::Type(kind) => vec![kind.clone()],
        SchemaType::Array(kinds) => kinds.clone(),
        SchemaType::AnyValue => Vec::new(),
    };
    if let Some(first) = schema.enum_values.as_ref().and_then(|values| values.first()) {
        return Some(first.clone());
    }
    let number = |value: f64| {
        let bound = |limit: &Option<utoipa::Number>| match limit {
            Some(utoipa::Number::Int(limit)) => Some(*limit as f64),
            Some(utoipa::Number::UInt(limit)) => Some(*limit as f64),
            Some(utoipa::Number::Float(limit)) => Some(*limit),
            None => None,
        };
        let low = bound(&schema.minimum).unwrap_or(f64::MIN);
        let high = bound(&schema.maximum).unwrap_or(f64::MAX);
        value.clamp(low, high)
    };
    let quoted = schema
        .description
        .as_deref()
        .and_then(|description| description.split('`').nth(1))
        .map(|quoted| quoted.trim_matches('"'))
        // A quoted form such as `YYYY-MM-DD` says how a value is written, not what one is.
        .filter(|quoted| quoted.chars().any(|c| c.is_ascii_lowercase() || c.is_ascii_digit()) && *quoted != "null");
    if kinds.contains(&Type::String) {
        if let Some(utoipa::openapi::SchemaFormat::KnownFormat(utoipa::openapi::KnownFormat::DateTime)) = schema.format
        {
            return Some(json!("2024-03-01T09:30:00-03:00"));
        }
        if let Some(quoted) = quoted {
            return Some(json!(quoted));
        }
        return Some(json!(text_example(name)));
    }
    if kinds.contains(&Type::Integer) {
        let value = match name {
            "id" | "local_id" => 12.0,
            _ if name.ends_with("_id") => 7.0,
            "status_code" => 200.0,
            "latency_ms" => 184.0,
            "year" => 2021.0,
            _ if name.contains("number") => 1.0,
            _ => 3.0,
        };
        return Some(json!(number(value) as i64));
    }
    if kinds.contains(&Type::Number) {
        let value = match name {
            _ if name.contains("area") => 48.5,
            _ if name.contains("percent") || name.contains("humidity") => 13.5,
            _ if name.contains("yield") => 3.2,
            _ if name.starts_with("lat") => -36.61,
            _ if name.starts_with("lon") => -64.29,
            _ => 21.5,
        };
        return Some(json!(number(value)));
    }
    if kinds.contains(&Type::Boolean) {
        return Some(json!(name == "active" || name == "pending"));
    }
    None
}

/// What a text field named `name` usually holds, for its example.
fn text_example(name: &str) -> &'static str {
    const BY_NAME: [(&str, &str); 34] = [
        ("email", "contacto@lapampa.com.ar"),
        ("phone", "+54 9 2954 55-1234"),
        ("address", "Ruta Nacional 5 km 602, Santa Rosa, La Pampa"),
        ("cuit", "30-71234567-8"),
        ("external_code", "ERP-0042"),
        ("external_id", "ERP-OT-0042"),
        ("code", "AR-LP"),
        ("lastname", "Almada"),
        ("fullname", "Jorge Almada"),
        ("scout", "Jorge Almada"),
        ("created_by_name", "Jorge"),
        ("farmer_name", "Agropecuaria La Pampa S.A."),
        ("legal", "Agropecuaria La Pampa S.A."),
        ("file_name", "IMG_0042.jpg"),
        ("scientific", "Nezara viridula"),
        ("plate", "AB 123 CD"),
        ("lat", "-36.6123"),
        ("lon", "-64.2901"),
        ("accuracy", "4.5"),
        ("date", "2024-10-15"),
        ("url", "https://erp.example.com/tranquera/webhooks"),
        ("token", "1.QNSZFO7AfpggBZHlj2mybgzx1eoGtM9pFdel2UsHvO4"),
        ("password", "LaPampa-2026"),
        ("observations", "Sin novedades."),
        ("description", "Monitoreo semanal"),
        ("message", "No existe el recurso plots con id 99."),
        ("error", "connection refused"),
        ("sync", "a3f5c2e1"),
        ("ingredient", "Glifosato 66,2 %"),
        ("serial", "WS-2024-0117"),
        ("abbreviation", "ha"),
        ("brand", "John Deere"),
        ("model", "Metalfor 3200"),
        ("name", "La Esperanza"),
    ];
    BY_NAME
        .iter()
        .find(|(part, _)| name.to_ascii_lowercase().contains(part))
        .map_or("Texto libre", |(_, example)| example)
}

/// The whole document: `paths` and the `schemas` they refer to, with the header names of `header_token`.
pub fn document(mut paths: Paths, mut schemas: Schemas, header_token: &str) -> OpenApi {
    let system_id = format!("X-{}-SYSTEM-ID", header_token.to_ascii_uppercase());
    list_errors(&mut paths, &system_id);
    event_types_of_endpoints(&mut schemas.0);
    nul_free_request_texts(&paths, &mut schemas.0);
    exemplify(&mut schemas.0);
    let components = ComponentsBuilder::new()
        .schemas_from_iter(schemas.0)
        .security_scheme(
            BEARER,
            SecurityScheme::Http(
                HttpBuilder::new()
                    .scheme(HttpAuthScheme::Bearer)
                    .description(Some("The access_token of POST /api/v2/login or /api/v2/login/refresh."))
                    .build(),
            ),
        )
        .security_scheme(
            SYSTEM_ID,
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::with_description(
                system_id,
                "Always 8: identifies the third-party integrator system. Required on every API call.".to_owned(),
            ))),
        )
        .build();
    OpenApiBuilder::new()
        .info(
            InfoBuilder::new()
                .title("Third-party integration API")
                .version(env!("CARGO_PKG_VERSION"))
                .description(Some(
                    "Read master data and read and write work orders of the agricultural management platform. \
                     Every list answers the paginated envelope; every error answers the error envelope. Every answer \
                     carries `X-Request-Id` (yours, when you send one) and a W3C `traceparent` (continuing yours, \
                     when you send a valid one): quote either to find a request in the server's logs.",
                ))
                .build(),
        )
        .paths(paths)
        .components(Some(components))
        .tags(Some(vec![utoipa::openapi::tag::TagBuilder::new()
            .name("Events")
            .description(Some(
                "Every committed change of the society's records, as an ordered feed: `<resource>.<created|updated|\
                 deleted>` (plus `job.finished`, `job.failed`, `webhook_endpoint.disabled`), each with the record as \
                 its read answered it just after the change. Save `next_cursor` and ask again with `after`: no event \
                 is missed or repeated, even while many writers commit. Events are kept 30 days; an older cursor \
                 answers 410 (resync). `after=now` starts at the head. The same events are delivered to webhook \
                 endpoints, signed as Standard Webhooks.",
            ))
            .build()]))
        .build()
}
