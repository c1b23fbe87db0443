//! Codec tests with a word-list scrubber and a scripted gate.

use super::*;
use blindfold_schemas::{Event, Facts};
use serde_json::{Value, json};

/// Replaces `opus-4` and `Anthropic`, and the real agent name `opus-reviewer` by its alias.
pub(super) struct Words;

impl Scrubber for Words {
    fn scrub(&self, text: &str) -> Option<String> {
        let out = text
            .replace("opus-reviewer", "agent-a")
            .replace("opus-4", "[model]")
            .replace("Anthropic", "[vendor]");
        (out != text).then_some(out)
    }
    fn real_agent(&self, alias: &str) -> Option<String> {
        (alias == "agent-a").then(|| "opus-reviewer".to_owned())
    }
}

/// Tools [`Script`] refuses.
const REFUSED: &[&str] = &["bash", "apply_patch", "delete_file", "computer"];

/// Refuses every call of a [`REFUSED`] tool; forwards the rest with aliases mapped; records what
/// it saw.
#[derive(Default)]
pub(super) struct Script {
    pub(super) seen: Vec<ProposedCall>,
}

impl CallGate for Script {
    fn gate(&mut self, call: &ProposedCall) -> CallOutcome {
        self.seen.push(call.clone());
        if REFUSED.contains(&call.name.as_str()) {
            return CallOutcome::Refuse { text: format!("refused {}", call.name) };
        }
        match call_events(call, &Words) {
            Ok((_, Some(arguments))) => CallOutcome::Forward { arguments },
            Ok((_, None)) => CallOutcome::Forward { arguments: call.arguments.clone() },
            Err(e) => CallOutcome::Refuse { text: e.to_string() },
        }
    }
}

pub(super) fn sse_data(v: &Value) -> Vec<u8> {
    SseEvent::encode(None, &v.to_string())
}

pub(super) fn decode_all(bytes: &[u8]) -> Vec<SseEvent> {
    let mut d = SseDecoder::new(crate::sse::MAX_EVENT_BYTES);
    d.push(bytes).expect("decode")
}

pub(super) fn run_chat(events: &[Vec<u8>], gate: &mut Script) -> Vec<Vec<u8>> {
    let mut s = ChatStream::new();
    let mut out = Vec::new();
    for raw in events {
        for ev in decode_all(raw) {
            out.extend(s.on_event(&ev, gate).expect("event"));
        }
    }
    out
}

pub(super) fn data_of(raw: &[u8]) -> Value {
    let ev = decode_all(raw).pop().expect("one event");
    serde_json::from_str(ev.data.as_deref().expect("data")).expect("json")
}

#[test]
fn chat_request_scrubs_prompts_descriptions_and_agent_results_only() {
    let body = json!({
        "model": "opus-4",
        "stream": true,
        "messages": [
            {"role": "system", "content": "You coordinate. opus-reviewer runs on opus-4."},
            {"role": "user", "content": [{"type": "text", "text": "Ask Anthropic's model"}]},
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "task", "arguments": "{\"subagent_type\":\"opus-reviewer\",\"prompt\":\"x\"}"}},
                {"id": "c2", "type": "function", "function": {"name": "read", "arguments": "{\"filePath\":\"opus-4.md\"}"}}
            ]},
            {"role": "tool", "tool_call_id": "c1", "content": "<task_result>I am opus-4</task_result>"},
            {"role": "tool", "tool_call_id": "c2", "content": "file text about opus-4"}
        ],
        "tools": [{"type": "function", "function": {"name": "task",
            "description": "Available agent types:\n- opus-reviewer: reviews with opus-4",
            "parameters": {"type": "object", "properties": {"subagent_type": {"type": "string", "description": "e.g. opus-reviewer"}}}}}]
    });
    let out = rewrite_chat_request(body.to_string().as_bytes(), &Words).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    assert_eq!(v["model"], "opus-4", "the upstream still needs its model id");
    assert_eq!(v["messages"][0]["content"], "You coordinate. agent-a runs on [model].");
    assert_eq!(v["messages"][1]["content"][0]["text"], "Ask [vendor]'s model");
    assert_eq!(
        v["messages"][2]["tool_calls"][0]["function"]["arguments"],
        "{\"prompt\":\"x\",\"subagent_type\":\"agent-a\"}"
    );
    assert_eq!(v["messages"][2]["tool_calls"][1]["function"]["arguments"], "{\"filePath\":\"opus-4.md\"}");
    assert_eq!(v["messages"][3]["content"], "<task_result>I am [model]</task_result>");
    assert_eq!(v["messages"][4]["content"], "file text about opus-4", "tool content (C2) is not rewritten");
    assert_eq!(
        v["tools"][0]["function"]["description"],
        "Available agent types:\n- agent-a: reviews with [model]"
    );
    assert_eq!(
        v["tools"][0]["function"]["parameters"]["properties"]["subagent_type"]["description"],
        "e.g. agent-a"
    );

    let clean = br#"{"model":"m","messages":[{"role":"user","content":"hello   world"}]}"#;
    let out = rewrite_chat_request(clean, &Words).expect("rewrite");
    assert_eq!(
        (out.body.as_slice(), out.changed),
        (clean.as_slice(), 0),
        "untouched bytes when nothing changes"
    );
    assert!(rewrite_chat_request(b"{\"messages\":{}}", &Words).is_err());
    assert!(rewrite_chat_request(b"{\"a\":1,\"a\":2}", &Words).is_err(), "duplicate keys are refused");
}

