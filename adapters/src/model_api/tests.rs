//! Codec tests with a word-list scrubber and a scripted gate.

use super::*;
use serde_json::{Value, json};

/// Replaces `opus-4` and `Anthropic`, and the real agent name `opus-reviewer` by its alias.
struct Words;

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

/// Refuses every `bash` call; forwards the rest with aliases mapped; records what it saw.
#[derive(Default)]
struct Script {
    seen: Vec<ProposedCall>,
}

impl CallGate for Script {
    fn gate(&mut self, call: &ProposedCall) -> CallOutcome {
        self.seen.push(call.clone());
        if call.name == "bash" {
            return CallOutcome::Refuse { text: format!("refused {}", call.name) };
        }
        match call_events(call, &Words) {
            Ok((_, Some(arguments))) => CallOutcome::Forward { arguments },
            Ok((_, None)) => CallOutcome::Forward { arguments: call.arguments.clone() },
            Err(e) => CallOutcome::Refuse { text: e.to_string() },
        }
    }
}

fn sse_data(v: &Value) -> Vec<u8> {
    SseEvent::encode(None, &v.to_string())
}

fn decode_all(bytes: &[u8]) -> Vec<SseEvent> {
    let mut d = SseDecoder::new();
    d.push(bytes).expect("decode")
}

fn run_chat(events: &[Vec<u8>], gate: &mut Script) -> Vec<Vec<u8>> {
    let mut s = ChatStream::new();
    let mut out = Vec::new();
    for raw in events {
        for ev in decode_all(raw) {
            out.extend(s.on_event(&ev, gate).expect("event"));
        }
    }
    out
}

fn data_of(raw: &[u8]) -> Value {
    let ev = decode_all(raw).pop().expect("one event");
    serde_json::from_str(ev.data.as_deref().expect("data")).expect("json")
}

#[test]
fn sse_decoder_splits_anywhere_and_keeps_raw_bytes() {
    let stream = b": keepalive\r\n\r\nevent: ping\r\ndata: {\"a\":1}\r\n\r\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n";
    for cut in 0..stream.len() {
        let mut d = SseDecoder::new();
        let mut events = d.push(&stream[..cut]).expect("first half");
        events.extend(d.push(&stream[cut..]).expect("second half"));
        assert_eq!(events.len(), 4, "cut at {cut}");
        assert_eq!(events.iter().flat_map(|e| e.raw.clone()).collect::<Vec<u8>>(), stream.to_vec());
        assert_eq!(events[0].data, None);
        assert_eq!(events[1].event.as_deref(), Some("ping"));
        assert_eq!(events[1].data.as_deref(), Some("{\"a\":1}"));
        assert_eq!(events[2].data.as_deref(), Some("line1\nline2"));
        assert_eq!(events[3].data.as_deref(), Some("[DONE]"));
        assert!(d.remainder().is_empty());
    }
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

fn chunk(delta: Value, finish: Value) -> Vec<u8> {
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

fn anthropic_event(name: &str, data: Value) -> Vec<u8> {
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
}
