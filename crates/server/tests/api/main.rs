//! Black-box tests of the integration API: each starts the real server on a random port over a fresh database and
//! talks to it over HTTP, once on SQLite and once on PostgreSQL.

mod helpers;

mod applicator_writes;
mod auth;
mod bodies;
mod catalogue_switches;
mod console;
mod establishments;
mod events;
mod every_problem;
mod external_codes;
mod farmers;
mod field;
mod field_writes;
mod fuzz_regressions;
mod guides;
mod housekeeping;
mod idempotency;
mod isolation;
mod jobs;
mod limits;
mod openapi;
mod operations;
mod outage;
mod outbound;
mod paging;
mod pipeline;
mod planning;
mod plots;
mod reasons;
mod reference;
mod reference_data;
mod route_isolation;
mod schema;
mod sdk;
mod sdk_events;
mod spec_paths;
mod sync;
mod text_limits;
mod two_processes;
mod webhooks;
mod work_order_writes;
mod write_events;
