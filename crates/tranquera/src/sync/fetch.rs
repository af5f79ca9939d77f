//! One list's pages for the sync, fetched ahead: while the mirror stores one page, the next ones are already being
//! served and decoded, so the server and the client work at the same time instead of taking turns.
//!
//! The first page is fetched alone: it says how many pages there are, and a list the account cannot read fails
//! there. Then pages are fetched ahead, each on a task of its own: up to [`MOST_AHEAD`], fewer when the first page
//! was large ([`pages_ahead`]), at most [`REQUESTS_AT_ONCE`] of them asked of the server at a time. They are handed
//! over in page order. Each page's `next_page` still decides where the walk goes, as for a client that follows it one
//! page at a time: past the pages announced, or nowhere, the pages asked ahead given up.
//!
//! Each record is kept as the bytes the API sent (`RawValue`): only its id and audit instants are decoded, so
//! a record is neither parsed into a tree nor written out again, and the instants are kept as the API wrote them
//! (`2026-03-01T10:00:00-03:00`), never parsed and rewritten.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::sync::Arc;

use client::wire::Page;
use client::Client;
use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::sync::Semaphore;
use tokio::task::JoinHandle;

use super::mirror::MirrorRow;
use crate::say::{say, Say};
use crate::settings::Failure;

/// Requests of one list at the server at once. Two keep the server busy while the client stores a page; a few more
/// cover the variation between pages without crowding a server that others use too.
const REQUESTS_AT_ONCE: usize = 4;
/// Pages fetched ahead of the one being stored, answered or still asked for, at most. A request goes out as soon as
/// another is answered, not when the mirror has stored the pages before it: the mirror is shared by the lists synced
/// at once, and while it stored one list's pages, a window of four left the server idle on the other's; with sixteen
/// the PostgreSQL full sync ends sooner.
const MOST_AHEAD: usize = 16;
/// What the pages ahead may hold, judged by the first page's records: sixteen pages of 500 work orders with their
/// lines held too much memory, and the client, slower for it, made the SQLite full sync slower.
const BYTES_AHEAD: usize = 8 << 20;

/// How many pages to fetch ahead of a list whose first page's records were `first_page_bytes` long.
fn pages_ahead(first_page_bytes: usize) -> usize {
    (BYTES_AHEAD / first_page_bytes.max(1)).clamp(REQUESTS_AT_ONCE, MOST_AHEAD)
}

/// The first page, as mirror rows.
pub struct First {
    /// What the server announced for the whole list.
    pub total_items: u64,
    /// The page's records.
    pub rows: Vec<MirrorRow>,
}

