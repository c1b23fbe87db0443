//! Anthropic message streams: events are forwarded as they arrive (byte for byte when untouched)
//! except a `tool_use` block, held from `content_block_start` to `content_block_stop`, gated, then
//! sent whole — or replaced, at the same index, by a text block stating the refusal.

use super::calls::{CallGate, CallOutcome, ProposedCall};
use super::{MalformedBody, SseEvent};
use serde_json::{Value, json};

#[derive(Debug)]
struct Held {
    index: Value,
    start_raw: Vec<u8>,
    id: String,
    name: String,
    partial: String,
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
            "content_block_start" if v.pointer("/content_block/type") == Some(&json!("tool_use")) => {
                let out = self.finish(gate);
                let text = |p: &str| v.pointer(p).and_then(Value::as_str).unwrap_or_default().to_owned();
                self.held = Some(Held {
                    index: v.get("index").cloned().unwrap_or(Value::Null),
                    start_raw: ev.raw.clone(),
                    id: text("/content_block/id"),
                    name: text("/content_block/name"),
                    partial: String::new(),
                });
                Ok(out)
            }
            "content_block_delta" if same_block(&self.held) => {
                let piece = v.pointer("/delta/partial_json").and_then(Value::as_str).unwrap_or_default();
                if let Some(h) = &mut self.held {
                    h.partial.push_str(piece);
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
        let proposed = ProposedCall { id: h.id, name: h.name, arguments: h.partial };
        match gate.gate(&proposed) {
            CallOutcome::Forward { arguments } => {
                self.kept += 1;
                let delta = json!({"type": "content_block_delta", "index": h.index,
                    "delta": {"type": "input_json_delta", "partial_json": arguments}});
                vec![h.start_raw, SseEvent::encode(Some("content_block_delta"), &delta.to_string())]
            }
            CallOutcome::Refuse { text } => {
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
}
