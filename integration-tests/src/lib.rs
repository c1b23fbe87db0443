//! Shared helpers for the integration tests: locating the binary, starting the daemon, tiny
//! HTTP and WebSocket clients.
#![forbid(unsafe_code)]

pub mod conformance;
pub mod control_ws;
pub mod fuzz;
pub mod openclaw;
pub mod opencode;
pub mod opencode_init;
pub mod pi;
pub mod redis;
pub mod session_checks;
pub mod transports;

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The workspace root (parent of this crate).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// The `blindfold` binary under test: `$BLINDFOLD_BIN`, else the workspace's debug build.
pub fn blindfold_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("BLINDFOLD_BIN") {
        return PathBuf::from(p);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"));
    let bin = target.join("debug").join("blindfold");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo build --workspace --bins` first (make test does)",
        bin.display()
    );
    bin
}

/// A `blindfold` command with a clean environment for config variables.
pub fn blindfold() -> Command {
    let mut cmd = Command::new(blindfold_bin());
    for (k, _) in std::env::vars() {
        if k.starts_with("BLINDFOLD_") && k != "BLINDFOLD_BIN" {
            cmd.env_remove(k);
        }
    }
    cmd
}

/// A free loopback port (bound and released; good enough for tests on one machine).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).expect("free port")
}

/// A running daemon, killed on drop.
pub struct Daemon {
    /// The child process.
    pub child: Child,
    /// Its listen port.
    pub port: u16,
    /// Its state directory.
    pub state_dir: PathBuf,
}

impl Daemon {
    /// Starts `blindfold run` with a private state dir and extra `BLINDFOLD_…` variables, and waits
    /// until `/healthz` answers.
    pub fn start(state_dir: &Path, env: &[(&str, String)]) -> Daemon {
        let port = free_port();
        let mut cmd = blindfold();
        cmd.arg("run")
            .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{port}"))
            .env("BLINDFOLD_STATE__DIR", state_dir)
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let child = cmd.spawn().expect("spawn blindfold run");
        let mut daemon = Daemon { child, port, state_dir: state_dir.to_path_buf() };
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Some(status) = daemon.child.try_wait().expect("wait") {
                panic!("blindfold run exited early: {status}");
            }
            if http_get(port, "/healthz").is_ok_and(|(code, _)| code == 200) {
                return daemon;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("blindfold did not answer /healthz in time");
    }

    /// Starts `blindfold run --config FILE` as a user does after `blindfold init` (the file names
    /// the listen `port` and the `state_dir`), and waits until `/healthz` answers.
    pub fn on_config(config: &Path, port: u16, state_dir: &Path) -> Daemon {
        let child = blindfold()
            .arg("run")
            .arg("--config")
            .arg(config)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn blindfold run");
        let mut daemon = Daemon { child, port, state_dir: state_dir.to_path_buf() };
        let deadline = Instant::now() + Duration::from_secs(30);
        while !http_get(port, "/healthz").is_ok_and(|(code, _)| code == 200) {
            if let Some(status) = daemon.child.try_wait().expect("wait") {
                panic!("blindfold run exited early: {status}");
            }
            assert!(Instant::now() < deadline, "blindfold did not answer /healthz in time");
            std::thread::sleep(Duration::from_millis(50));
        }
        daemon
    }

    /// The operator token from the state dir.
    pub fn operator_token(&self) -> String {
        read_token(&self.state_dir.join("operator.token"))
    }

    /// The adapter token from the state dir.
    pub fn adapter_token(&self) -> String {
        read_token(&self.state_dir.join("adapter.token"))
    }

    /// Sends a signal (`TERM`, `INT`, `KILL`) and waits for exit; returns the exit code.
    pub fn stop_with(mut self, signal: &str) -> Option<i32> {
        let _ = Command::new("kill").arg(format!("-{signal}")).arg(self.child.id().to_string()).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        panic!("blindfold did not stop on SIG{signal}");
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn read_token(path: &Path) -> String {
    std::fs::read_to_string(path).expect("token file").trim().to_owned()
}

/// A minimal HTTP/1.1 GET on loopback: (status code, body).
pub fn http_get(port: u16, path: &str) -> std::io::Result<(u16, String)> {
    http_get_with(port, path, "", Duration::from_secs(5))
}

/// [`http_get`] with extra header lines (`Name: value\r\n` each) and a read timeout.
pub fn http_get_with(
    port: u16,
    path: &str,
    headers: &str,
    limit: Duration,
) -> std::io::Result<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(limit))?;
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}Connection: close\r\n\r\n")?;
    let mut raw = String::new();
    s.read_to_string(&mut raw)?;
    let code = raw.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let body = raw.split_once("\r\n\r\n").map(|(_, b)| b.to_owned()).unwrap_or_default();
    Ok((code, body))
}

/// `command` split as a POSIX shell splits it (single quotes only, as the refusal renders).
pub fn shell_words(command: &str) -> Vec<String> {
    let (mut out, mut word, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            '\\' if !quoted => {
                if let Some(n) = chars.next() {
                    word.push(n);
                }
            }
            ' ' if !quoted => {
                if any || !word.is_empty() {
                    out.push(std::mem::take(&mut word));
                }
                any = false;
            }
            _ => word.push(c),
        }
    }
    if any || !word.is_empty() {
        out.push(word);
    }
    out
}
