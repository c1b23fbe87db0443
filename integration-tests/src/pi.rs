//! Helpers for the Pi tests: a project with Blindfold's extension installed, agent files, the
//! scripted model server, and a bounded `pi` run.

use crate::transports::{node_bin, peer, python, run_bounded};
use crate::workspace_root;
use serde_json::Value;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The scripted OpenAI-compatible server (`peers/pi/model_server.py`), killed on drop.
pub struct ModelServer {
    child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    /// JSON-lines log of every request body.
    pub log: PathBuf,
}

impl ModelServer {
    /// Starts the server logging to `log`; waits for its `PORT n` line.
    pub fn start(log: &Path) -> ModelServer {
        Self::start_with(log, &[])
    }

    /// Starts the server for OpenClaw sub-agents on well-known models: `gpt-5-mini` and
    /// `claude-opus-4` answer as the OpenClaw planner and reviewer (`--openclaw`), not Pi's.
    pub fn start_for_openclaw(log: &Path) -> ModelServer {
        Self::start_with(log, &["--openclaw"])
    }

    fn start_with(log: &Path, args: &[&str]) -> ModelServer {
        let mut child = Command::new(python())
            .arg(peer("pi/model_server.py"))
            .arg(log)
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("model server");
        let mut line = String::new();
        let stdout = child.stdout.take().expect("stdout");
        BufReader::new(stdout).read_line(&mut line).expect("PORT line");
        let port = line.trim().strip_prefix("PORT ").and_then(|p| p.parse().ok()).expect("port");
        ModelServer { child, port, log: log.to_path_buf() }
    }

