//! The real OpenCode harness (`opencode-ai` from npm, installed by `make deps`) run offline in a
//! throw-away project against the scripted model server in `peers/opencode/model_server.py`,
//! the daemon next to it, and signed grants for it.

use crate::{Daemon, blindfold, free_port, http_get, workspace_root};
use base64::Engine as _;
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
    ("cleaner", "gpt-5-mini", "gpt", "frontier", "openai"),
    ("auditor", "claude-opus-4", "claude", "frontier", "anthropic"),
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
    /// `OPENCODE_SERVER_PASSWORD` of `opencode serve` (basic auth), if any.
    password: Option<String>,
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
        Project::build(root, scenario, plugin, base, &[])
    }

    /// A project in `root` (made beforehand, so the daemon's `[workspace] root` can name
    /// `root/project`) for `scenario`, the model server started with `server_args` as well.
    pub fn in_root(
        root: tempfile::TempDir,
        scenario: &str,
        plugin: Option<PluginLink>,
        server_args: &[&str],
    ) -> Project {
        Project::build(root, scenario, plugin, |port| format!("http://127.0.0.1:{port}"), server_args)
    }

    fn build(
        root: tempfile::TempDir,
        scenario: &str,
        plugin: Option<PluginLink>,
        base: impl FnOnce(u16) -> String,
        server_args: &[&str],
    ) -> Project {
        let dir = root.path();
        let project = dir.join("project");
        std::fs::create_dir_all(project.join("data")).expect("mkdir");
        std::fs::create_dir_all(dir.join("tmp")).expect("mkdir");
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
            .args(if server_args.contains(&"--command") { &[][..] } else { &["--command", DESTRUCTIVE][..] })
            .args(server_args)
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
            // As `blindfold init opencode` lays them out.
            for (from, to) in [
                ("opencode-plugin/blindfold.ts", "plugins/blindfold.ts"),
                ("blindfold-common/control.ts", "blindfold-common/control.ts"),
            ] {
                let to = project.join(".opencode").join(to);
                std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
                std::fs::copy(workspace_root().join("adapters").join(from), to).expect("copy the plugin");
            }
        }
        Project { root, server, plugin, password: None }
    }

    /// Gives every OpenCode process of this project the server password (`opencode serve` then
    /// asks for HTTP basic auth on every route).
    pub fn with_password(mut self, password: &str) -> Project {
        self.password = Some(password.to_owned());
        self
    }

    /// The server password given with [`Project::with_password`].
    pub fn password(&self) -> Option<&str> {
        self.password.as_deref()
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

    /// Runs `opencode` — its TUI, the README's command — in the project on a pseudo-terminal of
    /// 50 rows and 110 columns (`peers/pty_drive.py`, the screen kept as a terminal keeps it), in
    /// the same offline environment as [`Project::run`]: for each `(wait, keys)` step, waits until
    /// `wait` is on the screen, then types `keys`; then waits for OpenCode to exit, killing it
    /// after `limit`. Returns the exit code, the screens the driver saw (`--- step N ---` when
    /// step N's `wait` was seen, `--- last ---` before OpenCode left the screen) and its stderr.
    pub fn tui(&self, steps: &[(&str, &str)], limit: Duration) -> (Option<i32>, String, String) {
        let steps: Vec<Value> = steps.iter().map(|(w, k)| json!({"wait": w, "send": k})).collect();
        let script = json!({
            "argv": [opencode_bin()], "cwd": self.dir(), "rows": 50, "cols": 110, "screen": true,
            "timeout": limit.as_secs(), "raw": self.root.path().join("tui.raw"), "steps": steps,
        });
        let file = self.root.path().join("tui-script.json");
        std::fs::write(&file, script.to_string()).expect("pty script");
        let mut cmd = Command::new(python());
        cmd.arg(crate::transports::peer("pty_drive.py")).arg(&file);
        self.offline_env(&mut cmd);
        crate::transports::run_bounded(&mut cmd, limit + Duration::from_secs(30))
    }

    /// Starts `opencode serve` on 127.0.0.1:`port` in the project (killed on drop) and waits
    /// until the project's instance answers `GET /path` (the first request bootstraps it). A
    /// connection accepted while the server starts can stay unanswered for minutes while later
    /// ones are served, so each attempt is short and on a new connection, under a long deadline.
    pub fn serve(&self, port: u16) -> Served {
        let mut last = String::new();
        for attempt in 0..3 {
            match self.try_serve(port, attempt) {
                Ok(served) => return served,
                Err(e) => last = e,
            }
        }
        panic!("opencode serve did not start: {last}");
    }

    /// One start of `opencode serve`; an early exit is an error (the caller starts it again).
    fn try_serve(&self, port: u16, attempt: u32) -> Result<Served, String> {
        let mut cmd = Command::new(opencode_bin());
        cmd.arg("serve").arg("--port").arg(port.to_string()).arg("--hostname").arg("127.0.0.1");
        cmd.args(["--print-logs", "--log-level", "DEBUG"]);
        self.offline_env(&mut cmd);
        let log_path = self.root.path().join(format!("serve-{attempt}.log"));
        let log = std::fs::File::create(&log_path).expect("serve log");
        let child = cmd
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("spawn opencode serve");
        let mut served = Served { child, port, password: self.password.clone() };
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let log = || std::fs::read_to_string(&log_path).unwrap_or_default();
            if let Some(status) = served.child.try_wait().expect("wait") {
                return Err(format!("attempt {attempt}: exited early: {status}\n{}", log()));
            }
            if served.get("/path", Duration::from_secs(10)).is_ok_and(|(code, _)| code == 200) {
                return Ok(served);
            }
            assert!(Instant::now() < deadline, "opencode serve did not answer in time\n{}", log());
            std::thread::sleep(Duration::from_millis(250));
        }
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
            .env("TMPDIR", self.root.path().join("tmp"))
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
        cmd.env_remove("OPENCODE_SERVER_PASSWORD").env_remove("OPENCODE_SERVER_USERNAME");
        if let Some(password) = &self.password {
            cmd.env("OPENCODE_SERVER_PASSWORD", password);
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
    /// Its port on 127.0.0.1.
    pub port: u16,
    password: Option<String>,
}

impl Served {
    /// `GET path` without credentials: (status, body).
    pub fn unauthenticated_get(&self, path: &str) -> (u16, String) {
        serve_get(self.port, None, path, Duration::from_secs(120)).expect("GET")
    }

    /// `GET path` (with the server password, if any), reading at most `limit`: (status, body).
    pub fn get(&self, path: &str, limit: Duration) -> std::io::Result<(u16, String)> {
        serve_get(self.port, self.password.as_deref(), path, limit)
    }
}

fn serve_get(
    port: u16,
    password: Option<&str>,
    path: &str,
    limit: Duration,
) -> std::io::Result<(u16, String)> {
    let auth = password
        .map(|p| {
            let pair = base64::engine::general_purpose::STANDARD.encode(format!("opencode:{p}"));
            format!("Authorization: Basic {pair}\r\n")
        })
        .unwrap_or_default();
    crate::http_get_with(port, path, &auth, limit)
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
        "OpenAI's fast frontier helper on GPT-5 mini that can propose shell cleanups",
        "Anthropic's Claude Opus 4 model, a frontier reviewer that can review commands",
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
    start_daemon_with(state_dir, config, &[])
}

/// [`start_daemon`] with extra environment variables.
pub fn start_daemon_with(state_dir: &Path, config: &Path, env: &[(&str, String)]) -> Daemon {
    let port = free_port();
    let mut cmd = blindfold();
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd
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

pub use crate::openclaw::{control_call, trace_records};

/// A signing key pair made by `blindfold keygen` (name `ops`).
pub struct Keys {
    /// `ops.pub.pem` (the daemon trusts it).
    pub public: PathBuf,
    /// `ops.key.pem` (grants and review approvals are signed with it).
    pub private: PathBuf,
}

/// Makes a key pair in `dir`.
pub fn keygen(dir: &Path) -> Keys {
    let made =
        blindfold().args(["keygen", "--out-dir"]).arg(dir).args(["--name", "ops"]).output().expect("keygen");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    Keys { public: dir.join("ops.pub.pem"), private: dir.join("ops.key.pem") }
}

/// Issues a grant signed by `keys` for `write_file target` with exactly `content` in `task`
/// and submits it to `daemon` (operator token); panics unless it is accepted.
pub fn grant_write(daemon: &Daemon, keys: &Keys, task: &str, target: &str, content: &str) {
    grant(daemon, keys, task, "write_file", target, content);
}

/// [`grant_write`] for `bash` running exactly `command` (the command is its target and its bytes).
pub fn grant_bash(daemon: &Daemon, keys: &Keys, task: &str, command: &str) {
    grant(daemon, keys, task, "bash", command, command);
}

fn grant(daemon: &Daemon, keys: &Keys, task: &str, op: &str, target: &str, content: &str) {
    let artifact = daemon.state_dir.with_file_name(format!("artifact-{task}.txt"));
    std::fs::write(&artifact, content).expect("write the artifact");
    let issued = blindfold()
        .args(["grant", "issue", "--key"])
        .arg(&keys.private)
        .args(["--task", task, "--op", op, "--target", target, "--ttl", "600", "--artifact"])
        .arg(&artifact)
        .output()
        .expect("grant issue");
    assert!(issued.status.success(), "{}", String::from_utf8_lossy(&issued.stderr));
    let token = String::from_utf8_lossy(&issued.stdout).trim().to_owned();
    let submitted =
        control_call(daemon.port, &daemon.operator_token(), "submit_grant", json!({"token": token}));
    assert_eq!(submitted["result"]["accepted"], true, "{submitted}");
}