#[test]
fn chat_response_refuses_and_maps_aliases() {
    let body = json!({"id": "x", "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
    "role": "assistant", "content": null, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"rm -rf /\"}"}}
    ]}}]});
    let mut gate = Script::default();
    let out = rewrite_chat_response(body.to_string().as_bytes(), &mut gate).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    assert_eq!(v["choices"][0]["message"]["content"], "refused bash");
    assert!(v["choices"][0]["message"].get("tool_calls").is_none());
    assert_eq!(v["choices"][0]["finish_reason"], "stop");

    let body = json!({"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant",
        "tool_calls": [{"id": "c2", "type": "function", "function": {"name": "task", "arguments": "{\"subagent_type\":\"agent-a\"}"}}]}}]});
    let out = rewrite_chat_response(body.to_string().as_bytes(), &mut gate).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    assert_eq!(
        v["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
        "{\"subagent_type\":\"opus-reviewer\"}"
    );
    assert_eq!(v["choices"][0]["finish_reason"], "tool_calls");
}

pub(super) fn chunk(delta: Value, finish: Value) -> Vec<u8> {
    sse_data(&json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}))
}

#[test]
fn chat_stream_forwards_text_untouched_and_holds_calls_until_complete() {
    let text = chunk(json!({"role": "assistant", "content": "Hello  "}), Value::Null);
    let call_start = chunk(
        json!({"tool_calls": [{"index": 0, "id": "c1", "type": "function",
        "function": {"name": "task", "arguments": ""}}]}),
        Value::Null,
    );
    let call_a = chunk(
        json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"subagent_type\":"}}]}),
        Value::Null,
    );
    let call_b =
        chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"agent-a\"}"}}]}), Value::Null);
    let finish = chunk(json!({}), json!("tool_calls"));
    let usage = sse_data(
        &json!({"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 3, "completion_tokens": 4}}),
    );
    let done = b"data: [DONE]\n\n".to_vec();
    let mut gate = Script::default();
    let out =
        run_chat(&[text.clone(), call_start, call_a, call_b, finish, usage.clone(), done.clone()], &mut gate);
    assert_eq!(out.len(), 5);
    assert_eq!(out[0], text, "text chunk byte for byte");
    let call = data_of(&out[1]);
    assert_eq!(call["model"], "m");
    assert_eq!(call["choices"][0]["delta"]["tool_calls"][0]["id"], "c1");
    assert_eq!(
        call["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"],
        "{\"subagent_type\":\"opus-reviewer\"}"
    );
    assert_eq!(data_of(&out[2])["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(out[3], usage, "usage chunk byte for byte");
    assert_eq!(out[4], done);
    assert_eq!(gate.seen.len(), 1);
    assert_eq!(gate.seen[0].arguments, "{\"subagent_type\":\"agent-a\"}");
}

#[test]
fn chat_stream_replaces_a_refused_call_with_text_and_stops() {
    let call = chunk(
        json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": "c1",
        "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"rm -rf /\"}"}}]}),
        Value::Null,
    );
    let finish = chunk(json!({}), json!("tool_calls"));
    let mut gate = Script::default();
    let out = run_chat(&[call, finish, b"data: [DONE]\n\n".to_vec()], &mut gate);
    let values: Vec<Value> = out[..out.len() - 1].iter().map(|r| data_of(r)).collect();
    let all = serde_json::to_string(&values).expect("json");
    assert!(!all.contains("tool_calls\":["), "no call reaches the client: {all}");
    assert!(values.iter().any(|v| v["choices"][0]["delta"]["content"] == "refused bash"), "{all}");
    assert_eq!(values.last().expect("finish")["choices"][0]["finish_reason"], "stop");
}

