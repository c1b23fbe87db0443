//! OpenAI `POST /v1/chat/completions`: scrubbing the request, gating the tool calls of a
//! non-streamed response.

use super::calls::{AGENT_TOOLS, CallGate};
use super::chat_calls::{ChatCall, ChatCallOutcome};
use super::history_calls::{HistoryCalls, declared_agent_tools};
use super::json_text::{Delegated, scrub_arguments_text, scrub_content, scrub_schema, scrub_string};
use super::{MalformedBody, Rewritten, Scrubber, finish, parse_object};
use serde_json::{Map, Value};
use std::collections::HashSet;

/// Scrubs what the model will read: system/developer/user/assistant text, tool descriptions and
/// parameter schemas, delegation-call arguments, and the results of delegation tools (agent-written
/// text; both also lose Blindfold's verification instruction and handles). Results of other tools
/// (file and world content, channel C2) are left as they are. A result answering no call of the
/// request (which the API would refuse as it stands) is not shown to be tool content: it is
/// scrubbed as a delegation's result is.
pub fn rewrite_chat_request(body: &[u8], s: &dyn Scrubber) -> Result<Rewritten, MalformedBody> {
    let mut map = parse_object("request", body)?;
    let mut changed = 0;
    let declared = declared_agent_tools(map.get("tools").or_else(|| map.get("functions")));
    if let Some(messages) = map.get_mut("messages") {
        let Value::Array(messages) = messages else {
            return Err(MalformedBody::new("request", "`messages` is not an array"));
        };
        let calls = history_calls(messages, declared);
        for message in messages.iter_mut() {
            let Value::Object(m) = message else {
                return Err(MalformedBody::new("request", "a message is not an object"));
            };
            changed += scrub_message(m, &calls, s);
        }
    }
    for key in ["tools", "functions"] {
        if let Some(Value::Array(tools)) = map.get_mut(key) {
            for tool in tools.iter_mut() {
                let f = match tool.get("function") {
                    Some(_) => tool.get_mut("function"),
                    None => Some(tool),
                };
                if let Some(Value::Object(f)) = f {
                    changed += f.get_mut("description").map_or(0, |d| scrub_string(d, s));
                    changed += f.get_mut("parameters").map_or(0, |p| scrub_schema(p, s));
                }
            }
        }
    }
    Ok(finish(body, &map, changed))
}

/// The assistant calls of a request's history.
fn history_calls(messages: &[Value], declared: HashSet<String>) -> HistoryCalls {
    let mut calls = HistoryCalls::declared(false, declared);
    for m in messages {
        for call in m.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
            let Some(id) = call.get("id").and_then(Value::as_str) else { continue };
            let name = call.pointer("/function/name").and_then(Value::as_str).unwrap_or_default();
            let delegation =
                calls.delegates_text(name, call.pointer("/function/arguments").and_then(Value::as_str));
            calls.record(id, delegation);
        }
    }
    calls
}

/// True when a result message is scrubbed as a delegation's result: it answers a delegation or
/// no call of the request (by its `tool_call_id`), or names a delegation tool.
fn delegation_result(m: &Map<String, Value>, calls: &HistoryCalls) -> bool {
    let name = m.get("name").and_then(Value::as_str).unwrap_or_default();
    calls.delegates(name, None, AGENT_TOOLS.contains(&name))
        || m.get("tool_call_id").and_then(Value::as_str).is_some_and(|id| calls.scrubbed(id))
}

fn scrub_message(m: &mut Map<String, Value>, history: &HistoryCalls, s: &dyn Scrubber) -> usize {
    let role = m.get("role").and_then(Value::as_str).unwrap_or_default();
    let is_result = role == "tool" || role == "function";
    let delegation_result = is_result && delegation_result(m, history);
    let mut changed = 0;
    if let Some(content) = m.get_mut("content") {
        if delegation_result {
            changed += scrub_content(content, &Delegated(s));
        } else if !is_result {
            changed += scrub_content(content, s);
        }
    }
    if let Some(Value::Array(calls)) = m.get_mut("tool_calls") {
        for call in calls.iter_mut() {
            let delegation = match call.get("id").and_then(Value::as_str) {
                Some(id) => history.is_delegation(id),
                // A call without an id is not in the history's record: judged here.
                None => history.delegates_text(
                    call.pointer("/function/name").and_then(Value::as_str).unwrap_or_default(),
                    call.pointer("/function/arguments").and_then(Value::as_str),
                ),
            };
            if delegation && let Some(Value::String(args)) = call.pointer_mut("/function/arguments") {
                changed += scrub_arguments_text(args, &Delegated(s));
            }
        }
    }
    changed
}

/// Gates every tool call of a non-streamed completion: allowed calls stay (with agent aliases
/// mapped back), refused ones are removed and their refusal appended to the message text; a
/// choice left without calls finishes with `stop`.
pub fn rewrite_chat_response(body: &[u8], gate: &mut dyn CallGate) -> Result<Rewritten, MalformedBody> {
    let mut map = parse_object("response", body)?;
    let mut changed = 0;
    if let Some(Value::Array(choices)) = map.get_mut("choices") {
        for choice in choices.iter_mut() {
            changed += gate_choice(choice, gate)?;
        }
    }
    Ok(finish(body, &map, changed))
}

fn gate_choice(choice: &mut Value, gate: &mut dyn CallGate) -> Result<usize, MalformedBody> {
    let Some(Value::Object(message)) = choice.get_mut("message") else { return Ok(0) };
    let mut changed = 0;
    let mut refusals = Vec::new();
    let mut kept = 0;
    if let Some(calls) = message.get_mut("tool_calls") {
        let Value::Array(calls) = calls else {
            return Err(MalformedBody::new("response", "`tool_calls` is not an array"));
        };
        let mut out = Vec::with_capacity(calls.len());
        for mut call in std::mem::take(calls) {
            match ChatCall::whole(&call).decide(gate) {
                ChatCallOutcome::Forward(arguments) => {
                    changed += set_arguments(call.pointer_mut("/function/arguments"), arguments);
                    out.push(call);
                }
                ChatCallOutcome::Refuse(text) => refusals.push(text),
            }
        }
        kept += out.len();
        *calls = out;
    }
    if let Some(legacy) = message.get("function_call").filter(|f| !f.is_null()) {
        match ChatCall::whole_legacy(legacy).decide(gate) {
            ChatCallOutcome::Forward(arguments) => {
                kept += 1;
                changed += set_arguments(
                    message.get_mut("function_call").and_then(|f| f.get_mut("arguments")),
                    arguments,
                );
            }
            ChatCallOutcome::Refuse(text) => {
                message.remove("function_call");
                refusals.push(text);
            }
        }
    }
    if refusals.is_empty() {
        return Ok(changed);
    }
    changed += refusals.len();
    let mut text = message.get("content").and_then(Value::as_str).unwrap_or_default().to_owned();
    for r in refusals {
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&r);
    }
    message.insert("content".into(), Value::String(text));
    if kept == 0 {
        message.remove("tool_calls");
        if let Value::Object(choice) = choice {
            choice.insert("finish_reason".into(), Value::String("stop".into()));
        }
    }
    Ok(changed)
}

/// Replaces the arguments text at `slot` with `arguments` when they differ; returns how many
/// fields changed.
fn set_arguments(slot: Option<&mut Value>, arguments: Option<String>) -> usize {
    match (slot, arguments) {
        (Some(slot), Some(arguments)) if slot.as_str() != Some(arguments.as_str()) => {
            *slot = Value::String(arguments);
            1
        }
        _ => 0,
    }
}
