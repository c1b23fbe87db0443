//! Anthropic content blocks through the codecs: `tool_use` is gated, blocks of the tools Anthropic
//! runs itself and of thinking pass, a block of an unknown type or a `tool_use` naming no tool is
//! refused unread, whole and streamed; a stream's `message_start` content and a `tool_use` start's
//! own input are gated too.

use super::tests::{Script, anthropic_event, data_of, decode_all};
use super::*;
use serde_json::{Value, json};

fn rewrite(content: Value, gate: &mut Script) -> Value {
    let resp = json!({"type": "message", "stop_reason": "tool_use", "content": content});
    let out = rewrite_messages_response(resp.to_string().as_bytes(), gate).expect("rewrite");
    serde_json::from_slice(&out.body).expect("json")
}

fn provider_blocks() -> Vec<Value> {
    vec![
        json!({"type": "thinking", "thinking": "search first", "signature": "sig"}),
        json!({"type": "redacted_thinking", "data": "opaque"}),
        json!({"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {"query": "x"}}),
        json!({"type": "web_search_tool_result", "tool_use_id": "srv1", "content": []}),
        json!({"type": "mcp_tool_use", "id": "m1", "name": "lookup", "server_name": "docs", "input": {}}),
        json!({"type": "mcp_tool_result", "tool_use_id": "m1", "is_error": false, "content": "ok"}),
    ]
}

#[test]
fn provider_run_blocks_pass_and_unknown_blocks_are_refused() {
    let mut content = provider_blocks();
    content.push(json!({"type": "teleport_use", "id": "t1", "name": "read", "input": {"to": "prod"}}));
    content.push(json!({"type": "tool_use", "id": "t2", "input": {"command": "ls"}}));
    content.push(json!({"name": "bash", "input": {"command": "ls"}}));
    let mut gate = Script::default();
    let v = rewrite(Value::Array(content), &mut gate);
    let blocks = v["content"].as_array().expect("content");
    assert_eq!(blocks[..6], provider_blocks()[..], "provider-run blocks pass untouched");
    for (at, kind) in [(6, "teleport_use"), (7, "tool_use"), (8, "content_block")] {
        let text = v["content"][at]["text"].as_str().unwrap_or_default();
        assert_eq!(v["content"][at]["type"], "text", "{v}");
        assert!(
            text.starts_with(&format!("Blindfold refused the `{kind}` tool call (malformed_input")),
            "{text}"
        );
    }
    assert!(v["content"][7]["text"].as_str().is_some_and(|t| t.contains("names no tool")), "{v}");
    assert_eq!(v["stop_reason"], "end_turn");
    assert!(gate.seen.is_empty(), "{:?}", gate.seen);
}

fn run(events: &[Vec<u8>], gate: &mut Script) -> Vec<Vec<u8>> {
    let mut s = MessagesStream::new();
    let mut out = Vec::new();
    for raw in events {
        for ev in decode_all(raw) {
            out.extend(s.on_event(&ev, gate).expect("event"));
        }
    }
    out
}

fn start(index: u64, block: Value) -> Vec<u8> {
    anthropic_event(
        "content_block_start",
        json!({"type": "content_block_start", "index": index, "content_block": block}),
    )
}

fn delta(index: u64, delta: Value) -> Vec<u8> {
    anthropic_event(
        "content_block_delta",
        json!({"type": "content_block_delta", "index": index, "delta": delta}),
    )
}

fn stop(index: u64) -> Vec<u8> {
    anthropic_event("content_block_stop", json!({"type": "content_block_stop", "index": index}))
}

fn message_end() -> [Vec<u8>; 2] {
    [
        anthropic_event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
        ),
        anthropic_event("message_stop", json!({"type": "message_stop"})),
    ]
}

#[test]
fn a_streamed_block_of_an_unknown_type_is_held_and_refused() {
    let mut events = vec![
        anthropic_event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "m", "content": []}}),
        ),
        start(0, json!({"type": "server_tool_use", "id": "srv1", "name": "web_search", "input": {}})),
        delta(0, json!({"type": "input_json_delta", "partial_json": "{\"query\": \"x\"}"})),
        stop(0),
        start(1, json!({"type": "teleport_use", "id": "t1", "name": "read"})),
        delta(1, json!({"type": "destination_delta", "to": "prod"})),
        stop(1),
        start(2, json!({"type": "tool_use", "id": "t2", "input": {}})),
        delta(2, json!({"type": "input_json_delta", "partial_json": "{}"})),
        stop(2),
    ];
    events.extend(message_end());
    let mut gate = Script::default();
    let out = run(&events, &mut gate);
    assert_eq!(out[..4], events[..4], "the provider-run block byte for byte");
    let rest: Vec<Value> = out[4..].iter().map(|raw| data_of(raw)).collect();
    let all = serde_json::to_string(&rest).expect("json");
    let started: Vec<&Value> = rest.iter().filter_map(|v| v.pointer("/content_block/type")).collect();
    assert_eq!(started, [&json!("text"), &json!("text")], "only refusal texts start: {all}");
    assert!(!all.contains("destination_delta"), "{all}");
    assert_eq!(rest[0]["content_block"]["type"], "text");
    assert!(
        rest[1]["delta"]["text"]
            .as_str()
            .is_some_and(|t| t.contains("`teleport_use` tool call (malformed_input")),
        "{all}"
    );
    assert!(rest[4]["delta"]["text"].as_str().is_some_and(|t| t.contains("names no tool")), "{all}");
    assert_eq!(rest[6]["delta"]["stop_reason"], "end_turn", "{all}");
    assert!(gate.seen.is_empty(), "{:?}", gate.seen);
}

