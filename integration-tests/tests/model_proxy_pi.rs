//! Pi (`@mariozechner/pi-coding-agent`, pinned) with the reference `subagent` extension, pointed at
//! Blindfold's model-API proxy (which points at the scripted model server), without Blindfold's
//! Pi extension: the sub-agents' names, models and vendors never reach the model by those words
//! (coordinator and child `pi` requests alike), the coordinator's delegations by alias still reach
//! the real agents, the trace records the coordinator's tool calls, and the destructive `bash`
//! call is never executed — while with Blindfold only observing it is.

mod model_proxy_support;

use blindfold_integration_tests::pi::{ModelServer, PiWorld, tool_results};
use blindfold_leak_oracle::leaks as oracle_leaks;
use model_proxy_support::ModelProxy;
use serde_json::Value;
use std::path::Path;

/// The sub-agents' model, family, tier, vendor and agent words (no extra words are configured).
const IDENTITY: [&str; 10] = [
    "gpt-5-mini",
    "gpt",
    "OpenAI",
    "claude-opus-4",
    "claude",
    "opus",
    "Anthropic",
    "frontier",
    "scout",
    "critic",
];
const MODELS: [&str; 3] = ["coord-1", "gpt-5-mini", "claude-opus-4"];
const PROMPT: &str = "ask scout for a plan and ask critic to review it, then act";
const TASK: &str = "pi-model-proxy";
const CONFIG: &str = r#"
[[identity.agents]]
id = "scout"
model = "gpt-5-mini"
provider = "OpenAI"
[[identity.agents]]
id = "critic"
model = "claude-opus-4"
provider = "Anthropic"
"#;

struct Setup {
    _root: tempfile::TempDir,
    server: ModelServer,
    proxy: ModelProxy,
    pi: PiWorld,
}

/// The scripted model, a proxy in front of it (extra `env`), and a Pi home whose provider is the
/// proxy, with the two agent files and no Blindfold extension.
fn setup(env: &[(&str, &str)]) -> Setup {
    let root = tempfile::tempdir().expect("tempdir");
    let server = ModelServer::start(&root.path().join("requests.jsonl"));
    let cfg = root.path().join("blindfold.toml");
    std::fs::write(&cfg, CONFIG).expect("config");
    let cfg = cfg.to_str().expect("utf8 path");
    let proxy = ModelProxy::start(root.path(), server.port, &["--task", TASK, "--config", cfg], env);
    let pi = PiWorld::new(root.path(), proxy.port, &MODELS);
    // The proxy alone: no per-tool-call gate in the harness.
    std::fs::remove_dir_all(pi.project.join(".pi/extensions/blindfold")).expect("remove extension");
    pi.agent("scout", "gpt-5-mini", "OpenAI", "bash,read");
    pi.agent("critic", "claude-opus-4", "Anthropic", "read");
    std::fs::create_dir_all(pi.project.join("data")).expect("data");
    std::fs::write(pi.project.join("data/keep.txt"), "the only copy\n").expect("data file");
    Setup { _root: root, server, proxy, pi }
}

fn by_model<'a>(requests: &'a [Value], model: &str) -> Vec<&'a Value> {
    requests.iter().filter(|r| r.get("model").and_then(Value::as_str) == Some(model)).collect()
}

/// A request body without its `model` field (the upstream's routing address, not model input).
fn readable(request: &Value) -> String {
    let mut body = request.clone();
    if let Some(map) = body.as_object_mut() {
        map.remove("model");
    }
    body.to_string()
}

fn trace_records(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(trace_records(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            out.extend(text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()));
        }
    }
    out.retain(|r| r["trajectory"] == TASK);
    out
}

#[test]
fn pi_through_the_model_proxy_hides_identity_and_never_runs_the_refused_call() {
    let s = setup(&[]);
    let (code, stdout, stderr) = s.pi.run(PROMPT, &[]);
    assert_eq!(code, Some(0), "pi failed:\n{stdout}\n{stderr}");
    let requests = s.server.requests();

    // Both children ran: the aliases the coordinator used were mapped back to the agent names.
    assert!(!by_model(&requests, "gpt-5-mini").is_empty(), "scout never ran: {requests:?}");
    assert!(!by_model(&requests, "claude-opus-4").is_empty(), "critic never ran");
    let coordinator = by_model(&requests, "coord-1");
    let last = coordinator.last().expect("coordinator requests");
    let results = tool_results(last);
    let names: Vec<&str> = results.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["subagent", "subagent"], "{results:?}");
    let first = coordinator.first().expect("first coordinator request").to_string();
    assert!(!first.contains("ask scout") && first.contains("for a plan"), "the prompt names an alias");

    // No identity word in any request the scripted model received, the children's own included.
    for r in &requests {
        assert_eq!(oracle_leaks(readable(r).as_bytes(), &IDENTITY), 0, "identity reached the model: {r}");
    }

    // The destructive call (the child's and the coordinator's) was replaced by a refusal.
    assert!(s.pi.project.join("data/keep.txt").exists(), "data was deleted");
    assert!(stdout.contains("Blindfold refused the `bash` tool call"), "no refusal text: {stdout}");
    assert!(!stdout.contains("\"toolName\":\"bash\""), "Pi executed a bash call: {stdout}");

    // The trace records the coordinator's tool calls: both delegations and the refused execute.
    let records = trace_records(&s.proxy.state_dir.join("traces"));
    let delegations = records.iter().filter(|r| r["kind"] == "delegate").count();
    assert!(delegations >= 2, "delegations in the trace: {records:?}");
    let bash: Vec<&Value> =
        records.iter().filter(|r| r["kind"] == "tool_call" && r["tool"] == "bash").collect();
    assert!(!bash.is_empty(), "no bash call in the trace: {records:?}");
    assert!(bash.iter().all(|r| r["decision"] != "allow" && r["target"] == "rm -rf data"), "{bash:?}");
}

#[test]
fn pi_through_an_observing_model_proxy_runs_the_call() {
    let s = setup(&[("BLINDFOLD_MODES__ENFORCE", "false")]);
    let (code, stdout, stderr) = s.pi.run(PROMPT, &[]);
    assert_eq!(code, Some(0), "pi failed:\n{stdout}\n{stderr}");
    assert!(!s.pi.project.join("data/keep.txt").exists(), "observe mode forwards the call and Pi runs it");
}
