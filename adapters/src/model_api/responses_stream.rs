//! OpenAI response streams: events are forwarded as they arrive (byte for byte when untouched)
//! except those of a call output item (any item that does not pass undecided), held from
//! `response.output_item.added` to `response.output_item.done`, gated, then sent — or replaced by
//! the events of an assistant message stating the refusal. The final response object is gated
//! with the same outcomes.

use super::calls::{CallGate, CallOutcome, UnreadableItem};
use super::response_items::{FUNCTION_CALL, item_key, item_kind, passes};
use super::responses::{decide_item, gate_items, refusal_item, rewritten_arguments};
use super::{MalformedBody, SseEvent};
use serde_json::{Value, json};
use std::collections::HashMap;

#[derive(Debug)]
struct Held {
    output_index: Value,
    /// The held events: (event name, parsed data, raw bytes).
    events: Vec<(Option<String>, Value, Vec<u8>)>,
}

/// The state of one streamed response.
#[derive(Debug, Default)]
pub struct ResponsesStream {
    held: Vec<Held>,
    memo: HashMap<String, CallOutcome>,
}

impl ResponsesStream {
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
        if data.trim() == "[DONE]" {
            return Ok(vec![ev.raw.clone()]);
        }
        let mut v = match blindfold_schemas::strict_json::value_from_str(data) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => return Err(MalformedBody::new("stream event", "event data is not a JSON object")),
            Err(e) => return Err(MalformedBody::new("stream event", e.to_string())),
        };
        let kind =
            v.get("type").and_then(Value::as_str).or(ev.event.as_deref()).unwrap_or_default().to_owned();
        let index = v.get("output_index").cloned();
        let held_at = index.as_ref().and_then(|i| self.held.iter().position(|h| &h.output_index == i));
        let entry = (ev.event.clone(), v.clone(), ev.raw.clone());
        match (kind.as_str(), held_at) {
            ("response.output_item.added", None) if !passes(item_kind(&v["item"])) => {
                let output_index = index.unwrap_or(Value::Null);
                self.held.push(Held { output_index, events: vec![entry] });
                Ok(Vec::new())
            }
            ("response.output_item.done", None) if !passes(item_kind(&v["item"])) => {
                let output_index = index.unwrap_or(Value::Null);
                Ok(self.release(Held { output_index, events: vec![entry] }, gate))
            }
            ("response.output_item.done", Some(at)) => {
                let mut held = self.held.remove(at);
                held.events.push(entry);
                Ok(self.release(held, gate))
            }
            (_, Some(at)) => {
                self.held[at].events.push(entry);
                Ok(Vec::new())
            }
            ("response.completed" | "response.incomplete" | "response.done", None) => {
                let changed = match v.pointer_mut("/response/output") {
                    Some(Value::Array(items)) => gate_items(items, gate, &mut self.memo),
                    _ => 0,
                };
                if changed == 0 {
                    return Ok(vec![ev.raw.clone()]);
                }
                Ok(vec![SseEvent::encode(ev.event.as_deref(), &v.to_string())])
            }
            _ => Ok(vec![ev.raw.clone()]),
        }
    }

    /// Releases every item still held (the upstream ended early): each is gated as it stands.
    pub fn finish(&mut self, gate: &mut dyn CallGate) -> Vec<Vec<u8>> {
        std::mem::take(&mut self.held).into_iter().flat_map(|h| self.release(h, gate)).collect()
    }

    /// Gates a completed item and returns the events to send for it.
    fn release(&mut self, held: Held, gate: &mut dyn CallGate) -> Vec<Vec<u8>> {
        let decided = match held_item(&held) {
            Ok(item) => decide_item(&item, gate).map(|outcome| {
                let rewritten = rewritten_arguments(&item, &outcome).map(str::to_owned);
                (item_key(&item), rewritten, outcome)
            }),
            Err((key, unreadable)) => Some((key, None, gate.unreadable(&unreadable))),
        };
        let Some((key, rewritten, outcome)) = decided else { return raw_events(held) };
        let events = match (&outcome, rewritten) {
            (_, Some(arguments)) => rewrite_arguments(held, &arguments),
            (CallOutcome::Refuse { text }, None) => refusal_events(&held, text),
            (CallOutcome::Forward { .. }, None) => raw_events(held),
        };
        self.memo.insert(key, outcome);
        events
    }
}

