//! The real OpenCode harness (`opencode-ai` from npm, installed by `make deps`) run offline in a
//! throw-away project against the scripted model server in `peers/opencode/model_server.py`.

use crate::{Daemon, blindfold, free_port, http_get, workspace_root};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The destructive command the proposer proposes, the reviewer refutes and the coordinator runs.
pub const DESTRUCTIVE: &str = "rm -rf data && touch destroyed.marker";
/// The marker file the destructive command creates.
pub const MARKER: &str = "destroyed.marker";
/// The true identity of the project's sub-agents: (OpenCode name, model, family, tier, provider).
pub const AGENTS: [(&str, &str, &str, &str, &str); 2] = [
    ("cleaner", "gpt-5", "gpt", "frontier", "openai"),
    ("auditor", "claude-haiku-4", "claude", "efficient", "anthropic"),
];

/// Every identity word of the sub-agents (models, families, tiers, providers, names).
pub fn identity_words() -> Vec<&'static str> {
    AGENTS.iter().flat_map(|(name, m, f, t, p)| [*name, *m, *f, *t, *p]).collect()
}

/// The `opencode` executable from `integration-tests/node_modules`.
pub fn opencode_bin() -> PathBuf {
    let bin = workspace_root().join("integration-tests/node_modules/.bin/opencode");
    assert!(bin.exists(), "{} is missing: run `make deps` (make test does)", bin.display());
    bin
}

fn python() -> PathBuf {
    let venv = workspace_root().join(".venv/bin/python");
    if venv.exists() { venv } else { PathBuf::from("python3") }
}

/// How the Blindfold plugin reaches the daemon.
#[derive(Debug, Clone)]
pub struct PluginLink {
    /// `ws://127.0.0.1:PORT/v1/control`.
    pub url: String,
    /// The adapter token.
    pub token: String,
}

/// A temporary OpenCode project with its own HOME, a running model server, and optionally the
/// Blindfold plugin installed in `.opencode/plugins/`.
pub struct Project {
    /// Root of everything (project, home, logs).
    pub root: tempfile::TempDir,
    server: Child,
    plugin: Option<PluginLink>,
}

impl Project {
    /// Creates the project for `scenario` (`destructive` or `benign`), with the plugin when `plugin`
    /// is given, and starts the model server.
    pub fn new(scenario: &str, plugin: Option<PluginLink>) -> Project {
        Project::with_model_base(scenario, plugin, |port| format!("http://127.0.0.1:{port}"))
    }

    /// [`Project::new`] whose OpenCode reaches the model at the base URL `base(model_port)` gives
    /// (e.g. Blindfold's model-API proxy in front of the scripted model server).
    pub fn with_model_base(
        scenario: &str,
        plugin: Option<PluginLink>,
        base: impl FnOnce(u16) -> String,
    ) -> Project {
        let root = tempfile::tempdir().expect("tempdir");
        let dir = root.path();
        let project = dir.join("project");
        std::fs::create_dir_all(project.join("data")).expect("mkdir");
        std::fs::write(project.join("data/keep.txt"), "workspace data\n").expect("write");
        // OpenCode finds its project (and the project's opencode.json) through git.
        let git = Command::new("git").args(["init", "-q"]).current_dir(&project).status().expect("git init");
        assert!(git.success(), "git init failed");
        let peers = workspace_root().join("integration-tests/peers/opencode");
        let port_file = dir.join("model.port");
        let server = Command::new(python())
            .arg(peers.join("model_server.py"))
            .arg("--port-file")
            .arg(&port_file)
            .arg("--log")
            .arg(dir.join("requests.jsonl"))
            .arg("--scenario")
            .arg(scenario)
            .arg("--command")
            .arg(DESTRUCTIVE)
            .stdout(Stdio::null())
            .spawn()
            .expect("spawn the scripted model server");
        let deadline = Instant::now() + Duration::from_secs(20);
        let port = loop {
            if let Ok(p) = std::fs::read_to_string(&port_file) {
                break p.trim().to_owned();
            }
            assert!(Instant::now() < deadline, "model server did not start");
            std::thread::sleep(Duration::from_millis(50));
        };
        let base = base(port.parse().expect("model server port"));
        std::fs::write(project.join("opencode.json"), opencode_config(&base).to_string()).expect("config");
        // Offline: a local plugin makes OpenCode npm-install its plugin package first; an empty
        // node_modules with a lock naming it makes it skip that (notes/harnesses.md §5).
        let lock = json!({"packages": {"": {"dependencies": {"@opencode-ai/plugin": "*"}}}}).to_string();
        for d in [project.join(".opencode"), dir.join("home/.config/opencode")] {
            std::fs::create_dir_all(d.join("node_modules")).expect("mkdir");
            std::fs::write(d.join("package-lock.json"), &lock).expect("lock");
        }
        if plugin.is_some() {
            let plugins = project.join(".opencode/plugins");
            std::fs::create_dir_all(&plugins).expect("mkdir");
            std::fs::copy(
                workspace_root().join("adapters/opencode-plugin/blindfold.ts"),
                plugins.join("blindfold.ts"),
            )
            .expect("copy the plugin");
        }
        Project { root, server, plugin }
    }

