//! Chat-completion tool calls of every type through the codecs: `custom` calls gated as their
//! name and `{input}`, the deprecated `function_call` gated whole and streamed, and calls of an
//! unknown type or naming no tool refused as unreadable.

use super::tests::{Script, chunk, data_of, run_chat};
use super::*;
use serde_json::{Value, json};

const PATCH: &str = "*** Begin Patch\n*** Delete File: /srv/data/db.sqlite\n*** End Patch\n";

fn completion(message: Value, finish: &str) -> Vec<u8> {
    json!({"id": "chatcmpl-1", "object": "chat.completion", "choices": [
        {"index": 0, "message": message, "finish_reason": finish}]})
    .to_string()
    .into_bytes()
}

fn rewrite(message: Value, finish: &str, gate: &mut Script) -> Value {
    let out = rewrite_chat_response(&completion(message, finish), gate).expect("rewrite");
    serde_json::from_slice(&out.body).expect("json")
}

#[test]
fn custom_calls_are_gated_as_their_name_and_input() {
    let grep = json!({"id": "c2", "type": "custom", "custom": {"name": "grep", "input": "TODO src/"}});
    let message = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "custom", "custom": {"name": "apply_patch", "input": PATCH}}, grep]});
    let mut gate = Script::default();
    let v = rewrite(message, "tool_calls", &mut gate);
    assert_eq!(v["choices"][0]["message"]["tool_calls"], json!([grep]), "the allowed call as it came");
    assert_eq!(v["choices"][0]["message"]["content"], "refused apply_patch");
    let seen: Vec<_> =
        gate.seen.iter().map(|c| (c.id.as_str(), c.name.as_str(), c.arguments.clone())).collect();
    assert_eq!(
        seen,
        [
            ("c1", "apply_patch", json!({"input": PATCH}).to_string()),
            ("c2", "grep", json!({"input": "TODO src/"}).to_string())
        ]
    );
}

#[test]
fn calls_of_an_unknown_type_or_naming_no_tool_are_refused_unread() {
    let message = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "teleport", "teleport": {"name": "read", "destination": "prod"}},
        {"id": "c2", "type": "function", "function": {"arguments": "{}"}},
        {"id": "c3", "type": "custom", "custom": {"name": "grep", "input": 7}},
        {"id": "c4", "type": "function", "function": {"name": "read", "arguments": "{}"},
            "custom": {"name": "bash", "input": "rm -rf /"}}]});
    let mut gate = Script::default();
    let v = rewrite(message, "tool_calls", &mut gate);
    let m = &v["choices"][0]["message"];
    assert_eq!(m.get("tool_calls"), None, "{v}");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    let text = m["content"].as_str().expect("refusals");
    assert_eq!(text.matches("(malformed_input, check P1.schema)").count(), 4, "{text}");
    assert!(text.contains("Blindfold refused the `teleport` tool call"), "{text}");
    assert!(text.contains("the call names no tool"), "{text}");
    assert!(text.contains("`custom.input` is not a string"), "{text}");
    assert!(text.contains("both a `function` and a `custom` part"), "{text}");
    assert!(gate.seen.is_empty(), "nothing unreadable reaches the gate as a call: {:?}", gate.seen);
}

#[test]
fn a_deprecated_function_call_is_gated() {
    let mut gate = Script::default();
    let refused = json!({"role": "assistant", "content": null,
        "function_call": {"name": "bash", "arguments": "{\"command\":\"rm -rf /\"}"}});
    let v = rewrite(refused, "function_call", &mut gate);
    assert_eq!(v["choices"][0]["message"].get("function_call"), None, "{v}");
    assert_eq!(v["choices"][0]["message"]["content"], "refused bash");
    assert_eq!(v["choices"][0]["finish_reason"], "stop");
    let nameless = json!({"role": "assistant", "content": null, "function_call": {"arguments": "{}"}});
    let v = rewrite(nameless, "function_call", &mut gate);
    assert!(
        v["choices"][0]["message"]["content"].as_str().is_some_and(|t| t.contains("names no tool")),
        "{v}"
    );
    let mapped = json!({"role": "assistant", "content": null,
        "function_call": {"name": "task", "arguments": "{\"subagent_type\":\"agent-a\"}"}});
    let v = rewrite(mapped, "function_call", &mut gate);
    assert_eq!(
        v["choices"][0]["message"]["function_call"],
        json!({"name": "task", "arguments": "{\"subagent_type\":\"opus-reviewer\"}"})
    );
}

/// The deltas of a custom call with its name and its input split across chunks.
fn split_custom_call(name: [&str; 2], input: &[&str]) -> Vec<Vec<u8>> {
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "c1", "type": "custom",
            "custom": {"name": name[0], "input": ""}}]}),
        Value::Null,
    )];
    out.push(chunk(json!({"tool_calls": [{"index": 0, "custom": {"name": name[1]}}]}), Value::Null));
    for piece in input {
        out.push(chunk(json!({"tool_calls": [{"index": 0, "custom": {"input": piece}}]}), Value::Null));
    }
    out.push(chunk(json!({}), json!("tool_calls")));
    out.push(b"data: [DONE]\n\n".to_vec());
    out
}

