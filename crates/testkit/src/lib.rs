//! Helpers that the test suites of several crates share; a dev-dependency only, never part of the binary.
//!
//! # Layout
//! - [`postgres`]: the throwaway PostgreSQL cluster of a test run, and clusters a test may stop and start itself.
//! - [`pgbouncer`]: PgBouncer in transaction mode in front of a cluster, for the run's suite or a test of its own.
//! - [`process`]: the real server binary as a child process, started, stopped and killed.
//! - [`replication`]: a primary and its synchronous standby, for a test that fails one over to the other.
//! - [`scratch`]: a folder of a test's own, deleted when the test ends.
//! - [`python`]: receivers' own verification of webhook deliveries (PyPI `standardwebhooks`), in a virtual
//!   environment under the target directory.

pub mod pgbouncer;
pub mod postgres;
pub mod process;
pub mod python;
pub mod replication;
pub mod scratch;
