//! The model-API proxy of `blindfold run` pairs each request with the harness session its plugin
//! registered: a session tag (issued over the control API to the adapter-token holder, carried in
//! `X-Blindfold-Session` or as a system-prompt marker the model never sees) names the trajectory
//! and actor; with `[model_proxy] sessions = "required"` a request without one, with a forged
//! one, or naming a task without the adapter token, gets every tool call refused. After a daemon
//! restart the same tag names the same trajectory, with the same aliases.

mod model_proxy_support;

use blindfold_integration_tests::openclaw::control_call;
use blindfold_integration_tests::transports::{World, http_post, run_daemon, trace_records};
use model_proxy_support::ScriptedModel;
use serde_json::{Value, json};

const AGENTS: &str = "[[identity.agents]]\nid = \"scout\"\nmodel = \"quill-mini-4\"\nprovider = \"Quillworks\"\n\n\
                      [[identity.agents]]\nid = \"critic\"\nmodel = \"lattice-7b\"\nprovider = \"Latticeworks\"\n";

/// A chat request asking the scripted model for a `bash` call; `system` is the system prompt.
fn run_bash(system: &str) -> String {
    json!({"model": "m", "stream": false, "messages": [
        {"role": "system", "content": system}, {"role": "user", "content": "run-bash"}]})
    .to_string()
}

/// Posts `body` with `headers` to the proxy; returns the answer's JSON.
fn post(proxy: u16, headers: &[(&str, &str)], body: &str) -> Value {
    let mut all = vec![("Content-Type", "application/json")];
    all.extend_from_slice(headers);
    let (code, _, text) = http_post(proxy, "/v1/chat/completions", &all, body);
    assert_eq!(code, 200, "{text}");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The text of an answer whose call Blindfold replaced, or "" when a call went to the harness.
fn refusal(answer: &Value) -> String {
    let msg = &answer["choices"][0]["message"];
    assert!(msg["tool_calls"].as_array().is_none_or(Vec::is_empty), "a call reached the harness: {answer}");
    msg["content"].as_str().unwrap_or_default().to_owned()
}

fn start(
    w: &World,
    model: &ScriptedModel,
    proxy: u16,
) -> (blindfold_integration_tests::transports::Peer, u16) {
    let extra = format!(
        "[model_proxy]\nupstream = \"http://127.0.0.1:{}\"\nlisten = \"127.0.0.1:{proxy}\"\nsessions = \"required\"\n",
        model.port
    );
    run_daemon(w, &extra)
}

fn adapter(w: &World) -> String {
    std::fs::read_to_string(w.state.join("adapter.token")).expect("adapter token").trim().to_owned()
}

/// The latest `aliases` record of `trajectory`: (how, agent → alias).
fn aliases(w: &World, trajectory: &str) -> (String, Value) {
    let records = trace_records(&w.state.join("traces"), trajectory);
    let last = records
        .iter()
        .rev()
        .find(|r| r["kind"] == "control" && r["tool"] == "aliases")
        .unwrap_or_else(|| panic!("no aliases record of {trajectory}: {records:?}"));
    let detail: Value = serde_json::from_str(last["detail"].as_str().unwrap_or("{}")).expect("detail");
    (last["target"].as_str().unwrap_or_default().to_owned(), detail["aliases"].clone())
}

#[test]
fn requests_are_paired_with_registered_sessions_and_unpaired_ones_run_no_tool() {
    let w = World::new(AGENTS);
    let model = ScriptedModel::start(w.dir.path());
    let proxy = blindfold_integration_tests::free_port();
    let (daemon, port) = start(&w, &model, proxy);
    let token = adapter(&w);

    // No session: the bash call is refused, never forwarded.
    let text = refusal(&post(proxy, &[], &run_bash("You are a coding agent.")));
    assert!(text.contains("unpaired_session"), "{text}");
    // A task named without the adapter token names nothing; a made-up tag neither.
    let text = refusal(&post(proxy, &[("X-Blindfold-Task", "t-named")], &run_bash("s")));
    assert!(text.contains("unpaired_session"), "{text}");
    let forged =
        "bf1.dC1zMQ.Y29vcmRpbmF0b3I.00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
    let text = refusal(&post(proxy, &[("X-Blindfold-Session", forged)], &run_bash("s")));
    assert!(text.contains("unpaired_session"), "{text}");

    // A registered session: its tag routes the request to its trajectory, where the engine
    // decides (no grant for the bash call); the marker never reaches the model.
    let reg = control_call(port, &token, "openclaw.session", json!({"trajectory": "t-s1"}));
    let tag = reg["result"]["tag"].as_str().unwrap_or_else(|| panic!("{reg}")).to_owned();
    let marked = format!("You are a coding agent.\n[[blindfold-session:{tag}]]");
    let text = refusal(&post(proxy, &[], &run_bash(&marked)));
    assert!(text.contains("no_grant"), "{text}");
    let upstream = model.requests().last().cloned().expect("a request reached the model");
    assert!(
        !upstream["body"].to_string().contains("blindfold-session"),
        "the marker reached the model: {upstream}"
    );
    let text = refusal(&post(proxy, &[("X-Blindfold-Session", &tag)], &run_bash("s")));
    assert!(text.contains("no_grant"), "{text}");
    let upstream = model.requests().last().cloned().expect("request");
    assert_eq!(upstream["x-blindfold-session"], Value::Null, "the tag stays local: {upstream}");
    // The adapter token makes a named task count.
    let text = refusal(&post(
        proxy,
        &[("X-Blindfold-Task", "t-named"), ("X-Blindfold-Token", &token)],
        &run_bash("s"),
    ));
    assert!(text.contains("no_grant"), "{text}");

    let records = trace_records(&w.state.join("traces"), "t-s1");
    let refused: Vec<&Value> = records.iter().filter(|r| r["kind"] == "tool_call").collect();
    assert_eq!(refused.len(), 2, "one record per refused call: {records:?}");
    assert!(refused.iter().all(|r| r["reason"] == "no_grant" && r["actor_alias"] == "coordinator"));
    let (how, before) = aliases(&w, "t-s1");
    assert_eq!(how, "drawn");
    assert_eq!(before.as_object().map(|m| m.len()), Some(2), "{before}");
    let sessions = control_call(port, &token, "sessions", json!({}));
    let seen = &sessions["result"]["sessions"][0];
    assert_eq!((seen["trajectory"].as_str(), seen["harness"].as_str()), (Some("t-s1"), Some("openclaw")));
    assert!(seen["proxy_ms"].as_u64() > Some(0), "{sessions}");

    // A restart: the same tag, the same trajectory, the same aliases.
    drop(daemon);
    let (_daemon, _port) = start(&w, &model, proxy);
    let text = refusal(&post(proxy, &[("X-Blindfold-Session", &tag)], &run_bash("s")));
    assert!(text.contains("no_grant"), "{text}");
    let (how, after) = aliases(&w, "t-s1");
    assert_eq!((how.as_str(), &after), ("restored", &before));
}
