//! The route table: every operation of the API is registered here once, which both routes it in axum and
//! describes it in the OpenAPI document. Generic resources take one line; hand-written handlers state their body
//! and answer types. Nothing can be routed without being documented, or documented without being routed.

use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{on, MethodFilter};
use axum::Router;
use domain::Generation;
use serde_json::Value;
use store::list::Scoping;
use store::resources::Deletable;
use store::Resource;
use utoipa::openapi::extensions::Extensions;
use utoipa::openapi::path::{HttpMethod, Parameter};
use utoipa::openapi::{OpenApi, Paths, RefOr, Schema};
use utoipa::ToSchema;

use super::resources::{detail, list, remove};
use crate::extract::Gen;
use crate::openapi::{self, OperationDoc, Schemas, Security};
use crate::AppState;

/// Routes and their documentation, built together.
pub struct ApiTable {
    router: Router<AppState>,
    open: Router<AppState>,
    paths: Paths,
    schemas: Schemas,
    operations: Vec<(Method, String)>,
}

/// What a hand-written operation takes and answers.
pub struct Custom<'a> {
    /// One line on what it does.
    pub summary: &'a str,
    /// Its group in the docs page.
    pub tag: &'a str,
    /// Path and query parameters.
    pub parameters: Vec<Parameter>,
    /// Its JSON body, with an example.
    pub body: Option<(RefOr<Schema>, Option<Value>)>,
    /// Success status and body.
    pub success: (u16, RefOr<Schema>),
    /// Which credentials it needs.
    pub security: Security,
}

impl<'a> Custom<'a> {
    /// A write for the caller: its body schema with an example, and its success status and answer.
    pub fn write(summary: &'a str, tag: &'a str, body: (RefOr<Schema>, Value), success: (u16, RefOr<Schema>)) -> Self {
        Self {
            summary,
            tag,
            parameters: vec![],
            body: Some((body.0, Some(body.1))),
            success,
            security: Security::Caller,
        }
    }

    /// A read for the caller, answering 200 with `answer`.
    pub fn read(summary: &'a str, tag: &'a str, answer: RefOr<Schema>) -> Self {
        Self {
            summary,
            tag,
            parameters: vec![],
            body: None,
            success: (200, answer),
            security: Security::Caller,
        }
    }
}

fn http_method(method: &Method) -> (HttpMethod, MethodFilter) {
    match *method {
        Method::POST => (HttpMethod::Post, MethodFilter::POST),
        Method::PUT => (HttpMethod::Put, MethodFilter::PUT),
        Method::PATCH => (HttpMethod::Patch, MethodFilter::PATCH),
        Method::DELETE => (HttpMethod::Delete, MethodFilter::DELETE),
        _ => (HttpMethod::Get, MethodFilter::GET),
    }
}

/// The `{name}` of a path's last segment, if it is a parameter.
fn path_parameter(path: &str) -> Option<&str> {
    path.rsplit('/')
        .next()
        .and_then(|last| last.strip_prefix('{'))
        .and_then(|last| last.strip_suffix('}'))
}

impl Default for ApiTable {
    fn default() -> Self {
        let mut schemas = Schemas::default();
        // Every operation's error answers refer to it (see `openapi::document`).
        schemas.of::<wire::ErrorBody>();
        Self {
            router: Router::new(),
            open: Router::new(),
            paths: Paths::new(),
            schemas,
            operations: Vec::new(),
        }
    }
}

impl ApiTable {
    /// The schema of `T`, registered in the document.
    pub fn schema<T: ToSchema>(&mut self) -> RefOr<Schema> {
        self.schemas.of::<T>()
    }

    /// The list envelope around `T`, registered in the document as `<T>Page`.
    pub fn page_schema<T: ToSchema>(&mut self) -> RefOr<Schema> {
        self.schemas.page_of::<T>()
    }

    /// Routes `handler` at `method path` and documents it.
    pub fn custom<H, T>(self, method: Method, path: &str, handler: H, doc: Custom<'_>) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.add(method, path, handler, doc, "application/json")
    }

