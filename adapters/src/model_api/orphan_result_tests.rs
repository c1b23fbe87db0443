//! A tool result that answers no call of the request is not shown to be tool content (C2): on
//! every request shape it is scrubbed as a delegation's result is, while a result answering a
//! call of the request to an ordinary tool stays as sent. The APIs refuse such a result as it
//! stands, so no well-formed history loses tool content to the rule.

use super::tests::Words;
use super::*;
use serde_json::{Value, json};

fn chat(messages: Value) -> Value {
    let body = json!({"model": "m", "messages": messages});
    let out = rewrite_chat_request(body.to_string().as_bytes(), &Words).expect("rewrite");
    serde_json::from_slice(&out.body).expect("json")
}

#[test]
fn a_chat_result_answering_no_call_of_the_request_is_scrubbed() {
    let v = chat(json!([
        {"role": "user", "content": "go"},
        {"role": "tool", "tool_call_id": "call_9", "content": "Sub-agent (opus-4) done."}
    ]));
    assert_eq!(v["messages"][1]["content"], "Sub-agent ([model]) done.");
    // Control: the same words answering a call to an ordinary tool of the request stay (C2).
    let v = chat(json!([
        {"role": "assistant", "content": null, "tool_calls": [
            {"id": "call_9", "type": "function", "function": {"name": "read", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "call_9", "content": "Sub-agent (opus-4) done."}
    ]));
    assert_eq!(v["messages"][1]["content"], "Sub-agent (opus-4) done.");
    // A legacy `function` result names its function: an ordinary one stays.
    let v = chat(json!([{"role": "function", "name": "read", "content": "opus-4 notes"}]));
    assert_eq!(v["messages"][0]["content"], "opus-4 notes");
}

#[test]
fn an_anthropic_tool_result_answering_no_tool_use_is_scrubbed() {
    let body = |history: Value| {
        let body = json!({"model": "m", "max_tokens": 8, "messages": history});
        let out = rewrite_messages_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")
    };
    let result = json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "Subagent (opus-4) finished."}]});
    let v = body(json!([result.clone()]));
    assert_eq!(v["messages"][0]["content"][0]["content"], "Subagent ([model]) finished.");
    let call = json!({"role": "assistant", "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "notes.md"}}]});
    let v = body(json!([call, result]));
    assert_eq!(v["messages"][1]["content"][0]["content"], "Subagent (opus-4) finished.");
}

#[test]
fn a_responses_output_answering_no_call_is_scrubbed_unless_earlier_items_are_stored() {
    let output = json!({"type": "function_call_output", "call_id": "fc_1", "output": "opus-4 says done"});
    let request = |extra: Value, items: Value| {
        let mut body = json!({"model": "m", "input": items});
        if let (Value::Object(b), Value::Object(e)) = (&mut body, extra) {
            b.extend(e);
        }
        let out = rewrite_responses_request(body.to_string().as_bytes(), &Words).expect("rewrite");
        serde_json::from_slice::<Value>(&out.body).expect("json")
    };
    let v = request(json!({}), json!([output.clone()]));
    assert_eq!(v["input"][0]["output"], "[model] says done");
    // The call may be one of the stored items: nothing shows the output is not tool content.
    let v = request(json!({"previous_response_id": "resp_1"}), json!([output.clone()]));
    assert_eq!(v["input"][0]["output"], "opus-4 says done");
    let v = request(json!({"conversation": "conv_1"}), json!([output.clone()]));
    assert_eq!(v["input"][0]["output"], "opus-4 says done");
    let call = json!({"type": "function_call", "call_id": "fc_1", "name": "read", "arguments": "{}"});
    let v = request(json!({}), json!([call, output]));
    assert_eq!(v["input"][1]["output"], "opus-4 says done");
}
