//! Anthropic `POST /v1/messages`: scrubbing the request, gating the blocks of a non-streamed
//! response a client would execute.

use super::anthropic_blocks::block_role;
use super::calls::{CallGate, CallOutcome, is_agent_call};
use super::history_calls::{HistoryCalls, declared_agent_tools};
use super::json_text::{Delegated, scrub_all_strings, scrub_content, scrub_schema, scrub_string};
use super::response_items::ItemRole;
use super::{MalformedBody, Rewritten, Scrubber, finish, parse_object};
use serde_json::{Map, Value, json};
use std::collections::HashSet;

/// Scrubs what the model will read: the system prompt, text blocks, delegation `tool_use` inputs,
/// results of delegation tools (those two also without Blindfold's verification instruction and
/// handles), and tool descriptions and input schemas. Results of other tools (channel C2) and
/// signed thinking blocks are left as they are. A `tool_result` answering no `tool_use` of the
/// request (which the API would refuse as it stands) is not shown to be tool content: it is
/// scrubbed as a delegation's result is.
pub fn rewrite_messages_request(body: &[u8], s: &dyn Scrubber) -> Result<Rewritten, MalformedBody> {
    let mut map = parse_object("request", body)?;
    let mut changed = map.get_mut("system").map_or(0, |v| scrub_content(v, s));
    let declared = declared_agent_tools(map.get("tools"));
    if let Some(messages) = map.get_mut("messages") {
        let Value::Array(messages) = messages else {
            return Err(MalformedBody::new("request", "`messages` is not an array"));
        };
        let calls = history_calls(messages, declared);
        for message in messages.iter_mut() {
            match message.get_mut("content") {
                Some(content @ Value::String(_)) => changed += scrub_string(content, s),
                Some(Value::Array(blocks)) => {
                    for block in blocks.iter_mut() {
                        if let Value::Object(block) = block {
                            changed += scrub_block(block, &calls, s);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    if let Some(Value::Array(tools)) = map.get_mut("tools") {
        for tool in tools.iter_mut() {
            changed += tool.get_mut("description").map_or(0, |d| scrub_string(d, s));
            changed += tool.get_mut("input_schema").map_or(0, |p| scrub_schema(p, s));
        }
    }
    Ok(finish(body, &map, changed))
}

/// The `tool_use` blocks of a request's history.
fn history_calls(messages: &[Value], declared: HashSet<String>) -> HistoryCalls {
    let blocks = messages.iter().filter_map(|m| m.get("content").and_then(Value::as_array)).flatten();
    let mut calls = HistoryCalls::declared(false, declared);
    for b in blocks.filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use")) {
        let Some(id) = b.get("id").and_then(Value::as_str) else { continue };
        let name = b.get("name").and_then(Value::as_str).unwrap_or_default();
        let delegation = calls.delegates(name, b.get("input"), is_agent_call(name, b.get("input")));
        calls.record(id, delegation);
    }
    calls
}

fn scrub_block(block: &mut Map<String, Value>, calls: &HistoryCalls, s: &dyn Scrubber) -> usize {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or_default();
    match kind {
        "text" => block.get_mut("text").map_or(0, |t| scrub_string(t, s)),
        "tool_use" => {
            let name = block.get("name").and_then(Value::as_str).unwrap_or_default();
            if calls.delegates(name, block.get("input"), is_agent_call(name, block.get("input"))) {
                block.get_mut("input").map_or(0, |i| scrub_all_strings(i, &Delegated(s)))
            } else {
                0
            }
        }
        "tool_result" => {
            let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
            if calls.scrubbed(id) {
                block.get_mut("content").map_or(0, |c| scrub_content(c, &Delegated(s)))
            } else {
                0
            }
        }
        _ => 0,
    }
}

/// Gates every block of a non-streamed message a client would execute (see [`block_role`]):
/// allowed `tool_use` blocks stay (with agent aliases mapped back), refused ones and refused
/// blocks of an unknown type become a text block stating the refusal; a message left without
/// `tool_use` stops with `end_turn`.
pub fn rewrite_messages_response(body: &[u8], gate: &mut dyn CallGate) -> Result<Rewritten, MalformedBody> {
    let mut map = parse_object("response", body)?;
    let gated = match map.get_mut("content") {
        Some(Value::Array(blocks)) => gate_blocks(blocks, gate)?,
        _ => Gated::default(),
    };
    if gated.kept == 0 && gated.refused > 0 && map.get("stop_reason") == Some(&json!("tool_use")) {
        map.insert("stop_reason".into(), json!("end_turn"));
    }
    Ok(finish(body, &map, gated.changed))
}

/// What gating a message's blocks did.
#[derive(Debug, Default)]
pub(crate) struct Gated {
    /// Blocks changed.
    pub(crate) changed: usize,
    /// Blocks a client would execute that were forwarded.
    pub(crate) kept: usize,
    /// Blocks refused.
    pub(crate) refused: usize,
}

/// Gates `blocks` in place (see [`rewrite_messages_response`]).
pub(crate) fn gate_blocks(blocks: &mut [Value], gate: &mut dyn CallGate) -> Result<Gated, MalformedBody> {
    let mut gated = Gated::default();
    for block in blocks.iter_mut() {
        let outcome = match block_role(block) {
            ItemRole::Passes => continue,
            ItemRole::Call(proposed) => match gate.gate(&proposed) {
                CallOutcome::Forward { arguments } if arguments != proposed.arguments => {
                    let mapped = serde_json::from_str(&arguments)
                        .map_err(|e| MalformedBody::new("response", e.to_string()))?;
                    block["input"] = mapped;
                    gated.changed += 1;
                    CallOutcome::Forward { arguments }
                }
                outcome => outcome,
            },
            ItemRole::Unreadable(unreadable) => gate.unreadable(&unreadable),
        };
        match outcome {
            CallOutcome::Forward { .. } => gated.kept += 1,
            CallOutcome::Refuse { text } => {
                gated.refused += 1;
                gated.changed += 1;
                *block = json!({"type": "text", "text": text});
            }
        }
    }
    Ok(gated)
}