    /// Routes `handler` at `GET path`, answering an HTML page for people rather than JSON.
    pub fn page<H, T>(self, path: &str, handler: H, tag: &str, summary: &str) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.document(path, handler, (tag, summary), vec![], "text/html")
    }

    /// Routes `handler` at `GET path`, answering a document for people of type `media` (a page, a stylesheet), with
    /// its path `parameters` as the caller describes them.
    pub fn document<H, T>(
        self,
        path: &str,
        handler: H,
        (tag, summary): (&str, &str),
        parameters: Vec<Parameter>,
        media: &str,
    ) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let schema = utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::Type::String)
            .into();
        let doc = Custom {
            summary,
            tag,
            parameters,
            body: None,
            success: (200, schema),
            security: Security::None,
        };
        self.add(Method::GET, path, handler, doc, media)
    }

    /// Routes `handler` at `GET path` for the files a page loads (its script, its style): they are served to
    /// browsers, with no API headers, and are not operations of the API, so the document does not list them.
    pub fn files<H, T>(mut self, path: &str, handler: H) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        self.open = self.open.route(path, on(MethodFilter::GET, handler));
        self
    }

    fn add<H, T>(mut self, method: Method, path: &str, handler: H, doc: Custom<'_>, media: &str) -> Self
    where
        H: Handler<T, AppState>,
        T: 'static,
    {
        let (documented, filter) = http_method(&method);
        let doc_security = doc.security;
        let mut parameters = doc.parameters;
        // A last segment the caller did not describe is a record's id.
        if let Some(name) = path_parameter(path).filter(|name| parameters.iter().all(|p| p.name != *name)) {
            parameters.insert(0, openapi::id_parameter(name));
        }
        // Every authenticated POST honours a key (see `crate::idempotency`).
        if method == Method::POST && doc_security == Security::Caller {
            parameters.push(openapi::idempotency_key());
        }
        let operation = openapi::operation(
            OperationDoc {
                summary: doc.summary,
                tag: doc.tag,
                parameters,
                body: doc.body,
                success: doc.success,
                security: doc.security,
            },
            media,
        );
        self.paths.add_path_operation(path, vec![documented], operation);
        let route = on(filter, handler);
        // Operations without security are for load balancers and people: they need no API headers.
        if doc_security == Security::None {
            self.open = self.open.route(path, route);
        } else {
            self.router = self.router.route(path, route);
        }
        self.operations.push((method, path.to_owned()));
        self
    }

    /// `GET path`: the generic list of `R`, with generation `G`'s filters.
    pub fn list<R: Resource, G: Gen>(mut self, path: &str, tag: &str) -> Self
    where
        R::Item: ToSchema,
    {
        let page = self.page_schema::<R::Item>();
        let summary = format!("List {}", R::SPEC.name);
        let doc = Custom {
            summary: &summary,
            tag,
            parameters: openapi::list_parameters(G::GENERATION, &[]),
            body: None,
            success: (200, page),
            security: Security::Caller,
        };
        self.custom(Method::GET, path, list::<R, G>, doc)
            .scoped(path, R::SPEC.scoping)
    }

    /// `GET path`: one `R` by the id in the path.
    pub fn detail<R: Resource>(mut self, path: &str, tag: &str) -> Self
    where
        R::Item: ToSchema,
    {
        let item = self.schema::<R::Item>();
        let summary = format!("Read one of {} by id", R::SPEC.name);
        let doc = Custom {
            summary: &summary,
            tag,
            parameters: vec![],
            body: None,
            success: (200, item),
            security: Security::Caller,
        };
        self.custom(Method::GET, path, detail::<R>, doc)
            .scoped(path, R::SPEC.scoping)
    }

    /// States in the document whose records `GET path` serves, as `x-scope`: `society` (the caller's society's own),
    /// `country` (a catalogue of the caller's country) or `global` (one catalogue for every society). Clients learn
    /// what they share; the isolation test learns which lists another society must never see into.
    fn scoped(mut self, path: &str, scoping: Scoping) -> Self {
        let scope = match scoping {
            Scoping::Society => "society",
            Scoping::Country => "country",
            Scoping::Global => "global",
        };
        if let Some(operation) = self.paths.paths.get_mut(path).and_then(|item| item.get.as_mut()) {
            operation.extensions = Some(Extensions::from_iter([("x-scope", scope)]));
        }
        self
    }

    /// `GET path` and `GET path/{id}`: a v3 resource's list and detail.
    pub fn resource<R: Resource, G: Gen>(self, path: &str, tag: &str) -> Self
    where
        R::Item: ToSchema,
    {
        self.list::<R, G>(path, tag).detail::<R>(&format!("{path}/{{id}}"), tag)
    }

    /// `DELETE path`: logical deletion of `R`.
    pub fn delete<R: Deletable>(mut self, path: &str, tag: &str) -> Self
    where
        R::Item: ToSchema,
    {
        let item = self.schema::<R::Item>();
        let summary = format!("Delete one of {} (logically)", R::SPEC.name);
        let doc = Custom {
            summary: &summary,
            tag,
            parameters: vec![],
            body: None,
            success: (200, item),
            security: Security::Caller,
        };
        self.custom(Method::DELETE, path, remove::<R>, doc)
    }

    /// Every `(method, path)` routed.
    pub fn operations(&self) -> &[(Method, String)] {
        &self.operations
    }

    /// The API's routes (which need the API headers), the open routes, and the document for the configured header
    /// token.
    pub fn finish(self, header_token: &str) -> (Router<AppState>, Router<AppState>, OpenApi) {
        let document = openapi::document(self.paths, &self.operations, self.schemas, header_token);
        (self.router, self.open, crate::code_samples::with_samples(document))
    }
}

/// The list parameters of a hand-written list of generation `generation` with boolean `flags`.
pub fn list_parameters(generation: Generation, flags: &[&str]) -> Vec<Parameter> {
    openapi::list_parameters(generation, flags)
}
