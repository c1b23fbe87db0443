//! Blindfold answering OpenCode's permission requests: the real `opencode serve` (offline, scripted
//! model) in a project set up by `blindfold init opencode --ask --no-model-proxy` (its
//! `permission` block: `ask` for edit, bash, webfetch, external_directory and task; the plugin
//! removed so only the permission path gates), a daemon with `[opencode] serve_url` following `GET /event`, and a prompt driven
//! over OpenCode's HTTP API. A destructive `bash` is rejected through `POST /permission/{id}/reply`
//! with the reason (its marker stays absent); a granted edit is answered `once` and runs; a
//! refuted command held for review runs only once a human approves it; no request is ever
//! answered `always`. The destructive case runs OpenCode with a server password
//! (`OPENCODE_SERVER_PASSWORD`, basic auth), which the daemon reads from the same variable.
//!
//! A fresh `opencode serve` on a loaded machine is slow to answer its first requests: every wait
//! here polls a condition under a long deadline (the server's instance answering, the daemon's
//! follower holding the event stream, the driver's retried first request), none sleeps blindly.

use blindfold_integration_tests::opencode::{
    DESTRUCTIVE, Keys, MARKER, Project, Served, blindfold_config, control_call, grant_write, keygen,
    start_daemon_with, trace_records,
};
use blindfold_integration_tests::{Daemon, blindfold, free_port, workspace_root};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Generous bound of a whole driven session (seconds).
const SESSION_LIMIT_S: u64 = 600;

/// How a case is set up besides its scenario and task.
struct Opts<'a> {
    key: Option<&'a Keys>,
    review_wait_s: u64,
    password: Option<&'a str>,
}

/// One case: the project, `opencode serve`, and a daemon following it.
struct Case {
    _state: tempfile::TempDir,
    p: Project,
    serve: Served,
    daemon: Daemon,
    config: PathBuf,
}

impl Case {
    /// A `scenario` project set up by `init opencode` (plugin removed), `opencode serve` on it
    /// (with the server password of `o`, if any), and a daemon for `task` trusting `o.key`,
    /// holding reviews at most `o.review_wait_s`, whose follower is connected to the server's
    /// event stream.
    fn start(scenario: &str, task: &str, o: Opts) -> Case {
        let Opts { key, review_wait_s, password } = o;
        let state = tempfile::tempdir().expect("tempdir");
        let mut p = Project::new(scenario, None);
        if let Some(pw) = password {
            p = p.with_password(pw);
        }
        let port = free_port();
        let config =
            init_project(&p, state.path(), task, port, key.map(|k| k.public.as_path()), review_wait_s);
        let serve = p.serve(port);
        let env: Vec<(&str, String)> =
            password.map(|pw| ("OPENCODE_SERVER_PASSWORD", pw.to_owned())).into_iter().collect();
        let daemon = start_daemon_with(&state.path().join("state"), &config, &env);
        let case = Case { _state: state, p, serve, daemon, config };
        case.wait_following();
        case
    }

