//! Helpers for the transport tests: real peers (Python SDKs, npm servers), a signing key and
//! a config with a private state dir, grants written on the trusted path.

use crate::{blindfold, workspace_root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The project's Python (`.venv/bin/python`, created by `make deps`).
pub fn python() -> PathBuf {
    let py = workspace_root().join(".venv/bin/python");
    assert!(py.exists(), "{} is missing: run `make deps`", py.display());
    py
}

/// A peer script under `integration-tests/peers/`.
pub fn peer(name: &str) -> PathBuf {
    workspace_root().join("integration-tests/peers").join(name)
}

/// An npm peer's binary under `integration-tests/node_modules/.bin/`.
pub fn node_bin(name: &str) -> PathBuf {
    let bin = workspace_root().join("integration-tests/node_modules/.bin").join(name);
    assert!(bin.exists(), "{} is missing: run `make deps`", bin.display());
    bin
}

/// A test world: temp dir, issuer key pair, state dir and a config file trusting the key.
pub struct World {
    /// Everything lives below this.
    pub dir: tempfile::TempDir,
    /// Issuer private key.
    pub key: PathBuf,
    /// Blindfold's state dir.
    pub state: PathBuf,
    /// The config file.
    pub config: PathBuf,
}

impl World {
    /// Creates the key pair and a config with `extra` TOML appended.
    pub fn new(extra: &str) -> World {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = blindfold()
            .args(["keygen", "--out-dir"])
            .arg(dir.path().join("keys"))
            .args(["--name", "issuer"])
            .output()
            .expect("keygen");
        assert!(out.status.success(), "keygen: {}", String::from_utf8_lossy(&out.stderr));
        let state = dir.path().join("state");
        let config = dir.path().join("blindfold.toml");
        let text = format!(
            "[state]\ndir = {:?}\n\n[grants]\ntrusted_keys = [{:?}]\nleeway_s = 0\nmax_ttl_s = 86400\n\n{extra}\n",
            state,
            dir.path().join("keys/issuer.pub.pem"),
        );
        std::fs::write(&config, text).expect("config");
        World { key: dir.path().join("keys/issuer.key.pem"), state, config, dir }
    }

    /// A path inside the world.
    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Signs a grant (CLI, the trusted path) and returns the token.
    pub fn issue(&self, task: &str, op: &str, target: &str, artifact: &[u8]) -> String {
        let file = self.path(&format!("artifact-{}.bin", rand_suffix()));
        std::fs::write(&file, artifact).expect("artifact");
        let out = blindfold()
            .args(["grant", "issue", "--key"])
            .arg(&self.key)
            .args(["--task", task, "--op", op, "--target", target, "--artifact"])
            .arg(&file)
            .args(["--ttl", "600"])
            .output()
            .expect("grant issue");
        assert!(out.status.success(), "grant issue: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).expect("utf8").trim().to_owned()
    }

    /// Puts a token where `mcp-stdio` reads grants (`<state>/grants/`).
    pub fn drop_grant(&self, token: &str) {
        let dir = self.state.join("grants");
        std::fs::create_dir_all(&dir).expect("grants dir");
        std::fs::write(dir.join(format!("{}.jwt", rand_suffix())), token).expect("grant file");
    }
}

fn rand_suffix() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Runs a command with a deadline; returns (exit code, stdout, stderr). Its output is read while
/// it runs: a command that writes more than a pipe holds (Pi's `--mode json` prints every message
/// history) would otherwise block on the write and never exit.
pub fn run_bounded(cmd: &mut Command, limit: Duration) -> (Option<i32>, String, String) {
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).stdin(Stdio::null());
    let mut child = cmd.spawn().expect("spawn");
    let drain = |pipe: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut out = Vec::new();
            if let Some(mut p) = pipe {
                let _ = p.read_to_end(&mut out);
            }
            String::from_utf8_lossy(&out).into_owned()
        })
    };
    let stdout = drain(child.stdout.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let stderr = drain(child.stderr.take().map(|p| Box::new(p) as Box<dyn std::io::Read + Send>));
    let deadline = Instant::now() + limit;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            let (out, err) = (stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default());
            panic!("command did not finish in {limit:?}: {out}\n{err}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), stdout.join().unwrap_or_default(), stderr.join().unwrap_or_default())
}

/// Runs the Python MCP client peer with `ops` against `target` (`["--url", URL]` or
/// `["--", CMD, ARGS…]`) in `mode`; returns its JSON report.
pub fn mcp_client<S: AsRef<std::ffi::OsStr>>(ops: &Value, mode: &str, target: &[S]) -> Value {
    mcp_client_text(&ops.to_string(), mode, target)
}

/// [`mcp_client`] with the operations as JSON text, kept as written (key order, numbers wider
/// than 64 bits).
pub fn mcp_client_text<S: AsRef<std::ffi::OsStr>>(ops: &str, mode: &str, target: &[S]) -> Value {
    let mut cmd = Command::new(python());
    cmd.arg(peer("mcp_client.py")).args(["--ops", ops, "--mode", mode]).args(target);
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(60));
    assert_eq!(code, Some(0), "mcp client failed:\n{stdout}\n{stderr}");
    serde_json::from_str(stdout.lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{stderr}"))
}

/// A path as an `OsStr` argument.
pub fn arg(p: &Path) -> &std::ffi::OsStr {
    p.as_os_str()
}

/// `blindfold review ARGS… --config <w.config>` against the daemon listening on `port` (the CLI
/// reaches it through its control API with the operator token of the state dir).
pub fn review_cli(w: &World, port: u16, args: &[&str]) -> std::process::Output {
    blindfold()
        .arg("review")
        .args(args)
        .arg("--config")
        .arg(&w.config)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .output()
        .expect("blindfold review")
}

/// Every trace record of trajectory `task` in the trace directory `dir` (unreadable lines
/// skipped), in file order.
pub fn trace_records(dir: &Path, task: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
        out.extend(
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .filter(|r| r["trajectory"] == task),
        );
    }
    out
}