#[test]
fn anthropic_request_and_response() {
    let body = json!({"model": "opus-4", "system": [{"type": "text", "text": "Agents: opus-reviewer"}],
        "messages": [
            {"role": "user", "content": "use Anthropic"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read", "input": {"path": "opus-4"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "opus-4 file"}]}
        ],
        "tools": [{"name": "subagent", "description": "agents: opus-reviewer", "input_schema": {"type": "object"}}]});
    let out = rewrite_messages_request(body.to_string().as_bytes(), &Words).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    assert_eq!(v["system"][0]["text"], "Agents: agent-a");
    assert_eq!(v["messages"][0]["content"], "use [vendor]");
    assert_eq!(v["messages"][1]["content"][0]["input"]["path"], "opus-4");
    assert_eq!(v["messages"][2]["content"][0]["content"], "opus-4 file");
    assert_eq!(v["tools"][0]["description"], "agents: agent-a");

    let resp = json!({"type": "message", "stop_reason": "tool_use", "content": [
        {"type": "text", "text": "ok"},
        {"type": "tool_use", "id": "t2", "name": "bash", "input": {"command": "rm -rf /"}}]});
    let out =
        rewrite_messages_response(resp.to_string().as_bytes(), &mut Script::default()).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    assert_eq!(v["content"][1], json!({"type": "text", "text": "refused bash"}));
    assert_eq!(v["stop_reason"], "end_turn");
}

pub(super) fn anthropic_event(name: &str, data: Value) -> Vec<u8> {
    SseEvent::encode(Some(name), &data.to_string())
}

#[test]
fn anthropic_stream_holds_tool_use_blocks() {
    let events = vec![
        anthropic_event("message_start", json!({"type": "message_start", "message": {"id": "m"}})),
        anthropic_event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}}),
        ),
        anthropic_event("content_block_stop", json!({"type": "content_block_stop", "index": 0})),
        anthropic_event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "subagent", "input": {}}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"agent\": \"age"}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "nt-a\"}"}}),
        ),
        anthropic_event("content_block_stop", json!({"type": "content_block_stop", "index": 1})),
        anthropic_event(
            "content_block_start",
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "t2", "name": "bash", "input": {}}}),
        ),
        anthropic_event(
            "content_block_delta",
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": "{}"}}),
        ),
        anthropic_event("content_block_stop", json!({"type": "content_block_stop", "index": 2})),
        anthropic_event(
            "message_delta",
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        ),
        anthropic_event("message_stop", json!({"type": "message_stop"})),
    ];
    let mut s = MessagesStream::new();
    let mut gate = Script::default();
    let mut out = Vec::new();
    for raw in &events {
        for ev in decode_all(raw) {
            out.extend(s.on_event(&ev, &mut gate).expect("event"));
        }
    }
    assert_eq!(out[..4], events[..4], "text block byte for byte");
    assert_eq!(out[4], events[4], "tool_use start forwarded once decided");
    assert_eq!(data_of(&out[5])["delta"]["partial_json"], "{\"agent\":\"opus-reviewer\"}");
    assert_eq!(out[6], events[7]);
    assert_eq!(data_of(&out[7])["content_block"]["type"], "text");
    assert_eq!(data_of(&out[8])["delta"]["text"], "refused bash");
    assert_eq!(out[9], events[10]);
    assert_eq!(out[10], events[11], "stop_reason kept: one call went through");
    assert_eq!(out.len(), 12);
}

