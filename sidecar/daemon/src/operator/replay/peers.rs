//! Scripted upstream peers for `replay --via-proxy`: A2A agents at `/agents/<id>` (card and
//! JSON-RPC) and one MCP server at `/mcp`, on loopback, answering with whatever the driver
//! scripted for the next request (the scenario's cards, responses and tool results).

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// What the peers answer next; the driver sets it before each request it sends.
#[derive(Debug, Default)]
pub struct Script {
    /// The card each agent serves (a neutral stub until the scenario shows its card).
    pub cards: HashMap<String, Value>,
    /// The next A2A answer of each agent: text and message metadata.
    pub answers: HashMap<String, (String, Option<Value>)>,
    /// The next MCP `tools/call` result text.
    pub tool_result: Option<String>,
    /// Agents whose card was requested, in order (how the driver learns which alias is whom).
    pub card_requests: Vec<String>,
    /// Requests that reached the peers (A2A sends and MCP calls): a blocked one never does.
    pub forwarded: usize,
}

/// The shared script.
pub type Shared = Arc<Mutex<Script>>;

/// The peers' routes.
pub fn router(script: Shared) -> Router {
    Router::new()
        .route("/agents/{id}/.well-known/agent-card.json", get(card))
        .route("/agents/{id}", post(a2a))
        .route("/mcp", post(mcp))
        .with_state(script)
}

fn json_response(v: &Value) -> Response {
    let mut r = v.to_string().into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

/// A neutral card for `id` whose JSON-RPC interface is `rpc` (v1.0 and v0.3 fields).
pub fn stub_card(id: &str, rpc: &str) -> Value {
    json!({
        "name": id, "description": "", "version": "1.0.0", "url": rpc,
        "supportedInterfaces": [{"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [],
    })
}

/// The scenario's card with its interfaces pointing at the peer's JSON-RPC URL `rpc`.
pub fn served_card(card: &Value, rpc: &str) -> Value {
    let mut card = card.clone();
    if let Some(obj) = card.as_object_mut() {
        obj.insert("url".into(), json!(rpc));
        obj.insert(
            "supportedInterfaces".into(),
            json!([{"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]),
        );
    }
    card
}

async fn card(State(s): State<Shared>, Path(id): Path<String>) -> Response {
    let Ok(mut script) = s.lock() else { return StatusCode::INTERNAL_SERVER_ERROR.into_response() };
    script.card_requests.push(id.clone());
    match script.cards.get(&id) {
        Some(c) => json_response(c),
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

async fn a2a(State(s): State<Shared>, Path(id): Path<String>, body: Bytes) -> Response {
    let req: Value = serde_json::from_slice(&body).unwrap_or_default();
    let (text, metadata) = match s.lock() {
        Ok(mut script) => {
            script.forwarded += 1;
            script.answers.remove(&id).unwrap_or_default()
        }
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    let ctx = req.pointer("/params/message/contextId").and_then(Value::as_str).unwrap_or("ctx");
    let mut message = json!({"messageId": format!("{id}-answer"), "contextId": ctx, "role": "ROLE_AGENT",
        "parts": [{"text": text}]});
    if let Some(m) = metadata {
        message["metadata"] = m;
    }
    let task = json!({"id": format!("{id}-task"), "contextId": ctx,
        "status": {"state": "TASK_STATE_COMPLETED", "message": message}});
    json_response(&json!({"jsonrpc": "2.0", "id": req.get("id").cloned().unwrap_or(Value::Null),
        "result": {"task": task}}))
}

async fn mcp(State(s): State<Shared>, body: Bytes) -> Response {
    let req: Value = serde_json::from_slice(&body).unwrap_or_default();
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let text = match s.lock() {
        Ok(mut script) => {
            script.forwarded += 1;
            script.tool_result.take().unwrap_or_default()
        }
        Err(_) => return StatusCode::INTERNAL_SERVER_ERROR.into_response(),
    };
    let result = match req.get("method").and_then(Value::as_str) {
        Some("tools/call") => json!({"content": [{"type": "text", "text": text}], "isError": false}),
        Some("initialize") => json!({"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "scenario-tools", "version": "1.0.0"}}),
        _ => json!({}),
    };
    json_response(&json!({"jsonrpc": "2.0", "id": id, "result": result}))
}
