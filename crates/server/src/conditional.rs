//! Conditional list reads: every list answer carries an `ETag` named after what the list depends on (the society's
//! table versions) and the request's path and query, and a request whose `If-None-Match` names it gets 304 before any
//! list query runs. The body of a list answer is kept, per process and within a budget of bytes, for as long as
//! what it depends on stands: the next request for the same list then gets the same bytes without a list query.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use axum::body::{Body, Bytes};
use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::request::Parts;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use sha2::{Digest, Sha256};
use store::cache::{VersionedCache, Weighted};
use store::{Scoping, Snapshot};

use crate::error::ApiError;
use crate::i18n::Msg;
use crate::AppState;

/// Bytes reserved for a list answer's body before it is written, when its route has written none yet.
const FIRST_BODY_CAPACITY: usize = 64 * 1024;

/// The length of the last body each list route wrote, by the route's template (so a bounded set of keys). A page of a
/// list is about as long as the page before it, and a body written into room for it at once is neither copied as
/// it grows nor faulted in twice: grown from the first capacity, a sync's page of work orders was reallocated again
/// and again, and the copies and their page faults were a noticeable part of the server's work in a sync.
#[derive(Debug, Default)]
pub struct BodySizes(Mutex<HashMap<String, usize>>);

impl BodySizes {
    /// Room for the next body of `route`: the last one's length and an eighth more, or [`FIRST_BODY_CAPACITY`].
    fn room_for(&self, route: &str) -> usize {
        let last = self.lock().get(route).copied().unwrap_or(0);
        (last + last / 8).max(FIRST_BODY_CAPACITY)
    }

