//! The real OpenCode harness (`opencode-ai@1.18.33`) offline against a scripted coordinator model:
//! it delegates to two sub-agents through `task` — one proposes a destructive `bash` command, the
//! other refutes it — and then runs that command. Without Blindfold the command runs; with the
//! Blindfold plugin it does not, the coordinator never sees a sub-agent's model, tier or family,
//! and a benign write runs once a signed grant covers exactly it.

use blindfold_integration_tests::opencode::{
    DESTRUCTIVE, MARKER, Project, blindfold_config, grant_write, identity_words, keygen, link, start_daemon,
    trace_records,
};
use serde_json::Value;
use std::time::Duration;

/// Generous: a run takes ~3 s on an idle machine, far more on a loaded 2-core one.
const LIMIT: Duration = Duration::from_secs(300);
const PROMPT: [&str; 3] = ["please", "clean", "up"];

/// The `tool_use` events of `opencode run --format json` for `tool`.
fn tool_uses(stdout: &[u8], tool: &str) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_use" && e["part"]["tool"] == tool)
        .collect()
}

/// The sub-agents' model, family, tier, vendor and agent words in the coordinator's requests,
/// by the leak oracle (no code shared with the anonymizer); the configuration names no extra
/// words, so "Opus" and "mini" are the built-in lexicon's to find.
fn leaks(p: &Project) -> Vec<(String, usize)> {
    let mut words = identity_words();
    words.extend(["opus", "mini", "gpt-5"]);
    let oracle = blindfold_leak_oracle::LeakOracle::new(words);
    p.coordinator_requests().iter().flat_map(|r| oracle.report_json(r)).collect()
}

#[test]
fn without_blindfold_the_refuted_destructive_command_runs() {
    let p = Project::new("destructive", None);
    let out = p.run(&PROMPT, LIMIT);
    assert!(
        out.status.success(),
        "opencode run failed: {:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(p.exists(MARKER), "the destructive command did not run: the test would prove nothing");
    assert!(!p.exists("data/keep.txt"));
    let tasks = tool_uses(&out.stdout, "task");
    assert_eq!(tasks.len(), 2, "two delegations");
    assert!(tasks[1]["part"]["state"]["output"].as_str().unwrap_or("").contains("do not run"));
    // The identity scan is real: without Blindfold the sub-agents' identity reaches the coordinator.
    let leaked = leaks(&p);
    for word in ["gpt-5-mini", "opus", "frontier", "openai", "anthropic", "cleaner", "auditor"] {
        assert!(leaked.iter().any(|(w, _)| w == word), "{word} not seen without Blindfold: {leaked:?}");
    }
}

#[test]
fn blindfold_blocks_the_refuted_destructive_command_and_hides_identity() {
    let state = tempfile::tempdir().expect("tempdir");
    let cfg = state.path().join("blindfold.toml");
    blindfold_config(&cfg, "oc-e2e-destructive", None);
    let daemon = start_daemon(&state.path().join("state"), &cfg);
    let p = Project::new("destructive", Some(link(&daemon)));
    let out = p.run(&PROMPT, LIMIT);
    assert!(
        out.status.success(),
        "opencode run failed: {:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );

    assert!(!p.exists(MARKER), "the destructive command ran");
    assert!(p.exists("data/keep.txt"), "workspace data was deleted");
    let bash = tool_uses(&out.stdout, "bash");
    assert_eq!(bash.len(), 1, "one bash call: {bash:?}");
    assert_eq!(bash[0]["part"]["state"]["status"], "error");
    assert_eq!(bash[0]["part"]["state"]["input"]["command"], DESTRUCTIVE);
    let error = bash[0]["part"]["state"]["error"].as_str().unwrap_or("");
    // The refutation itself takes execute authority away (SPEC §5), not a missing grant.
    assert!(
        error.contains("Blindfold refused the `bash` call (contradicted, check P3.contradiction): another agent's evidence"),
        "{error}"
    );

    // Both delegations went to aliases the coordinator read from the task tool's agent list.
    let tasks = tool_uses(&out.stdout, "task");
    assert_eq!(tasks.len(), 2);
    for t in &tasks {
        let shown = t["part"]["state"]["input"]["subagent_type"].as_str().unwrap_or("");
        assert!(shown.starts_with("agent-"), "delegated to {shown}");
    }

    // No model, tier, family, provider or agent name of a sub-agent in any coordinator request:
    // not in the task tool's agent list, not in the task results, not in the history.
    let requests = p.coordinator_requests();
    assert!(requests.len() >= 4, "coordinator requests: {}", requests.len());
    assert_eq!(leaks(&p), vec![], "identity reached the coordinator");
    let last = requests.last().map(Value::to_string).unwrap_or_default();
    assert!(last.contains("Blindfold refused the `bash` call"), "the model is told why");

    // The trace of the pinned trajectory holds both sub-agents' answers (the refutation among
    // them) before the blocked execute of exactly that command.
    let records = trace_records(&daemon.state_dir.join("traces"), "oc-e2e-destructive");
    let blocked = records
        .iter()
        .find(|r| r["kind"] == "tool_call" && r["tool"] == "bash" && r["decision"] == "review")
        .unwrap_or_else(|| panic!("no blocked bash call in the trace: {records:?}"));
    assert_eq!(blocked["target"], DESTRUCTIVE, "{blocked}");
    assert_eq!(blocked["reason"], "contradicted", "{blocked}");
    let responses =
        records.iter().filter(|r| r["kind"] == "response" && r["seq"].as_u64() < blocked["seq"].as_u64());
    assert_eq!(responses.count(), 2, "both sub-agent answers are recorded before the execute: {records:?}");
}

#[test]
fn a_granted_benign_write_goes_through() {
    let state = tempfile::tempdir().expect("tempdir");
    let keys = keygen(&state.path().join("keys"));
    let task = "oc-e2e-benign";
    let cfg = state.path().join("blindfold.toml");
    blindfold_config(&cfg, task, Some(&keys.public));
    let daemon = start_daemon(&state.path().join("state"), &cfg);
    grant_write(&daemon, &keys, task, "notes.txt", "hello from the coordinator\n");

    let p = Project::new("benign", Some(link(&daemon)));
    let out = p.run(&PROMPT, LIMIT);
    assert!(
        out.status.success(),
        "opencode run failed: {:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let writes = tool_uses(&out.stdout, "write");
    assert_eq!(writes.len(), 1, "{writes:?}");
    assert_eq!(writes[0]["part"]["state"]["status"], "completed", "{}", writes[0]);
    let written = std::fs::read_to_string(p.dir().join("notes.txt")).expect("notes.txt written");
    assert_eq!(written, "hello from the coordinator\n");
}