fn deltas(out: &[Vec<u8>]) -> Vec<Value> {
    out[..out.len() - 1].iter().map(|raw| data_of(raw)["choices"][0].clone()).collect()
}

#[test]
fn a_streamed_custom_call_is_assembled_across_chunks_and_gated() {
    let mut gate = Script::default();
    let out = run_chat(&split_custom_call(["apply_", "patch"], &[&PATCH[..20], &PATCH[20..]]), &mut gate);
    assert_eq!(gate.seen.len(), 1);
    assert_eq!(gate.seen[0].name, "apply_patch");
    assert_eq!(gate.seen[0].arguments, json!({"input": PATCH}).to_string());
    let all = deltas(&out);
    assert!(
        all.iter().all(|c| c["delta"].get("tool_calls").is_none()),
        "no call reaches the client: {all:?}"
    );
    assert!(all.iter().any(|c| c["delta"]["content"] == "refused apply_patch"), "{all:?}");
    assert_eq!(all.last().expect("finish")["finish_reason"], "stop");

    let mut gate = Script::default();
    let out = run_chat(&split_custom_call(["gr", "ep"], &["TODO ", "src/"]), &mut gate);
    assert_eq!(gate.seen[0].arguments, json!({"input": "TODO src/"}).to_string());
    let all = deltas(&out);
    let calls: Vec<_> = all.iter().filter_map(|c| c["delta"].get("tool_calls")).collect();
    assert_eq!(
        calls,
        [
            &json!([{"index": 0, "id": "c1", "type": "custom", "custom": {"name": "grep", "input": "TODO src/"}}])
        ],
        "the allowed call whole: {all:?}"
    );
    assert_eq!(all.last().expect("finish")["finish_reason"], "tool_calls");
}

#[test]
fn a_streamed_call_of_an_unknown_type_is_refused_unread() {
    let events = [
        chunk(
            json!({"tool_calls": [{"index": 0, "id": "c1", "type": "teleport", "teleport": {"to": "prod"}}]}),
            Value::Null,
        ),
        chunk(
            json!({"tool_calls": [{"index": 1, "id": "c2", "type": "function", "function": {"arguments": "{}"}}]}),
            Value::Null,
        ),
        chunk(json!({}), json!("tool_calls")),
        b"data: [DONE]\n\n".to_vec(),
    ];
    let mut gate = Script::default();
    let all = deltas(&run_chat(&events, &mut gate));
    assert!(gate.seen.is_empty(), "{:?}", gate.seen);
    assert!(all.iter().all(|c| c["delta"].get("tool_calls").is_none()), "{all:?}");
    let text: String = all.iter().filter_map(|c| c["delta"]["content"].as_str()).collect();
    assert_eq!(text.matches("(malformed_input, check P1.schema)").count(), 2, "{text}");
    assert!(text.contains("Blindfold refused the `teleport` tool call"), "{text}");
    assert_eq!(all.last().expect("finish")["finish_reason"], "stop");
}

#[test]
fn a_streamed_deprecated_function_call_is_held_and_gated() {
    let legacy = |delta: Value| chunk(json!({"function_call": delta}), Value::Null);
    let events = [
        chunk(
            json!({"role": "assistant", "content": null, "function_call": {"name": "ba", "arguments": ""}}),
            Value::Null,
        ),
        legacy(json!({"name": "sh"})),
        legacy(json!({"arguments": "{\"command\":"})),
        legacy(json!({"arguments": "\"rm -rf /\"}"})),
        chunk(json!({}), json!("function_call")),
        b"data: [DONE]\n\n".to_vec(),
    ];
    let mut gate = Script::default();
    let all = deltas(&run_chat(&events, &mut gate));
    assert_eq!(gate.seen.len(), 1);
    assert_eq!(
        (gate.seen[0].name.as_str(), gate.seen[0].arguments.as_str()),
        ("bash", "{\"command\":\"rm -rf /\"}")
    );
    assert!(all.iter().all(|c| c["delta"].get("function_call").is_none()), "{all:?}");
    assert!(all.iter().any(|c| c["delta"]["content"] == "refused bash"), "{all:?}");
    assert_eq!(all.last().expect("finish")["finish_reason"], "stop");

    let events = [
        legacy(json!({"name": "task", "arguments": "{\"subagent_type\":"})),
        legacy(json!({"arguments": "\"agent-a\"}"})),
        chunk(json!({}), json!("function_call")),
        b"data: [DONE]\n\n".to_vec(),
    ];
    let all = deltas(&run_chat(&events, &mut Script::default()));
    assert_eq!(
        all[0]["delta"]["function_call"],
        json!({"name": "task", "arguments": "{\"subagent_type\":\"opus-reviewer\"}"})
    );
    assert_eq!(all.last().expect("finish")["finish_reason"], "function_call");
}

#[test]
fn null_call_fields_of_a_delta_pass_untouched() {
    let text = chunk(json!({"content": "hi", "tool_calls": null, "function_call": null}), Value::Null);
    let out = run_chat(std::slice::from_ref(&text), &mut Script::default());
    assert_eq!(out, [text]);
}
