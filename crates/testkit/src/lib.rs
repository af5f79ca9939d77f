//! Helpers that the test suites of several crates share; a dev-dependency only, never part of the binary.
//!
//! # Layout
//! - [`postgres`]: the throwaway PostgreSQL cluster of a test run, and clusters a test may stop and start itself.
//! - [`process`]: the real server binary as a child process, started, stopped and killed.

pub mod postgres;
pub mod process;
