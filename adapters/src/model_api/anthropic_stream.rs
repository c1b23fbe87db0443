//! Anthropic message streams: events are forwarded as they arrive (byte for byte when untouched)
//! except a block a client would execute (`tool_use`, and a block of a type Blindfold does not
//! know), held from `content_block_start` to `content_block_stop`, gated, then sent whole — or
//! replaced, at the same index, by a text block stating the refusal. Blocks the `message_start`
//! event already carries are gated as a whole message's.

use super::anthropic_blocks::{TOOL_USE, block_kind, passes, tool_use_head, unknown_block};
use super::anthropic_messages::gate_blocks;
use super::calls::{CallGate, CallOutcome, ProposedCall, UnreadableItem};
use super::{MalformedBody, SseEvent};
use serde_json::{Value, json};

#[derive(Debug)]
struct Held {
    index: Value,
    /// The block's `content_block_start` event: its name, data and raw bytes.
    start: (Option<String>, Value, Vec<u8>),
    part: HeldPart,
}

/// What a held block is.
#[derive(Debug)]
enum HeldPart {
    /// A `tool_use` block: its call, the input assembled from its deltas.
    Call {
        id: String,
        name: String,
        /// The `input` of its start event when it is not empty (a client starts from it).
        start_input: Option<Value>,
        partial: String,
    },
    /// A block that cannot be read as a call: its delta events as they came.
    Unreadable { item: UnreadableItem, deltas: Vec<Vec<u8>> },
}

/// The state of one streamed message.
#[derive(Debug, Default)]
pub struct MessagesStream {
    held: Option<Held>,
    kept: u64,
    refused: u64,
}

impl MessagesStream {
    /// A stream with nothing held.
    pub fn new() -> Self {
        Self::default()
    }

    /// Handles one upstream event; returns the events to send to the client, in order.
    pub fn on_event(
        &mut self,
        ev: &SseEvent,
        gate: &mut dyn CallGate,
    ) -> Result<Vec<Vec<u8>>, MalformedBody> {
        let Some(data) = ev.data.as_deref() else { return Ok(vec![ev.raw.clone()]) };
        let mut v = match blindfold_schemas::strict_json::value_from_str(data) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return Err(MalformedBody::new("stream event", "event data is not a JSON object")),
            Err(e) => return Err(MalformedBody::new("stream event", e.to_string())),
        };
        let kind =
            v.get("type").and_then(Value::as_str).or(ev.event.as_deref()).unwrap_or_default().to_owned();
        let same_block =
            |held: &Option<Held>| held.as_ref().is_some_and(|h| Some(&h.index) == v.get("index"));
        match kind.as_str() {
            "message_start" => self.gate_started_content(ev, v, gate),
            "content_block_start" if !passes(block_kind(&v["content_block"])) => {
                let out = self.finish(gate);
                self.held = Some(Held {
                    index: v.get("index").cloned().unwrap_or(Value::Null),
                    part: held_part(&v["content_block"]),
                    start: (ev.event.clone(), v, ev.raw.clone()),
                });
                Ok(out)
            }
            "content_block_delta" if same_block(&self.held) => {
                match self.held.as_mut().map(|h| &mut h.part) {
                    Some(HeldPart::Call { partial, .. }) => {
                        partial.push_str(
                            v.pointer("/delta/partial_json").and_then(Value::as_str).unwrap_or_default(),
                        );
                    }
                    Some(HeldPart::Unreadable { deltas, .. }) => deltas.push(ev.raw.clone()),
                    None => {}
                }
                Ok(Vec::new())
            }
            "content_block_stop" if same_block(&self.held) => {
                let mut out = self.finish(gate);
                out.push(ev.raw.clone());
                Ok(out)
            }
            "message_delta" => {
                let mut out = self.finish(gate);
                if self.kept == 0
                    && self.refused > 0
                    && v.pointer("/delta/stop_reason") == Some(&json!("tool_use"))
                {
                    v["delta"]["stop_reason"] = json!("end_turn");
                    out.push(SseEvent::encode(ev.event.as_deref(), &v.to_string()));
                } else {
                    out.push(ev.raw.clone());
                }
                Ok(out)
            }
            _ => {
                let mut out = Vec::new();
                if kind == "message_stop" {
                    out = self.close_unfinished(gate);
                }
                out.push(ev.raw.clone());
                Ok(out)
            }
        }
    }

    /// Gates a block the upstream never stopped and closes it (the stream ended early).
    pub fn close_unfinished(&mut self, gate: &mut dyn CallGate) -> Vec<Vec<u8>> {
        let Some(index) = self.held.as_ref().map(|h| h.index.clone()) else { return Vec::new() };
        let mut out = self.finish(gate);
        let stop = json!({"type": "content_block_stop", "index": index});
        out.push(SseEvent::encode(Some("content_block_stop"), &stop.to_string()));
        out
    }

    /// Gates a held block (at its stop, or when the upstream ends early) and returns its start and
    /// delta events; the caller forwards the stop event.
    pub fn finish(&mut self, gate: &mut dyn CallGate) -> Vec<Vec<u8>> {
        let Some(h) = self.held.take() else { return Vec::new() };
        let input_delta = |partial: &str| {
            let delta = json!({"type": "content_block_delta", "index": h.index,
                "delta": {"type": "input_json_delta", "partial_json": partial}});
            SseEvent::encode(Some("content_block_delta"), &delta.to_string())
        };
        let (outcome, deltas) = match &h.part {
            HeldPart::Call { id, name, start_input, partial } => {
                match call_input(start_input.as_ref(), partial) {
                    Ok(arguments) => {
                        (gate.gate(&ProposedCall { id: id.clone(), name: name.clone(), arguments }), None)
                    }
                    Err(item) => (gate.unreadable(&item), Some(vec![input_delta(partial)])),
                }
            }
            HeldPart::Unreadable { item, deltas } => (gate.unreadable(item), Some(deltas.clone())),
        };
        match (outcome, deltas) {
            (CallOutcome::Forward { .. }, Some(deltas)) => {
                self.kept += 1;
                std::iter::once(h.start.2).chain(deltas).collect()
            }
            (CallOutcome::Forward { arguments }, None) => {
                self.kept += 1;
                vec![empty_input_start(h.start), input_delta(&arguments)]
            }
            (CallOutcome::Refuse { text }, _) => {
                self.refused += 1;
                let start = json!({"type": "content_block_start", "index": h.index,
                    "content_block": {"type": "text", "text": ""}});
                let delta = json!({"type": "content_block_delta", "index": h.index,
                    "delta": {"type": "text_delta", "text": text}});
                vec![
                    SseEvent::encode(Some("content_block_start"), &start.to_string()),
                    SseEvent::encode(Some("content_block_delta"), &delta.to_string()),
                ]
            }
        }
    }

    /// Gates the blocks a `message_start` event's message already carries (a client starts from
    /// that message); the event as it came when it carries none a client would execute.
    fn gate_started_content(
        &mut self,
        ev: &SseEvent,
        mut v: Value,
        gate: &mut dyn CallGate,
    ) -> Result<Vec<Vec<u8>>, MalformedBody> {
        let Some(Value::Array(blocks)) = v.pointer_mut("/message/content") else {
            return Ok(vec![ev.raw.clone()]);
        };
        let gated = gate_blocks(blocks, gate)?;
        self.kept += gated.kept as u64;
        self.refused += gated.refused as u64;
        if gated.changed == 0 {
            return Ok(vec![ev.raw.clone()]);
        }
        Ok(vec![SseEvent::encode(ev.event.as_deref(), &v.to_string())])
    }
}