#[test]
fn a_tool_use_start_carrying_its_input_is_gated_with_it() {
    let mut events = vec![
        anthropic_event(
            "message_start",
            json!({"type": "message_start", "message": {"id": "m", "content": []}}),
        ),
        start(0, json!({"type": "tool_use", "id": "t1", "name": "subagent", "input": {"agent": "agent-a"}})),
        stop(0),
        start(1, json!({"type": "tool_use", "id": "t2", "name": "read", "input": {"path": "a"}})),
        delta(1, json!({"type": "input_json_delta", "partial_json": "{\"path\": \"b\"}"})),
        stop(1),
    ];
    events.extend(message_end());
    let mut gate = Script::default();
    let out: Vec<Value> = run(&events, &mut gate).iter().map(|raw| data_of(raw)).collect();
    assert_eq!(gate.seen.len(), 1);
    assert_eq!(
        gate.seen[0].arguments, "{\"agent\":\"agent-a\"}",
        "decided on the input the client starts from"
    );
    assert_eq!(out[1]["content_block"]["input"], json!({}), "the start sent without it");
    assert_eq!(out[2]["delta"]["partial_json"], "{\"agent\":\"opus-reviewer\"}");
    let all = serde_json::to_string(&out).expect("json");
    assert!(!all.contains("\\\"b\\\""), "the ambiguous call is not relayed: {all}");
    assert!(all.contains("an input both at its start and in its deltas"), "{all}");
}

#[test]
fn blocks_a_message_start_already_carries_are_gated() {
    let message = json!({"id": "m", "content": [
        {"type": "text", "text": "hi"},
        {"type": "tool_use", "id": "t1", "name": "bash", "input": {"command": "rm -rf /"}}]});
    let mut events =
        vec![anthropic_event("message_start", json!({"type": "message_start", "message": message}))];
    events.extend(message_end());
    let mut gate = Script::default();
    let out: Vec<Value> = run(&events, &mut gate).iter().map(|raw| data_of(raw)).collect();
    assert_eq!(
        out[0]["message"]["content"],
        json!([{"type": "text", "text": "hi"}, {"type": "text", "text": "refused bash"}])
    );
    assert_eq!(out[1]["delta"]["stop_reason"], "end_turn");
}
