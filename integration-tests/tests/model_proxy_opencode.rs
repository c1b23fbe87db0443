//! OpenCode (`opencode-ai`, pinned) pointed at Blindfold's model-API proxy, which points at the
//! scripted model server, with no plugin installed: sub-agents whose names, descriptions and
//! configured models name models, tiers and vendors never reach the model by those words
//! (coordinator and sub-agent requests alike), delegation by alias still reaches the real
//! sub-agents, the trace records the coordinator's tool calls, and the destructive `bash` call is
//! never executed — while the same harness with Blindfold only observing does run it.

mod model_proxy_support;

use blindfold_integration_tests::opencode::{
    AGENTS, DESTRUCTIVE, MARKER, Project, blindfold_config, identity_words,
};
use model_proxy_support::ModelProxy;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

/// Generous: a run takes seconds on an idle machine, far more on a loaded 2-core one.
const LIMIT: Duration = Duration::from_secs(300);
const PROMPT: [&str; 3] = ["please", "clean", "up"];
const TASK: &str = "oc-model-proxy";

/// A project whose OpenCode talks to a `blindfold model-proxy` (extra `env`) in front of the
/// scripted model; the proxy's state (and trace) lives in `state`.
fn project_behind_proxy(state: &Path, env: &[(&str, &str)]) -> (Project, ModelProxy) {
    let cfg = state.join("blindfold.toml");
    blindfold_config(&cfg, TASK, None);
    let cfg = cfg.to_str().expect("utf8 path").to_owned();
    let mut proxy = None;
    let project = Project::with_model_base("destructive", None, |model_port| {
        let p = ModelProxy::start(state, model_port, &["--task", TASK, "--config", &cfg], env);
        let base = p.base();
        proxy = Some(p);
        base
    });
    (project, proxy.expect("proxy started"))
}

/// A request body without its `model` field: that field is the upstream's routing address (the
/// configured model id the harness must be able to reach), not text a model reads.
fn readable(request: &Value) -> String {
    let mut body = request.clone();
    if let Some(map) = body.as_object_mut() {
        map.remove("model");
    }
    body.to_string()
}

/// The `tool_use` events of `opencode run --format json` for `tool`.
fn tool_uses(stdout: &[u8], tool: &str) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_use" && e["part"]["tool"] == tool)
        .collect()
}

/// Every trace record of trajectory `task` under `dir`.
fn trace_records(dir: &Path, task: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(trace_records(&path, task));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            out.extend(text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()));
        }
    }
    out.retain(|r| r["trajectory"] == task);
    out
}

fn assert_ran(out: &std::process::Output) {
    assert!(
        out.status.success(),
        "opencode run failed: {:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn opencode_through_the_model_proxy_hides_identity_and_never_runs_the_refused_call() {
    let state = tempfile::tempdir().expect("tempdir");
    let (p, proxy) = project_behind_proxy(state.path(), &[]);
    let out = p.run(&PROMPT, LIMIT);
    assert_ran(&out);

    // Delegation by alias reached both real sub-agents: their models answered.
    let requests = p.requests();
    for (name, model, ..) in AGENTS {
        let n = requests.iter().filter(|r| r["model"] == model).count();
        assert!(n >= 1, "sub-agent {name} ({model}) never ran: the alias was not mapped back");
    }
    let tasks = tool_uses(&out.stdout, "task");
    assert_eq!(tasks.len(), 2, "two delegations: {tasks:?}");
    for t in &tasks {
        assert_eq!(t["part"]["state"]["status"], "completed", "{t}");
        let agent = t["part"]["state"]["input"]["subagent_type"].as_str().unwrap_or("");
        assert!(AGENTS.iter().any(|a| a.0 == agent), "the harness got the real agent name: {agent}");
    }
    // The coordinator's model was shown aliases, never the names.
    let coordinator = p.coordinator_requests();
    let listed = coordinator.iter().any(|r| {
        r["tools"].as_array().into_iter().flatten().any(|t| {
            t["function"]["name"] == "task"
                && t["function"]["description"].as_str().is_some_and(|d| d.contains("- agent-"))
        })
    });
    assert!(listed, "the task tool lists the sub-agents by alias");

    // No identity word in any request the scripted model received, sub-agents' own included.
    assert!(requests.len() >= 5, "requests: {}", requests.len());
    for r in &requests {
        let leaked = blindfold_leak_oracle::LeakOracle::new(identity_words()).report_text(&readable(r));
        assert_eq!(leaked, vec![], "identity reached the model ({}): {}", r["model"], readable(r));
    }

    // The destructive call was replaced by a refusal: OpenCode never ran it.
    assert!(!p.exists(MARKER), "the refused command ran");
    assert!(p.exists("data/keep.txt"), "workspace data was deleted");
    assert!(tool_uses(&out.stdout, "bash").is_empty(), "OpenCode received a bash call");
    // In its place OpenCode received the refusal as the assistant's text (and the turn ended).
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Blindfold refused the `bash` tool call"), "no refusal text: {stdout}");

    // The trace records the coordinator's tool calls: both delegations and the blocked execute.
    let records = trace_records(&proxy.state_dir.join("traces"), TASK);
    let delegations = records.iter().filter(|r| r["kind"] == "delegate").count();
    assert!(delegations >= 2, "delegations in the trace: {records:?}");
    let bash = records
        .iter()
        .find(|r| r["kind"] == "tool_call" && r["tool"] == "bash")
        .unwrap_or_else(|| panic!("no bash call in the trace: {records:?}"));
    assert_eq!(bash["target"], DESTRUCTIVE, "{bash}");
    assert_ne!(bash["decision"], "allow", "{bash}");
}

#[test]
fn opencode_through_an_observing_model_proxy_runs_the_call() {
    // The same harness and script with Blindfold only recording: the marker check can fail.
    let state = tempfile::tempdir().expect("tempdir");
    let (p, _proxy) = project_behind_proxy(state.path(), &[("BLINDFOLD_MODES__ENFORCE", "false")]);
    let out = p.run(&PROMPT, LIMIT);
    assert_ran(&out);
    assert!(p.exists(MARKER), "observe mode forwards the call and OpenCode runs it");
}
