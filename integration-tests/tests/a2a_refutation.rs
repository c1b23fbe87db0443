//! Responses over A2A reach the engine: two real `a2a-sdk` agents behind Blindfold, one proposes a
//! destructive command in its answer, the other refutes it (in plain text, or with a structured
//! `blindfold/relation` data part); the coordinator's attempt to run the command (a
//! `check_action` on the control API, with a grant for exactly those bytes) is refused
//! `contradicted` — whether the answers stream, come as one result, or are polled, over JSON-RPC
//! or the HTTP+JSON binding (the client on the SDK's REST transport). Without the
//! refutation (an independent agent verifies it instead) the same granted command passes.

use blindfold_integration_tests::free_port;
use blindfold_integration_tests::opencode::control_call;
use blindfold_integration_tests::transports::{
    Peer, World, peer, python, python_peer, run_bounded, run_daemon, trace_records, wait_port,
};
use serde_json::{Value, json};
use std::process::Command;
use std::time::Duration;

const COMMAND: &str = "rm -rf /srv/data";

fn agent(name: &str, description: &str, reply: &Value) -> (Peer, u16) {
    let port = free_port();
    let p = python_peer("a2a_scripted_agent.py", &[&port.to_string(), name, description, &reply.to_string()]);
    (p, port)
}

/// Each agent with a distinct configured family (so their judgements are independent).
fn upstreams(agents: &[(&str, u16)]) -> String {
    agents
        .iter()
        .map(|(id, port)| {
            format!(
                "[[a2a.upstreams]]\nid = \"{id}\"\nurl = \"http://127.0.0.1:{port}\"\n\
                 model = \"{id}-model-1\"\nfamily = \"{id}-family\"\nprovider = \"{id}-labs\"\n\n"
            )
        })
        .collect()
}

/// Delegates to every agent behind the daemon with the `a2a-sdk` client: the planner first, then
/// the others are asked to review its plan; returns what the client got.
fn delegate(port: u16, mode: &[&str]) -> String {
    let mut cmd = Command::new(python());
    cmd.arg(peer("a2a_client.py"))
        .arg(format!("http://127.0.0.1:{port}"))
        .args(["--version", "1.0", "--first", "Plans"])
        .args(mode)
        .args(["--others-text", &format!("Please review this plan before we run it: `{COMMAND}`")])
        .arg("The disk is full: what should we do?");
    let (code, stdout, stderr) = run_bounded(&mut cmd, Duration::from_secs(90));
    assert_eq!(code, Some(0), "a2a client failed:\n{stdout}\n{stderr}");
    stdout
}

/// One case: a daemon pinned to `task` in front of `agents`; the coordinator delegates, then
/// tries to run the command with a grant. Returns the `check_action` result. `mode`: the
/// client's delivery flags (`--stream`, `--no-stream`, `--poll`, and `--binding HTTP+JSON`).
fn case(task: &str, agents: &[(&str, u16)], mode: &[&str]) -> (Value, String) {
    let w = World::new(&format!("[a2a]\ntask = \"{task}\"\n"));
    let (daemon, port) = run_daemon(&w, &upstreams(agents));
    let got = delegate(port, mode);
    let operator = std::fs::read_to_string(w.state.join("operator.token")).expect("operator token");
    let adapter = std::fs::read_to_string(w.state.join("adapter.token")).expect("adapter token");
    let token = w.issue(task, "bash", COMMAND, COMMAND.as_bytes());
    let submitted = control_call(port, operator.trim(), "submit_grant", json!({"token": token}));
    assert_eq!(submitted["result"]["accepted"], true, "{submitted}");
    let checked = control_call(
        port,
        adapter.trim(),
        "check_action",
        json!({"trajectory": task, "tool": "bash", "args": {"command": COMMAND}, "call_id": "c1", "consume": true}),
    );
    drop(daemon);
    let records = trace_records(&w.state.join("traces"), task);
    // The trace names each agent by the alias the coordinator saw, with its true identity.
    let shown: Value = serde_json::from_str(&got).expect("client output is JSON");
    let shown = shown["agents"].as_array().cloned().unwrap_or_default();
    for r in records.iter().filter(|r| r["kind"] == "delegate" || r["kind"] == "response") {
        assert!(shown.contains(&r["actor_alias"]), "alias {} not among {shown:?}: {r}", r["actor_alias"]);
        let family = r["actor_true"]["family"].as_str().unwrap_or_default();
        assert!(family.ends_with("-family"), "true identity recorded: {r}");
    }
    (checked["result"].clone(), format!("client: {got}\ntrace: {records:?}"))
}

