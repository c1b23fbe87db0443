//! Shared by `held_out_identity`: each probe of `examples/corpus/identity-probes/` delivered on
//! its surface through the daemon's own rewriting code (in process, the functions the transports
//! call), with the built-in lexicon and no `[identity]` configuration.
//!
//! - `text`: a harness's sub-agent result (`observe_text`, then `rewrite_text`, as the Pi and
//!   OpenCode sessions do);
//! - `mcp_tool`: the server frame (`tools/list`, `initialize`, `prompts/list`, `resources/list`)
//!   through `transports::mcp::identity::rewrite_server_message`;
//! - `a2a_card`: `observe_card` then `rewrite_card` (what the A2A proxy serves);
//! - `a2a_parts`: a message or artifact through `scrub_a2a`; a stream's artifact-update events
//!   through `transports::a2a::stream_text::ArtifactStreams` and `scrub_a2a`, as the relay does;
//! - `model_request`: the body through the model-API proxy's request rewriting with the daemon's
//!   scrubber.
#![allow(dead_code)]

use blindfold_adapters::model_api::{
    rewrite_chat_request, rewrite_messages_request, rewrite_responses_request,
};
use blindfold_daemon::transports::a2a::stream_text::ArtifactStreams;
use blindfold_daemon::transports::mcp::identity::rewrite_server_message;
use blindfold_daemon::transports::model_proxy::identity::scrubber_of;
use blindfold_engine::identity::{AliasMap, Anonymizer, CardTarget, Lexicon, McpAliases};
use serde_json::{Value, json};
use std::sync::Arc;

/// What the coordinator side received for one probe.
pub struct Relayed {
    /// Everything relayed, as JSON (scanned by the oracle, strings and keys).
    pub json: Value,
    /// Texts read joined: text parts of one message, one artifact or one stream concatenated
    /// (scanned too, and searched for `keep`/`gone` spans).
    pub joined: Vec<String>,
    /// The relayed equals the payload (for cards: every agent-written text field; for streams:
    /// the joined text and every other field of each event).
    pub unchanged: bool,
    /// The rewriting refused the payload (fail closed); what it said.
    pub refused: Option<String>,
}

/// Every string of `v`, keys included.
pub fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => {
            for (k, x) in m {
                out.push(k.clone());
                strings(x, out);
            }
        }
        _ => {}
    }
}

fn anon(lexicon: &Lexicon) -> Anonymizer {
    Anonymizer::new(lexicon.clone(), AliasMap::new(7, ["agent-1"]))
}

/// Delivers `payload` on `surface`.
pub fn relay(lexicon: &Lexicon, surface: &str, payload: &Value) -> Relayed {
    match surface {
        "text" => text(lexicon, payload.as_str().unwrap_or_default()),
        "mcp_tool" => mcp(lexicon, payload),
        "a2a_card" => card(lexicon, payload),
        "a2a_parts" if payload.get("chunks").is_some() => stream(lexicon, payload),
        "a2a_parts" => parts(lexicon, payload),
        "model_request" => model_request(lexicon, payload),
        other => panic!("unknown surface {other}"),
    }
}

fn text(lexicon: &Lexicon, payload: &str) -> Relayed {
    let mut a = anon(lexicon);
    a.observe_text(payload);
    let out = a.rewrite_text(payload).into_owned();
    Relayed { unchanged: out == payload, json: Value::String(out.clone()), joined: vec![out], refused: None }
}

fn mcp(lexicon: &Lexicon, payload: &Value) -> Relayed {
    let result = if let Some(t) = payload.get("tool") {
        json!({"tools": [t]})
    } else if let Some(i) = payload.get("initialize") {
        i.clone()
    } else if let Some(p) = payload.get("prompt") {
        json!({"prompts": [p]})
    } else if let Some(r) = payload.get("resource") {
        json!({"resources": [r]})
    } else {
        panic!("mcp_tool payload of no known shape: {payload}")
    };
    let mut frame = json!({"jsonrpc": "2.0", "id": 1, "result": result.clone()});
    let mut a = anon(lexicon);
    rewrite_server_message(&mut a, &mut McpAliases::default(), &mut frame);
    let out = frame["result"].clone();
    Relayed { unchanged: out == result, json: out, joined: Vec::new(), refused: None }
}

