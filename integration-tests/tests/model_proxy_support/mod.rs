//! Shared by the model-proxy tests: the scripted model API, the proxy process, the SDK client.
#![allow(dead_code)]

use blindfold_integration_tests::{blindfold, free_port, http_get, workspace_root};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The project's Python (with the pinned SDKs).
pub fn python() -> PathBuf {
    workspace_root().join(".venv/bin/python")
}

/// A peer script of this suite.
pub fn peer(name: &str) -> PathBuf {
    workspace_root().join("integration-tests/peers/model_proxy").join(name)
}

/// A child process killed on drop.
pub struct Proc(pub Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// The scripted model API on loopback, logging every request to `dir/upstream.log`.
pub struct ScriptedModel {
    pub port: u16,
    pub log: PathBuf,
    _proc: Proc,
}

impl ScriptedModel {
    pub fn start(dir: &Path) -> ScriptedModel {
        let log = dir.join("upstream.log");
        let port_file = dir.join("upstream.port");
        let child = Command::new(python())
            .arg(peer("upstream.py"))
            .arg("--log")
            .arg(&log)
            .arg("--port-file")
            .arg(&port_file)
            .stdin(Stdio::null())
            .spawn()
            .expect("spawn scripted model");
        let proc = Proc(child);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(port) = std::fs::read_to_string(&port_file).ok().and_then(|p| p.trim().parse().ok()) {
                return ScriptedModel { port, log, _proc: proc };
            }
            assert!(Instant::now() < deadline, "scripted model did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Every logged request (and cancellation note), in order.
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).expect("log line"))
            .collect()
    }
}

/// `blindfold model-proxy` in front of the scripted model.
pub struct ModelProxy {
    pub port: u16,
    pub state_dir: PathBuf,
    _proc: Proc,
}

impl ModelProxy {
    /// Starts the proxy with `args` after `--upstream`/`--listen` and `env`, waits for /healthz.
    pub fn start(dir: &Path, upstream_port: u16, args: &[&str], env: &[(&str, &str)]) -> ModelProxy {
        let port = free_port();
        let state_dir = dir.join("state");
        let mut cmd = blindfold();
        cmd.arg("model-proxy")
            .arg("--upstream")
            .arg(format!("http://127.0.0.1:{upstream_port}"))
            .arg("--listen")
            .arg(format!("127.0.0.1:{port}"))
            .args(args)
            .env("BLINDFOLD_STATE__DIR", &state_dir)
            .env("BLINDFOLD_LOG", "warn")
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut proc = Proc(cmd.spawn().expect("spawn blindfold model-proxy"));
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = proc.0.try_wait().expect("wait") {
                panic!("blindfold model-proxy exited early: {status}");
            }
            if http_get(port, "/healthz").is_ok_and(|(code, _)| code == 200) {
                return ModelProxy { port, state_dir, _proc: proc };
            }
            assert!(Instant::now() < deadline, "model-proxy did not answer /healthz");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    pub fn base(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

/// Runs the SDK client over `cases` and returns one result per case.
pub fn run_client(dir: &Path, base: &str, cases: &Value) -> Vec<Value> {
    let file = dir.join("cases.json");
    std::fs::write(&file, cases.to_string()).expect("write cases");
    let out = Command::new(python())
        .arg(peer("client.py"))
        .arg("--base")
        .arg(base)
        .arg("--cases")
        .arg(&file)
        .stderr(Stdio::inherit())
        .output()
        .expect("run client");
    assert!(out.status.success(), "client failed: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8(out.stdout)
        .expect("utf8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("result"))
        .collect()
}

/// Posts `body` to `path` of the proxy at `port` (one connection, closed after the answer, with
/// the headers both the OpenAI and the Anthropic API accept) and returns the whole raw answer.
pub fn post_json(port: u16, path: &str, body: &Value) -> String {
    use std::io::{Read, Write};
    let body = body.to_string();
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nx-api-key: k\r\nanthropic-version: 2023-06-01\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    let mut out = String::new();
    s.read_to_string(&mut out).expect("read");
    out
}
