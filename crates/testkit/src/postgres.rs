//! A throwaway PostgreSQL cluster for the test run, or the server `TEST_DATABASE_URL` names; and clusters of a
//! test's own, which it may stop and start (to take the database away under load) without disturbing the others.
//!
//! A cluster is made with `initdb` in a temporary directory and its `postmaster` runs under a small shell that
//! waits on a pipe from this process: when the test process exits, however it exits, the pipe closes, and the shell
//! stops the server and deletes the directory. Running as root (as CI does), the binaries run as the `postgres`
//! user, since PostgreSQL refuses to run as root.

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::pgbouncer::{self, PgBouncer, PreparedStatements};

const INSTALL_HINT: &str = "PostgreSQL server binaries (initdb, postgres) were not found on PATH or under \
    /usr/lib/postgresql/*/bin. Install them (Debian: `apt-get install -y postgresql-15`, or `postgresql`), \
    or set TEST_DATABASE_URL to a PostgreSQL server where the test user may CREATE DATABASE.";

struct Cluster {
    port: u16,
    /// Holding the child holds its stdin open; dropping it at exit is what stops the cluster.
    _sidecar: Mutex<Child>,
}

static CLUSTER: OnceLock<Result<Cluster, String>> = OnceLock::new();
static POOLER: OnceLock<Result<PgBouncer, String>> = OnceLock::new();

/// A URL of a database where the tests may create databases: on the test run's cluster, through PgBouncer in
/// transaction mode when `TEST_THROUGH_PGBOUNCER` is set (see [`crate::pgbouncer`]).
pub fn admin_url() -> String {
    if let Ok(url) = std::env::var("TEST_DATABASE_URL") {
        return url;
    }
    if !pgbouncer::requested() {
        return cluster_admin_url();
    }
    match POOLER.get_or_init(|| PgBouncer::start(cluster_port(), PreparedStatements::Tracked)) {
        Ok(pooler) => pooler.url("postgres"),
        Err(error) => panic!("cannot start PgBouncer for the tests: {error}"),
    }
}

/// The port of the test run's own cluster, started if need be, for a test that puts a pooler of its own in front.
pub fn cluster_port() -> u16 {
    match CLUSTER.get_or_init(start) {
        Ok(cluster) => cluster.port,
        Err(error) => panic!("cannot start PostgreSQL for the tests: {error}"),
    }
}

/// A URL of a database where the tests may create databases, never through a pooler: `TEST_DATABASE_URL` when set,
/// else the test run's own cluster. A database made to be copied (a template) is filled through it, since a pooler
/// would keep its connections to it open, and PostgreSQL copies no database that anyone is connected to.
pub fn direct_admin_url() -> String {
    std::env::var("TEST_DATABASE_URL").unwrap_or_else(|_| cluster_admin_url())
}

/// A URL of a database on the test run's own cluster, straight rather than through any pooler.
pub fn cluster_admin_url() -> String {
    admin_url_of(cluster_port())
}

fn bin_dir() -> Result<PathBuf, String> {
    let has_server = |dir: &Path| dir.join("initdb").is_file() && dir.join("postgres").is_file();
    if let Some(path) = std::env::var_os("PATH") {
        if let Some(dir) = std::env::split_paths(&path).find(|dir| has_server(dir)) {
            return Ok(dir);
        }
    }
    let mut candidates: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|entry| entry.path().join("bin"))
                .collect()
        })
        .unwrap_or_default();
    candidates.sort_by_key(|dir| {
        dir.parent()
            .and_then(|version| version.file_name())
            .and_then(|name| name.to_str())
            .and_then(|name| name.parse::<u32>().ok())
            .unwrap_or(0)
    });
    candidates
        .into_iter()
        .rev()
        .find(|dir| has_server(dir))
        .ok_or_else(|| INSTALL_HINT.to_owned())
}

pub(crate) fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).trim() == "0")
}

/// A command that runs as the `postgres` user when we are root.
pub(crate) fn command(as_postgres: bool, program: &str) -> Command {
    if as_postgres {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--", program]);
        command
    } else {
        Command::new(program)
    }
}

pub(crate) fn free_port() -> Result<u16, String> {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .map_err(|e| format!("no free port: {e}"))
}

fn start() -> Result<Cluster, String> {
    let bin = server_bin()?;
    let as_postgres = running_as_root();
    let dir = new_data_dir(&bin, as_postgres)?;
    let (port, sidecar) = launch_ready(&bin, as_postgres, &dir, FAST_AND_LOOSE)?;
    Ok(Cluster {
        port,
        _sidecar: Mutex::new(sidecar),
    })
}

/// A cluster of one test's own, on its own port and data directory, that the test may stop and start again.
pub struct OwnCluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_postgres: bool,
    running: Option<Child>,
}

