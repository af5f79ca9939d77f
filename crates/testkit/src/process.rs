//! The real `tranquera` binary as a child process on a free port: started, waited for, stopped with SIGTERM or
//! killed with SIGKILL, as an operator's supervisor would.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// A running server process.
pub struct ServerProcess {
    child: Child,
    /// `http://127.0.0.1:<port>`.
    pub base: String,
    /// The port it listens on.
    pub port: u16,
    log: PathBuf,
}

impl ServerProcess {
    /// Runs `binary` with `args` plus `--listen 127.0.0.1:<free port>`, its output appended to `log`, and returns once
    /// `GET /health` answers 200.
    pub fn start(binary: &Path, args: &[&str], log: &Path) -> Self {
        let port = free_port();
        let output = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
            .expect("open the server's log");
        let child = Command::new(binary)
            .args(args)
            .args(["--listen", &format!("127.0.0.1:{port}")])
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(output.try_clone().expect("the log, twice"))
            .stderr(output)
            .spawn()
            .expect("start the server binary");
        let mut server = Self {
            child,
            base: format!("http://127.0.0.1:{port}"),
            port,
            log: log.to_path_buf(),
        };
        server.wait_until_healthy();
        server
    }

    fn wait_until_healthy(&mut self) {
        // A demo seeds before it listens: on a Citus cluster of the tester's own that takes minutes.
        let patience = if crate::citus::requested() { 600 } else { 60 };
        let deadline = Instant::now() + Duration::from_secs(patience);
        loop {
            if health(self.port).is_some_and(|answer| answer.starts_with("HTTP/1.1 200")) {
                return;
            }
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "the server exited with {status} before it was ready:\n{}",
                    self.log_text()
                );
            }
            assert!(
                Instant::now() < deadline,
                "the server never became ready:\n{}",
                self.log_text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Everything the server logged so far.
    pub fn log_text(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Asks the server to stop, as a supervisor does: SIGTERM.
    pub fn terminate(&self) {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success(), "kill -TERM failed");
    }

    /// Kills the server at once, as a crash or the OOM killer does: SIGKILL.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The server's exit status, once it has exited within `within`.
    pub fn exit_within(&mut self, within: Duration) -> Option<ExitStatus> {
        let deadline = Instant::now() + within;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            if Instant::now() > deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

/// The raw answer to `GET /health` on `port`, if anything listens there.
fn health(port: u16) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream
        .write_all(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    Some(answer)
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|address| address.port())
        .expect("a free port")
}