/// Waits until something listens on `port` (bounded).
pub fn wait_port(port: u16, limit: Duration) {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("nothing listens on port {port} after {limit:?}");
}

/// A child process killed on drop.
pub struct Peer(pub std::process::Child);

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts a Python peer script with arguments (stdout discarded, stderr inherited).
pub fn python_peer(script: &str, args: &[&str]) -> Peer {
    let child = Command::new(python())
        .arg(peer(script))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn peer");
    Peer(child)
}

/// A minimal HTTP/1.1 POST on loopback: (status, headers text, body text).
pub fn http_post(port: u16, path: &str, headers: &[(&str, &str)], body: &str) -> (u16, String, String) {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    let mut req = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).expect("send");
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).expect("read (bounded by the timeout)");
    let raw = String::from_utf8_lossy(&raw).into_owned();
    let code = raw.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0);
    let (head, body) =
        raw.split_once("\r\n\r\n").map(|(h, b)| (h.to_owned(), b.to_owned())).unwrap_or_default();
    (code, head, body)
}

/// `blindfold run --config FILE` on a free port (written into the config's `[server]`), killed
/// on drop; waits for `/healthz`.
pub fn run_daemon(w: &World, extra_toml: &str) -> (Peer, u16) {
    let port = crate::free_port();
    let cfg = w.path(&format!("run-{port}.toml"));
    let base = std::fs::read_to_string(&w.config).expect("config");
    std::fs::write(&cfg, format!("[server]\nlisten = \"127.0.0.1:{port}\"\n\n{base}\n{extra_toml}\n"))
        .expect("write");
    let child = blindfold()
        .arg("run")
        .arg("--config")
        .arg(&cfg)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn blindfold run");
    let mut peer = Peer(child);
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if let Some(status) = peer.0.try_wait().expect("wait") {
            panic!("blindfold run exited early: {status}");
        }
        if crate::http_get(port, "/healthz").is_ok_and(|(code, _)| code == 200) {
            return (peer, port);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("blindfold did not answer /healthz in time");
}
