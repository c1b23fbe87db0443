//! The control API's WebSocket loop: one JSON-RPC request per text frame, answered in order.

use super::auth::authorize_upgrade;
use super::methods::dispatch;
use super::rpc::{RpcError, RpcRequest, error_frame, result_frame};
use super::subscribe::{Subscription, next_live, subscribe};
use crate::runtime::app::App;
use crate::runtime::state::Scope;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use blindfold_schemas::strict_json;
use serde_json::Value;

/// Largest control frame accepted (bytes).
const MAX_FRAME: usize = 4 << 20;

/// Initial read buffer of a control socket (bytes). The WebSocket default (128 KiB, zero-filled
/// on the first read) made every idle adapter connection cost 128 KiB of RSS; control frames are
/// small and the buffer still grows for a large one.
const READ_BUFFER: usize = 4 << 10;

/// `GET /v1/control`: authorizes, then upgrades to the JSON-RPC socket.
pub async fn upgrade(State(app): State<App>, headers: HeaderMap, ws: WebSocketUpgrade) -> Response {
    match authorize_upgrade(&app, &headers) {
        Ok(scope) => ws
            .max_message_size(MAX_FRAME)
            .read_buffer_size(READ_BUFFER)
            .on_upgrade(move |socket| serve(app, scope, socket)),
        Err(refusal) => refusal.into_response(),
    }
}

async fn serve(app: App, scope: Scope, mut socket: WebSocket) {
    let mut live: Option<Subscription> = None;
    loop {
        let reply = tokio::select! {
            msg = socket.recv() => match msg {
                Some(Ok(Message::Text(text))) => handle_live(&app, scope, text.as_bytes(), &mut live),
                Some(Ok(Message::Binary(bytes))) => handle_live(&app, scope, &bytes, &mut live),
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                Some(Ok(Message::Close(_)) | Err(_)) | None => break,
            },
            Some(frame) = next_live(&mut live) => frame,
        };
        if socket.send(Message::Text(reply.into())).await.is_err() {
            break;
        }
    }
}

/// `subscribe` / `unsubscribe` change the socket's live feed; everything else is [`handle`].
fn handle_live(app: &App, scope: Scope, frame: &[u8], live: &mut Option<Subscription>) -> String {
    let Ok(value) = strict_json::value_from_slice(frame) else { return handle(app, scope, frame) };
    let (Some(id), Some(method)) = (value.get("id").cloned(), value.get("method").and_then(Value::as_str))
    else {
        return handle(app, scope, frame);
    };
    let params = value.get("params").cloned().unwrap_or(Value::Null);
    match method {
        "subscribe" => match subscribe(app, scope, params) {
            Ok((result, sub)) => {
                *live = Some(sub);
                result_frame(&id, result)
            }
            Err(e) => error_frame(&id, &e),
        },
        "unsubscribe" => {
            let was = live.take().is_some();
            result_frame(&id, serde_json::json!({"unsubscribed": was}))
        }
        _ => handle(app, scope, frame),
    }
}

/// Parses one frame (duplicate keys refused), dispatches it, and serialises the answer.
pub fn handle(app: &App, scope: Scope, frame: &[u8]) -> String {
    let value = match strict_json::value_from_slice(frame) {
        Ok(v) => v,
        Err(e) => return error_frame(&Value::Null, &RpcError::parse(format!("not JSON: {e}"))),
    };
    let id = value.get("id").cloned().unwrap_or(Value::Null);
    let request: RpcRequest = match serde_json::from_value(value) {
        Ok(r) => r,
        Err(e) => return error_frame(&id, &RpcError::invalid_request(e.to_string())),
    };
    if request.jsonrpc != "2.0" {
        return error_frame(&id, &RpcError::invalid_request("jsonrpc must be \"2.0\""));
    }
    let Some(id) = request.id.clone() else {
        return error_frame(&Value::Null, &RpcError::invalid_request("requests need an id"));
    };
    match dispatch(app, scope, &request.method, request.params) {
        Ok(result) => result_frame(&id, result),
        Err(e) => error_frame(&id, &e),
    }
}
