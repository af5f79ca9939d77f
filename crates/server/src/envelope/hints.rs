//! Where a method that a path does not take is served instead: the same resource at another version of the API
//! (`GET /api/v3/third_party/plots` is read at `GET /api/v2/third_party/plots`; a v3 work order is changed at
//! `PATCH /integration/api/v1/workOrders/{localId}`). Found from the route table, so a route added or moved is
//! pointed to without a list kept by hand.

use axum::http::Method;

/// A route's path, split for matching: its segments, each literal (`plots`, with camelCase written snake_case, so
/// `workOrders` and `work_orders` are one resource) or a parameter (`None`).
#[derive(Debug)]
struct Template {
    method: Method,
    path: String,
    segments: Vec<Option<String>>,
    /// The path's version segment (`v1`, `v2`, `v3`), if it has one.
    version: Option<String>,
}

impl Template {
    fn new(method: &Method, path: &str) -> Self {
        let segments: Vec<Option<String>> = path
            .split('/')
            .filter(|segment| !segment.is_empty())
            .map(|segment| (!segment.starts_with('{')).then(|| snake_case(segment)))
            .collect();
        let version = segments.iter().flatten().find(|segment| is_version(segment)).cloned();
        Self {
            method: method.clone(),
            path: path.to_owned(),
            segments,
            version,
        }
    }

    /// Whether the request path `segments` is one of this template's.
    fn matches(&self, segments: &[&str]) -> bool {
        self.segments.len() == segments.len()
            && self
                .segments
                .iter()
                .zip(segments)
                .all(|(template, sent)| template.as_deref().is_none_or(|literal| literal == snake_case(sent)))
    }

    /// How many trailing segments `self` and `other` share, if they share their resource: the last literal segment
    /// and everything after it (a record's id).
    fn shared_tail(&self, other: &Template) -> Option<usize> {
        let shared = self
            .segments
            .iter()
            .rev()
            .zip(other.segments.iter().rev())
            .take_while(|(mine, theirs)| mine == theirs)
            .count();
        let resource = self.segments.iter().rev().position(Option::is_some)?;
        (shared > resource).then_some(shared)
    }

    /// This template's path with its trailing parameters filled from the request's `segments`, which match `asked`.
    fn filled(&self, asked: &Template, segments: &[&str], shared: usize) -> String {
        let mut path = String::new();
        let tail_start = self.segments.len() - shared;
        let asked_start = asked.segments.len() - shared;
        let written = self.path.split('/').filter(|segment| !segment.is_empty());
        for (index, segment) in written.enumerate() {
            path.push('/');
            match index.checked_sub(tail_start) {
                Some(offset) if segment.starts_with('{') => {
                    path.push_str(segments.get(asked_start + offset).copied().unwrap_or(segment));
                }
                _ => path.push_str(segment),
            }
        }
        path
    }
}

fn is_version(segment: &str) -> bool {
    segment
        .strip_prefix('v')
        .is_some_and(|number| !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()))
}

/// `workOrders` → `work_orders`.
fn snake_case(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len() + 4);
    for c in segment.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Every routed operation, to answer where a method is served when a path does not take it.
#[derive(Debug, Default)]
pub struct MethodHints(Vec<Template>);

impl MethodHints {
    /// The hints of the routed `operations`.
    pub fn new(operations: &[(Method, String)]) -> Self {
        Self(
            operations
                .iter()
                .map(|(method, path)| Template::new(method, path))
                .collect(),
        )
    }

    /// The operation (`GET /api/v2/third_party/plots`) that serves `method` for the resource of request `path`
    /// in another version of the API: of the routes with that method and another version that share the
    /// resource, the one that shares the most of the path. `None` when no route fits.
    pub fn elsewhere(&self, method: &Method, path: &str) -> Option<String> {
        let method = if method == Method::HEAD { &Method::GET } else { method };
        let segments: Vec<&str> = path.split('/').filter(|segment| !segment.is_empty()).collect();
        let asked = self.0.iter().find(|template| template.matches(&segments))?;
        let (shared, found) = self
            .0
            .iter()
            .filter(|other| other.method == method && other.version.is_some() && other.version != asked.version)
            .filter_map(|other| Some((asked.shared_tail(other)?, other)))
            .max_by_key(|(shared, _)| *shared)?;
        Some(format!("{method} {}", found.filled(asked, &segments, shared)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hints() -> MethodHints {
        let operations = [
            (Method::GET, "/api/v2/plots"),
            (Method::GET, "/api/v2/third_party/plots"),
            (Method::POST, "/api/v3/third_party/plots"),
            (Method::GET, "/api/v3/third_party/plots/{id}"),
            (Method::GET, "/api/v3/third_party/work_orders"),
            (Method::GET, "/api/v3/third_party/work_orders/{id}"),
            (Method::POST, "/integration/api/v1/workOrders"),
            (Method::PATCH, "/integration/api/v1/workOrders/{localId}"),
            (Method::DELETE, "/integration/api/v1/workOrders/{localId}"),
            (Method::PUT, "/api/v2/third_party/applicators/{id}"),
            (Method::GET, "/api/v3/third_party/farmers"),
        ];
        let operations: Vec<(Method, String)> = operations
            .into_iter()
            .map(|(method, path)| (method, path.to_owned()))
            .collect();
        MethodHints::new(&operations)
    }

    #[test]
    fn a_method_served_at_another_version_is_pointed_to() {
        let hints = hints();
        let cases = [
            (
                Method::GET,
                "/api/v3/third_party/plots",
                "GET /api/v2/third_party/plots",
            ),
            (
                Method::PATCH,
                "/api/v3/third_party/work_orders/77",
                "PATCH /integration/api/v1/workOrders/77",
            ),
            (
                Method::GET,
                "/integration/api/v1/workOrders",
                "GET /api/v3/third_party/work_orders",
            ),
            (
                Method::HEAD,
                "/integration/api/v1/workOrders/5",
                "GET /api/v3/third_party/work_orders/5",
            ),
            (
                Method::POST,
                "/api/v3/third_party/work_orders",
                "POST /integration/api/v1/workOrders",
            ),
        ];
        for (method, path, expected) in cases {
            assert_eq!(
                hints.elsewhere(&method, path).as_deref(),
                Some(expected),
                "{method} {path}"
            );
        }
    }

    #[test]
    fn nothing_is_pointed_to_when_no_other_version_serves_the_resource_with_the_method() {
        let hints = hints();
        for (method, path) in [
            (Method::DELETE, "/api/v3/third_party/plots"),
            (Method::PUT, "/api/v3/third_party/plots/3"),
            (Method::POST, "/api/v3/third_party/farmers"),
            (Method::GET, "/api/v9/nowhere"),
        ] {
            assert_eq!(hints.elsewhere(&method, path), None, "{method} {path}");
        }
    }
}
