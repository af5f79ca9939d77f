//! The change feed as a stream: `GET /api/v3/third_party/events` paged from a cursor, polled when caught up, with
//! the cursor to save after every event.
//!
//! The server's cursors mark page ends only (an event carries no cursor of its own). So that a consumer may stop
//! after any event and resume without repeating or skipping one, [`EventStream::cursor`] answers the server's
//! cursor at a page end and `<cursor of the page's start>~<events taken>` inside a page; the stream reads the
//! latter back by asking from the page's start and dropping the events already taken. That is exact because the
//! feed never inserts an event before a cursor it has handed out, so a page read again starts with the same events.

use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures_util::stream::{self, BoxStream};
use futures_util::{Stream, StreamExt};
use wire::events::{Event, EventPage};

use crate::{Client, Error};

/// The feed's path.
pub const EVENTS_PATH: &str = "/api/v3/third_party/events";
/// The `after` value that starts at the feed's head: only changes committed from now on.
pub const NOW: &str = "now";
/// Events asked per request: the most the feed gives, so catching up costs the fewest requests.
const PAGE_SIZE: u32 = 1000;
/// The wait between two reads of a feed that had nothing more.
const POLL_INTERVAL: Duration = Duration::from_secs(1);
/// Separates a page's start cursor from the events already taken of it; server cursors never contain it.
const TAKEN: char = '~';

/// The society's change events, in the order their changes committed, from a cursor on and without end: when the
/// feed has nothing more the stream waits a second and asks again. See [`Client::events`].
///
/// The stream ends after yielding an error (a 410 for a cursor past the feed's retention, a network failure that
/// outlasted the retries…); resume with a new stream from [`EventStream::cursor`].
pub struct EventStream {
    inner: BoxStream<'static, Result<Event, Error>>,
    cursor: Arc<Mutex<Option<String>>>,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventStream")
            .field("cursor", &self.cursor())
            .finish_non_exhaustive()
    }
}

impl EventStream {
    /// The cursor to save: a stream started from it yields exactly the events after the last one this stream
    /// yielded. Once the stream has read the feed this is a real position even if no event came (a stream started
    /// `now` answers where "now" was); before that, the `after` it was started with (`None`: the beginning).
    pub fn cursor(&self) -> Option<String> {
        self.cursor
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }
}

impl Stream for EventStream {
    type Item = Result<Event, Error>;

    fn poll_next(mut self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.poll_next_unpin(context)
    }
}

/// Where the next page is read from, and what is left of the current one.
struct Feed {
    client: Client,
    types: Option<String>,
    /// The `after` of the page being handed out; `None` for the beginning of the feed.
    page_start: Option<String>,
    /// Events of that page already handed out (or, just after a resume, still to drop).
    taken: usize,
    /// Events read and not yet handed out.
    buffered: VecDeque<Event>,
    /// The page's `next_cursor` and `has_more`, once read.
    page_end: Option<(String, bool)>,
    /// Events to drop from the next page read: those a resumed cursor says were taken already.
    skip: usize,
    failed: bool,
    /// Where [`EventStream::cursor`] reads the position from.
    published: Arc<Mutex<Option<String>>>,
}

impl Feed {
    /// The cursor after the last event handed out.
    fn position(&self) -> String {
        match &self.page_end {
            Some((next, _)) if self.buffered.is_empty() => next.clone(),
            _ => format!("{}{TAKEN}{}", self.page_start.as_deref().unwrap_or(""), self.taken),
        }
    }

    fn publish(&self) {
        let position = self.position();
        *self.published.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = Some(position);
    }

    /// Reads the next page into the buffer: after the page just emptied, waiting first when the feed was caught up.
    async fn read(&mut self) -> Result<(), Error> {
        if let Some((next, has_more)) = self.page_end.take() {
            if !has_more {
                tokio::time::sleep(POLL_INTERVAL).await;
            }
            self.page_start = Some(next);
            self.taken = 0;
        }
        let mut query = vec![("size", PAGE_SIZE.to_string())];
        if let Some(after) = &self.page_start {
            query.push(("after", after.clone()));
        }
        if let Some(types) = &self.types {
            query.push(("types", types.clone()));
        }
        let page: EventPage = self.client.get(EVENTS_PATH, query).await?;
        let mut items: VecDeque<Event> = page.items.into();
        let skipped = self.skip.min(items.len());
        items.drain(..skipped);
        self.skip = 0;
        self.taken = skipped;
        self.buffered = items;
        self.page_end = Some((page.next_cursor, page.has_more));
        self.publish();
        Ok(())
    }

