//! OpenAI chat-completion streams: every chunk is forwarded as it arrives (byte for byte when
//! untouched) except tool-call deltas (`tool_calls` of any type, and the deprecated
//! `function_call`), which are held until the call is complete, gated, and then sent whole — or
//! replaced by a content delta stating the refusal.

use super::calls::CallGate;
use super::chat_calls::{ChatCall, ChatCallOutcome};
use super::{MalformedBody, SseEvent};
use serde_json::{Map, Value, json};
use std::collections::BTreeMap;

#[derive(Debug, Default)]
struct ChoiceState {
    /// Held calls by their upstream index.
    pending: BTreeMap<u64, ChatCall>,
    /// A held deprecated `function_call`.
    legacy: Option<ChatCall>,
    /// Calls forwarded so far (the next forwarded call's index).
    kept: u64,
    /// Calls refused so far.
    refused: u64,
    /// True once text went out for this choice (a refusal then starts on a new line).
    text_sent: bool,
}

/// The delta keys that carry a call.
const CALL_KEYS: &[&str] = &["tool_calls", "function_call"];

/// The state of one streamed completion.
#[derive(Debug, Default)]
pub struct ChatStream {
    choices: BTreeMap<u64, ChoiceState>,
    /// Top-level fields of the chunk that first carried a call (id, object, created, model…),
    /// reused for the chunks Blindfold composes.
    envelope: Map<String, Value>,
}

impl ChatStream {
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
            let mut out = self.finish(gate);
            out.push(ev.raw.clone());
            return Ok(out);
        }
        let mut chunk = match blindfold_schemas::strict_json::value_from_str(data) {
            Ok(Value::Object(map)) => map,
            Ok(_) => return Err(MalformedBody::new("stream event", "chunk is not a JSON object")),
            Err(e) => return Err(MalformedBody::new("stream event", e.to_string())),
        };
        let carries_calls = chunk
            .get("choices")
            .and_then(Value::as_array)
            .is_some_and(|cs| cs.iter().any(|c| CALL_KEYS.iter().any(|k| !c["delta"][k].is_null())));
        if carries_calls && self.envelope.is_empty() {
            self.envelope = envelope_of(&chunk);
        }
        let Some(Value::Array(choices)) = chunk.get_mut("choices") else { return Ok(vec![ev.raw.clone()]) };
        let mut out = Vec::new();
        let mut modified = false;
        let mut kept_choices = Vec::with_capacity(choices.len());
        for (pos, mut choice) in std::mem::take(choices).into_iter().enumerate() {
            let idx = choice.get("index").and_then(Value::as_u64).unwrap_or(pos as u64);
            let state = self.choices.entry(idx).or_default();
            let mut drop_choice = false;
            if let Some(Value::Object(delta)) = choice.get_mut("delta") {
                if let Some(calls) = take_call(delta, "tool_calls") {
                    modified = true;
                    hold(state, calls)?;
                }
                if let Some(legacy) = take_call(delta, "function_call") {
                    modified = true;
                    state.legacy.get_or_insert_with(ChatCall::default).push_legacy(&legacy);
                }
                if delta.get("content").and_then(Value::as_str).is_some_and(|c| !c.is_empty()) {
                    state.text_sent = true;
                }
                let finished = choice.get("finish_reason").is_some_and(|f| !f.is_null());
                let empty = choice.get("delta").and_then(Value::as_object).is_some_and(Map::is_empty);
                drop_choice = empty && !finished && choice.get("logprobs").is_none_or(Value::is_null);
            }
            let finished = choice.get("finish_reason").is_some_and(|f| !f.is_null());
            if finished && self.choices.get(&idx).is_some_and(ChoiceState::holds) {
                out.extend(self.flush(idx, gate));
                let state = self.choices.entry(idx).or_default();
                let reason = choice.get("finish_reason");
                if state.kept == 0
                    && state.refused > 0
                    && (reason == Some(&json!("tool_calls")) || reason == Some(&json!("function_call")))
                {
                    choice["finish_reason"] = json!("stop");
                }
                modified = true;
            }
            if !drop_choice {
                kept_choices.push(choice);
            }
        }
        if !modified {
            return Ok(vec![ev.raw.clone()]);
        }
        let has_usage = chunk.get("usage").is_some_and(|u| !u.is_null());
        if !kept_choices.is_empty() || has_usage {
            chunk.insert("choices".into(), Value::Array(kept_choices));
            out.push(SseEvent::encode(ev.event.as_deref(), &Value::Object(chunk).to_string()));
        }
        Ok(out)
    }

    /// Flushes every call still held (the upstream ended without a finish reason, or `[DONE]`).
    pub fn finish(&mut self, gate: &mut dyn CallGate) -> Vec<Vec<u8>> {
        let held: Vec<u64> = self.choices.iter().filter(|(_, s)| s.holds()).map(|(i, _)| *i).collect();
        held.into_iter().flat_map(|idx| self.flush(idx, gate)).collect()
    }

    /// Gates the held calls of choice `idx` in order (the deprecated `function_call` last) and
    /// composes their chunks.
    fn flush(&mut self, idx: u64, gate: &mut dyn CallGate) -> Vec<Vec<u8>> {
        let Some(state) = self.choices.get_mut(&idx) else { return Vec::new() };
        let mut deltas = Vec::new();
        for (_, call) in std::mem::take(&mut state.pending) {
            let delta = match call.decide(gate) {
                ChatCallOutcome::Forward(arguments) => {
                    let index = state.kept;
                    state.kept += 1;
                    json!({"tool_calls": call.forwarded_entries(index, arguments.as_deref())})
                }
                ChatCallOutcome::Refuse(text) => state.refusal(text),
            };
            deltas.push(delta);
        }
        if let Some(call) = state.legacy.take() {
            deltas.push(match call.decide(gate) {
                ChatCallOutcome::Forward(arguments) => {
                    state.kept += 1;
                    json!({"function_call": call.legacy_delta(arguments.as_deref())})
                }
                ChatCallOutcome::Refuse(text) => state.refusal(text),
            });
        }
        let chunk_of = |delta: Value| {
            let mut chunk = self.envelope.clone();
            chunk.insert("choices".into(), json!([{"index": idx, "delta": delta, "finish_reason": null}]));
            SseEvent::encode(None, &Value::Object(chunk).to_string())
        };
        deltas.into_iter().map(chunk_of).collect()
    }
}

