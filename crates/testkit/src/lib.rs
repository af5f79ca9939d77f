//! Helpers that the test suites of several crates share; a dev-dependency only, never part of the binary.
//!
//! # Layout
//! - [`citus`]: each test database spread over a Citus cluster of the tester's own, when the run names one.
//! - [`postgres`]: the throwaway PostgreSQL cluster of a test run, and clusters a test may stop and start itself.
//! - [`pgbouncer`]: PgBouncer in transaction mode in front of a cluster, for the run's suite or a test of its own.
//! - [`process`]: the real server binary as a child process, started, stopped and killed.
//! - [`replication`]: a primary and its synchronous standby, for a test that fails one over to the other.
//! - [`scratch`]: a folder of a test's own, deleted when the test ends.
//! - [`statement_log`]: every statement of the run's clusters logged to a directory, for `scripts/check-statements`.
//! - [`python`]: receivers' own verification of webhook deliveries (PyPI `standardwebhooks`), in a virtual
//!   environment under the target directory.

pub mod citus;
pub mod pgbouncer;
pub mod postgres;
pub mod process;
pub mod python;
pub mod replication;
pub mod scratch;
pub mod statement_log;