/// The pages of one list, fetched ahead; see the module's doc.
pub struct Walk {
    api: Client,
    path: String,
    query: Vec<(&'static str, String)>,
    resource: &'static str,
    deleted: bool,
    /// The last page to ask for: the count the first page announced, or further where a `next_page` points.
    last: u64,
    /// The last page asked for.
    asked: u64,
    in_flight: VecDeque<JoinHandle<Result<PageRows, Failure>>>,
    /// Pages fetched ahead at most: [`pages_ahead`] of the first page.
    ahead: usize,
    /// [`REQUESTS_AT_ONCE`] permits: a page's task holds one while it asks for its page and decodes the answer.
    requests: Arc<Semaphore>,
}

/// Why a walk stopped.
pub enum WalkError {
    /// The server refused a page.
    Api(client::Error),
    /// Anything else.
    Failed(Failure),
}

impl WalkError {
    fn into_failure(self) -> Failure {
        match self {
            WalkError::Api(error) => error.into(),
            WalkError::Failed(error) => error,
        }
    }
}

impl Walk {
    /// Fetches the first page of `path` with `query`, and starts the walk after it. Records come out marked
    /// deleted when `deleted` (they were listed under a deleted filter).
    pub async fn start(
        api: &Client,
        resource: &'static str,
        path: &str,
        query: Vec<(&'static str, String)>,
        deleted: bool,
    ) -> Result<(Self, First), WalkError> {
        let (page, rows) = fetch(api, resource, path, &query, 1, deleted).await?;
        let mut walk = Self {
            api: api.clone(),
            path: path.to_owned(),
            query,
            resource,
            deleted,
            last: page.total_pages,
            asked: 1,
            in_flight: VecDeque::new(),
            ahead: pages_ahead(rows.iter().map(|row| row.record.len()).sum()),
            requests: Arc::new(Semaphore::new(REQUESTS_AT_ONCE)),
        };
        walk.follow(&page);
        let first = First {
            total_items: page.total_items,
            rows,
        };
        Ok((walk, first))
    }

    /// The next page's records, in page order, or `None` after the last page.
    pub async fn next(&mut self) -> Result<Option<Vec<MirrorRow>>, Failure> {
        while self.in_flight.len() < self.ahead && self.asked < self.last {
            self.asked += 1;
            let (api, path, query) = (self.api.clone(), self.path.clone(), self.query.clone());
            let (resource, number, deleted) = (self.resource, self.asked, self.deleted);
            let requests = Arc::clone(&self.requests);
            self.in_flight.push_back(tokio::spawn(async move {
                // The semaphore is fair, so pages are asked for in page order.
                let _turn = requests.acquire_owned().await?;
                fetch(&api, resource, &path, &query, number, deleted)
                    .await
                    .map_err(WalkError::into_failure)
            }));
        }
        let Some(task) = self.in_flight.pop_front() else {
            return Ok(None);
        };
        let (page, rows) = task.await??;
        self.follow(&page);
        Ok(Some(rows))
    }

    /// Goes on as the page's `next_page` says, as a client following it one page at a time would: past the count
    /// announced (records created during the walk), or nowhere after a page that names no next one (records
    /// deleted during the walk), whatever the pages asked ahead hold. A `next_page` that repeats the page (as some
    /// lists of the platform answer on their last page) names no next one.
    fn follow(&mut self, page: &Envelope) {
        match page.next_page.filter(|&following| following > page.current_page) {
            Some(following) => self.last = self.last.max(following),
            None => {
                self.last = self.asked.min(page.current_page);
                self.stop();
            }
        }
    }

    /// Gives up the pages in flight.
    fn stop(&mut self) {
        for task in self.in_flight.drain(..) {
            task.abort();
        }
    }
}

impl Drop for Walk {
    fn drop(&mut self) {
        // A walk given up (an error, an interrupted run) leaves no request running behind it.
        self.stop();
    }
}

/// A fetched page: its envelope and its records as mirror rows.
type PageRows = (Envelope, Vec<MirrorRow>);

/// A page's envelope, its items taken out.
struct Envelope {
    current_page: u64,
    next_page: Option<u64>,
    total_pages: u64,
    total_items: u64,
}

/// Page `number` of the list, its envelope without items and its records as mirror rows.
async fn fetch(
    api: &Client,
    resource: &str,
    path: &str,
    query: &[(&'static str, String)],
    number: u64,
    deleted: bool,
) -> Result<PageRows, WalkError> {
    let mut query = query.to_vec();
    query.push(("page", number.to_string()));
    let page: Page<Box<RawValue>> = api.get(path, query).await.map_err(WalkError::Api)?;
    let rows = page
        .items
        .into_iter()
        .map(|record| row(resource, record, deleted))
        .collect::<Result<Vec<_>, Failure>>()
        .map_err(WalkError::Failed)?;
    let envelope = Envelope {
        current_page: page.current_page,
        next_page: page.next_page,
        total_pages: page.total_pages,
        total_items: page.total_items,
    };
    Ok((envelope, rows))
}

/// What the mirror needs of a record: its id and audit instants, at the top or (work orders) in its `header`.
#[derive(Deserialize)]
struct Audit<'a> {
    id: Option<i64>,
    #[serde(borrow)]
    updated_at: Option<Cow<'a, str>>,
    #[serde(borrow)]
    deleted_at: Option<Cow<'a, str>>,
    #[serde(borrow)]
    header: Option<Header<'a>>,
}

#[derive(Deserialize)]
struct Header<'a> {
    local_id: Option<i64>,
    #[serde(borrow)]
    updated_at: Option<Cow<'a, str>>,
    #[serde(borrow)]
    deleted_at: Option<Cow<'a, str>>,
}

/// A record as a mirror row: its id (`id`, or `header.local_id` for work orders) and audit instants, as the API
/// wrote them.
fn row(resource: &str, record: Box<RawValue>, deleted: bool) -> Result<MirrorRow, Failure> {
    let no_id = || say(Say::NoNumericId(resource));
    let audit: Audit = serde_json::from_str(record.get()).map_err(|_| no_id())?;
    let header = audit.header.as_ref();
    let id = audit.id.or_else(|| header.and_then(|h| h.local_id)).ok_or_else(no_id)?;
    let updated_at = audit.updated_at.or_else(|| header.and_then(|h| h.updated_at.clone()));
    let deleted_at = if deleted {
        // Listed under the deleted filter: deleted, even if the shape carries no `deleted_at` to say when. Then
        // its `updated_at`, which a deletion sets to the same instant, says it in the API's words; a shape with
        // neither gets the instant it was seen, written as the API writes instants.
        let at = audit.deleted_at.or_else(|| header.and_then(|h| h.deleted_at.clone()));
        Some(match at.or_else(|| updated_at.clone()) {
            Some(at) => at.into_owned(),
            None => chrono::Utc::now()
                .fixed_offset()
                .format(client::wire::time::OFFSET_FORMAT)
                .to_string(),
        })
    } else {
        None
    };
    Ok(MirrorRow {
        id,
        updated_at: updated_at.map(Cow::into_owned),
        deleted_at,
        record: String::from(Box::<str>::from(record)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(text: &str) -> Box<RawValue> {
        RawValue::from_string(text.to_owned()).expect("JSON")
    }

    fn walk(asked: u64, last: u64) -> Walk {
        Walk {
            api: Client::builder("http://127.0.0.1:9").build().expect("a client"),
            path: String::new(),
            query: Vec::new(),
            resource: "units",
            deleted: false,
            last,
            asked,
            in_flight: VecDeque::new(),
            ahead: MOST_AHEAD,
            requests: Arc::new(Semaphore::new(REQUESTS_AT_ONCE)),
        }
    }

    fn envelope(current_page: u64, next_page: Option<u64>) -> Envelope {
        Envelope {
            current_page,
            next_page,
            total_pages: 0,
            total_items: 0,
        }
    }

    #[test]
    fn each_pages_next_page_decides_where_the_walk_goes() {
        let mut walk_ahead = walk(3, 5);
        walk_ahead.follow(&envelope(1, Some(2)));
        assert_eq!(walk_ahead.last, 5, "a page within the count announced changes nothing");
        walk_ahead.follow(&envelope(5, Some(6)));
        assert_eq!(walk_ahead.last, 6, "records created during the walk extend it");
        walk_ahead.follow(&envelope(2, None));
        assert!(walk_ahead.last <= walk_ahead.asked, "a page naming no next one ends it");
        let mut repeated = walk(1, 4);
        repeated.follow(&envelope(1, Some(1)));
        assert!(
            repeated.last <= repeated.asked,
            "a next_page repeating its page names no next one"
        );
    }

    /// A list of `pages` pages of one record each, whose handler counts the requests under way at once.
    async fn counting_server(pages: u64) -> (String, Arc<Counts>) {
        use axum::extract::{Query, State};
        use std::sync::atomic::Ordering;

        let counts = Arc::new(Counts::default());
        let list = move |State(counts): State<Arc<Counts>>,
                         Query(query): Query<std::collections::HashMap<String, u64>>| async move {
            let now = counts.under_way.fetch_add(1, Ordering::SeqCst) + 1;
            counts.most_at_once.fetch_max(now, Ordering::SeqCst);
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            counts.under_way.fetch_sub(1, Ordering::SeqCst);
            counts.answered.fetch_add(1, Ordering::SeqCst);
            let page = query.get("page").copied().unwrap_or(1);
            axum::Json(serde_json::json!({
                "items": [{"id": page, "updated_at": "2025-01-01T00:00:00+00:00"}],
                "current_page": page,
                "next_page": (page < pages).then_some(page + 1),
                "total_pages": pages,
                "total_items": pages,
            }))
        };
        let app = axum::Router::new()
            .route("/list", axum::routing::get(list))
            .with_state(Arc::clone(&counts));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let address = listener.local_addr().expect("an address");
        tokio::spawn(async move { axum::serve(listener, app).await });
        (format!("http://{address}"), counts)
    }

    #[derive(Default)]
    struct Counts {
        under_way: std::sync::atomic::AtomicUsize,
        most_at_once: std::sync::atomic::AtomicUsize,
        answered: std::sync::atomic::AtomicUsize,
    }

    #[tokio::test]
    async fn pages_are_fetched_ahead_of_a_slow_mirror_but_asked_a_few_at_a_time() {
        use std::sync::atomic::Ordering;

        let pages = 40;
        let (base, counts) = counting_server(pages).await;
        let api = Client::builder(base).build().expect("a client");
        let grant = serde_json::from_value(serde_json::json!({
            "access_token": "access",
            "refresh_token": "refresh",
            "expiration_datetime": "2999-01-01T00:00:00+00:00",
            "society": {"id": 1, "legalName": "La Pampa", "syncCheck": "x"},
        }))
        .expect("a grant");
        api.resume(grant).await;

        let (mut walk, first) = Walk::start(&api, "units", "/list", Vec::new(), false)
            .await
            .map_err(WalkError::into_failure)
            .expect("the first page");
        let mut ids = first.rows.iter().map(|row| row.id).collect::<Vec<_>>();
        ids.extend(
            walk.next()
                .await
                .expect("page 2")
                .expect("a page")
                .iter()
                .map(|row| row.id),
        );
        // The mirror is slow to take page 3: meanwhile the walk goes on fetching, the whole window's worth.
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        assert_eq!(
            counts.answered.load(Ordering::SeqCst),
            1 + MOST_AHEAD,
            "page 1, and the window the walk filled when page 2 was taken: pages 2 to {}",
            1 + MOST_AHEAD
        );
        while let Some(rows) = walk.next().await.expect("a page") {
            ids.extend(rows.iter().map(|row| row.id));
        }
        assert_eq!(
            ids,
            (1..=pages as i64).collect::<Vec<_>>(),
            "every page, once, in page order"
        );
        assert!(
            counts.most_at_once.load(Ordering::SeqCst) <= REQUESTS_AT_ONCE,
            "at most {REQUESTS_AT_ONCE} requests at the server at once, saw {}",
            counts.most_at_once.load(Ordering::SeqCst)
        );
    }

    #[test]
    fn large_pages_are_fetched_fewer_ahead() {
        assert_eq!(
            pages_ahead(500 * 224),
            MOST_AHEAD,
            "a page of 500 device events, 112 KB"
        );
        assert_eq!(pages_ahead(0), MOST_AHEAD, "an empty first page");
        assert_eq!(pages_ahead(1 << 20), 8, "pages of 1 MB: 8 MB ahead");
        assert_eq!(
            pages_ahead(500 * 5_387),
            REQUESTS_AT_ONCE,
            "a page of 500 work orders with their lines, 2.7 MB: no fewer than the requests at once"
        );
    }

    #[test]
    fn work_orders_are_keyed_by_their_header() {
        let order =
            r#"{"header":{"local_id":7,"updated_at":"2025-01-01T00:00:00-03:00","deleted_at":null},"lines":[]}"#;
        let row = row("work_orders", raw(order), false).expect("a row");
        assert_eq!(row.id, 7);
        assert_eq!(row.updated_at.as_deref(), Some("2025-01-01T00:00:00-03:00"));
        assert_eq!(row.deleted_at, None);
        assert_eq!(row.record, order, "the record is kept as the API sent it");
    }

    #[test]
    fn deleted_records_keep_their_instant_or_get_one() {
        let gone = row(
            "units",
            raw(r#"{"id":3,"deleted_at":"2025-02-01T00:00:00+00:00"}"#),
            true,
        )
        .expect("a row");
        assert_eq!(gone.deleted_at.as_deref(), Some("2025-02-01T00:00:00+00:00"));
        let unmarked = row("units", raw(r#"{"id":4,"name":"x"}"#), true).expect("a row");
        let at = unmarked.deleted_at.expect("listed as deleted, so marked deleted");
        assert!(
            chrono::DateTime::parse_from_str(&at, client::wire::time::OFFSET_FORMAT).is_ok() && at.len() == 25,
            "written as the API writes instants, to the second: {at}"
        );
        let updated = row(
            "units",
            raw(r#"{"id":5,"updated_at":"2026-03-01T10:00:00-03:00"}"#),
            true,
        )
        .expect("a row");
        assert_eq!(
            updated.deleted_at.as_deref(),
            Some("2026-03-01T10:00:00-03:00"),
            "a shape without deleted_at: its updated_at, which the deletion set"
        );
        let live = row(
            "units",
            raw(r#"{"id":4,"deleted_at":"2025-02-01T00:00:00+00:00"}"#),
            false,
        )
        .expect("a row");
        assert_eq!(live.deleted_at, None, "only the deleted filter marks a record deleted");
    }

    #[test]
    fn a_record_without_a_numeric_id_is_refused() {
        for record in [r#"{"name":"x"}"#, r#"{"id":"7"}"#, r#"{"header":{}}"#] {
            let error = row("units", raw(record), false).expect_err("refused");
            assert!(error.to_string().contains("without a numeric id"), "{error}");
        }
    }

    #[test]
    fn escaped_text_is_decoded() {
        let record = r#"{"id":1,"updated_at":"2025-01-01T00:00:00\u002b00:00"}"#;
        let row = row("units", raw(record), false).expect("a row");
        assert_eq!(row.updated_at.as_deref(), Some("2025-01-01T00:00:00+00:00"));
    }
}
