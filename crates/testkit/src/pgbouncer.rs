//! PgBouncer in front of a test cluster, in transaction pooling mode, as deployments with many server processes run
//! it: the test run's PostgreSQL suite goes through it when `TEST_THROUGH_PGBOUNCER` is set, and a test may start one
//! of its own with the settings it wants to see refused.
//!
//! The binary is `$PGBOUNCER`, or `pgbouncer` on PATH. Like the cluster, it runs under a small shell that stops it
//! when this process's pipe closes, and as the `postgres` user when we are root (PgBouncer refuses to run as root).

use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::postgres::{command, free_port, running_as_root};

/// Whether the test run's PostgreSQL suite goes through PgBouncer.
pub fn requested() -> bool {
    std::env::var_os("TEST_THROUGH_PGBOUNCER").is_some_and(|value| !value.is_empty() && value != "0")
}

/// A running PgBouncer, stopped when dropped.
pub struct PgBouncer {
    port: u16,
    max_prepared: u32,
    pool_size: u32,
    dir: PathBuf,
    sidecar: Mutex<Option<Child>>,
}

/// How the pooler keeps protocol-level prepared statements.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreparedStatements {
    /// PgBouncer 1.21 and later track them (`max_prepared_statements`, 200 by default from 1.22).
    Tracked,
    /// `max_prepared_statements = 0`, as with PgBouncer before 1.21: a statement prepared by one client stays on its
    /// server connection, where the next client finds it. With one server connection, so that the next client
    /// always does, as it eventually would on a busy pool of any size.
    Untracked,
}

impl PgBouncer {
    /// PgBouncer in transaction mode in front of the PostgreSQL server on `upstream_port` (on 127.0.0.1, user
    /// `postgres`, trusted), for every database on it.
    pub fn start(upstream_port: u16, prepared: PreparedStatements) -> Result<Self, String> {
        check_version()?;
        let as_postgres = running_as_root();
        let port = free_port()?;
        let dir = std::env::temp_dir().join(format!("tranquera-pgbouncer-{}-{port}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let (max_prepared, pool_size) = match prepared {
            PreparedStatements::Tracked => (200, 20),
            PreparedStatements::Untracked => (0, 1),
        };
        write_config(&dir, upstream_port, port, max_prepared, pool_size)?;
        std::fs::write(dir.join("users.txt"), "\"postgres\" \"\"\n").map_err(|e| format!("cannot write: {e}"))?;
        if as_postgres {
            let status = Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&dir)
                .status();
            if !status.is_ok_and(|s| s.success()) {
                return Err(format!("cannot hand {} to the postgres user", dir.display()));
            }
        }
        let dir_text = dir.to_string_lossy();
        let binary = binary();
        let script = format!(
            "'{binary}' '{dir_text}/pgbouncer.ini' >>'{dir_text}/stderr.log' 2>&1 & \
             pid=$!; cat >/dev/null; kill -INT $pid; wait $pid; rm -rf '{dir_text}'",
            binary = binary.to_string_lossy()
        );
        let sidecar = command(as_postgres, "sh")
            .args(["-c", &script])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let bouncer = Self {
            port,
            max_prepared,
            pool_size,
            dir,
            sidecar: Mutex::new(Some(sidecar)),
        };
        bouncer.wait_until_listening()?;
        Ok(bouncer)
    }

    /// Points the pooler at the PostgreSQL server on `upstream_port` instead, as an operator repoints it after a
    /// failover: the configuration rewritten, then `RELOAD` (SIGHUP). New server connections go to the new server.
    pub fn repoint(&self, upstream_port: u16) -> Result<(), String> {
        write_config(&self.dir, upstream_port, self.port, self.max_prepared, self.pool_size)?;
        let pid_file = self.dir.join("pgbouncer.pid");
        let pid = std::fs::read_to_string(&pid_file).map_err(|e| format!("{}: {e}", pid_file.display()))?;
        let status = Command::new("kill").args(["-HUP", pid.trim()]).status();
        if !status.is_ok_and(|s| s.success()) {
            return Err(format!("kill -HUP {} failed", pid.trim()));
        }
        Ok(())
    }

    /// The URL of database `name` through the pooler.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    fn wait_until_listening(&self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", self.port)).is_err() {
            if Instant::now() > deadline {
                let log = |name: &str| std::fs::read_to_string(self.dir.join(name)).unwrap_or_default();
                return Err(format!(
                    "PgBouncer ({}) did not listen on port {}: {}{}",
                    binary().display(),
                    self.port,
                    log("stderr.log"),
                    log("pgbouncer.log")
                ));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Ok(())
    }
}

impl Drop for PgBouncer {
    fn drop(&mut self) {
        if let Some(mut sidecar) = self.sidecar.get_mut().unwrap_or_else(PoisonError::into_inner).take() {
            drop(sidecar.stdin.take());
            let _ = sidecar.wait();
        }
    }
}

/// Writes `dir/pgbouncer.ini`: every database of the server on `upstream_port`, through `port`.
fn write_config(dir: &Path, upstream_port: u16, port: u16, max_prepared: u32, pool_size: u32) -> Result<(), String> {
    let dir_text = dir.to_string_lossy();
    // Idle server connections go soon: a test run makes and drops hundreds of databases, and a pool of each kept
    // open would exhaust the cluster's connections. After a failed connection to the server PgBouncer waits
    // `server_login_retry` before the next (15 s by default), also once repointed: 1 s, as docs/operations.md advises.
    let config = format!(
        "[databases]\n* = host=127.0.0.1 port={upstream_port} user=postgres\n\
         [pgbouncer]\nlisten_addr = 127.0.0.1\nlisten_port = {port}\nunix_socket_dir =\n\
         auth_type = trust\nauth_file = {dir_text}/users.txt\n\
         pool_mode = transaction\nmax_prepared_statements = {max_prepared}\n\
         max_client_conn = 2000\ndefault_pool_size = {pool_size}\nserver_idle_timeout = 5\nserver_login_retry = 1\n\
         logfile = {dir_text}/pgbouncer.log\npidfile = {dir_text}/pgbouncer.pid\n"
    );
    std::fs::write(dir.join("pgbouncer.ini"), config).map_err(|e| format!("cannot write its config: {e}"))
}

/// Refuses a PgBouncer older than 1.21, which cannot keep prepared statements in transaction mode: the tests would
/// fail for the pooler's sake, not ours.
fn check_version() -> Result<(), String> {
    let output = Command::new(binary()).arg("--version").output().map_err(|e| {
        format!(
            "{} did not run ({e}): run scripts/pgbouncer, or set PGBOUNCER",
            binary().display()
        )
    })?;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let version: Vec<u32> = text
        .split_whitespace()
        .nth(1)
        .unwrap_or_default()
        .split('.')
        .filter_map(|part| part.parse().ok())
        .collect();
    match version.as_slice() {
        [major, minor, ..] if (*major, *minor) >= (1, 21) => Ok(()),
        _ => Err(format!(
            "{} is {}; the tests need PgBouncer 1.21 or later: PGBOUNCER=$(scripts/pgbouncer)",
            binary().display(),
            text.lines().next().unwrap_or("of no known version")
        )),
    }
}

fn binary() -> PathBuf {
    std::env::var_os("PGBOUNCER")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new("pgbouncer").to_path_buf())
}