    /// The next event, its cursor published.
    async fn next(&mut self) -> Option<Result<Event, Error>> {
        if self.failed {
            return None;
        }
        loop {
            if let Some(event) = self.buffered.pop_front() {
                self.taken += 1;
                self.publish();
                return Some(Ok(event));
            }
            if let Err(error) = self.read().await {
                self.failed = true;
                return Some(Err(error));
            }
        }
    }
}

/// Splits a cursor this SDK handed out into the server's cursor and the events of its page already taken.
fn parse_cursor(after: Option<&str>) -> (Option<String>, usize) {
    let Some(after) = after else {
        return (None, 0);
    };
    match after.rsplit_once(TAKEN) {
        Some((start, taken)) if taken.bytes().all(|b| b.is_ascii_digit()) && !taken.is_empty() => {
            let start = (!start.is_empty()).then(|| start.to_owned());
            (start, taken.parse().unwrap_or(0))
        }
        _ => (Some(after.to_owned()), 0),
    }
}

impl Client {
    /// Follows the change feed from `after` on: `None` for its beginning (as far back as its retention keeps),
    /// `Some("now")` for changes committed from now on, or a cursor saved from [`EventStream::cursor`]. `types`
    /// narrows it to event types (`work_order.updated`) or whole resources (`plot.*`); empty means every type.
    ///
    /// The stream reads pages of up to 1,000 events and, once caught up, asks again every second; it never ends
    /// unless an error ends it. Save [`EventStream::cursor`] after handling each event (or every few) and start
    /// from it next time: nothing is repeated and nothing missed.
    ///
    /// ```no_run
    /// use futures_util::TryStreamExt;
    ///
    /// # async fn run(api: client::Client, saved: Option<String>) -> Result<(), client::Error> {
    /// let mut events = api.events(saved.as_deref(), &["work_order.*", "plot.deleted"]);
    /// while let Some(event) = events.try_next().await? {
    ///     println!("{} {}", event.kind, event.resource_id);
    ///     let save_me: Option<String> = events.cursor();
    ///     # let _ = save_me;
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn events(&self, after: Option<&str>, types: &[&str]) -> EventStream {
        let (page_start, skip) = parse_cursor(after);
        let published = Arc::new(Mutex::new(after.map(str::to_owned)));
        let feed = Feed {
            client: self.clone(),
            types: (!types.is_empty()).then(|| types.join(",")),
            page_start,
            taken: 0,
            buffered: VecDeque::new(),
            page_end: None,
            skip,
            failed: false,
            published: published.clone(),
        };
        let inner = stream::unfold(feed, |mut feed| async move {
            let item = feed.next().await?;
            Some((item, feed))
        })
        .boxed();
        EventStream {
            inner,
            cursor: published,
        }
    }

    /// One page of the feed after `after` (`None`: its beginning; `"now"`: its head, an empty page whose
    /// `next_cursor` marks the present). For callers that keep their own loop; [`Client::events`] pages for you.
    ///
    /// ```no_run
    /// # async fn run(api: client::Client) -> Result<(), client::Error> {
    /// let head = api.event_page(Some("now"), &[], 1).await?.next_cursor;
    /// # let _ = head;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn event_page(&self, after: Option<&str>, types: &[&str], size: u32) -> Result<EventPage, Error> {
        let mut query = vec![("size", size.to_string())];
        if let Some(after) = after {
            query.push(("after", after.to_owned()));
        }
        if !types.is_empty() {
            query.push(("types", types.join(",")));
        }
        self.get(EVENTS_PATH, query).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_inside_a_page_name_its_start_and_the_events_taken() {
        assert_eq!(parse_cursor(None), (None, 0));
        assert_eq!(parse_cursor(Some("MTIz.NA")), (Some("MTIz.NA".to_owned()), 0));
        assert_eq!(parse_cursor(Some("MTIz.NA~7")), (Some("MTIz.NA".to_owned()), 7));
        assert_eq!(parse_cursor(Some("~3")), (None, 3));
        assert_eq!(parse_cursor(Some("now")), (Some("now".to_owned()), 0));
    }
}