    /// The project directory.
    pub fn dir(&self) -> PathBuf {
        self.root.path().join("project")
    }

    /// Runs `opencode run <words…>` to completion (killed after `limit`).
    pub fn run(&self, words: &[&str], limit: Duration) -> Output {
        let mut cmd = Command::new(opencode_bin());
        cmd.arg("run").arg("--format").arg("json").arg("--dir").arg(self.dir()).args(words);
        self.offline_env(&mut cmd);
        run_with_limit(cmd, limit)
    }

    /// Starts `opencode serve` on 127.0.0.1:`port` in the project (killed on drop) and waits until
    /// it accepts connections.
    pub fn serve(&self, port: u16) -> Served {
        let mut cmd = Command::new(opencode_bin());
        cmd.arg("serve").arg("--port").arg(port.to_string()).arg("--hostname").arg("127.0.0.1");
        self.offline_env(&mut cmd);
        let log = std::fs::File::create(self.root.path().join("serve.log")).expect("serve log");
        let child = cmd
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("spawn opencode serve");
        let mut served = Served { child };
        let deadline = Instant::now() + Duration::from_secs(120);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            if let Some(status) = served.child.try_wait().expect("wait") {
                panic!("opencode serve exited early: {status}");
            }
            assert!(Instant::now() < deadline, "opencode serve did not listen in time");
            std::thread::sleep(Duration::from_millis(100));
        }
        served
    }

    /// The offline environment of every OpenCode process of this project (own HOME, no fetches).
    fn offline_env(&self, cmd: &mut Command) {
        let home = self.root.path().join("home");
        cmd.current_dir(self.dir());
        // OpenCode takes its working directory from $PWD, not from the process's cwd.
        cmd.env("PWD", self.dir())
            .env("HOME", &home)
            .env("XDG_CONFIG_HOME", home.join(".config"))
            .env("XDG_DATA_HOME", home.join(".local/share"))
            .env("XDG_STATE_HOME", home.join(".local/state"))
            .env("XDG_CACHE_HOME", home.join(".cache"))
            .env("npm_config_offline", "true");
        for flag in [
            "MODELS_FETCH",
            "AUTOUPDATE",
            "SHARE",
            "LSP_DOWNLOAD",
            "DEFAULT_PLUGINS",
            "CLAUDE_CODE",
            "EXTERNAL_SKILLS",
        ] {
            cmd.env(format!("OPENCODE_DISABLE_{flag}"), "1");
        }
        if let Some(link) = &self.plugin {
            cmd.env("BLINDFOLD_CONTROL_URL", &link.url).env("BLINDFOLD_ADAPTER_TOKEN", &link.token);
        }
    }

    /// Every request the scripted model received, in order.
    pub fn requests(&self) -> Vec<Value> {
        let log = std::fs::read_to_string(self.root.path().join("requests.jsonl")).unwrap_or_default();
        log.lines().map(|l| serde_json::from_str(l).expect("logged request")).collect()
    }

    /// The coordinator's requests (every request not made by a sub-agent's model).
    pub fn coordinator_requests(&self) -> Vec<Value> {
        let sub: Vec<&str> = AGENTS.iter().map(|a| a.1).collect();
        self.requests().into_iter().filter(|r| !sub.contains(&r["model"].as_str().unwrap_or(""))).collect()
    }

    /// True when `rel` exists in the project.
    pub fn exists(&self, rel: &str) -> bool {
        self.dir().join(rel).exists()
    }
}

/// A running `opencode serve`, killed on drop.
pub struct Served {
    child: Child,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        if std::env::var_os("BLINDFOLD_KEEP_E2E").is_some() {
            eprintln!("kept {}", self.root.path().display());
            let _ = std::mem::replace(&mut self.root, tempfile::tempdir().expect("tempdir")).keep();
        }
    }
}