/// The held events as they came.
fn raw_events(held: Held) -> Vec<Vec<u8>> {
    held.events.into_iter().map(|(_, _, raw)| raw).collect()
}

/// The item as the held events describe it: the done item when there is one, else (the upstream
/// ended early) a `function_call`'s added item with the streamed argument deltas. Any other item
/// cut short is unreadable (with its memo key).
fn held_item(held: &Held) -> Result<Value, (String, UnreadableItem)> {
    let item_of = |kind: &str| {
        held.events
            .iter()
            .find(|(_, v, _)| v.get("type") == Some(&json!(kind)))
            .and_then(|(_, v, _)| v.get("item"))
    };
    if let Some(item) = item_of("response.output_item.done") {
        return Ok(item.clone());
    }
    let mut item = item_of("response.output_item.added").cloned().unwrap_or(Value::Null);
    if item_kind(&item) != FUNCTION_CALL {
        let kind = item_kind(&item).to_owned();
        let detail = "the stream ended before the item was complete".to_owned();
        return Err((item_key(&item), UnreadableItem { kind, detail }));
    }
    let mut arguments = String::new();
    for (_, v, _) in &held.events {
        match v.get("type").and_then(Value::as_str) {
            Some("response.function_call_arguments.delta") => {
                arguments.push_str(v.get("delta").and_then(Value::as_str).unwrap_or_default());
            }
            Some("response.function_call_arguments.done") => {
                arguments = v.get("arguments").and_then(Value::as_str).unwrap_or_default().to_owned();
            }
            _ => {}
        }
    }
    item["arguments"] = Value::String(arguments);
    Ok(item)
}

/// The held events with the arguments replaced: one delta carrying them all, then the rest.
fn rewrite_arguments(held: Held, arguments: &str) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut delta_sent = false;
    for (name, mut v, raw) in held.events {
        match v.get("type").and_then(Value::as_str).unwrap_or_default() {
            "response.function_call_arguments.delta" if delta_sent => continue,
            "response.function_call_arguments.delta" => {
                delta_sent = true;
                v["delta"] = json!(arguments);
            }
            "response.function_call_arguments.done" => v["arguments"] = json!(arguments),
            "response.output_item.done" => v["item"]["arguments"] = json!(arguments),
            _ => {
                out.push(raw);
                continue;
            }
        }
        out.push(SseEvent::encode(name.as_deref(), &v.to_string()));
    }
    out
}

/// The events of an assistant message item stating the refusal, at the call's output index.
fn refusal_events(held: &Held, text: &str) -> Vec<Vec<u8>> {
    let first = held.events.first().map(|(_, v, _)| v);
    let id = first.and_then(|v| v.pointer("/item/id")).cloned().unwrap_or(Value::Null);
    let seq = first.and_then(|v| v.get("sequence_number")).cloned();
    let oi = held.output_index.clone();
    let part = json!({"type": "output_text", "text": text, "annotations": []});
    let empty_part = json!({"type": "output_text", "text": "", "annotations": []});
    let events = [
        json!({"type": "response.output_item.added", "output_index": oi,
            "item": {"type": "message", "id": id, "status": "in_progress", "role": "assistant", "content": []}}),
        json!({"type": "response.content_part.added", "item_id": id, "output_index": oi, "content_index": 0,
            "part": empty_part}),
        json!({"type": "response.output_text.delta", "item_id": id, "output_index": oi, "content_index": 0,
            "delta": text, "logprobs": []}),
        json!({"type": "response.output_text.done", "item_id": id, "output_index": oi, "content_index": 0,
            "text": text, "logprobs": []}),
        json!({"type": "response.content_part.done", "item_id": id, "output_index": oi, "content_index": 0,
            "part": part}),
        json!({"type": "response.output_item.done", "output_index": oi, "item": refusal_item(id.clone(), text, "completed")}),
    ];
    events
        .into_iter()
        .map(|mut e| {
            if let Some(seq) = &seq {
                e["sequence_number"] = seq.clone();
            }
            let name = e["type"].as_str().unwrap_or_default().to_owned();
            SseEvent::encode(Some(&name), &e.to_string())
        })
        .collect()
}
