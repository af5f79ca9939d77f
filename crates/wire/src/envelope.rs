//! The two envelopes every endpoint shares: the paginated list and the error.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// One page of a list endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Page<T> {
    /// Resource objects of the page.
    pub items: Vec<T>,
    /// The page returned, starting at 1.
    pub current_page: u64,
    /// The next page; null on the last page (configurable to repeat the current page, as observed samples do).
    pub next_page: Option<u64>,
    /// Total pages; 1 for an empty list.
    pub total_pages: u64,
    /// Total records matching the request's filters.
    pub total_items: u64,
}

/// The body of every error response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorBody {
    /// The error itself.
    pub error: ErrorDetail,
}

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorDetail {
    /// The HTTP status code; 0 for a page beyond the last page of the applicators list, as the platform does.
    pub code: i64,
    /// Human-readable message, in Spanish unless `Accept-Language` asks for Portuguese or English.
    pub message: String,
    /// Diagnostic trace frames; always empty on this server, which never exposes its internals.
    pub exception: Vec<TraceFrame>,
}

/// A diagnostic trace frame, as the platform's schema describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct TraceFrame {
    /// Source file.
    pub file: String,
    /// Source line.
    pub line: i64,
    /// Function name.
    pub function: String,
    /// Class name.
    pub class: String,
    /// Call type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Call arguments.
    #[schema(example = json!([]))]
    pub args: Vec<serde_json::Value>,
}

impl ErrorBody {
    /// An error envelope with no trace frames.
    pub fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            error: ErrorDetail {
                code,
                message: message.into(),
                exception: Vec::new(),
            },
        }
    }
}