#[test]
fn responses_request_response_and_stream() {
    let body = json!({"model": "opus-4", "instructions": "opus-reviewer is Anthropic's", "input": [
        {"role": "user", "content": [{"type": "input_text", "text": "ask opus-4"}]},
        {"type": "function_call", "call_id": "f1", "name": "read", "arguments": "{\"path\":\"opus-4\"}"},
        {"type": "function_call_output", "call_id": "f1", "output": "opus-4"}],
        "tools": [{"type": "function", "name": "task", "description": "- opus-reviewer: x", "parameters": {}}]});
    let out = rewrite_responses_request(body.to_string().as_bytes(), &Words).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    assert_eq!(v["instructions"], "agent-a is [vendor]'s");
    assert_eq!(v["input"][0]["content"][0]["text"], "ask [model]");
    assert_eq!(v["input"][2]["output"], "opus-4");
    assert_eq!(v["tools"][0]["description"], "- agent-a: x");

    let item = json!({"type": "function_call", "id": "fc1", "call_id": "f9", "name": "bash", "arguments": "{}", "status": "completed"});
    let resp = json!({"id": "r", "output": [item]});
    let out =
        rewrite_responses_response(resp.to_string().as_bytes(), &mut Script::default()).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    assert_eq!(v["output"][0]["type"], "message");
    assert_eq!(v["output"][0]["content"][0]["text"], "refused bash");

    let ev = |kind: &str, extra: Value| {
        let mut v = extra;
        v["type"] = json!(kind);
        anthropic_event(kind, v)
    };
    let added = ev(
        "response.output_item.added",
        json!({"output_index": 0, "item": {"type": "function_call", "id": "fc1", "call_id": "f9", "name": "bash", "arguments": ""}}),
    );
    let delta = ev(
        "response.function_call_arguments.delta",
        json!({"output_index": 0, "item_id": "fc1", "delta": "{}"}),
    );
    let done = ev("response.output_item.done", json!({"output_index": 0, "item": item}));
    let completed = ev("response.completed", json!({"response": {"id": "r", "output": [item]}}));
    let mut s = ResponsesStream::new();
    let mut gate = Script::default();
    let mut out = Vec::new();
    for raw in [&added, &delta, &done, &completed] {
        for e in decode_all(raw) {
            out.extend(s.on_event(&e, &mut gate).expect("event"));
        }
    }
    assert_eq!(gate.seen.len(), 1, "decided once, reused for the final response");
    let all: Vec<Value> = out.iter().map(|r| data_of(r)).collect();
    assert!(all.iter().all(|v| v["item"]["type"] != "function_call"));
    assert_eq!(all[2]["delta"], "refused bash");
    assert_eq!(all.last().expect("completed")["response"]["output"][0]["type"], "message");
}

#[test]
fn call_events_map_harness_tools_and_delegations() {
    let call =
        |name: &str, args: &str| ProposedCall { id: "c".into(), name: name.into(), arguments: args.into() };
    let (events, fwd) =
        call_events(&call("write", "{\"filePath\":\"/w/a\",\"content\":\"x\"}"), &Words).expect("ok");
    assert_eq!(fwd, None);
    assert_eq!(
        serde_json::to_value(&events[0]).expect("json"),
        json!({"kind": "tool_call", "actor": "coordinator", "tool": "write_file", "args": {"path": "/w/a", "content": "x"}, "call_id": "c"})
    );
    let (events, fwd) =
        call_events(&call("subagent", "{\"tasks\":[{\"agent\":\"agent-a\",\"task\":\"t\"}]}"), &Words)
            .expect("ok");
    assert_eq!(fwd.as_deref(), Some("{\"tasks\":[{\"agent\":\"opus-reviewer\",\"task\":\"t\"}]}"));
    assert_eq!(serde_json::to_value(&events[0]).expect("json")["to"], "opus-reviewer");
    assert!(call_events(&call("bash", "[1]"), &Words).is_err());
    assert!(call_events(&call("bash", "{\"command\":\"a\",\"command\":\"b\"}"), &Words).is_err());
    assert!(call_events(&call("todoread", ""), &Words).is_ok(), "empty arguments are {{}}");
    // A number no double holds is a fact for the cascade (`P1.exact_numbers`), not an error.
    let wide = decidable_call(&call("send_payment", "{\"amount\":123456789012345678901234567890}"), &Words);
    assert_eq!(wide.facts.inexact_number.as_deref(), Some("123456789012345678901234567890"));
    assert_eq!(wide.facts.unreadable_call, None);
    assert_eq!(decidable_call(&call("send_payment", "{\"amount\":12.50}"), &Words).facts, Facts::default());
    // Arguments that are no object: one call of the tool, no arguments, and why.
    let unread = decidable_call(&call("write", "[1]"), &Words);
    assert!(
        unread.facts.unreadable_call.as_deref().is_some_and(|w| w.contains("not an object")),
        "{unread:?}"
    );
    match unread.events.as_slice() {
        [Event::ToolCall { tool, args, .. }] => assert_eq!((tool.as_str(), args.len()), ("write_file", 0)),
        other => panic!("{other:?}"),
    }
}