    /// Every request body so far.
    pub fn requests(&self) -> Vec<Value> {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        text.lines().map(|l| serde_json::from_str(l).expect("logged json")).collect()
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A Pi home: agent dir (models.json, agents), HOME, and a project with Blindfold's extension.
pub struct PiWorld {
    /// `PI_CODING_AGENT_DIR`.
    pub agent_dir: PathBuf,
    /// `HOME`.
    pub home: PathBuf,
    /// The project (cwd of `pi`).
    pub project: PathBuf,
}

impl PiWorld {
    /// Lays out a Pi home below `root` whose provider `probe` serves `models` from `model_port`.
    pub fn new(root: &Path, model_port: u16, models: &[&str]) -> PiWorld {
        let agent_dir = root.join("pi-agent");
        let home = root.join("home");
        let project = root.join("project");
        for d in [agent_dir.join("agents"), home.clone(), project.join(".pi/extensions/blindfold")] {
            std::fs::create_dir_all(d).expect("dirs");
        }
        let models: Vec<Value> = models
            .iter()
            .map(|id| serde_json::json!({"id": id, "contextWindow": 32000, "maxTokens": 1024}))
            .collect();
        let config = serde_json::json!({"providers": {"probe": {
            "baseUrl": format!("http://127.0.0.1:{model_port}/v1"), "api": "openai-completions", "apiKey": "k",
            "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false}, "models": models,
        }}});
        std::fs::write(agent_dir.join("models.json"), config.to_string()).expect("models.json");
        let adapters = workspace_root().join("adapters");
        let extensions = project.join(".pi/extensions");
        std::fs::create_dir_all(extensions.join("blindfold-common")).expect("common dir");
        for f in ["pi-extension/index.ts", "blindfold-common/control.ts"] {
            let to = extensions.join(f.replace("pi-extension", "blindfold"));
            std::fs::copy(adapters.join(f), to).expect("extension");
        }
        PiWorld { agent_dir, home, project }
    }

    /// Adds a user-scope agent file (`agents/` of Pi's agent folder).
    pub fn agent(&self, name: &str, model: &str, provider: &str, tools: &str) {
        agent_file(&self.agent_dir.join("agents"), name, model, provider, tools);
    }

    /// Adds a project agent file (`.pi/agents/` of the project).
    pub fn project_agent(&self, name: &str, model: &str, provider: &str, tools: &str) {
        agent_file(&self.project.join(".pi/agents"), name, model, provider, tools);
    }

    /// `blindfold init pi --yes` on the project, as a user runs it, with `extra` arguments; the
    /// daemon it sets up listens on `port`, its proxy on `proxy`, its state in `state`.
    pub fn init(&self, ports: (u16, u16), state: &Path, extra: &[&str]) -> std::process::Output {
        let out = crate::blindfold()
            .args(["init", "pi", "--yes"])
            .args(extra)
            .arg("--dir")
            .arg(&self.project)
            .env("PI_CODING_AGENT_DIR", &self.agent_dir)
            .env("HOME", &self.home)
            .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", ports.0))
            .env("BLINDFOLD_STATE__DIR", state)
            .env("BLINDFOLD_MODEL_PROXY__LISTEN", format!("127.0.0.1:{}", ports.1))
            .output()
            .expect("init pi");
        assert!(out.status.success(), "init pi: {}", String::from_utf8_lossy(&out.stderr));
        out
    }

    /// Runs `pi -p --mode json` with the reference `subagent` extension and `env`, bounded.
    pub fn run(&self, prompt: &str, env: &[(&str, String)]) -> (Option<i32>, String, String) {
        self.run_with(&["--no-session"], prompt, env)
    }

    /// Runs one turn of a saved Pi session (`-c`: continues the project's last one).
    pub fn run_session(&self, prompt: &str, continues: bool) -> (Option<i32>, String, String) {
        self.run_with(if continues { &["-c"] } else { &[] }, prompt, &[])
    }

    fn run_with(
        &self,
        session: &[&str],
        prompt: &str,
        env: &[(&str, String)],
    ) -> (Option<i32>, String, String) {
        let mut cmd = self.command(Command::new(node_bin("pi")));
        cmd.args(["--model", "probe/coord-1"])
            .args(session)
            .args(["--mode", "json", "-e"])
            .arg(subagent_extension())
            .args(["-p", prompt]);
        for (k, v) in env {
            cmd.env(k, v);
        }
        run_bounded(&mut cmd, Duration::from_secs(180))
    }

    /// Runs `pi --model probe/coord-1 -e <subagent>` interactively, its TUI on a pseudo-terminal
    /// (`peers/pty_drive.py`): for each `(wait, keys)` step, waits until `wait` is on the
    /// screen, then types `keys`; then waits for Pi to exit. Returns the exit code, the screen's
    /// text (escape sequences removed, every run of white space one space: the TUI wraps lines)
    /// and the driver's stderr.
    pub fn interactive(&self, steps: &[(&str, &str)]) -> (Option<i32>, String, String) {
        let argv = [
            node_bin("pi").display().to_string(),
            "--model".into(),
            "probe/coord-1".into(),
            "-e".into(),
            subagent_extension().display().to_string(),
        ];
        let steps: Vec<Value> =
            steps.iter().map(|(w, k)| serde_json::json!({"wait": w, "send": k})).collect();
        let script = serde_json::json!({
            "argv": argv, "cwd": self.project, "rows": 50, "cols": 200, "timeout": 150,
            "raw": self.home.join("screen.raw"), "steps": steps,
        });
        let file = self.home.join("pty-script.json");
        std::fs::write(&file, script.to_string()).expect("pty script");
        let mut cmd = self.command(Command::new(python()));
        cmd.arg(peer("pty_drive.py")).arg(&file);
        let (code, screen, stderr) = run_bounded(&mut cmd, Duration::from_secs(180));
        (code, screen.split_whitespace().collect::<Vec<_>>().join(" "), stderr)
    }

    /// `cmd` run in the project with this Pi home, offline, without the caller's `BLINDFOLD_…`
    /// variables.
    fn command(&self, mut cmd: Command) -> Command {
        cmd.current_dir(&self.project)
            .env("HOME", &self.home)
            .env("PI_CODING_AGENT_DIR", &self.agent_dir)
            .env("PI_OFFLINE", "1");
        for (k, _) in std::env::vars() {
            if k.starts_with("BLINDFOLD_") {
                cmd.env_remove(k);
            }
        }
        cmd
    }
}

/// Pi's reference `subagent` extension, as the package ships it.
fn subagent_extension() -> PathBuf {
    workspace_root().join(
        "integration-tests/node_modules/@mariozechner/pi-coding-agent/examples/extensions/subagent/index.ts",
    )
}

/// Writes agent `name`'s markdown definition into `dir`.
fn agent_file(dir: &Path, name: &str, model: &str, provider: &str, tools: &str) {
    let text = format!(
        "---\nname: {name}\ndescription: {name} agent\nmodel: probe/{model}\nprovider: {provider}\ntools: {tools}\n---\nYou are {name}.\n"
    );
    std::fs::create_dir_all(dir).expect("agents dir");
    std::fs::write(dir.join(format!("{name}.md")), text).expect("agent");
}

/// The tool messages of a chat request, with the name of the tool call each answers.
pub fn tool_results(request: &Value) -> Vec<(String, String)> {
    let messages = request.get("messages").and_then(Value::as_array).cloned().unwrap_or_default();
    let mut names = std::collections::HashMap::new();
    let mut out = Vec::new();
    for m in &messages {
        for c in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            let id = c.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            let name = c.pointer("/function/name").and_then(Value::as_str).unwrap_or_default().to_owned();
            names.insert(id, name);
        }
        if m.get("role").and_then(Value::as_str) == Some("tool") {
            let id = m.get("tool_call_id").and_then(Value::as_str).unwrap_or_default();
            let content = match m.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => String::new(),
            };
            out.push((names.get(id).cloned().unwrap_or_default(), content));
        }
    }
    out
}
