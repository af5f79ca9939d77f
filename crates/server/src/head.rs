//! The request's head, before any route sees it: the bounds of its URI and headers, credentials sent once, no NUL in
//! its query; and the refusals hyper makes itself, before a request exists, rewritten into the envelope on their way
//! to the socket.
//!
//! hyper answers a head it cannot parse (a malformed request line or header line: 400), a URI over 65,534 bytes (414)
//! and a head past its read buffer (about 400 KiB) or over 100 headers (431) on its own, with an empty body, and no
//! option of its builder changes that body. Our bounds are well inside hyper's, so [`check_head`] answers those
//! refusals as any other error, in the caller's language. What still reaches hyper's limits is caught by
//! [`Enveloped`], the connection's writer: an answer of 400, 414 or 431 with an empty body is one of hyper's (ours
//! always carry the envelope), and it is replaced with the envelope in the default language (Spanish), since a head
//! hyper could not read names no language that can be trusted.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use axum::extract::{Request, State};
use axum::http::{header, HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use domain::Lang;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use wire::ErrorBody;

use crate::error::ApiError;
use crate::i18n::Msg;
use crate::AppState;

/// The longest URI (path and query) a request may have: 414 past it.
pub const MAX_URI_BYTES: usize = 8 * 1024;
/// The most a request's headers may weigh, names and values: 431 past it.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// `Idempotency-Key`.
const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static(crate::idempotency::IDEMPOTENCY_KEY);

/// Refuses a request whose head breaks a bound, repeats a credential header, or has NUL in its query.
pub async fn check_head(State(state): State<AppState>, request: Request, next: Next) -> Response {
    match refusal(&state, &request) {
        Some(error) => {
            let mut response = error.into_response();
            // A head this large is not worth keeping a connection for: closed, as hyper closes after its own.
            if matches!(
                response.status(),
                StatusCode::URI_TOO_LONG | StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE
            ) {
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
            }
            response
        }
        None => next.run(request).await,
    }
}

fn refusal(state: &AppState, request: &Request) -> Option<ApiError> {
    let uri = request.uri();
    let uri_bytes =
        uri.path_and_query().map_or(0, |p| p.as_str().len()) + uri.authority().map_or(0, |a| a.as_str().len());
    if uri_bytes > MAX_URI_BYTES {
        return Some(ApiError::new(StatusCode::URI_TOO_LONG, Msg::UriTooLong(MAX_URI_BYTES)));
    }
    let headers = request.headers();
    let header_bytes: usize = headers
        .iter()
        .map(|(name, value)| name.as_str().len() + value.len())
        .sum();
    if header_bytes > MAX_HEADER_BYTES {
        return Some(ApiError::new(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            Msg::HeadersTooLarge(MAX_HEADER_BYTES),
        ));
    }
    // The headers that carry credentials or preconditions go once each: with two, the server might check one copy
    // while a proxy in front, or the next check, reads the other.
    let names = &state.headers;
    let once = [
        &header::AUTHORIZATION,
        &names.system_id,
        &names.api_key,
        &IDEMPOTENCY_KEY,
        &header::IF_MATCH,
    ];
    if let Some(index) = once
        .iter()
        .position(|name| headers.get_all(*name).iter().nth(1).is_some())
    {
        let shown = match index {
            0 => "Authorization".to_owned(),
            1 => names.system_id_display.clone(),
            2 => names.api_key_display(),
            3 => "Idempotency-Key".to_owned(),
            _ => "If-Match".to_owned(),
        };
        return Some(ApiError::bad_request(Msg::RepeatedHeader(shown)));
    }
    // PostgreSQL cannot hold NUL in a text, and a query's values reach its statements (the console's path filter);
    // refused here for every route and backend alike, as bodies are.
    if uri
        .query()
        .is_some_and(|query| percent_encoding::percent_decode_str(query).any(|byte| byte == 0))
    {
        return Some(ApiError::bad_request(Msg::NulInQuery));
    }
    None
}

/// A connection whose writes pass through untouched, except hyper's own refusals, which it answers in the envelope.
#[derive(Debug)]
pub struct Enveloped<I> {
    inner: I,
    /// The envelope being written in place of hyper's head, how much of it is written, and the length of the head it
    /// stands for.
    replacing: Option<(Vec<u8>, usize, usize)>,
}

impl<I> Enveloped<I> {
    /// Wraps a connection.
    pub fn new(inner: I) -> Self {
        Self { inner, replacing: None }
    }
}

/// The envelope answer that replaces `head`, when `head` is one of hyper's own refusals, and the length of the head.
fn replacement(head: &[u8]) -> Option<(Vec<u8>, usize)> {
    let (status, msg) = match head.get(..13)? {
        b"HTTP/1.1 400 " => (400, Msg::MalformedRequest),
        b"HTTP/1.1 414 " => (414, Msg::UriTooLong(MAX_URI_BYTES)),
        b"HTTP/1.1 431 " => (431, Msg::HeadersTooLarge(MAX_HEADER_BYTES)),
        _ => return None,
    };
    let end = head.windows(4).position(|window| window == b"\r\n\r\n")? + 4;
    let lines = std::str::from_utf8(&head[..end - 2]).ok()?;
    // Ours always carry a body; hyper's say `content-length: 0`.
    if !lines
        .split("\r\n")
        .any(|line| line.eq_ignore_ascii_case("content-length: 0"))
    {
        return None;
    }
    let lang = Lang::default();
    let body = ErrorBody::new(status, msg.text(lang), msg.reason());
    let body = match status {
        400 => body.with_errors(msg.problems(lang)),
        _ => body,
    };
    let body = serde_json::to_vec(&body).ok()?;
    let mut answer = Vec::with_capacity(end + body.len() + 64);
    for line in lines.split("\r\n").filter(|line| !line.is_empty()) {
        if !line.to_ascii_lowercase().starts_with("content-length:") {
            answer.extend_from_slice(line.as_bytes());
            answer.extend_from_slice(b"\r\n");
        }
    }
    answer.extend_from_slice(
        format!(
            "content-type: application/json\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    answer.extend_from_slice(&body);
    Some((answer, end))
}

impl<I: AsyncWrite + Unpin> Enveloped<I> {
    /// Writes the replacement under way; done, it reports the head it stands for as written.
    fn drive(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        while let Some((answer, written, stands_for)) = &mut self.replacing {
            if *written == answer.len() {
                let stands_for = *stands_for;
                self.replacing = None;
                return Poll::Ready(Ok(stands_for));
            }
            let n = ready!(Pin::new(&mut self.inner).poll_write(cx, &answer[*written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            *written += n;
        }
        Poll::Ready(Ok(0))
    }

    /// Starts replacing `buf`'s head when it is one of hyper's refusals.
    fn intercept(&mut self, buf: &[u8]) -> bool {
        if self.replacing.is_none() {
            if let Some((answer, stands_for)) = replacement(buf) {
                self.replacing = Some((answer, 0, stands_for));
            }
        }
        self.replacing.is_some()
    }
}

impl<I: AsyncRead + Unpin> AsyncRead for Enveloped<I> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<I: AsyncWrite + Unpin> AsyncWrite for Enveloped<I> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.intercept(buf) {
            return self.drive(cx);
        }
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let first = bufs.iter().find(|buf| !buf.is_empty()).map_or(&[][..], |buf| &buf[..]);
        if self.intercept(first) {
            return self.drive(cx);
        }
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drive(cx))?;
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drive(cx))?;
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::replacement;

    #[test]
    fn only_hyper_s_empty_refusals_are_replaced_with_the_envelope() {
        let head = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\ndate: Sun, 29 Nov 2026 07:00:00 GMT\r\n\r\n";
        let (answer, stands_for) = replacement(head).expect("hyper's own 400");
        assert_eq!(stands_for, head.len());
        let answer = String::from_utf8(answer).expect("text");
        assert!(answer.starts_with("HTTP/1.1 400 Bad Request\r\n"), "{answer}");
        assert!(answer.contains("\r\ndate: Sun"), "{answer}");
        assert!(answer.contains("content-type: application/json\r\n"), "{answer}");
        let listed = r#""exception":[],"reason":"malformed_request","errors":[{"path":"""#;
        assert!(answer.contains(listed), "{answer}");
        let ours = b"HTTP/1.1 400 Bad Request\r\ncontent-length: 95\r\n\r\n";
        assert!(replacement(ours).is_none(), "our own 400 carries its envelope already");
        assert!(replacement(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n").is_none());
    }
}