    fn record(&self, route: &str, length: usize) {
        let mut sizes = self.lock();
        match sizes.get_mut(route) {
            Some(last) => *last = length,
            None => {
                sizes.insert(route.to_owned(), length);
            }
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, usize>> {
        // A length is one store; a panic elsewhere cannot leave one half-written.
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The serialised body of one list answer.
#[derive(Debug)]
pub struct RenderedList(Bytes);

impl Weighted for RenderedList {
    fn weight(&self) -> usize {
        self.0.len()
    }
}

/// List answers by society and request target, each valid while the society's data is as its basis says.
pub type RenderedLists = VersionedCache<String, RenderedList>;

/// What a list request says about the copy its client already has.
#[derive(Debug)]
pub struct Conditional {
    if_none_match: Option<HeaderValue>,
    target: String,
    /// The route's template, as [`BodySizes`] keys it: shared with the router, not copied, since only a page that is
    /// rendered reads it.
    route: Option<MatchedPath>,
    rendered: Arc<RenderedLists>,
    sizes: Arc<BodySizes>,
}

impl FromRequestParts<AppState> for Conditional {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Infallible> {
        Ok(Self {
            if_none_match: parts.headers.get(header::IF_NONE_MATCH).cloned(),
            target: parts
                .uri
                .path_and_query()
                .map_or_else(|| parts.uri.path().to_owned(), |target| target.as_str().to_owned()),
            route: parts.extensions.get::<MatchedPath>().cloned(),
            rendered: Arc::clone(&state.rendered_lists),
            sizes: Arc::clone(&state.body_sizes),
        })
    }
}

/// What a list of a resource scoped as `scoping` depends on, as `snapshot` shows it, as an opaque string: it changes
/// whenever a row the list could show changes, and never otherwise (not with the caller's token, nor with a login).
fn basis(snapshot: &Snapshot, scoping: Scoping) -> String {
    let (instance, society_id) = (snapshot.instance(), snapshot.society_id());
    match scoping {
        // A society's records may join any of its tables, so any change of the society's counts.
        Scoping::Society => format!("{instance}:{society_id}:{}", snapshot.society_version()),
        // Catalogues change with the reference data (a release, an operator's import or switch), which their own
        // counter follows; the society decides the country and the time zone of the rendering.
        Scoping::Global | Scoping::Country => format!("{instance}:{society_id}:r{}", snapshot.reference_version()),
    }
}

/// The weak entity tag of the answer to `target` while the data it depends on is as `basis` says.
fn entity_tag(basis: &str, target: &str) -> String {
    let digest = Sha256::new()
        .chain_update(basis.as_bytes())
        .chain_update([0])
        .chain_update(target.as_bytes())
        .finalize();
    format!("W/\"{}\"", store::hex(&digest[..12]))
}

/// Whether an `If-None-Match` value names `tag`, by the weak comparison RFC 9110 prescribes for it.
fn names(if_none_match: &HeaderValue, tag: &str) -> bool {
    let opaque = |candidate: &str| {
        let candidate = candidate.trim();
        candidate.strip_prefix("W/").unwrap_or(candidate).to_owned()
    };
    let wanted = opaque(tag);
    if_none_match
        .to_str()
        .map(|value| {
            value
                .split(',')
                .any(|candidate| candidate.trim() == "*" || opaque(candidate) == wanted)
        })
        .unwrap_or(false)
}

/// Writes `value` as JSON, byte for byte as `serde_json` would (the tests below hold the two side by side). sonic-rs
/// scans strings for characters to escape 32 bytes at a time, where serde_json looks at each byte: on a list page,
/// where every key and most values are strings, that scan was a large part of the server's work. It does not know
/// serde_json's `RawValue`, which no list answer carries.
fn write_json<T: Serialize>(body: &mut Vec<u8>, value: &T) -> Result<(), ApiError> {
    sonic_rs::to_writer(body, value).map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal))
}

impl Conditional {
    /// 304 when the client's copy is current; otherwise the body `produce` makes (or the same body kept from an
    /// earlier answer while `snapshot` shows the same data), with its `ETag`.
    ///
    /// `produce` comes boxed: the page's future holds every statement's state, and were it passed by value, it would
    /// sit inside this future and the handler's, and each move of them would copy it whole. A kept page never runs
    /// it, and copying it was a large part of a kept page's work.
    pub async fn answer<T, F>(
        self,
        snapshot: &Snapshot,
        scoping: Scoping,
        produce: Pin<Box<F>>,
    ) -> Result<Response, ApiError>
    where
        T: Serialize,
        F: Future<Output = Result<T, ApiError>>,
    {
        let basis = basis(snapshot, scoping);
        let tag = entity_tag(&basis, &self.target);
        let tag_header =
            HeaderValue::from_str(&tag).map_err(|_| ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal))?;
        // Answers differ by caller, so no shared cache may keep them, and clients must ask before reusing one.
        let headers = [
            (header::ETAG, tag_header),
            (header::CACHE_CONTROL, HeaderValue::from_static("private, no-cache")),
        ];
        if self.if_none_match.as_ref().is_some_and(|value| names(value, &tag)) {
            return Ok((StatusCode::NOT_MODIFIED, headers).into_response());
        }
        let key = format!("{}\0{}", snapshot.society_id(), self.target);
        let render = async {
            // Room for the page at once (see `BodySizes`): grown from empty, a page's body is reallocated
            // many times over. What a shorter page leaves unused is given back before the body is kept.
            // Every list route is matched; were one not, it would share one key rather than add one per path.
            let route = self.route.as_ref().map_or("", MatchedPath::as_str);
            let mut body = Vec::with_capacity(self.sizes.room_for(route));
            write_json(&mut body, &produce.await?)?;
            self.sizes.record(route, body.len());
            body.shrink_to_fit();
            Ok::<_, ApiError>(RenderedList(Bytes::from(body)))
        };
        let body = self.rendered.get_or_build(key, basis, render).await?.0.clone();
        let content_type = (header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        Ok((headers, [content_type], Body::from(body)).into_response())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_bytes_as_serde_json<T: Serialize + std::fmt::Debug>(value: &T) {
        let mut ours = Vec::new();
        assert!(write_json(&mut ours, value).is_ok(), "{value:?}");
        let theirs = serde_json::to_vec(value).expect("serde_json writes it");
        assert_eq!(
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs),
            "{value:?}"
        );
    }

    #[test]
    fn list_bodies_are_written_as_serde_json_writes_them() {
        // Every character below 0x80 and a few beyond, alone and inside text longer than one 32-byte scan.
        for byte in 0u8..0x80 {
            let alone = char::from(byte).to_string();
            same_bytes_as_serde_json(&alone);
            same_bytes_as_serde_json(&format!("Lote {byte} de la Estancia «San José» — {alone} fin {alone}"));
        }
        for text in [
            "",
            "ñandú",
            "Ação",
            "€",
            "\u{2028}\u{2029}",
            "😀 emoji",
            "\"\\/",
            &"x".repeat(100),
        ] {
            same_bytes_as_serde_json(&text);
        }
        for number in [
            0.0,
            -0.0,
            1.0,
            0.1,
            45.25,
            -34.603_722,
            1e-7,
            1e15,
            1e16,
            1e21,
            123_456_789.125,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            f64::NAN,
            f64::INFINITY,
        ] {
            same_bytes_as_serde_json(&number);
            same_bytes_as_serde_json(&(number as f32));
        }
        for number in [i64::MIN, -1, 0, 1, i64::MAX] {
            same_bytes_as_serde_json(&number);
        }
        same_bytes_as_serde_json(&u64::MAX);
        same_bytes_as_serde_json(&serde_json::json!({
            "id": 7, "name": "Lote \"Norte\"", "area": 12.5, "tags": ["a", "b"], "gone": null, "active": true,
            "nested": {"empty": [], "map": {}, "big": 18_446_744_073_709_551_615_u64, "negative": -3}
        }));
        let at = chrono::DateTime::parse_from_rfc3339("2026-03-01T08:30:00-03:00").expect("a timestamp");
        same_bytes_as_serde_json(&wire::envelope::Page {
            items: vec![Some(wire::time::Timestamp(at)), None],
            current_page: 2,
            next_page: None,
            total_pages: 2,
            total_items: 101,
        });
    }

    #[test]
    fn a_tag_depends_on_the_basis_and_the_target_only() {
        let tag = entity_tag("1.5:7:42", "/api/v2/plots?page=2");
        assert_eq!(tag, entity_tag("1.5:7:42", "/api/v2/plots?page=2"));
        assert_ne!(tag, entity_tag("1.5:7:43", "/api/v2/plots?page=2"));
        assert_ne!(tag, entity_tag("1.5:7:42", "/api/v2/plots?page=3"));
        assert!(tag.starts_with("W/\"") && tag.ends_with('"'));
    }

    #[test]
    fn if_none_match_compares_weakly_and_accepts_lists_and_star() {
        let tag = entity_tag("b", "/t");
        let strong = tag.trim_start_matches("W/").to_owned();
        assert!(names(&HeaderValue::from_str(&tag).expect("header"), &tag));
        assert!(names(&HeaderValue::from_str(&strong).expect("header"), &tag));
        assert!(names(
            &HeaderValue::from_str(&format!("\"other\", {tag}")).expect("header"),
            &tag
        ));
        assert!(names(&HeaderValue::from_static("*"), &tag));
        assert!(!names(&HeaderValue::from_static("\"other\""), &tag));
    }

    #[test]
    fn a_route_reserves_room_for_a_body_as_long_as_its_last_one() {
        let sizes = BodySizes::default();
        let route = "/api/v3/third_party/work_orders";
        assert_eq!(sizes.room_for(route), FIRST_BODY_CAPACITY);
        sizes.record(route, 3_000_000);
        assert_eq!(sizes.room_for(route), 3_375_000);
        assert_eq!(sizes.room_for("/api/v2/third_party/plots"), FIRST_BODY_CAPACITY);
        sizes.record(route, 1_000);
        assert_eq!(sizes.room_for(route), FIRST_BODY_CAPACITY);
    }
}