/// The agent-written text of a card: description, skills' names, descriptions, tags, examples.
fn card_texts(card: &Value) -> Value {
    let skills = card.get("skills").and_then(Value::as_array).cloned().unwrap_or_default();
    let skills: Vec<Value> = skills
        .iter()
        .map(|s| json!([s.get("name"), s.get("description"), s.get("tags"), s.get("examples")]))
        .collect();
    json!({"description": card.get("description"), "skills": skills})
}

fn card(lexicon: &Lexicon, payload: &Value) -> Relayed {
    let mut a = anon(lexicon);
    a.observe_card("agent-1", payload);
    let target = CardTarget { interface_url: "http://127.0.0.1:7100/a2a/peer", rest_url: None, signer: None };
    match a.rewrite_card("agent-1", payload, target) {
        Ok(out) => Relayed {
            unchanged: card_texts(&out) == card_texts(payload),
            json: out,
            joined: Vec::new(),
            refused: None,
        },
        Err(e) => {
            Relayed { json: Value::Null, joined: Vec::new(), unchanged: false, refused: Some(e.to_string()) }
        }
    }
}

/// The concatenated text of every run of `parts` arrays in `v` (one string per array).
fn joined_parts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(parts)) = m.get("parts") {
                out.push(parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect());
            }
            m.values().for_each(|x| joined_parts(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| joined_parts(x, out)),
        _ => {}
    }
}

fn parts(lexicon: &Lexicon, payload: &Value) -> Relayed {
    let mut out = payload.clone();
    anon(lexicon).scrub_a2a(&mut out);
    let mut joined = Vec::new();
    joined_parts(&out, &mut joined);
    Relayed { unchanged: out == *payload, json: out, joined, refused: None }
}

/// An artifact-update event with its parts' text blanked (what must stay when chunks move).
fn without_text(ev: &Value) -> Value {
    let mut ev = ev.clone();
    if let Some(parts) = ev.pointer_mut("/artifact/parts").and_then(Value::as_array_mut) {
        for p in parts.iter_mut().filter(|p| p.get("text").is_some()) {
            p["text"] = json!("");
        }
    }
    ev
}

fn stream(lexicon: &Lexicon, payload: &Value) -> Relayed {
    let a = anon(lexicon);
    let chunks = payload["chunks"].as_array().cloned().unwrap_or_default();
    let mut streams = ArtifactStreams::default();
    let mut events: Vec<Value> = Vec::new();
    for c in &chunks {
        let mut ev = json!({"jsonrpc": "2.0", "id": 1, "result": c});
        streams.hold(&a, &mut ev);
        a.scrub_a2a(&mut ev);
        events.push(ev["result"].take());
    }
    for mut ev in streams.finish(&a) {
        a.scrub_a2a(&mut ev);
        events.push(ev["result"].take());
    }
    let text_of = |evs: &[Value]| -> String {
        evs.iter()
            .flat_map(|e| e.pointer("/artifact/parts").and_then(Value::as_array).cloned().unwrap_or_default())
            .filter_map(|p| p.get("text").and_then(Value::as_str).map(str::to_owned))
            .collect()
    };
    let joined = text_of(&events);
    let fields_kept = chunks.iter().zip(&events).all(|(c, e)| without_text(c) == without_text(e));
    let unchanged = joined == text_of(&chunks) && fields_kept;
    Relayed { json: Value::Array(events), joined: vec![joined], unchanged, refused: None }
}

fn model_request(lexicon: &Lexicon, payload: &Value) -> Relayed {
    let scrubber = scrubber_of(Arc::new(anon(lexicon)));
    let body = payload["body"].to_string();
    let rewritten = match payload["path"].as_str() {
        Some("/v1/chat/completions") => rewrite_chat_request(body.as_bytes(), scrubber.as_ref()),
        Some("/v1/messages") => rewrite_messages_request(body.as_bytes(), scrubber.as_ref()),
        Some("/v1/responses") => rewrite_responses_request(body.as_bytes(), scrubber.as_ref()),
        other => panic!("model_request path {other:?}"),
    };
    match rewritten {
        Ok(r) => {
            let mut out: Value = serde_json::from_slice(&r.body).unwrap_or(Value::Null);
            let unchanged = out == payload["body"];
            // The coordinator's own model id is out of scope.
            if let Some(m) = out.as_object_mut() {
                m.remove("model");
            }
            Relayed { json: out, joined: Vec::new(), unchanged, refused: None }
        }
        Err(e) => {
            Relayed { json: Value::Null, joined: Vec::new(), unchanged: false, refused: Some(e.to_string()) }
        }
    }
}
