//! OpenClaw's call shapes through the codecs: `sessions_spawn.agentId` and session keys, directly
//! and through the `tool_call {id, args}` bridge.

use super::*;
use blindfold_schemas::Event;
use serde_json::{Value, json};

/// Knows one agent, `scout`, shown to the model as `agent-k`.
struct Scout;

impl Scrubber for Scout {
    fn scrub(&self, text: &str) -> Option<String> {
        let out = text.replace("scout", "agent-k");
        (out != text).then_some(out)
    }
    fn real_agent(&self, alias: &str) -> Option<String> {
        (alias == "agent-k").then(|| "scout".to_owned())
    }
}

fn bridged(id: &str, args: Value) -> ProposedCall {
    ProposedCall {
        id: "c1".into(),
        name: BRIDGE.into(),
        arguments: json!({"id": id, "args": args}).to_string(),
    }
}

fn forwarded(call: &ProposedCall) -> Value {
    let (_, mapped) = call_events(call, &Scout).expect("parses");
    serde_json::from_str(&mapped.expect("an alias was mapped back")).expect("json")
}

#[test]
fn a_bridged_spawn_reaches_the_harness_with_the_real_agent_and_is_a_delegation() {
    let call = bridged("sessions_spawn", json!({"agentId": "agent-k", "task": "Plan it.", "collect": true}));
    assert_eq!(forwarded(&call)["args"]["agentId"], "scout");
    let (events, _) = call_events(&call, &Scout).expect("parses");
    assert!(
        matches!(&events[..], [Event::Delegate { to, text, .. }] if to == "scout" && text == "Plan it."),
        "{events:?}"
    );
}

#[test]
fn a_direct_spawn_and_a_qualified_bridge_id_map_the_alias_back_too() {
    let direct = ProposedCall {
        id: "c2".into(),
        name: "sessions_spawn".into(),
        arguments: json!({"agentId": "agent-k", "task": "t"}).to_string(),
    };
    assert_eq!(forwarded(&direct)["agentId"], "scout");
    let qualified = bridged("openclaw:core:spawn_agent", json!({"agentId": "agent-k", "task": "t"}));
    assert_eq!(forwarded(&qualified)["args"]["agentId"], "scout");
}

#[test]
fn session_keys_name_the_real_agent_on_the_way_to_the_harness() {
    let call =
        bridged("sessions_send", json!({"sessionKey": "agent:agent-k:subagent:u1", "message": "more"}));
    assert_eq!(forwarded(&call)["args"]["sessionKey"], "agent:scout:subagent:u1");
    // Not an alias: left alone, nothing to forward differently.
    let other = bridged("sessions_send", json!({"sessionKey": "agent:main:main", "message": "x"}));
    assert_eq!(call_events(&other, &Scout).expect("parses").1, None);
}

#[test]
fn a_bridged_exec_is_decided_as_bash_without_presentation_keys() {
    let call = bridged("openclaw:core:exec", json!({"command": "rm -rf data", "yieldMs": 10, "title": "t"}));
    let (events, mapped) = call_events(&call, &Scout).expect("parses");
    assert_eq!(mapped, None);
    match &events[..] {
        [Event::ToolCall { tool, args, .. }] => {
            assert_eq!(tool, "bash");
            assert_eq!(Value::Object(args.clone()), json!({"command": "rm -rf data"}));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn coordination_tools_are_not_tool_calls_but_unknown_bridged_tools_are() {
    let wait = bridged("agents_wait", json!({"ids": ["r1"]}));
    assert_eq!(call_events(&wait, &Scout).expect("parses").0, vec![]);
    let unknown = bridged("cron", json!({"spec": "* * * * *"}));
    let (events, _) = call_events(&unknown, &Scout).expect("parses");
    assert!(matches!(&events[..], [Event::ToolCall { tool, .. }] if tool == "cron"), "{events:?}");
}

#[test]
fn the_coordinators_history_shows_the_alias_in_bridged_spawns_and_their_results() {
    let spawn = json!({"id": "sessions_spawn", "args": {"agentId": "scout", "task": "Plan it."}}).to_string();
    let exec = json!({"id": "exec", "args": {"command": "echo scout"}}).to_string();
    let body = json!({"model": "m", "messages": [
        {"role": "user", "content": "ask agent-k"},
        {"role": "assistant", "tool_calls": [
            {"id": "s1", "type": "function", "function": {"name": BRIDGE, "arguments": spawn}},
            {"id": "e1", "type": "function", "function": {"name": BRIDGE, "arguments": exec}}]},
        {"role": "tool", "tool_call_id": "s1", "content": "{\"childSessionKey\": \"agent:scout:subagent:u1\"}"},
        {"role": "tool", "tool_call_id": "e1", "content": "scout"}
    ]});
    let out = rewrite_chat_request(body.to_string().as_bytes(), &Scout).expect("rewrites");
    let v: Value = serde_json::from_slice(&out.body).expect("json");
    let args: Value = serde_json::from_str(
        v.pointer("/messages/1/tool_calls/0/function/arguments").and_then(Value::as_str).expect("args"),
    )
    .expect("args json");
    assert_eq!(args["args"]["agentId"], "agent-k");
    assert!(v["messages"][2]["content"].as_str().expect("text").contains("agent:agent-k:subagent"));
    // Another bridged tool's call and output are the coordinator's own and the world's: untouched.
    assert_eq!(
        v.pointer("/messages/1/tool_calls/1/function/arguments").and_then(Value::as_str),
        Some(&*exec)
    );
    assert_eq!(v["messages"][3]["content"], "scout");
}
