//! Typed Rust SDK of the third-party integration API, over the shapes of the `wire` crate.
//!
//! It works against Tranquera's sandbox (`tranquera demo`) and against the real platform alike: only the base URL
//! (and, for the real platform, the header token) changes.
//!
//! - **Auth.** [`Client::login`] once; the client refreshes the access token shortly before it expires, and once
//!   after a 401, through `POST /api/v2/login/refresh`, without the caller noticing. Concurrent calls share one
//!   refresh. Tokens and passwords are never logged.
//! - **Lists** are [`futures_util::Stream`]s of items over every page, following `next_page`, filtered by
//!   [`Filters`] named as each generation names them.
//! - **Errors** are one [`Error`] type; [`Error::Api`] carries the status and the decoded envelope, with its
//!   machine-readable [`Error::reason`] to branch on and, on a 400 or 422, every problem ([`Error::problems`]).
//! - **Events**: [`Client::events`] follows the change feed as a stream that resumes from a saved cursor;
//!   [`webhooks::verify`] checks a signed webhook delivery and decodes its event.
//! - **Retries** follow a [`RetryPolicy`] on 429, 503, time-outs and transport failures, honouring `Retry-After`.
//!   Every create sends a fresh `Idempotency-Key`, so a retried create never creates twice.
//!
//! ```no_run
//! use futures_util::TryStreamExt;
//!
//! # async fn run() -> Result<(), client::Error> {
//! let api = client::Client::builder("http://127.0.0.1:8080").build()?;
//! api.login("integrador@lapampa.com.ar", "LaPampa-2026").await?;
//! let farmers: Vec<_> = api.farmers(&client::Filters::new()).try_collect().await?;
//! println!("{} farmers", farmers.len());
//! # Ok(())
//! # }
//! ```
//!
//! # Layout
//! - [`Client`] and [`ClientBuilder`]: configuration, transport, retries and the session.
//! - [`Filters`] and [`WorkOrderStates`]: list filters.
//! - The read methods ([`Client::establishments`], [`Client::establishment`], … one pair per resource) are generated
//!   from one declaration table; the writes ([`Client::create_establishment`], …) are written by hand.

/// Compiles the SDK guide's examples (docs/sdk.md) as doctests, so the copy-pasteable examples cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../../docs/sdk.md")]
struct ReadmeExample;

mod auth;
mod client;
mod error;
mod events;
mod filters;
mod resources;
mod retry;
pub mod webhooks;
mod writes;

pub use client::{Client, ClientBuilder, Items, Pages, Tagged};
pub use error::{Error, ErrorProblem};
pub use events::{EventStream, EVENTS_PATH, NOW};
pub use filters::{Filters, Generation, WorkOrderStates};
/// The stream traits the list methods need (`TryStreamExt::try_next`, `try_collect`…), re-exported so callers use
/// the same version.
pub use futures_util;
pub use reqwest::StatusCode;
pub use retry::RetryPolicy;
pub use wire;
pub use writes::work_order_write;
