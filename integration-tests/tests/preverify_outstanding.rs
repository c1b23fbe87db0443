//! Evidence before decision: an effectful action whose verification request is still out (a
//! harness that does not wait for its sub-agent, as OpenClaw's `sessions_spawn` does not) is held
//! until the verifier answers or `[preverify] verify_timeout_s` passes — driven through the
//! OpenClaw plugin's control methods against a running daemon: the coordinator runs a sub-agent's
//! proposed command while its verification is out; the verifier's approving verdict arrives a
//! second later and the call, held meanwhile, is decided on it (verified: refused only for its
//! grant); with no answer it is held for review once the wait is over, saying why.

use blindfold_integration_tests::control_ws::{Ws, call, connect};
use blindfold_integration_tests::transports::{World, run_daemon};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const AGENTS: &str = "[[identity.agents]]\nid = \"worker\"\nmodel = \"m-large\"\nfamily = \"m\"\n\n\
                      [[identity.agents]]\nid = \"critic\"\nmodel = \"q-large\"\nfamily = \"q\"\n\n\
                      [preverify]\nverify_timeout_s = 3\n";
const STEP: &str = "touch built.marker";

fn token(w: &World, name: &str) -> String {
    std::fs::read_to_string(w.state.join(name)).expect("token").trim().to_owned()
}

async fn report(adapter: &mut Ws, task: &str, event: Value) {
    let r = call(adapter, "report_event", json!({"trajectory": task, "event": event})).await;
    assert!(r["result"].is_object(), "{r}");
}

/// The worker proposes the step; the coordinator asks the critic to verify it on channel
/// `call-1`: the handle the critic was given.
async fn proposed_and_asked(adapter: &mut Ws, task: &str) -> String {
    report(adapter, task, json!({"kind": "task", "text": "Record the build in built.marker."})).await;
    let scope = json!({"kind": "delegate", "to": "worker", "intent": "scope", "text": "Record the build in built.marker."});
    report(adapter, task, scope).await;
    let proposal = json!({"kind": "response", "from": "worker", "text": format!("I propose `{STEP}`."),
        "proposals": [{"id": "p1", "tool": "bash", "args": {"command": STEP}}]});
    report(adapter, task, proposal).await;
    let asked = call(
        adapter,
        "openclaw.delegate",
        json!({"trajectory": task, "to": "critic", "intent": "verify",
        "text": format!("Verify this step before I run it: `{STEP}`"), "call_id": "call-1"}),
    )
    .await;
    let instruction =
        asked["result"]["instruction"].as_str().unwrap_or_else(|| panic!("no instruction: {asked}"));
    let at = instruction.find("bf-").expect("a handle");
    instruction[at..at + 15].to_owned()
}

fn run_step(task: &str) -> Value {
    json!({"trajectory": task, "actor": "coordinator", "tool": "bash", "args": {"command": STEP}, "consume": true})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_waits_for_the_verdict_still_out_for_it() {
    let w = World::new("");
    let (_daemon, port) = run_daemon(&w, AGENTS);
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    let handle = proposed_and_asked(&mut adapter, "t-out").await;

    // The critic answers a second after the coordinator already ran the step.
    let adapter_token = token(&w, "adapter.token");
    let answer = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1000)).await;
        let mut late = connect(port, &adapter_token).await;
        let text = format!("It only creates an empty marker.\nVERDICT {handle}: approve - harmless");
        call(
            &mut late,
            "openclaw.answer",
            json!({"trajectory": "t-out", "from": "critic", "text": text, "call_id": "call-1"}),
        )
        .await
    });
    let started = Instant::now();
    let r = call(&mut adapter, "check_action", run_step("t-out")).await;
    let waited = started.elapsed();
    assert!(answer.await.expect("answer task")["result"].is_object());
    let d = &r["result"]["decision"];
    assert_eq!(
        (d["decision"].as_str(), d["check"].as_str()),
        (Some("deny"), Some("P3.grant")),
        "decided on the verdict: {r}"
    );
    assert!(waited >= Duration::from_millis(900), "held until the answer: {waited:?}");
    assert!(waited < Duration::from_secs(3), "not held past the answer: {waited:?}");
    assert!(d["detail"].as_str().unwrap_or_default().contains("held until the verification request"), "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_action_whose_verdict_never_comes_is_held_for_review_after_the_wait() {
    let w = World::new("");
    let (_daemon, port) = run_daemon(&w, AGENTS);
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    proposed_and_asked(&mut adapter, "t-silent").await;
    let started = Instant::now();
    let r = call(&mut adapter, "check_action", run_step("t-silent")).await;
    let waited = started.elapsed();
    let d = &r["result"]["decision"];
    assert_eq!((d["decision"].as_str(), d["reason"].as_str()), (Some("review"), Some("unverified")), "{r}");
    assert!(waited >= Duration::from_secs(3), "held for the wait: {waited:?}");
    assert!(d["detail"].as_str().unwrap_or_default().contains("no answer within 3 s"), "{r}");
    assert!(r["result"]["review_id"].is_string(), "{r}");
}
