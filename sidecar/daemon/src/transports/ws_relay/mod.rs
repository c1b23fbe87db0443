//! The JSON-RPC-over-WebSocket relay at `/v1/relay` for harnesses that speak MCP over a
//! WebSocket: one upstream connection per client connection, every text frame through the same
//! MCP gate as the stdio and HTTP relays. Browser `Origin`s Blindfold does not know are refused.

use crate::runtime::app::App;
use crate::transports::mcp::{FromClient, FromServer, GrantFiles, McpConnection, McpPolicy};
use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::tungstenite::Message as UpMessage;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;

/// Initial read buffer of each side of a relayed connection (bytes). The WebSocket default
/// (128 KiB, zero-filled on the first read) made every relayed connection cost 256 KiB of RSS;
/// JSON-RPC frames are small and the buffer still grows for a large one.
const READ_BUFFER: usize = 4 << 10;

struct Relay {
    app: App,
    upstream: String,
}

/// The `/v1/relay` route when `[ws_relay] upstream` is set.
pub fn router(app: &App) -> Option<Router> {
    let upstream = app.config.transports.ws_relay_upstream.clone()?;
    Some(
        Router::new()
            .route("/v1/relay", get(upgrade))
            .with_state(std::sync::Arc::new(Relay { app: app.clone(), upstream })),
    )
}

async fn upgrade(
    State(r): State<std::sync::Arc<Relay>>,
    headers: HeaderMap,
    ws: WebSocketUpgrade,
) -> Response {
    let allowed = &r.app.config.server.allowed_origins;
    if headers.contains_key(header::ORIGIN)
        && !crate::transports::hygiene::configured_origin(allowed, &headers)
    {
        return (StatusCode::FORBIDDEN, "origin not allowed").into_response();
    }
    let max = r.app.config.transports.max_frame_bytes;
    ws.max_message_size(max).read_buffer_size(READ_BUFFER).on_upgrade(move |socket| serve(r, socket))
}

fn task_id(app: &App) -> String {
    match &app.config.transports.ws_relay_task {
        Some(t) => t.clone(),
        None => format!("ws-{:016x}", rand::random::<u64>()),
    }
}

async fn serve(r: std::sync::Arc<Relay>, mut client: WebSocket) {
    let max = r.app.config.transports.max_frame_bytes;
    let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER).max_message_size(Some(max));
    let (upstream, _) =
        match tokio_tungstenite::connect_async_with_config(r.upstream.as_str(), Some(config), true).await {
            Ok(c) => c,
            Err(e) => {
                let err = blindfold_adapters::jsonrpc::error(
                    &serde_json::Value::Null,
                    blindfold_adapters::jsonrpc::code::INTERNAL_ERROR,
                    &format!("upstream unreachable: {e}"),
                    None,
                );
                let _ = client.send(Message::Text(err.to_string().into())).await;
                return;
            }
        };
    let (mut up_tx, mut up_rx) = upstream.split();
    let grants = GrantFiles::new(&r.app, Vec::new());
    let mut gate = McpConnection::new(&r.app, task_id(&r.app), McpPolicy::from_config(&r.app), Some(grants));
    loop {
        tokio::select! {
            msg = client.recv() => {
                let bytes = match msg {
                    Some(Ok(Message::Text(t))) => t.as_bytes().to_vec(),
                    Some(Ok(Message::Binary(b))) => b.to_vec(),
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    _ => break,
                };
                let sent = match gate.from_client(&bytes) {
                    FromClient::Forward(b) => up_tx.send(UpMessage::Text(String::from_utf8_lossy(b.get()).into_owned().into())).await.is_ok(),
                    FromClient::Answer(v) => client.send(Message::Text(v.to_string().into())).await.is_ok(),
                };
                if !sent { break; }
            }
            msg = up_rx.next() => {
                let bytes = match msg {
                    Some(Ok(UpMessage::Text(t))) => t.as_bytes().to_vec(),
                    Some(Ok(UpMessage::Binary(b))) => b.to_vec(),
                    Some(Ok(UpMessage::Ping(_) | UpMessage::Pong(_) | UpMessage::Frame(_))) => continue,
                    _ => break,
                };
                let out = match gate.from_server(&bytes) {
                    FromServer::Forward(b) => Some(String::from_utf8_lossy(b.get()).into_owned()),
                    FromServer::Drop(Some(v)) => Some(v.to_string()),
                    FromServer::Drop(None) => None,
                };
                if let Some(text) = out && client.send(Message::Text(text.into())).await.is_err() {
                    break;
                }
            }
        }
    }
    let _ = up_tx.close().await;
    let _ = client.close().await;
}