    /// Waits (bounded, long) until the daemon's follower holds `GET /event` of the server open.
    fn wait_following(&self) {
        let deadline = Instant::now() + Duration::from_secs(600);
        loop {
            let answer =
                control_call(self.daemon.port, &self.daemon.adapter_token(), "opencode.follower", json!({}));
            if answer["result"]["following"] == true {
                return;
            }
            assert_eq!(answer["result"]["configured"], true, "{answer}");
            assert!(Instant::now() < deadline, "the daemon never followed opencode serve: {answer}");
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// Drives `prompt` through the server; returns the driver's JSON lines.
    fn drive(&self, prompt: &str) -> Vec<Value> {
        drive(self.serve.port, self.p.password(), prompt)
    }
}

/// Sets up `init opencode` in the project (plugin removed) and a daemon config that follows
/// `opencode serve` on `serve_port`, holding reviews at most `review_wait_s`; returns the config path.
fn init_project(
    p: &Project,
    state: &Path,
    task: &str,
    serve_port: u16,
    key: Option<&Path>,
    review_wait_s: u64,
) -> PathBuf {
    let out = blindfold()
        .args(["init", "opencode", "--yes", "--ask", "--no-model-proxy", "--dir"])
        .arg(p.dir())
        .env("BLINDFOLD_STATE__DIR", state.join("state"))
        .output()
        .expect("init opencode");
    assert!(out.status.success(), "init failed: {}", String::from_utf8_lossy(&out.stderr));
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(p.dir().join("opencode.json")).expect("opencode.json"))
            .expect("json");
    for key in ["edit", "bash", "webfetch", "external_directory", "task"] {
        assert_eq!(config["permission"][key], "ask", "{key}: {config}");
    }
    std::fs::remove_file(p.dir().join(".opencode/plugins/blindfold.ts")).expect("remove plugin");
    let cfg = state.join("blindfold.toml");
    blindfold_config(&cfg, task, key);
    let text = std::fs::read_to_string(&cfg).expect("config");
    let text = text.replacen(
        "[opencode]\n",
        &format!(
            "[opencode]\nserve_url = \"http://127.0.0.1:{serve_port}\"\nreview_wait_s = {review_wait_s}\n"
        ),
        1,
    );
    std::fs::write(&cfg, text).expect("config");
    cfg
}

/// Drives `prompt` through `opencode serve` on `port`; returns the driver's JSON lines.
fn drive(port: u16, password: Option<&str>, prompt: &str) -> Vec<Value> {
    let python = workspace_root().join(".venv/bin/python");
    let mut cmd = Command::new(python);
    cmd.arg(workspace_root().join("integration-tests/peers/opencode/serve_driver.py"))
        .args(["--base", &format!("http://127.0.0.1:{port}"), "--prompt", prompt])
        .args(["--timeout", &SESSION_LIMIT_S.to_string()])
        .env_remove("OPENCODE_SERVER_PASSWORD")
        .stderr(Stdio::inherit());
    if let Some(pw) = password {
        cmd.env("OPENCODE_SERVER_PASSWORD", pw);
    }
    let out = cmd.output().expect("run the serve driver");
    assert!(out.status.success(), "driver failed: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("driver line"))
        .collect()
}

/// The reply given to the request asked for `permission` (the first such request).
fn reply_to<'a>(lines: &'a [Value], permission: &str) -> (&'a Value, &'a str) {
    let asked = lines
        .iter()
        .find(|l| l["type"] == "permission.asked" && l["permission"] == permission)
        .unwrap_or_else(|| panic!("no {permission} request: {lines:?}"));
    let reply = lines
        .iter()
        .find(|l| l["type"] == "permission.replied" && l["requestID"] == asked["id"])
        .unwrap_or_else(|| panic!("{permission} request not answered: {lines:?}"));
    (asked, reply["reply"].as_str().unwrap_or_default())
}

fn tool_part<'a>(lines: &'a [Value], tool: &str) -> &'a Value {
    let done = lines.iter().find(|l| l["type"] == "done").expect("done line");
    done["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|t| t["tool"] == tool)
        .unwrap_or_else(|| panic!("no {tool} part: {done}"))
}

fn assert_never_always(lines: &[Value]) {
    for l in lines.iter().filter(|l| l["type"] == "permission.replied") {
        assert_ne!(l["reply"], "always", "{l}");
    }
}

