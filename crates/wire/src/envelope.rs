//! The two envelopes every endpoint shares: the paginated list and the error (with its machine-readable `reason`
//! and, on 400 and 422, every problem of the request).

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
    /// Why, for a program to act on: a stable snake_case name of the situation, the same in every language (for
    /// example `external_id_taken` or `idempotency_in_progress` among the 409s). Branch on it, not on `message`.
    /// The document lists every value; a client should treat one it does not know by the HTTP status alone.
    #[serde(default)]
    #[schema(required = true, example = "validation_failed")]
    pub reason: String,
    /// Every problem of the request, each where it is: present on 400 and 422 answers only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub errors: Option<Vec<ErrorProblem>>,
}

/// One problem of a refused request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct ErrorProblem {
    /// Where: a JSON path in the body (`supplies[0].area_applied`, `[3].device_id`; empty for the body as a
    /// whole), the name of a query parameter (`page`, `updated_at_from`), or the name of a header
    /// (`Idempotency-Key`).
    #[schema(example = "supplies[0].area_applied")]
    pub path: String,
    /// What is wrong there, as a stable snake_case name (`not_positive`, `unknown_reference`, `missing_field`…).
    #[schema(example = "not_positive")]
    pub reason: String,
    /// The same problem in words, in the language of the answer.
    pub message: String,
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
    /// An error envelope with no trace frames and no list of problems.
    pub fn new(code: i64, message: impl Into<String>, reason: impl Into<String>) -> Self {
        Self {
            error: ErrorDetail {
                code,
                message: message.into(),
                exception: Vec::new(),
                reason: reason.into(),
                errors: None,
            },
        }
    }

    /// The same envelope listing `errors`, the request's every problem.
    pub fn with_errors(mut self, errors: Vec<ErrorProblem>) -> Self {
        self.error.errors = Some(errors);
        self
    }
}
