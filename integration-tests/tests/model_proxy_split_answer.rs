//! Model-API stream deltas and identity (SPEC §4): the proxy rewrites what the model *reads*,
//! not the answers it relays, so a sub-agent's streamed answer naming its model ("I am Cl" +
//! "aude Op" + "us 4 by" + " Anthro" + "pic; …", cut across deltas by the scripted model) reaches
//! its harness as sent, on chat completions and Anthropic messages, streamed. That answer reaches
//! the coordinator's model only as a delegation tool's result inside a later request, joined by
//! the harness: there it is rewritten whole, and the leak oracle (no code shared with the
//! anonymizer) finds no name in what the upstream model received.

mod model_proxy_support;

use blindfold_leak_oracle::LeakOracle;
use model_proxy_support::{ModelProxy, ScriptedModel, post_json, run_client};
use serde_json::{Value, json};

const ANSWER: &str = "I am Claude Opus 4 by Anthropic; the review found two issues.";

#[test]
fn a_split_answer_is_relayed_as_sent_and_scrubbed_whole_when_the_coordinator_reads_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let proxy = ModelProxy::start(dir.path(), model.port, &[], &[]);
    let oracle = LeakOracle::new(["claude", "opus", "anthropic"]);
    // The sub-agent's own model answer, streamed in deltas cut inside the names.
    let cases = json!([
        {"sdk": "openai", "api": "chat", "stream": true, "say": "name-yourself", "system": "You review."},
        {"sdk": "anthropic", "api": "messages", "stream": true, "say": "name-yourself", "system": "You review."}]);
    for r in run_client(dir.path(), &proxy.base(), &cases) {
        assert_eq!(r["text"], ANSWER, "relayed as the model sent it: {r}");
    }
    // The coordinator's next request carries that answer as the `task` tool's result.
    let call = json!({"id": "c1", "type": "function", "function": {"name": "task",
        "arguments": "{\"subagent_type\":\"reviewer\",\"prompt\":\"review\"}"}});
    let chat = json!({"model": "scripted-1", "stream": true, "messages": [
        {"role": "user", "content": "Have the change reviewed."},
        {"role": "assistant", "content": null, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": format!("<task_result>{ANSWER}</task_result>")}]});
    let messages = json!({"model": "scripted-1", "max_tokens": 64, "stream": true, "messages": [
        {"role": "user", "content": "Have the change reviewed."},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "task",
            "input": {"subagent_type": "reviewer", "prompt": "review"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": ANSWER}]}]});
    for (path, body) in [("/v1/chat/completions", &chat), ("/v1/messages", &messages)] {
        let answer = post_json(proxy.port, path, body);
        assert!(answer.starts_with("HTTP/1.1 200"), "{path}: {answer}");
    }
    let log = model.requests();
    let bodies: Vec<&Value> = log.iter().filter_map(|r| r.get("body")).collect();
    assert_eq!(bodies.len(), 4, "{log:?}");
    for answer_request in &bodies[..2] {
        assert!(oracle.count_json(answer_request) == 0, "the sub-agent's own request names nothing");
    }
    for read in &bodies[2..] {
        let mut read = (*read).clone();
        read["model"] = Value::Null;
        assert_eq!(oracle.report_json(&read), Vec::<(String, usize)>::new(), "{read}");
        let text = read.to_string();
        assert!(text.contains("I am [model] by [provider]; the review found two issues."), "{read}");
    }
}