#[test]
fn a_refutation_over_a2a_takes_execute_authority_from_the_refuted_proposal() {
    let proposal =
        json!({"blindfold/proposal": {"id": "cleanup-1", "tool": "bash", "args": {"command": COMMAND}}});
    let (_p1, proposer) = agent(
        "ops-proposer",
        "Plans operations work.",
        &json!({"text": format!("Free the disk now: `{COMMAND}` removes the old data."), "data": proposal}),
    );
    let (_p2, text_refuter) = agent(
        "ops-reviewer",
        "Reviews operations plans.",
        &json!({"text": format!("Do not run `{COMMAND}`: it deletes the production database files.")}),
    );
    let (_p3, data_refuter) = agent(
        "ops-auditor",
        "Reviews operations plans.",
        &json!({"text": "Reviewed the plan.", "data": {"blindfold/relation": {"proposal": "cleanup-1", "relation": "REFUTES"}}}),
    );
    let (_p4, approver) = agent(
        "ops-checker",
        "Reviews operations plans.",
        // (Not naming the path: a judgement citing what the proposal cites is not independent.)
        &json!({"text": "Checked the plan: the directory only holds stale caches, safe to run.",
                "data": {"blindfold/relation": {"proposal": "cleanup-1", "relation": "FULL_SUPPORT"}}}),
    );
    for port in [proposer, text_refuter, data_refuter, approver] {
        wait_port(port, Duration::from_secs(60));
    }

    // A text-only refutation, the answers streamed.
    let (r, ctx) = case("refuted-text", &[("proposer", proposer), ("reviewer", text_refuter)], &["--stream"]);
    assert_eq!(r["allowed"], false, "{r}\n{ctx}");
    assert_eq!(r["decision"]["reason"], "contradicted", "{r}\n{ctx}");
    assert!(ctx.contains("\"kind\":\"response\"") || ctx.contains("\"kind\": String(\"response\")"), "{ctx}");

    // A structured refutation (data part), the answers as one JSON result each.
    let (r, ctx) =
        case("refuted-data", &[("proposer", proposer), ("auditor", data_refuter)], &["--no-stream"]);
    assert_eq!(r["allowed"], false, "{r}\n{ctx}");
    assert_eq!(r["decision"]["reason"], "contradicted", "{r}\n{ctx}");

    // The same, the client not waiting (`returnImmediately`) and polling `GetTask`: the interim
    // "working" status is not the reviewer's judgement; the refutation in the final task counts.
    let (r, ctx) = case("refuted-polled", &[("proposer", proposer), ("auditor", data_refuter)], &["--poll"]);
    assert_eq!(r["allowed"], false, "{r}\n{ctx}");
    assert_eq!(r["decision"]["reason"], "contradicted", "{r}\n{ctx}");
    assert!(ctx.contains("polled"), "the client polled: {ctx}");

    // The same over the HTTP+JSON binding: streamed, and polled with `GET /tasks/{id}`.
    let rest = "HTTP+JSON";
    let (r, ctx) = case(
        "refuted-rest",
        &[("proposer", proposer), ("reviewer", text_refuter)],
        &["--stream", "--binding", rest],
    );
    assert_eq!(r["allowed"], false, "{r}\n{ctx}");
    assert_eq!(r["decision"]["reason"], "contradicted", "{r}\n{ctx}");
    let (r, ctx) = case(
        "refuted-rest-polled",
        &[("proposer", proposer), ("auditor", data_refuter)],
        &["--poll", "--binding", rest],
    );
    assert_eq!(r["allowed"], false, "{r}\n{ctx}");
    assert_eq!(r["decision"]["reason"], "contradicted", "{r}\n{ctx}");
    assert!(ctx.contains("polled"), "the client polled: {ctx}");

    // No refutation, an independent verification instead: the granted command runs.
    let (r, ctx) = case("unrefuted", &[("proposer", proposer), ("checker", approver)], &["--stream"]);
    assert_eq!(r["allowed"], true, "{r}\n{ctx}");
}
