//! A PostgreSQL primary with a streaming-replication standby that it waits for on every commit
//! (`synchronous_standby_names`), for a test that kills the primary and promotes the standby.
//!
//! Both clusters are the test's own, made and removed like [`crate::postgres::OwnCluster`]; unlike the run's shared
//! cluster, they keep PostgreSQL's durable defaults, since the test is about which commits survive.

use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use crate::postgres::{
    admin_url_of, command, finish, free_port, launch_ready, new_data_dir, run, running_as_root, server_bin,
};

/// Every commit on the primary waits until the standby has it (`*`: whichever standby is connected).
const SYNCHRONOUS: &str = "-c synchronous_standby_names=* -c synchronous_commit=on";

/// The standby, once promoted, has no standby of its own to wait for.
const ALONE: &str = "-c synchronous_commit=on";

/// A primary and its synchronous standby, both running until [`Self::kill_primary`] and [`Self::promote_standby`].
pub struct ReplicatedPair {
    bin: PathBuf,
    as_postgres: bool,
    primary: Node,
    standby: Node,
}

struct Node {
    dir: PathBuf,
    port: u16,
    sidecar: Option<Child>,
}

impl ReplicatedPair {
    /// A new primary, and a standby copied from it with `pg_basebackup`, streaming and synchronous.
    pub fn start() -> Result<Self, String> {
        let bin = server_bin()?;
        let as_postgres = running_as_root();
        let primary_dir = new_data_dir(&bin, as_postgres)?;
        let (primary_port, primary_sidecar) = launch_ready(&bin, as_postgres, &primary_dir, SYNCHRONOUS)?;
        let primary = Node {
            dir: primary_dir,
            port: primary_port,
            sidecar: Some(primary_sidecar),
        };

        let standby_dir = empty_dir(as_postgres)?;
        run(
            command(as_postgres, &bin.join("pg_basebackup").to_string_lossy())
                .args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &primary.port.to_string(),
                    "-U",
                    "postgres",
                    "-D",
                ])
                .arg(&standby_dir)
                .args(["-R", "-X", "stream", "-c", "fast"]),
            "pg_basebackup",
        )?;
        let (standby_port, standby_sidecar) = launch_ready(&bin, as_postgres, &standby_dir, ALONE)?;
        let standby = Node {
            dir: standby_dir,
            port: standby_port,
            sidecar: Some(standby_sidecar),
        };
        let pair = Self {
            bin,
            as_postgres,
            primary,
            standby,
        };
        pair.wait_until_synchronous()?;
        Ok(pair)
    }

    /// The primary's port on 127.0.0.1.
    pub fn primary_port(&self) -> u16 {
        self.primary.port
    }

    /// The standby's port on 127.0.0.1.
    pub fn standby_port(&self) -> u16 {
        self.standby.port
    }

    /// A URL of a database on the primary where the test may create databases.
    pub fn primary_admin_url(&self) -> String {
        admin_url_of(self.primary.port)
    }

    /// Kills the primary's postmaster and every process of it with SIGKILL, as a crashed host would stop them.
    /// The postmaster is stopped (SIGSTOP) before its children are listed: a backend it forked between the listing
    /// and the kill would live on without it, serve PgBouncer's connection, and hang on a lock a killed process held,
    /// which no crashed host does.
    pub fn kill_primary(&mut self) -> Result<(), String> {
        let pid_file = self.primary.dir.join("postmaster.pid");
        let text = std::fs::read_to_string(&pid_file).map_err(|e| format!("{}: {e}", pid_file.display()))?;
        let postmaster = text.lines().next().unwrap_or_default().trim().to_owned();
        signal("-STOP", std::slice::from_ref(&postmaster))?;
        let children = Command::new("pgrep")
            .args(["-P", &postmaster])
            .output()
            .map_err(|e| format!("pgrep did not run: {e}"))?;
        let mut pids = vec![postmaster];
        pids.extend(
            String::from_utf8_lossy(&children.stdout)
                .split_whitespace()
                .map(str::to_owned),
        );
        signal("-KILL", &pids)
    }

    /// Promotes the standby to a primary and returns once it accepts writes.
    pub fn promote_standby(&self) -> Result<(), String> {
        run(
            command(self.as_postgres, &self.bin.join("pg_ctl").to_string_lossy())
                .args(["promote", "-w", "-t", "60", "-D"])
                .arg(&self.standby.dir),
            "pg_ctl promote",
        )
    }

    fn wait_until_synchronous(&self) -> Result<(), String> {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let state = Command::new(self.bin.join("psql"))
                .args([
                    "-h",
                    "127.0.0.1",
                    "-p",
                    &self.primary.port.to_string(),
                    "-U",
                    "postgres",
                    "-Atc",
                ])
                .arg("SELECT sync_state FROM pg_stat_replication")
                .output()
                .map_err(|e| format!("psql did not run: {e}"))?;
            if String::from_utf8_lossy(&state.stdout).trim() == "sync" {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err("the standby never became synchronous".into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for ReplicatedPair {
    fn drop(&mut self) {
        for node in [&mut self.standby, &mut self.primary] {
            if let Some(sidecar) = node.sidecar.take() {
                finish(sidecar);
            }
        }
    }
}

/// Sends `signal` (`-STOP`, `-KILL`) to `pids` with `kill`.
fn signal(signal: &str, pids: &[String]) -> Result<(), String> {
    let status = Command::new("kill").arg(signal).args(pids).status();
    if status.is_ok_and(|s| s.success()) {
        Ok(())
    } else {
        Err(format!("kill {signal} {pids:?} failed"))
    }
}

/// An empty directory the `postgres` user owns, for `pg_basebackup` to fill.
fn empty_dir(as_postgres: bool) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("tranquera-pg-standby-{}-{}", std::process::id(), free_port()?));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    restrict(&dir)?;
    if as_postgres {
        let status = Command::new("chown").arg("postgres:postgres").arg(&dir).status();
        if !status.is_ok_and(|s| s.success()) {
            return Err(format!("cannot hand {} to the postgres user", dir.display()));
        }
    }
    Ok(dir)
}

/// PostgreSQL refuses a data directory that others may read.
fn restrict(dir: &Path) -> Result<(), String> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| format!("cannot restrict {}: {e}", dir.display()))
}
