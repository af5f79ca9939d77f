//! The statement log of a test run: when `TEST_STATEMENT_LOG` names a directory, every cluster the tests start logs
//! each statement it runs there, one JSON record a statement, for `scripts/check-statements` to read once the tests
//! have ended. The check proves that every statement the service runs names its society, which is what lets Citus
//! send it to the one worker that holds that society.
//!
//! The log is written by PostgreSQL's own logging collector (`log_destination=jsonlog`): a statement spanning several
//! lines is still one record, and the file lies outside the cluster's data directory, which is deleted at exit. Each
//! cluster writes its own file, named after the test process and the cluster's port. Bind parameters are left out:
//! the check reads the statements' text only, and the log stays small.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The environment variable naming the directory of the statement log.
pub const STATEMENT_LOG: &str = "TEST_STATEMENT_LOG";

/// The `application_name` of the tests' own connections ([`crate::postgres::connect`]): the checker leaves their
/// statements out, since they are the tests' probes of the database, not the service's statements.
pub const TEST_CONNECTION: &str = "testkit";

/// The directory of the statement log, when one is asked for: `TEST_STATEMENT_LOG`, a relative path being taken from
/// the workspace's root (test processes run in their crate's directory).
pub fn directory() -> Option<PathBuf> {
    let given = std::env::var_os(STATEMENT_LOG).filter(|value| !value.is_empty())?;
    Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(given))
}

/// The server settings of a cluster on `port`: when a statement log is asked for, those that write every statement
/// into it (the directory is made, and handed to the `postgres` user when the server runs as that user); else none.
pub(crate) fn settings(as_postgres: bool, port: u16) -> Result<String, String> {
    let Some(dir) = directory() else {
        return Ok(String::new());
    };
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let dir = std::fs::canonicalize(&dir).map_err(|e| format!("cannot resolve {}: {e}", dir.display()))?;
    let text = dir.to_string_lossy();
    // The settings are words of a shell command line (see [`crate::postgres::launch`]), the path single-quoted.
    if text.contains('\'') {
        return Err(format!("{STATEMENT_LOG} must not contain a single quote: {text}"));
    }
    if as_postgres {
        let status = Command::new("chown").arg("postgres").arg(&dir).status();
        if !status.is_ok_and(|s| s.success()) {
            return Err(format!("cannot hand {text} to the postgres user"));
        }
    }
    // No rotation: a cluster that a test stops and starts again appends to the same file.
    Ok(format!(
        "-c logging_collector=on -c log_destination=jsonlog -c 'log_directory={text}' \
         -c log_filename=cluster-{process}-{port}.log -c log_file_mode=0644 -c log_rotation_age=0 \
         -c log_rotation_size=0 -c log_statement=all -c log_parameter_max_length=0",
        process = std::process::id()
    ))
}