#[test]
fn a_destructive_bash_is_rejected_through_the_permission_api() {
    let task = "oc-permission-destructive";
    let c = Case::start(
        "destructive",
        task,
        Opts { key: None, review_wait_s: 5, password: Some("pw-for-opencode-serve") },
    );
    // The server really asks for its password: without it nothing is answered.
    let (code, _) = c.serve.unauthenticated_get("/path");
    assert_eq!(code, 401, "opencode serve did not ask for its password");

    let lines = c.drive("please clean up");
    assert_never_always(&lines);
    // Both delegations were answered `once` (the sub-agents ran), the bash call `reject`.
    let tasks: Vec<&Value> =
        lines.iter().filter(|l| l["type"] == "permission.asked" && l["permission"] == "task").collect();
    assert_eq!(tasks.len(), 2, "{lines:?}");
    for t in tasks {
        let reply = lines.iter().find(|l| l["type"] == "permission.replied" && l["requestID"] == t["id"]);
        assert_eq!(reply.map(|r| &r["reply"]), Some(&json!("once")), "{t}");
    }
    let (asked, reply) = reply_to(&lines, "bash");
    assert_eq!(asked["metadata"]["command"], DESTRUCTIVE);
    assert_eq!(reply, "reject");
    let bash = tool_part(&lines, "bash");
    assert_eq!(bash["state"]["status"], "error", "{bash}");
    let error = bash["state"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("Blindfold rejected this bash request"), "the reason reached the model: {error}");
    assert!(!c.p.exists(MARKER), "the rejected command ran");
    assert!(c.p.exists("data/keep.txt"), "workspace data was deleted");

    // The trace holds both sub-agents' answers (the refutation among them) before the decided
    // command, in Blindfold's trajectory for the session.
    let records = trace_records(&c.daemon.state_dir.join("traces"), task);
    let decided = records
        .iter()
        .find(|r| r["kind"] == "tool_call" && r["tool"] == "bash")
        .unwrap_or_else(|| panic!("no bash decision in the trace: {records:?}"));
    assert_eq!(decided["target"], DESTRUCTIVE, "{decided}");
    assert_ne!(decided["decision"], "allow", "{decided}");
    let answers =
        records.iter().filter(|r| r["kind"] == "response" && r["seq"].as_u64() < decided["seq"].as_u64());
    assert_eq!(answers.count(), 2, "both answers are evidence before the execute: {records:?}");
}

#[test]
fn a_granted_edit_is_answered_once_and_runs() {
    let task = "oc-permission-benign";
    let keys_dir = tempfile::tempdir().expect("tempdir");
    let keys = keygen(keys_dir.path());
    let c = Case::start("benign", task, Opts { key: Some(&keys), review_wait_s: 5, password: None });
    grant_write(&c.daemon, &keys, task, "notes.txt", "hello from the coordinator\n");

    let lines = c.drive("please clean up");
    assert_never_always(&lines);
    let (_, reply) = reply_to(&lines, "edit");
    assert_eq!(reply, "once");
    assert_eq!(tool_part(&lines, "write")["state"]["status"], "completed");
    let written = std::fs::read_to_string(c.p.dir().join("notes.txt")).expect("notes.txt written");
    assert_eq!(written, "hello from the coordinator\n");
}

#[test]
fn a_request_held_for_review_runs_only_once_the_review_is_approved() {
    let task = "oc-permission-review";
    let keys_dir = tempfile::tempdir().expect("tempdir");
    let keys = keygen(keys_dir.path());
    let c = Case::start(
        "destructive",
        task,
        Opts { key: Some(&keys), review_wait_s: SESSION_LIMIT_S, password: None },
    );

    let (port, password) = (c.serve.port, c.p.password().map(str::to_owned));
    let driver = std::thread::spawn(move || drive(port, password.as_deref(), "please clean up"));
    // The refuted command is held: a pending review appears while OpenCode's bash waits on it.
    let operator = c.daemon.operator_token();
    let deadline = Instant::now() + Duration::from_secs(SESSION_LIMIT_S);
    let id = loop {
        let listed = control_call(c.daemon.port, &operator, "review.list", json!({"status": "pending"}));
        let pending = listed["result"]["reviews"].as_array().cloned().unwrap_or_default();
        if let Some(item) = pending.iter().find(|i| i["tool"] == "bash") {
            assert_eq!(item["target"], DESTRUCTIVE, "{item}");
            break item["id"].as_str().expect("review id").to_owned();
        }
        assert!(!driver.is_finished(), "the session ended without a held request");
        assert!(Instant::now() < deadline, "no review was held");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(!c.p.exists(MARKER), "the held command ran before its review");
    let approved = blindfold()
        .args(["review", "approve", &id, "--key"])
        .arg(&keys.private)
        .arg("--config")
        .arg(&c.config)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", c.daemon.port))
        .env("BLINDFOLD_STATE__DIR", &c.daemon.state_dir)
        .output()
        .expect("review approve");
    assert!(approved.status.success(), "{}", String::from_utf8_lossy(&approved.stderr));

    let lines = driver.join().expect("driver");
    assert_never_always(&lines);
    let (_, reply) = reply_to(&lines, "bash");
    assert_eq!(reply, "once", "the approved request is answered once");
    assert_eq!(tool_part(&lines, "bash")["state"]["status"], "completed");
    assert!(c.p.exists(MARKER), "the approved bytes ran");
}