/// One output item of every kind a response carries: what passes, what the harness executes, and
/// a type nobody documented.
fn mixed_output() -> Vec<Value> {
    vec![
        json!({"type": "reasoning", "id": "rs1", "summary": []}),
        json!({"type": "web_search_call", "id": "ws1", "status": "completed", "action": {"type": "search", "query": "q"}}),
        json!({"type": "local_shell_call", "id": "lsh1", "call_id": "c-ls", "status": "completed",
            "action": {"type": "exec", "command": ["rm", "-rf", "/srv/data"], "env": {}, "timeout_ms": 1000}}),
        json!({"type": "custom_tool_call", "id": "ctc1", "call_id": "c-patch", "name": "apply_patch",
            "input": "*** Begin Patch\n*** Delete File: /srv/data/db.sqlite\n*** End Patch\n"}),
        json!({"type": "shell_call", "id": "sh1", "call_id": "c-sh", "status": "completed",
            "action": {"commands": ["ls", "git push --force"]}}),
        json!({"type": "apply_patch_call", "id": "apc1", "call_id": "c-apc", "status": "completed",
            "operation": {"type": "delete_file", "path": "/srv/data/x"}}),
        json!({"type": "computer_call", "id": "cu1", "call_id": "c-cu", "status": "completed",
            "pending_safety_checks": [], "action": {"type": "type", "text": "rm -rf /"}}),
        json!({"type": "teleport_call", "id": "tp1", "call_id": "c-tp", "destination": "prod"}),
        json!({"type": "function_call", "id": "fc1", "call_id": "c-read", "name": "read", "arguments": "{\"filePath\":\"a\"}"}),
        json!({"type": "message", "id": "m1", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": "hi", "annotations": []}]}),
    ]
}

#[test]
fn responses_response_gates_every_item_the_harness_would_execute() {
    let resp = json!({"id": "r", "output": mixed_output()});
    let mut gate = Script::default();
    let out = rewrite_responses_response(resp.to_string().as_bytes(), &mut gate).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    let output = v["output"].as_array().expect("output");
    let original = mixed_output();
    for at in [0, 1, 8, 9] {
        assert_eq!(output[at], original[at], "passes unchanged: {}", original[at]);
    }
    for at in 2..8 {
        assert_eq!(output[at]["type"], "message", "replaced: {}", original[at]);
        assert_eq!(output[at]["id"], original[at]["id"]);
    }
    let text = |at: usize| output[at]["content"][0]["text"].as_str().expect("text").to_owned();
    assert_eq!(text(2), "refused bash");
    assert_eq!(text(3), "refused apply_patch");
    assert_eq!(text(4), "refused bash");
    assert_eq!(text(5), "refused delete_file");
    assert_eq!(text(6), "refused computer");
    assert!(text(7).contains("`teleport_call`") && text(7).contains("malformed_input"), "{}", text(7));
    let seen: Vec<(&str, &str)> = gate.seen.iter().map(|c| (c.name.as_str(), c.arguments.as_str())).collect();
    assert_eq!(
        seen,
        [
            ("bash", "{\"command\":\"rm -rf /srv/data\"}"),
            (
                "apply_patch",
                "{\"input\":\"*** Begin Patch\\n*** Delete File: /srv/data/db.sqlite\\n*** End Patch\\n\"}"
            ),
            ("bash", "{\"command\":\"ls\\ngit push --force\"}"),
            ("delete_file", "{\"path\":\"/srv/data/x\"}"),
            ("computer", "{\"action\":{\"text\":\"rm -rf /\",\"type\":\"type\"}}"),
            ("read", "{\"filePath\":\"a\"}"),
        ]
    );
    assert_eq!(gate.seen[0].id, "c-ls");
}

#[test]
fn responses_call_items_of_an_undocumented_shape_are_refused() {
    let items = [
        json!({"type": "local_shell_call", "id": "a", "call_id": "c1", "action": {"type": "exec", "command": "rm -rf /"}}),
        json!({"type": "local_shell_call", "id": "b", "call_id": "c2", "action": {"type": "spawn", "command": ["ls"]}}),
        json!({"type": "apply_patch_call", "id": "c", "call_id": "c3", "operation": {"type": "chmod_file", "path": "/x"}}),
        json!({"type": "custom_tool_call", "id": "d", "call_id": "c4", "name": "deploy", "input": {"env": "prod"}}),
        json!({"id": "e", "call_id": "c5", "name": "bash"}),
    ];
    let resp = json!({"output": items});
    let mut gate = Script::default();
    let out = rewrite_responses_response(resp.to_string().as_bytes(), &mut gate).expect("rewrite");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    for (at, item) in items.iter().enumerate() {
        assert_eq!(v["output"][at]["type"], "message", "{item}");
        let text = v["output"][at]["content"][0]["text"].as_str().expect("text");
        assert!(text.contains("malformed_input"), "{item}: {text}");
    }
    assert!(gate.seen.is_empty(), "nothing unreadable reaches the engine as a call");

    let argv = json!({"type": "local_shell_call", "id": "f", "call_id": "c6",
        "action": {"type": "exec", "command": ["ls", "; rm -rf /", "it's"], "env": {"A": "1"}, "working_directory": "/w"}});
    let mut gate = Script::default();
    rewrite_responses_response(json!({"output": [argv]}).to_string().as_bytes(), &mut gate).expect("rewrite");
    let args: Value = serde_json::from_str(&gate.seen[0].arguments).expect("json");
    assert_eq!(
        args,
        json!({"command": "ls '; rm -rf /' 'it'\\''s'", "env": {"A": "1"}, "working_directory": "/w"})
    );
}

#[test]
fn apply_patch_calls_are_decided_as_the_file_operations_they_perform() {
    let patch = "*** Begin Patch\n*** Add File: a.txt\n+hello\n*** Delete File: b.txt\n*** Update File: c.txt\n*** Move to: d.txt\n@@\n-x\n+y\n*** End Patch";
    let call = ProposedCall {
        id: "p1".into(),
        name: "apply_patch".into(),
        arguments: json!({"input": patch}).to_string(),
    };
    let (events, forward) = call_events(&call, &Words).expect("a patch");
    assert_eq!(forward, None);
    let events: Vec<Value> = events.iter().map(|e| serde_json::to_value(e).expect("json")).collect();
    let tools: Vec<(&str, &Value)> =
        events.iter().map(|e| (e["tool"].as_str().expect("tool"), &e["args"])).collect();
    assert_eq!(
        tools,
        [
            ("write_file", &json!({"path": "a.txt", "content": "+hello\n"})),
            ("delete_file", &json!({"path": "b.txt"})),
            ("edit_file", &json!({"path": "c.txt", "content": "@@\n-x\n+y\n"})),
            ("move_file", &json!({"path": "c.txt", "destination": "d.txt"})),
        ]
    );
    assert!(events.iter().all(|e| e["call_id"] == "p1" && e["actor"] == "coordinator"));
    for bad in [
        "rm -rf /",
        "*** Begin Patch\n*** Delete File: x\n",
        "*** Begin Patch\n*** End Patch",
        "*** Begin Patch\n+stray\n*** End Patch",
        "*** Begin Patch\n*** Delete File: x\n*** End Patch\n*** Delete File: y",
        "*** Begin Patch\n*** Add File: \n*** End Patch",
    ] {
        let call = ProposedCall {
            id: String::new(),
            name: "apply_patch".into(),
            arguments: json!({"input": bad}).to_string(),
        };
        assert!(call_events(&call, &Words).is_err(), "{bad:?}");
    }
    let call =
        ProposedCall { id: String::new(), name: "apply_patch".into(), arguments: "{\"patch\":\"x\"}".into() };
    assert!(call_events(&call, &Words).is_err(), "no patch text");
}

fn responses_event(kind: &str, extra: Value) -> Vec<u8> {
    let mut v = extra;
    v["type"] = json!(kind);
    SseEvent::encode(Some(kind), &v.to_string())
}

fn run_responses(events: &[Vec<u8>], gate: &mut Script) -> (ResponsesStream, Vec<Vec<u8>>) {
    let mut s = ResponsesStream::new();
    let mut out = Vec::new();
    for raw in events {
        for e in decode_all(raw) {
            out.extend(s.on_event(&e, gate).expect("event"));
        }
    }
    (s, out)
}

#[test]
fn responses_stream_holds_and_refuses_every_item_the_harness_would_execute() {
    let output = mixed_output();
    let mut events = Vec::new();
    for (at, item) in output.iter().enumerate() {
        let mut added = item.clone();
        if item["type"] == "custom_tool_call" {
            added["input"] = json!("");
        }
        if at == 4 {
            // an item announced only by its `done` event
            events.push(responses_event(
                "response.output_item.done",
                json!({"output_index": at, "item": item}),
            ));
            continue;
        }
        events
            .push(responses_event("response.output_item.added", json!({"output_index": at, "item": added})));
        if item["type"] == "custom_tool_call" {
            let input = item["input"].as_str().expect("input");
            let (a, b) = input.split_at(10);
            for piece in [a, b] {
                events.push(responses_event(
                    "response.custom_tool_call_input.delta",
                    json!({"output_index": at, "item_id": item["id"], "delta": piece}),
                ));
            }
        }
        events.push(responses_event("response.output_item.done", json!({"output_index": at, "item": item})));
    }
    events.push(responses_event("response.completed", json!({"response": {"id": "r", "output": output}})));
    let mut gate = Script::default();
    let (_, out) = run_responses(&events, &mut gate);
    assert_eq!(gate.seen.len(), 6, "each call decided once, reused for the final response");
    assert_eq!(out[..4], events[..4], "reasoning and provider-run search pass byte for byte");
    let all: Vec<Value> = out.iter().map(|r| data_of(r)).collect();
    for v in &all[..all.len() - 1] {
        let kind = v["item"]["type"].as_str().unwrap_or("message");
        assert!(["reasoning", "web_search_call", "function_call", "message"].contains(&kind), "{v}");
        assert!(v["type"] != "response.custom_tool_call_input.delta", "{v}");
    }
    let deltas: Vec<&str> = all
        .iter()
        .filter(|v| v["type"] == "response.output_text.delta")
        .map(|v| v["delta"].as_str().expect("delta"))
        .collect();
    assert_eq!(
        deltas[..5],
        ["refused bash", "refused apply_patch", "refused bash", "refused delete_file", "refused computer"]
    );
    assert!(deltas[5].contains("`teleport_call`") && deltas[5].contains("malformed_input"), "{}", deltas[5]);
    let done = all.iter().filter(|v| v["type"] == "response.output_item.done").count();
    assert_eq!(done, 10);
    let last = &all.last().expect("completed")["response"]["output"];
    let kinds: Vec<&str> =
        last.as_array().expect("output").iter().map(|i| i["type"].as_str().expect("type")).collect();
    assert_eq!(
        kinds,
        [
            "reasoning",
            "web_search_call",
            "message",
            "message",
            "message",
            "message",
            "message",
            "message",
            "function_call",
            "message"
        ]
    );
}

#[test]
fn responses_stream_cut_short_refuses_a_held_non_function_call() {
    let added = responses_event(
        "response.output_item.added",
        json!({"output_index": 0, "item": {"type": "custom_tool_call", "id": "ctc1", "call_id": "c1", "name": "apply_patch", "input": ""}}),
    );
    let delta = responses_event(
        "response.custom_tool_call_input.delta",
        json!({"output_index": 0, "item_id": "ctc1", "delta": "*** Begin Patch\n*** Delete File: x\n*** End Patch"}),
    );
    let mut gate = Script::default();
    let (mut s, out) = run_responses(&[added, delta], &mut gate);
    assert!(out.is_empty(), "held until complete");
    let out = s.finish(&mut gate);
    let all: Vec<Value> = out.iter().map(|r| data_of(r)).collect();
    let text =
        all.iter().find(|v| v["type"] == "response.output_text.delta").expect("refusal")["delta"].to_string();
    assert!(text.contains("malformed_input") && text.contains("complete"), "{text}");
    assert!(all.iter().all(|v| v["item"]["type"] != "custom_tool_call"));
    assert!(gate.seen.is_empty());
}
