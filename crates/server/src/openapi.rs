//! The pieces of the OpenAPI 3.1 document that every operation shares: security schemes, the list parameters of
//! each generation, the list envelope around an item schema, and the error envelope. Operations themselves are
//! added by the route table (see [`crate::routes::table`]) as it registers each route, so the document and the
//! routes come from one declaration and cannot drift apart.
//!
//! # Layout
//! - this file: the schemas collected, security, the list envelope, an operation, and the whole document.
//! - `parameters`: the query and path parameters of lists, details and the change feed.
//! - `errors`: the error answers each operation can give.
//! - `operation_ids`: each operation's name, from its method and path.
//! - `request_texts`: the no-NUL pattern on request texts.
//! - `examples`: examples for properties that have none.

mod errors;
mod examples;
mod operation_ids;
mod parameters;
mod request_texts;

use std::collections::BTreeMap;

use axum::http::Method;
use serde_json::json;
use utoipa::openapi::path::{Operation, OperationBuilder};
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

pub use parameters::{feed_parameters, id_parameter, idempotency_key, if_match, list_parameters};

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
    let conditional = doc
        .parameters
        .iter()
        .any(|parameter| parameter.name == parameters::IF_NONE_MATCH);
    let mut builder = OperationBuilder::new()
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

/// Names each of `operations` (every `(method, path)` of `paths`) with its operation id.
fn name_operations(paths: &mut Paths, operations: &[(Method, String)]) {
    for ((method, path), id) in operations.iter().zip(operation_ids::operation_ids(operations)) {
        let Some(item) = paths.paths.get_mut(path) else {
            continue;
        };
        let operation = match *method {
            Method::POST => &mut item.post,
            Method::PUT => &mut item.put,
            Method::PATCH => &mut item.patch,
            Method::DELETE => &mut item.delete,
            _ => &mut item.get,
        };
        if let Some(operation) = operation {
            operation.operation_id = Some(id);
        }
    }
}

/// The whole document: `paths` (`operations`, each routed method and path) and the `schemas` they refer to, with
/// the header names of `header_token`.
pub fn document(
    mut paths: Paths,
    operations: &[(Method, String)],
    mut schemas: Schemas,
    header_token: &str,
) -> OpenApi {
    let system_id = format!("X-{}-SYSTEM-ID", header_token.to_ascii_uppercase());
    name_operations(&mut paths, operations);
    errors::list_errors(&mut paths, &system_id);
    errors::list_reasons(&mut schemas.0);
    event_types_of_endpoints(&mut schemas.0);
    request_texts::nul_free_request_texts(&paths, &mut schemas.0);
    examples::exemplify(&mut schemas.0);
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
