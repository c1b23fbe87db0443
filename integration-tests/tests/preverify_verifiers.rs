//! Verification Blindfold asks for itself (`[preverify] verifiers`), against an official
//! `a2a-sdk` verifier and a scripted OpenAI-compatible endpoint, each answering as a model
//! would (prose, then the verdict line for the handle it was sent): a sub-agent's granted write
//! that arrives unverified is held while Blindfold asks, verified, and runs — traced as a verify
//! delegation to the verifier and its answer before the decision; without a grant the verified
//! write is still refused for the grant; the verifier asked is never of the proposer's true
//! family (a proposer of the A2A verifier's family gets the chat one); a refusing verifier
//! holds the write as disputed, a silent one and a prose-only approval leave it in review, and
//! a refused or unanswered action is not asked about again.

use blindfold_integration_tests::control_ws::{Ws, call, connect};
use blindfold_integration_tests::free_port;
use blindfold_integration_tests::transports::{Peer, World, python_peer, run_daemon, wait_port};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// The agents of the harness: `worker` of family m, `qworker` of family q.
const AGENTS: &str = "[[identity.agents]]\nid = \"worker\"\nmodel = \"m-large\"\nfamily = \"m\"\n\n\
                      [[identity.agents]]\nid = \"qworker\"\nmodel = \"q-large\"\nfamily = \"q\"\n";

/// Starts an A2A verifier and a chat verifier in `modes` (A2A of family q listed first, chat
/// of family r); the verifiers' config and their request records.
fn verifiers(w: &World, modes: (&str, &str)) -> (Vec<Peer>, String, std::path::PathBuf, std::path::PathBuf) {
    let (a2a_port, chat_port) = (free_port(), free_port());
    let (a2a_rec, chat_rec) = (w.path("a2a-verifier.jsonl"), w.path("chat-verifier.jsonl"));
    let rec = |p: &Path| p.to_str().expect("utf8 path").to_owned();
    let peers = vec![
        python_peer("a2a_verifier.py", &[&a2a_port.to_string(), modes.0, &rec(&a2a_rec)]),
        python_peer("chat_verifier.py", &[&chat_port.to_string(), modes.1, &rec(&chat_rec)]),
    ];
    wait_port(a2a_port, Duration::from_secs(30));
    wait_port(chat_port, Duration::from_secs(30));
    let config = format!(
        "{AGENTS}\n[preverify]\nverify_timeout_s = 3\n\n\
         [[preverify.verifiers]]\nid = \"checker\"\na2a_url = \"http://127.0.0.1:{a2a_port}/a2a/jsonrpc\"\nfamily = \"q\"\n\n\
         [[preverify.verifiers]]\nid = \"second\"\nchat_url = \"http://127.0.0.1:{chat_port}/v1/chat/completions\"\nmodel = \"r-small\"\nfamily = \"r\"\n"
    );
    (peers, config, a2a_rec, chat_rec)
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap_or_default().lines().map(str::to_owned).collect()
}

fn token(w: &World, name: &str) -> String {
    std::fs::read_to_string(w.state.join(name)).expect("token").trim().to_owned()
}

/// `actor`'s own write of `path` in trajectory `task`.
fn write(task: &str, actor: &str, path: &str) -> Value {
    json!({"trajectory": task, "actor": actor, "tool": "write_file",
        "args": {"path": path, "content": "notes\n"}, "consume": true})
}

/// The trace records of trajectory `task`, in order.
fn trace(w: &World, task: &str) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(w.state.join("traces")).expect("traces").flatten() {
        for line in std::fs::read_to_string(entry.path()).unwrap_or_default().lines() {
            if let Ok(v) = serde_json::from_str::<Value>(line)
                && v["trajectory"] == task
            {
                out.push(v);
            }
        }
    }
    out.sort_by_key(|v| v["seq"].as_u64().unwrap_or(0));
    out
}

/// The coordinator gives `agent` the work of writing `path` in `task`; `path` is granted.
async fn granted(w: &World, op: &mut Ws, adapter: &mut Ws, task: &str, agent: &str, path: &str) {
    scoped(adapter, task, agent, path).await;
    grant(w, op, task, path).await;
}

