//! OpenAI `POST /v1/responses`: scrubbing the request, gating the call output items of a response
//! (non-streamed, or the final response object of a stream).

use super::calls::{CallGate, CallOutcome};
use super::history_calls::{HistoryCalls, declared_agent_tools};
use super::json_text::{Delegated, scrub_arguments_text, scrub_content, scrub_schema, scrub_string};
use super::response_items::{FUNCTION_CALL, ItemRole, item_key, item_kind, item_role, passes};
use super::{MalformedBody, Rewritten, Scrubber, finish, parse_object};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::collections::HashSet;

/// Scrubs what the model will read: `instructions`, input messages, delegation-call arguments and
/// results (also without Blindfold's verification instruction and handles), and tool descriptions
/// and parameter schemas. Other tools' outputs (channel C2) and encrypted reasoning items are left
/// as they are. Without `previous_response_id` or `conversation` (whose stored items may hold the
/// call), an output answering no call of the request is not shown to be tool content: it is
/// scrubbed as a delegation's result is.
pub fn rewrite_responses_request(body: &[u8], s: &dyn Scrubber) -> Result<Rewritten, MalformedBody> {
    let mut map = parse_object("request", body)?;
    let mut changed = map.get_mut("instructions").map_or(0, |v| scrub_string(v, s));
    let stored =
        ["previous_response_id", "conversation"].iter().any(|k| map.get(*k).is_some_and(|v| !v.is_null()));
    let declared = declared_agent_tools(map.get("tools"));
    match map.get_mut("input") {
        Some(v @ Value::String(_)) => changed += scrub_string(v, s),
        Some(Value::Array(items)) => {
            let calls = history_calls(items, stored, declared);
            for item in items.iter_mut() {
                changed += scrub_item(item, &calls, s);
            }
        }
        Some(Value::Null) | None => {}
        Some(_) => return Err(MalformedBody::new("request", "`input` is neither a string nor an array")),
    }
    if let Some(Value::Array(tools)) = map.get_mut("tools") {
        for tool in tools.iter_mut() {
            changed += tool.get_mut("description").map_or(0, |d| scrub_string(d, s));
            changed += tool.get_mut("parameters").map_or(0, |p| scrub_schema(p, s));
        }
    }
    Ok(finish(body, &map, changed))
}

/// The `function_call` items of a request's input; `stored` when earlier items are kept upstream.
fn history_calls(items: &[Value], stored: bool, declared: HashSet<String>) -> HistoryCalls {
    let mut calls = HistoryCalls::declared(stored, declared);
    for i in items.iter().filter(|i| i.get("type").and_then(Value::as_str) == Some("function_call")) {
        let Some(id) = i.get("call_id").and_then(Value::as_str) else { continue };
        let name = i.get("name").and_then(Value::as_str).unwrap_or_default();
        let delegation = calls.delegates_text(name, i.get("arguments").and_then(Value::as_str));
        calls.record(id, delegation);
    }
    calls
}

fn scrub_item(item: &mut Value, calls: &HistoryCalls, s: &dyn Scrubber) -> usize {
    let kind = item.get("type").and_then(Value::as_str).unwrap_or("message");
    match kind {
        "message" => item.get_mut("content").map_or(0, |c| scrub_content(c, s)),
        "function_call" => {
            let agent = match item.get("call_id").and_then(Value::as_str) {
                Some(id) => calls.is_delegation(id),
                // A call without an id is not in the history's record: judged here.
                None => calls.delegates_text(
                    item.get("name").and_then(Value::as_str).unwrap_or_default(),
                    item.get("arguments").and_then(Value::as_str),
                ),
            };
            match item.get_mut("arguments") {
                Some(Value::String(args)) if agent => scrub_arguments_text(args, &Delegated(s)),
                _ => 0,
            }
        }
        "function_call_output" => {
            let id = item.get("call_id").and_then(Value::as_str).unwrap_or_default();
            if calls.scrubbed(id) {
                item.get_mut("output").map_or(0, |o| scrub_content(o, &Delegated(s)))
            } else {
                0
            }
        }
        _ => 0,
    }
}

/// Gates every call output item of a non-streamed response (see [`item_role`]): allowed calls stay
/// (a `function_call` with agent aliases mapped back), refused ones and refused unreadable items
/// become an assistant message stating the refusal.
pub fn rewrite_responses_response(body: &[u8], gate: &mut dyn CallGate) -> Result<Rewritten, MalformedBody> {
    let mut map = parse_object("response", body)?;
    let mut memo = HashMap::new();
    let changed = match map.get_mut("output") {
        Some(Value::Array(items)) => gate_items(items, gate, &mut memo),
        _ => 0,
    };
    Ok(finish(body, &map, changed))
}

/// Decides one output item; `None` when it passes undecided.
pub(crate) fn decide_item(item: &Value, gate: &mut dyn CallGate) -> Option<CallOutcome> {
    match item_role(item) {
        ItemRole::Passes => None,
        ItemRole::Call(call) => Some(gate.gate(&call)),
        ItemRole::Unreadable(unreadable) => Some(gate.unreadable(&unreadable)),
    }
}

/// The arguments a forwarded item is sent with when they differ from its own: only a
/// `function_call`'s are rewritten (other calls carry no agent alias to map back).
pub(crate) fn rewritten_arguments<'a>(item: &Value, outcome: &'a CallOutcome) -> Option<&'a str> {
    match outcome {
        CallOutcome::Forward { arguments }
            if item_kind(item) == FUNCTION_CALL
                && item.get("arguments").and_then(Value::as_str) != Some(arguments.as_str()) =>
        {
            Some(arguments)
        }
        _ => None,
    }
}

/// Gates the call items in `items`; an outcome already in `memo` (by [`item_key`]) is reused, so a
/// call is decided once even when a stream repeats it in its final response.
pub(crate) fn gate_items(
    items: &mut [Value],
    gate: &mut dyn CallGate,
    memo: &mut HashMap<String, CallOutcome>,
) -> usize {
    let mut changed = 0;
    for item in items.iter_mut() {
        if passes(item_kind(item)) {
            continue;
        }
        let key = item_key(item);
        let outcome = match memo.get(&key) {
            Some(o) if !key.is_empty() => o.clone(),
            _ => {
                let Some(o) = decide_item(item, gate) else { continue };
                memo.insert(key, o.clone());
                o
            }
        };
        if let Some(arguments) = rewritten_arguments(item, &outcome) {
            item["arguments"] = Value::String(arguments.to_owned());
            changed += 1;
        } else if let CallOutcome::Refuse { text } = outcome {
            let id = item.get("id").cloned().unwrap_or(Value::Null);
            *item = refusal_item(id, &text, "completed");
            changed += 1;
        }
    }
    changed
}

/// An assistant message output item carrying `text`.
pub(crate) fn refusal_item(id: Value, text: &str, status: &str) -> Value {
    json!({
        "type": "message",
        "id": id,
        "status": status,
        "role": "assistant",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    })
}
