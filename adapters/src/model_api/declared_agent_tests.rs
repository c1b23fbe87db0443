//! A tool the request itself declares with a parameter naming an agent (`agent`, `agentId`,
//! `subagent_type`) is a delegation tool whatever its name: on every request shape its results
//! are an agent's text and scrubbed, while the same words answering a call to a tool whose
//! parameters name no agent stay as sent (C2).

use super::tests::Words;
use super::*;
use serde_json::{Value, json};

fn function(name: &str, param: &str) -> Value {
    json!({"type": "function", "function": {"name": name, "parameters": {"type": "object", "properties": {param: {"type": "string"}}}}})
}

#[test]
fn a_chat_result_of_a_declared_delegation_tool_is_scrubbed() {
    let chat = |tool: &str, param: &str| {
        let body = json!({"model": "m", "tools": [function(tool, param)], "messages": [
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": format!("{{\"{param}\":\"x\"}}")}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "opus-4 reviewed it."}]});
        let out = rewrite_chat_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")["messages"][1]["content"].clone()
    };
    assert_eq!(chat("delegate", "agent"), "[model] reviewed it.");
    assert_eq!(chat("hand_off", "targetAgentId"), "[model] reviewed it.");
    // Controls: parameters that name no agent (a user agent is an HTTP header).
    assert_eq!(chat("read", "path"), "opus-4 reviewed it.");
    assert_eq!(chat("fetch", "user_agent"), "opus-4 reviewed it.");
}

#[test]
fn an_anthropic_result_of_a_declared_delegation_tool_is_scrubbed() {
    let messages = |param: &str| {
        let body = json!({"model": "m", "max_tokens": 8,
            "tools": [{"name": "consult", "input_schema": {"type": "object", "properties": {param: {"type": "string"}}}}],
            "messages": [
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "consult", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "opus-4 agrees."}]}]});
        let out = rewrite_messages_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")["messages"][1]["content"][0]["content"]
            .clone()
    };
    assert_eq!(messages("subagent_type"), "[model] agrees.");
    assert_eq!(messages("query"), "opus-4 agrees.");
}

#[test]
fn a_responses_output_of_a_declared_delegation_tool_is_scrubbed() {
    let responses = |param: &str| {
        let body = json!({"model": "m",
            "tools": [{"type": "function", "name": "ask", "parameters": {"type": "object", "properties": {param: {"type": "string"}}}}],
            "input": [
                {"type": "function_call", "call_id": "fc_1", "name": "ask", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "fc_1", "output": "opus-4 is done"}]});
        let out = rewrite_responses_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")["input"][1]["output"].clone()
    };
    assert_eq!(responses("assistant_id"), "[model] is done");
    assert_eq!(responses("city"), "opus-4 is done");
}

#[test]
fn a_call_whose_name_or_arguments_name_an_agent_is_a_delegation_without_a_declaration() {
    let chat = |tool: &str, args: &str| {
        let body = json!({"model": "m", "messages": [
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": tool, "arguments": args}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "opus-4 reviewed it."}]});
        let out = rewrite_chat_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")["messages"][1]["content"].clone()
    };
    assert_eq!(chat("run_agent", r#"{"goal":"test"}"#), "[model] reviewed it.");
    assert_eq!(chat("spawnHelper", r#"{"task":"x"}"#), "[model] reviewed it.");
    assert_eq!(chat("dispatch", r#"{"job":"x","worker":"w3"}"#), "[model] reviewed it.");
    // Controls: neither the name nor the arguments name an agent.
    assert_eq!(chat("dispatch", r#"{"job":"x","queue":"q"}"#), "opus-4 reviewed it.");
    assert_eq!(chat("http_get", r#"{"url":"x","user_agent":"curl"}"#), "opus-4 reviewed it.");
    let responses = |args: &str| {
        let body = json!({"model": "m", "input": [
            {"type": "function_call", "call_id": "fc_1", "name": "ask", "arguments": args},
            {"type": "function_call_output", "call_id": "fc_1", "output": "opus-4 is done"}]});
        let out = rewrite_responses_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")["input"][1]["output"].clone()
    };
    assert_eq!(responses(r#"{"agent":"a7"}"#), "[model] is done");
    assert_eq!(responses(r#"{"city":"Oslo"}"#), "opus-4 is done");
}

#[test]
fn a_result_of_a_call_whose_argument_is_an_agents_handle_is_scrubbed() {
    // No tool declared: only the call's own arguments say where the work went.
    let chat = |args: &str| {
        let body = json!({"model": "m", "messages": [
            {"role": "assistant", "content": null, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "ask", "arguments": args}}]},
            {"role": "tool", "tool_call_id": "call_1", "content": "opus-4 reviewed it."}]});
        let out = rewrite_chat_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")["messages"][1]["content"].clone()
    };
    assert_eq!(chat(r#"{"who": "agent-r", "question": "review"}"#), "[model] reviewed it.");
    assert_eq!(chat(r#"{"to": "reviewer_agent"}"#), "[model] reviewed it.");
    // Controls: a script, a path and a sentence that mention agents are no handle.
    assert_eq!(chat(r#"{"command": "./run_agent.sh"}"#), "opus-4 reviewed it.");
    assert_eq!(chat(r#"{"path": "src/agents"}"#), "opus-4 reviewed it.");
    assert_eq!(chat(r#"{"question": "ask the agent"}"#), "opus-4 reviewed it.");
}

#[test]
fn a_result_of_a_tool_named_for_an_agents_role_is_scrubbed() {
    let responses = |tool: &str| {
        let body = json!({"model": "m", "input": [
            {"type": "function_call", "call_id": "fc_1", "name": tool, "arguments": "{\"query\": \"Q3 churn\"}"},
            {"type": "function_call_output", "call_id": "fc_1", "output": "opus-4 says churn is 2.1%"}]});
        let out = rewrite_responses_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")["input"][1]["output"].clone()
    };
    assert_eq!(responses("run_analyst"), "[model] says churn is 2.1%");
    assert_eq!(responses("askReviewer"), "[model] says churn is 2.1%");
    // Controls: tools named for what they do to files or data.
    assert_eq!(responses("run_tests"), "opus-4 says churn is 2.1%");
    assert_eq!(responses("file_writer"), "opus-4 says churn is 2.1%");
    assert_eq!(responses("code_review"), "opus-4 says churn is 2.1%");
}
