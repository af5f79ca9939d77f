//! The one error type of every handler, and how it becomes a response.
//!
//! A handler's error carries a [`Msg`], not words: the envelope middleware (see [`crate::envelope`]) puts it into
//! the language the request asked for. Unexpected failures are logged here with their cause and reach the client as
//! a bare 500 (or 503 when the database is unreachable) that reveals nothing.

use std::time::Duration;

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use domain::{FilterError, PageError, Refusal};
use store::list::ListError;
use store::StoreError;

use crate::i18n::Msg;

/// What the envelope middleware needs to render an error body.
#[derive(Debug, Clone)]
pub struct ErrorReport {
    /// The envelope's `code`; the HTTP status unless a quirk says otherwise.
    pub code: i64,
    /// What to say.
    pub msg: Msg,
}

/// An error answer.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    code: Option<i64>,
    msg: Msg,
    retry_after: Option<Duration>,
}

impl ApiError {
    /// An error with this status and message.
    pub fn new(status: StatusCode, msg: Msg) -> Self {
        Self {
            status,
            code: None,
            msg,
            retry_after: None,
        }
    }

    /// 400.
    pub fn bad_request(msg: Msg) -> Self {
        Self::new(StatusCode::BAD_REQUEST, msg)
    }

    /// 401.
    pub fn unauthorized(msg: Msg) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, msg)
    }

    /// 403.
    pub fn forbidden(msg: Msg) -> Self {
        Self::new(StatusCode::FORBIDDEN, msg)
    }

    /// 404 for a record of `resource`.
    pub fn not_found(resource: &'static str, id: impl ToString) -> Self {
        Self::new(
            StatusCode::NOT_FOUND,
            Msg::NotFound {
                resource,
                id: id.to_string(),
            },
        )
    }

    /// 429 with `Retry-After`.
    pub fn too_many_requests(msg: Msg, retry_after: Duration) -> Self {
        Self {
            retry_after: Some(retry_after),
            ..Self::new(StatusCode::TOO_MANY_REQUESTS, msg)
        }
    }

    /// 503 with `Retry-After`: the server cannot take this request now, and says when to try again.
    pub fn unavailable_for(msg: Msg, retry_after: Duration) -> Self {
        Self {
            retry_after: Some(retry_after),
            ..Self::new(StatusCode::SERVICE_UNAVAILABLE, msg)
        }
    }

    /// The same error with a different envelope `code` than its HTTP status.
    pub fn with_code(self, code: i64) -> Self {
        Self {
            code: Some(code),
            ..self
        }
    }

    /// The same error with its message rewritten, for a handler that can say more than the extractor that refused.
    pub fn map_msg(self, rewrite: impl FnOnce(Msg) -> Msg) -> Self {
        Self {
            msg: rewrite(self.msg),
            ..self
        }
    }

    /// A write to a record of `resource` (`id`, when the write names one) refused, with the status its reason
    /// calls for.
    pub fn refusal(refusal: Refusal, resource: &'static str, id: impl ToString) -> Self {
        let status = match refusal {
            Refusal::Invalid(_) => StatusCode::UNPROCESSABLE_ENTITY,
            Refusal::TooManyItems { .. } => StatusCode::PAYLOAD_TOO_LARGE,
            Refusal::NotFound => return Self::not_found(resource, id),
            Refusal::HasDependants { .. }
            | Refusal::ReadOnly
            | Refusal::DuplicateExternalId(_)
            | Refusal::DuplicateExternalCode(_) => StatusCode::CONFLICT,
            Refusal::Stale => StatusCode::PRECONDITION_FAILED,
        };
        let id = id.to_string();
        Self::new(status, Msg::Refused { resource, id, refusal })
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> Self {
        match error {
            StoreError::Unavailable(_) => {
                tracing::warn!(%error, "database unavailable");
                Self::new(StatusCode::SERVICE_UNAVAILABLE, Msg::Unavailable)
            }
            other => {
                tracing::error!(error = %other, "internal error");
                Self::new(StatusCode::INTERNAL_SERVER_ERROR, Msg::Internal)
            }
        }
    }
}

impl From<PageError> for ApiError {
    fn from(error: PageError) -> Self {
        match error {
            PageError::InvalidPage(value) => Self::bad_request(Msg::InvalidPage(value)),
            PageError::InvalidSize(value) => Self::bad_request(Msg::InvalidSize(value, domain::page::MAX_PAGE_SIZE)),
            PageError::PastLastPage { requested, last } => {
                Self::new(StatusCode::NOT_FOUND, Msg::PageNotFound { page: requested, last })
            }
        }
    }
}

impl From<FilterError> for ApiError {
    fn from(error: FilterError) -> Self {
        Self::bad_request(Msg::Filter(error))
    }
}

impl From<ListError> for ApiError {
    fn from(error: ListError) -> Self {
        match error {
            ListError::Page(page) => page.into(),
            ListError::Store(store) => store.into(),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        if let Some(retry_after) = self.retry_after {
            if let Ok(value) = HeaderValue::from_str(&retry_after.as_secs().max(1).to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, value);
            }
        }
        let code = self.code.unwrap_or_else(|| i64::from(self.status.as_u16()));
        response.extensions_mut().insert(ErrorReport { code, msg: self.msg });
        response
    }
}
