//! The wire shapes of the integration API: every request and response body, per generation, exactly as the
//! specification names its fields.
//!
//! This crate depends on nothing of ours and on no I/O, so the SDK can use it without pulling in a database driver.
//!
//! # Layout
//! - [`time`]: the two timestamp renderings the API uses (ISO 8601 with offset, and the v2 plot's plain form).
//! - [`envelope`]: the paginated list envelope and the error envelope shared by every endpoint.
//! - [`auth`]: login and refresh.
//! - [`applicators`]: applicator writes (v2).
//! - [`work_orders`]: the body of work-order writes.
//! - [`farmers`], [`establishments`]: master data resources.
//! - [`plots`]: plots as the v3 writes speak them.
//! - [`jobs`]: bodies that start background jobs.
//! - [`events`]: the change feed and the webhook deliveries that carry it.
//! - [`webhooks`]: webhook endpoints and their deliveries.
//! - [`planning`], [`operations`], [`field`]: the rest of the domain, by group.

pub mod applicators;
pub mod auth;
pub mod envelope;
pub mod establishments;
pub mod events;
pub mod farmers;
pub mod field;
pub mod jobs;
pub mod operations;
pub mod planning;
pub mod plots;
pub mod time;
pub mod webhooks;
pub mod work_orders;

pub use envelope::{ErrorBody, ErrorDetail, ErrorProblem, Page};
pub use time::{PlainTimestamp, Timestamp};