/// What a started block that does not pass is: a `tool_use` block naming its tool is a call,
/// any other is unreadable.
fn held_part(block: &Value) -> HeldPart {
    let kind = block_kind(block);
    let unreadable = |item| HeldPart::Unreadable { item, deltas: Vec::new() };
    if kind != TOOL_USE {
        return unreadable(unknown_block(kind));
    }
    match tool_use_head(block) {
        Ok((id, name)) => {
            let start_input = block.get("input").filter(|i| !is_empty_input(i)).cloned();
            HeldPart::Call { id, name, start_input, partial: String::new() }
        }
        Err(item) => unreadable(item),
    }
}

/// The input of a streamed `tool_use` block as JSON text: its deltas, or its start's input when
/// no delta carried any; unreadable when both carry one (clients differ on which counts).
fn call_input(start_input: Option<&Value>, partial: &str) -> Result<String, UnreadableItem> {
    match start_input {
        None => Ok(partial.to_owned()),
        Some(input) if partial.trim().is_empty() => Ok(input.to_string()),
        Some(_) => Err(UnreadableItem {
            kind: TOOL_USE.into(),
            detail: "the block carries an input both at its start and in its deltas".into(),
        }),
    }
}

/// True for a start event's `input` that carries nothing (`{}` or null).
fn is_empty_input(input: &Value) -> bool {
    input.is_null() || input.as_object().is_some_and(|o| o.is_empty())
}

/// A `tool_use` start event with an empty `input` (the gated input follows in one delta); the
/// event as it came when its input is already empty.
fn empty_input_start((name, mut start, raw): (Option<String>, Value, Vec<u8>)) -> Vec<u8> {
    if start.pointer("/content_block/input").is_none_or(is_empty_input) {
        return raw;
    }
    start["content_block"]["input"] = json!({});
    SseEvent::encode(name.as_deref(), &start.to_string())
}