impl ChoiceState {
    /// True while a call of this choice is held.
    fn holds(&self) -> bool {
        !self.pending.is_empty() || self.legacy.is_some()
    }

    /// The content delta stating a refusal (on a new line after text already sent).
    fn refusal(&mut self, text: String) -> Value {
        self.refused += 1;
        let text = if self.text_sent { format!("\n{text}") } else { text };
        self.text_sent = true;
        json!({"content": text})
    }
}

/// Removes and returns the call part under `key` of a delta; a null one stays (it carries no call).
fn take_call(delta: &mut Map<String, Value>, key: &str) -> Option<Value> {
    delta.get(key).is_some_and(|v| !v.is_null()).then(|| delta.remove(key)).flatten()
}

/// Accumulates tool-call deltas by their index (see [`ChatCall::push`]).
fn hold(state: &mut ChoiceState, calls: Value) -> Result<(), MalformedBody> {
    let Value::Array(calls) = calls else {
        return Err(MalformedBody::new("stream event", "`tool_calls` is not an array"));
    };
    for (pos, call) in calls.into_iter().enumerate() {
        let index = call.get("index").and_then(Value::as_u64).unwrap_or(pos as u64);
        state.pending.entry(index).or_default().push(&call);
    }
    Ok(())
}

fn envelope_of(chunk: &Map<String, Value>) -> Map<String, Value> {
    chunk
        .iter()
        .filter(|(k, _)| *k != "choices" && *k != "usage")
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