fn opencode_config(base: &str) -> Value {
    let mut models = serde_json::Map::new();
    models.insert("scripted-1".into(), json!({"tool_call": true}));
    let mut agents = serde_json::Map::new();
    let descriptions = [
        "Frontier-tier gpt-5 agent from OpenAI that can propose shell cleanups",
        "Efficient claude-haiku-4 agent from Anthropic that can review commands",
    ];
    for ((name, model, ..), description) in AGENTS.iter().zip(descriptions) {
        models.insert((*model).into(), json!({"tool_call": true}));
        agents.insert(
            (*name).into(),
            json!({"mode": "subagent", "description": description, "model": format!("local/{model}")}),
        );
    }
    json!({
        "$schema": "https://opencode.ai/config.json",
        "model": "local/scripted-1",
        "small_model": "local/scripted-1",
        "provider": {"local": {"npm": "@ai-sdk/openai-compatible",
            "options": {"baseURL": format!("{base}/v1"), "apiKey": "dummy"},
            "models": models}},
        "agent": agents,
        "permission": {"bash": "allow", "edit": "allow", "webfetch": "allow", "task": "allow"}
    })
}

/// Runs `cmd` with piped output, killing it after `limit`.
pub fn run_with_limit(mut cmd: Command, limit: Duration) -> Output {
    cmd.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn");
    let deadline = Instant::now() + limit;
    loop {
        if child.try_wait().expect("wait").is_some() {
            return child.wait_with_output().expect("output");
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let out = child.wait_with_output().expect("output");
            panic!(
                "timed out after {limit:?}\nstdout: {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Case-insensitive whole-word occurrences of `words` in `text`; `-` separates words, so
/// "Frontier-tier" counts as "frontier".
pub fn count_words(text: &str, words: &[&str]) -> Vec<(String, usize)> {
    let lower = text.to_lowercase();
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    words
        .iter()
        .map(|w| {
            let w = w.to_lowercase();
            let n = lower
                .match_indices(&w)
                .filter(|(i, _)| {
                    let before = lower[..*i].chars().next_back().is_none_or(|c| !is_word(c));
                    let after = lower[i + w.len()..].chars().next().is_none_or(|c| !is_word(c));
                    before && after
                })
                .count();
            (w, n)
        })
        .filter(|(_, n)| *n > 0)
        .collect()
}

/// Writes the daemon config for the project's sub-agents (true identities) and `task`.
pub fn blindfold_config(path: &Path, task: &str, trusted_key: Option<&Path>) {
    let mut toml = format!("[opencode]\ntask = \"{task}\"\n");
    for (name, model, family, tier, provider) in AGENTS {
        toml.push_str(&format!(
            "[[identity.agents]]\nid = \"{name}\"\nmodel = \"{model}\"\nfamily = \"{family}\"\ntier = \"{tier}\"\nprovider = \"{provider}\"\n"
        ));
    }
    if let Some(key) = trusted_key {
        toml.push_str(&format!(
            "[grants]\ntrusted_keys = [\"{}\"]\nleeway_s = 0\nmax_ttl_s = 86400\n",
            key.display()
        ));
    }
    std::fs::write(path, toml).expect("write blindfold config");
}

/// Starts `blindfold run --config FILE` with a private state dir; waits for `/healthz`.
pub fn start_daemon(state_dir: &Path, config: &Path) -> Daemon {
    let port = free_port();
    let child = blindfold()
        .arg("run")
        .arg("--config")
        .arg(config)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .env("BLINDFOLD_STATE__DIR", state_dir)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("spawn blindfold run");
    let mut daemon = Daemon { child, port, state_dir: state_dir.to_path_buf() };
    let deadline = Instant::now() + Duration::from_secs(30);
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

/// The plugin link for `daemon` (adapter token).
pub fn link(daemon: &Daemon) -> PluginLink {
    PluginLink { url: format!("ws://127.0.0.1:{}/v1/control", daemon.port), token: daemon.adapter_token() }
}

/// One control API call with `token` (a fresh connection; blocking).
pub fn control_call(port: u16, token: &str, method: &str, params: Value) -> Value {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    rt.block_on(async {
        let mut req = format!("ws://127.0.0.1:{port}/v1/control").into_client_request().expect("request");
        req.headers_mut().insert("authorization", format!("Bearer {token}").parse().expect("header"));
        let (mut ws, _) = tokio_tungstenite::connect_async(req).await.expect("connect");
        let frame = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        ws.send(Message::Text(frame.to_string().into())).await.expect("send");
        while let Some(msg) = ws.next().await {
            if let Message::Text(t) = msg.expect("frame") {
                return serde_json::from_str(&t).expect("json");
            }
        }
        panic!("no answer to {method}");
    })
}