impl OwnCluster {
    /// A new cluster, running.
    pub fn start() -> Result<Self, String> {
        let bin = server_bin()?;
        let as_postgres = running_as_root();
        let dir = new_data_dir(&bin, as_postgres)?;
        let (port, sidecar) = launch_ready(&bin, as_postgres, &dir, FAST_AND_LOOSE)?;
        Ok(Self {
            bin,
            dir,
            port,
            as_postgres,
            running: Some(sidecar),
        })
    }

    /// A URL of a database where the test may create databases.
    pub fn admin_url(&self) -> String {
        admin_url_of(self.port)
    }

    /// Stops the server as an operator's fast shutdown does (sessions are cut, transactions rolled back) and
    /// returns once it is down; the data stays.
    pub fn stop(&mut self) {
        if let Some(sidecar) = self.running.take() {
            // The marker tells the shell to keep the data directory for a later start.
            let _ = std::fs::write(self.keep_marker(), b"");
            finish(sidecar);
        }
    }

    /// Starts the stopped server again, on the same port and data, and returns once it accepts queries.
    pub fn resume(&mut self) -> Result<(), String> {
        if self.running.is_none() {
            let _ = std::fs::remove_file(self.keep_marker());
            self.running = Some(launch(
                &self.bin,
                self.as_postgres,
                &self.dir,
                self.port,
                FAST_AND_LOOSE,
            )?);
            wait_until_ready(&self.bin, &self.dir, self.port)?;
        }
        Ok(())
    }

    fn keep_marker(&self) -> PathBuf {
        self.dir.join("keep")
    }
}

impl Drop for OwnCluster {
    fn drop(&mut self) {
        match self.running.take() {
            Some(sidecar) => finish(sidecar),
            None => {
                let _ = std::fs::remove_dir_all(&self.dir);
            }
        }
    }
}

/// Closes the shell's pipe, which stops its server, and waits for both to end.
pub(crate) fn finish(mut sidecar: Child) {
    drop(sidecar.stdin.take());
    let _ = sidecar.wait();
}

pub(crate) fn admin_url_of(port: u16) -> String {
    format!("postgres://postgres@127.0.0.1:{port}/postgres")
}

/// The directory of the server binaries. PATH may hold links to a few of them only; their real directory has them
/// all (pg_isready too).
pub(crate) fn server_bin() -> Result<PathBuf, String> {
    let bin = bin_dir()?;
    Ok(std::fs::canonicalize(bin.join("postgres"))
        .ok()
        .and_then(|p| p.parent().map(Path::to_path_buf))
        .unwrap_or(bin))
}

/// A fresh data directory, made by `initdb`.
pub(crate) fn new_data_dir(bin: &Path, as_postgres: bool) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("tranquera-pg-{}-{}", std::process::id(), free_port()?));
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    if as_postgres {
        let status = Command::new("chown").arg("postgres:postgres").arg(&dir).status();
        if !status.is_ok_and(|s| s.success()) {
            return Err(format!("cannot hand {} to the postgres user", dir.display()));
        }
    }
    run(
        command(as_postgres, &bin.join("initdb").to_string_lossy())
            .arg("-D")
            .arg(&dir)
            .args([
                "-U",
                "postgres",
                "-A",
                "trust",
                "-E",
                "UTF8",
                "--no-sync",
                "--no-instructions",
            ]),
        "initdb",
    )?;
    Ok(dir)
}

/// Runs `command` to its end; fails with what it said when it did not succeed.
pub(crate) fn run(command: &mut Command, what: &str) -> Result<(), String> {
    let output = command.output().map_err(|e| format!("{what} did not run: {e}"))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed: {}", String::from_utf8_lossy(&output.stderr)))
    }
}

/// A server on `dir` with `settings`, on a free port, once it accepts queries: its port, and the shell that stops it.
pub(crate) fn launch_ready(bin: &Path, as_postgres: bool, dir: &Path, settings: &str) -> Result<(u16, Child), String> {
    let port = free_port()?;
    let sidecar = launch(bin, as_postgres, dir, port, settings)?;
    wait_until_ready(bin, dir, port)?;
    Ok((port, sidecar))
}

/// A test cluster's durability: none that a test run needs, since the machine does not crash under it.
pub(crate) const FAST_AND_LOOSE: &str = "-c fsync=off -c synchronous_commit=off -c full_page_writes=off";

/// Starts the server on `dir` with `settings` under a shell that stops it when its standard input closes, and then
/// deletes `dir` unless a `keep` file is in it.
/// Every cluster logs its statements when the run asks for it ([`crate::statement_log`]).
pub(crate) fn launch(bin: &Path, as_postgres: bool, dir: &Path, port: u16, settings: &str) -> Result<Child, String> {
    let dir_text = dir.to_string_lossy();
    let logged = crate::statement_log::settings(as_postgres, port)?;
    let script = format!(
        "'{postgres}' -D '{dir_text}' -p {port} -k '{dir_text}' -c listen_addresses=127.0.0.1 {settings} {logged} \
         -c max_connections=300 -c max_wal_size=128MB >>'{dir_text}/server.log' 2>&1 & \
         pid=$!; cat >/dev/null; kill -INT $pid; wait $pid; [ -e '{dir_text}/keep' ] || rm -rf '{dir_text}'",
        postgres = bin.join("postgres").to_string_lossy()
    );
    command(as_postgres, "sh")
        .args(["-c", &script])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start postgres: {e}"))
}

