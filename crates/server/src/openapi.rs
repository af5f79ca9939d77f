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

fn query(name: &str, description: &str, schema: ObjectBuilder) -> utoipa::openapi::path::Parameter {
    let example = match name {
        "page" => json!(2),
        "size" => json!(100),
        "active" | "pending" | "executed" | "confirmed" => json!("1"),
        "after" => json!("now"),
        "types" => json!("work_order.*,plot.created"),
        _ => json!("2025-06-01T00:00:00-03:00"),
    };
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(Required::False)
        .description(Some(description))
        .schema(Some(schema.build()))
        .example(Some(example))
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
             Omitted: from the oldest event kept (events are kept 30 days; an older cursor answers 410).",
            ObjectBuilder::new().schema_type(Type::String).max_length(Some(100)),
        ),
        query(
            "types",
            "Comma-separated event types (`work_order.updated`) or whole resources (`plot.*`); all when omitted.",
            ObjectBuilder::new().schema_type(Type::String).max_length(Some(2000)),
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
        integer().minimum(Some(1)),
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
            .example(Some(json!("W/\"5d41402abc4b2a76b9719d91\"")))
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
        .description(Some("The record's id."))
        .schema(Some(integer().build()))
        .example(Some(json!(1)))
        .build()
}

/// The list envelope around items of schema `item`, named `item_name`.
fn page_envelope(item: RefOr<Schema>, item_name: &str) -> RefOr<Schema> {
    let count = || integer().minimum(Some(0));
    ObjectBuilder::new()
        .description(Some(format!(
            "One page of {item_name} records, and where it stands among the pages."
        )))
        .property("items", ArrayBuilder::new().items(item))
        .required("items")
        .property("current_page", integer().minimum(Some(1)))
        .required("current_page")
        .property(
            "next_page",
            ObjectBuilder::new()
                .schema_type(SchemaType::from_iter([Type::Integer, Type::Null]))
                .description(Some("The next page; null on the last page.")),
        )
        .required("next_page")
        .property("total_pages", integer().minimum(Some(1)))
        .required("total_pages")
        .property("total_items", count())
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

/// Builds an operation: its success answer (of `media` type), and the error envelope for every failure.
pub fn operation(doc: OperationDoc<'_>, media: &str, error: RefOr<Schema>) -> Operation {
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
        )
        .response(
            "default",
            ResponseBuilder::new()
                .description("An error, in the error envelope: its `code` is the HTTP status.")
                .content("application/json", json(error)),
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

/// The whole document: `paths` and the `schemas` they refer to, with the header names of `header_token`.
pub fn document(paths: Paths, schemas: Schemas, header_token: &str) -> OpenApi {
    let system_id = format!("X-{}-SYSTEM-ID", header_token.to_ascii_uppercase());
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
