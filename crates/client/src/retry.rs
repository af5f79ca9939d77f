//! When a failed call is tried again, and how long the SDK waits before it does.

use std::time::Duration;

use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::StatusCode;

/// Exponential back-off with a bounded number of attempts.
///
/// The SDK retries transport failures, time-outs, 429, 503, and a 409 with `Retry-After` (the first request with the
/// same `Idempotency-Key` is still being answered), on requests that are safe to repeat: every `GET`, `PUT`, `PATCH`
/// and `DELETE` of this API (a `PATCH` replaces the whole work order, so sending it twice changes nothing more than
/// once), and a `POST` only when it carries an `Idempotency-Key`, which every create of the SDK does. A `Retry-After`
/// header (in seconds) replaces the computed delay of a 429 or 503, and is the least a 409's waits; when it asks for
/// more than [`RetryPolicy::max_backoff`], the SDK gives the error to the caller instead of sleeping that long.
///
/// ```
/// use std::time::Duration;
/// use client::RetryPolicy;
///
/// let patient = RetryPolicy { max_attempts: 6, initial_backoff: Duration::from_millis(500), ..RetryPolicy::default() };
/// let never = RetryPolicy::none();
/// # let _ = (patient, never);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Attempts in all, the first included; 1 never retries.
    pub max_attempts: u32,
    /// The wait before the first retry; each later wait doubles it.
    pub initial_backoff: Duration,
    /// The longest wait, computed or asked for by `Retry-After`.
    pub max_backoff: Duration,
}

impl Default for RetryPolicy {
    /// 4 attempts, waiting about 0.25 s, 0.5 s and 1 s, and at most 30 s when the server asks for it.
    fn default() -> Self {
        Self {
            max_attempts: 4,
            initial_backoff: Duration::from_millis(250),
            max_backoff: Duration::from_secs(30),
        }
    }
}

impl RetryPolicy {
    /// One attempt and no retry.
    pub fn none() -> Self {
        Self {
            max_attempts: 1,
            ..Self::default()
        }
    }

    /// The wait after failed attempt number `attempt` (1-based), with up to a quarter of jitter so that many
    /// clients failed by one outage do not all come back at the same instant.
    pub(crate) fn backoff(&self, attempt: u32) -> Duration {
        let doubling = 2u32.saturating_pow(attempt.saturating_sub(1));
        let base = self.initial_backoff.saturating_mul(doubling).min(self.max_backoff);
        // The clock's nanoseconds are random enough for jitter and need no extra dependency.
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.subsec_nanos())
            .unwrap_or_default();
        let jitter = base.mul_f64(f64::from(nanos % 1000) / 4000.0);
        base.saturating_add(jitter).min(self.max_backoff)
    }
}

/// How long to wait before sending a call again after an answer with `status` and `headers`, or `None` when that
/// answer is final; `backoff` is the policy's wait for this attempt. A 409 is retried only with `Retry-After`, which
/// the server sends when the first request with the same `Idempotency-Key` is still being answered, and waits at
/// least the back-off, so that a long first request is asked about less and less often. Any other conflict (a
/// duplicate external code, say) would answer the same again.
pub(crate) fn retry_wait(status: StatusCode, headers: &HeaderMap, backoff: Duration) -> Option<Duration> {
    let asked = retry_after(headers);
    match status {
        StatusCode::TOO_MANY_REQUESTS | StatusCode::SERVICE_UNAVAILABLE => Some(asked.unwrap_or(backoff)),
        StatusCode::CONFLICT => asked.map(|asked| asked.max(backoff)),
        _ => None,
    }
}

/// The wait a `Retry-After` header asks for, when it is a number of seconds (the form this API sends).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_and_is_capped() {
        let policy = RetryPolicy {
            max_attempts: 10,
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_millis(700),
        };
        let first = policy.backoff(1);
        assert!(first >= Duration::from_millis(100) && first <= Duration::from_millis(125));
        let third = policy.backoff(3);
        assert!(third >= Duration::from_millis(400) && third <= Duration::from_millis(500));
        assert_eq!(policy.backoff(9), Duration::from_millis(700));
    }

    #[test]
    fn a_409_is_retried_only_while_its_key_is_in_progress_and_with_back_off() {
        let backoff = Duration::from_millis(250);
        let mut in_progress = HeaderMap::new();
        in_progress.insert(RETRY_AFTER, reqwest::header::HeaderValue::from_static("1"));
        assert_eq!(
            retry_wait(StatusCode::CONFLICT, &in_progress, backoff),
            Some(Duration::from_secs(1))
        );
        assert_eq!(
            retry_wait(StatusCode::CONFLICT, &in_progress, Duration::from_secs(4)),
            Some(Duration::from_secs(4)),
            "the back-off grows past what the server asks"
        );
        assert_eq!(
            retry_wait(StatusCode::CONFLICT, &HeaderMap::new(), backoff),
            None,
            "a conflict without Retry-After is final"
        );
        assert_eq!(
            retry_wait(StatusCode::SERVICE_UNAVAILABLE, &HeaderMap::new(), backoff),
            Some(backoff)
        );
        assert_eq!(
            retry_wait(StatusCode::UNPROCESSABLE_ENTITY, &in_progress, backoff),
            None
        );
    }

    #[test]
    fn retry_after_reads_seconds() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert(RETRY_AFTER, reqwest::header::HeaderValue::from_static("3"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(3)));
    }
}