/// The coordinator gives `agent` the work of writing `path` in `task`.
async fn scoped(adapter: &mut Ws, task: &str, agent: &str, path: &str) {
    let delegate = json!({"kind": "delegate", "to": agent, "intent": "scope", "text": format!("Write the notes to {path}.")});
    let r = call(adapter, "report_event", json!({"trajectory": task, "event": delegate})).await;
    assert!(r["result"].is_object(), "{r}");
}

async fn grant(w: &World, op: &mut Ws, task: &str, path: &str) {
    let token = w.issue(task, "write_file", path, b"notes\n");
    let r = call(op, "submit_grant", json!({"token": token})).await;
    assert_eq!(r["result"]["accepted"], true, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unverified_granted_write_is_verified_by_blindfold_and_runs() {
    let w = World::new("");
    let (_peers, config, a2a_rec, chat_rec) = verifiers(&w, ("approve", "approve"));
    let (_daemon, port) = run_daemon(&w, &config);
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    let mut op = connect(port, &token(&w, "operator.token")).await;

    // A sub-agent of family m writes with a grant: the A2A verifier (family q) is asked.
    granted(&w, &mut op, &mut adapter, "t-a2a", "worker", "/w/notes.md").await;
    let r = call(&mut adapter, "check_action", write("t-a2a", "worker", "/w/notes.md")).await;
    assert_eq!(r["result"]["allowed"], true, "verified by Blindfold's verifier, then granted: {r}");
    let asked = lines(&a2a_rec);
    assert_eq!(asked.len(), 1, "one request to the A2A verifier: {asked:?}");
    assert!(asked[0].contains("write_file") && asked[0].contains("/w/notes.md"), "{}", asked[0]);
    assert!(
        asked[0].contains("VERDICT <handle>") && asked[0].contains("bf-"),
        "the instruction names a handle: {}",
        asked[0]
    );
    assert!(
        !asked[0].contains("m-large") && !asked[0].contains("worker"),
        "no agent named to the verifier: {}",
        asked[0]
    );
    assert!(lines(&chat_rec).is_empty(), "the chat verifier was not needed");
    let records = trace(&w, "t-a2a");
    let kinds: Vec<String> = records
        .iter()
        .map(|r| format!("{}:{}", r["kind"].as_str().unwrap_or("-"), r["decision"].as_str().unwrap_or("-")))
        .collect();
    let pos = |pred: &dyn Fn(&Value) -> bool| records.iter().position(pred);
    let verifier = |r: &Value| r["actor_true"]["family"] == "q" && r["actor_true"]["model"] == "";
    let delegated = pos(&|r| r["kind"] == "delegate" && r["intent"] == "verify" && verifier(r));
    let answered = pos(&|r| {
        r["kind"] == "response" && verifier(r) && r["relations"][0]["counts_as_verification"] == true
    });
    let allowed =
        pos(&|r| r["kind"] == "tool_call" && r["decision"] == "allow" && r["actor_true"]["family"] == "m");
    assert!(
        matches!((delegated, answered, allowed), (Some(d), Some(a), Some(x)) if d < a && a < x),
        "verify delegation, its answer, then the allowed write: {kinds:?}"
    );

    // Verified, but no grant: the cascade goes on to the grant check and refuses it for that.
    scoped(&mut adapter, "t-nogrant", "worker", "/w/other.md").await;
    let r = call(&mut adapter, "check_action", write("t-nogrant", "worker", "/w/other.md")).await;
    assert_eq!(r["result"]["allowed"], false, "{r}");
    assert_eq!(r["result"]["decision"]["check"], "P3.grant", "verified, then refused for the grant: {r}");
    assert!(!r.to_string().contains("checker"), "the model reads no verifier's name: {r}");
    assert_eq!(lines(&a2a_rec).len(), 2);

    // A proposer of the A2A verifier's own family (q): the chat verifier (family r) is asked.
    granted(&w, &mut op, &mut adapter, "t-q", "qworker", "/w/q.md").await;
    let r = call(&mut adapter, "check_action", write("t-q", "qworker", "/w/q.md")).await;
    assert_eq!(r["result"]["allowed"], true, "{r}");
    assert_eq!(lines(&a2a_rec).len(), 2, "never a verifier of the proposer's family");
    let chat = lines(&chat_rec);
    assert_eq!(chat.len(), 1, "{chat:?}");
    let body: Value = serde_json::from_str(&chat[0]).expect("chat request");
    assert_eq!(body["model"], "r-small");
    assert_eq!(body["temperature"], 0);
    let metrics = blindfold_integration_tests::http_get(port, "/metrics").map(|(_, b)| b).unwrap_or_default();
    assert!(metrics.contains("blindfold_verifier_requests_total"), "{metrics}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusing_or_silent_verifier_sends_the_write_to_review() {
    let w = World::new("");
    let (_peers, config, a2a_rec, chat_rec) = verifiers(&w, ("refuse", "silent"));
    let (_daemon, port) = run_daemon(&w, &config);
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    let mut op = connect(port, &token(&w, "operator.token")).await;

    granted(&w, &mut op, &mut adapter, "t-refuse", "worker", "/w/notes.md").await;
    let r = call(&mut adapter, "check_action", write("t-refuse", "worker", "/w/notes.md")).await;
    assert_eq!(r["result"]["allowed"], false, "{r}");
    let d = &r["result"]["decision"];
    assert_eq!(
        (d["decision"].as_str(), d["reason"].as_str(), d["check"].as_str()),
        (Some("review"), Some("contradicted"), Some("P3.contradiction")),
        "{r}"
    );
    assert!(r["result"]["review_id"].is_string(), "held for a human: {r}");
    assert!(d["detail"].as_str().unwrap_or_default().contains("refuse"), "{r}");
    // The same action again: not asked again, still held.
    let again = call(&mut adapter, "check_action", write("t-refuse", "worker", "/w/notes.md")).await;
    assert_eq!(again["result"]["allowed"], false, "{again}");
    assert_eq!(lines(&a2a_rec).len(), 1, "a refused action is not asked about twice");

    // The chat verifier never answers: held as unverified once the wait is over.
    granted(&w, &mut op, &mut adapter, "t-silent", "qworker", "/w/q.md").await;
    let started = std::time::Instant::now();
    let r = call(&mut adapter, "check_action", write("t-silent", "qworker", "/w/q.md")).await;
    let waited = started.elapsed();
    assert_eq!(r["result"]["allowed"], false, "{r}");
    let d = &r["result"]["decision"];
    assert_eq!((d["decision"].as_str(), d["reason"].as_str()), (Some("review"), Some("unverified")), "{r}");
    assert!(d["detail"].as_str().unwrap_or_default().contains("no answer within 3 s"), "{r}");
    assert!(waited >= Duration::from_secs(3), "held for the wait: {waited:?}");
    assert!(r["result"]["review_id"].is_string(), "{r}");
    assert_eq!(lines(&chat_rec).len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prose_approval_or_a_verdict_for_another_handle_verifies_nothing() {
    let w = World::new("");
    let (_peers, config, a2a_rec, chat_rec) = verifiers(&w, ("prose", "wrong"));
    let (_daemon, port) = run_daemon(&w, &config);
    let mut adapter = connect(port, &token(&w, "adapter.token")).await;
    let mut op = connect(port, &token(&w, "operator.token")).await;
    for (task, actor, path, rec) in
        [("t-prose", "worker", "/w/a.md", &a2a_rec), ("t-wrong", "qworker", "/w/b.md", &chat_rec)]
    {
        granted(&w, &mut op, &mut adapter, task, actor, path).await;
        let r = call(&mut adapter, "check_action", write(task, actor, path)).await;
        assert_eq!(r["result"]["allowed"], false, "{task}: {r}");
        assert_eq!(r["result"]["decision"]["reason"], "unverified", "{task}: {r}");
        assert!(r["result"]["review_id"].is_string(), "{task}: {r}");
        assert_eq!(lines(rec).len(), 1, "{task}");
    }
}