pub(crate) fn wait_until_ready(bin: &Path, dir: &Path, port: u16) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(60);
    // Accepting TCP is not accepting queries: during start-up the server answers "the database system is starting
    // up". pg_isready asks the real question.
    let ready = || {
        let probe = bin.join("pg_isready");
        if probe.is_file() {
            Command::new(&probe)
                .args(["-q", "-h", "127.0.0.1", "-p", &port.to_string(), "-U", "postgres"])
                .status()
                .is_ok_and(|status| status.success())
        } else {
            TcpStream::connect(("127.0.0.1", port)).is_ok()
        }
    };
    while !ready() {
        if Instant::now() > deadline {
            let mut log = String::new();
            let _ = std::fs::File::open(dir.join("server.log")).and_then(|mut f| f.read_to_string(&mut log));
            return Err(format!("postgres did not start on port {port}: {log}"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(())
}

/// A test's own connection to `url`, made as the server makes them: without sqlx's `extra_float_digits` startup
/// parameter, which PgBouncer refuses. Its `application_name` tells the statement check that what it runs is a test's
/// probe, not the service's ([`crate::statement_log::TEST_CONNECTION`]).
pub async fn connect(url: &str) -> Result<sqlx::PgConnection, sqlx::Error> {
    use sqlx::ConnectOptions as _;
    let options: sqlx::postgres::PgConnectOptions = url.parse()?;
    options
        .extra_float_digits(None)
        .application_name(crate::statement_log::TEST_CONNECTION)
        .connect()
        .await
}

/// A new, empty database on the test run's cluster (see [`admin_url`]), named after `tag`; its URL.
pub async fn new_database(tag: &str) -> String {
    let admin_url = tokio::task::spawn_blocking(admin_url)
        .await
        .expect("the cluster starts");
    create_database(&admin_url, tag).await
}

/// A new, empty database on the PostgreSQL server of `admin_url`, named after `tag`; its URL.
pub async fn create_database(admin_url: &str, tag: &str) -> String {
    create_database_from(admin_url, tag, None).await
}

/// A new database on the PostgreSQL server of `admin_url`, named after `tag`: a copy of the database `template` when
/// given (which no one may be connected to), else empty; its URL.
pub async fn create_database_from(admin_url: &str, tag: &str, template: Option<&str>) -> String {
    let mut attempts = 0;
    let mut admin = loop {
        match connect(admin_url).await {
            Ok(connection) => break connection,
            // A cluster that has just opened its port may still answer "starting up" (57P03).
            Err(error) if attempts < 100 => {
                attempts += 1;
                let starting = error
                    .as_database_error()
                    .and_then(|e| e.code())
                    .is_some_and(|code| code == "57P03");
                assert!(starting, "connect to the PostgreSQL server: {error}");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(error) => panic!("PostgreSQL never finished starting: {error}"),
        }
    };
    let name = crate::scratch::unique(tag).to_ascii_lowercase();
    let base = admin_url.rsplit_once('/').map_or(admin_url, |(base, _)| base);
    if crate::citus::requested() {
        crate::citus::create(admin_url, &name, template).await;
        return format!("{base}/{name}");
    }
    let copied = template.map_or_else(String::new, |template| format!(" TEMPLATE {template}"));
    sqlx::query(&format!("CREATE DATABASE {name}{copied}"))
        .execute(&mut admin)
        .await
        .expect("create a test database");
    format!("{base}/{name}")
}

/// Drops the database at `url`, made by [`create_database`] on the server of `admin_url`, closing what is still
/// connected to it. A run makes hundreds of databases, which kept would fill a small disk. Best effort: a cluster a
/// test has stopped keeps its database, and the cluster goes at exit anyway.
///
/// It blocks, on a thread of its own, so that a test's `Drop` can call it from inside its runtime.
pub fn drop_database(admin_url: &str, url: &str) {
    let Some((_, name)) = url.rsplit_once('/') else {
        return;
    };
    let statement = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
    let admin_url = admin_url.to_owned();
    let name = name.to_owned();
    let dropping = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .ok()?;
        runtime.block_on(async {
            let connecting = tokio::time::timeout(Duration::from_secs(5), connect(&admin_url));
            let mut admin = connecting.await.ok()?.ok()?;
            crate::citus::drop_everywhere(&admin_url, &name).await;
            sqlx::query(&statement).execute(&mut admin).await.ok()
        })
    });
    let _ = dropping.join();
}
