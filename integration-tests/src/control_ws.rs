//! A WebSocket client of the daemon's control API for async tests: connect with a token, call.

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

/// A connection to `/v1/control`.
pub type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens the control API on loopback `port` with bearer `token` (panics if refused).
pub async fn connect(port: u16, token: &str) -> Ws {
    let mut req = format!("ws://127.0.0.1:{port}/v1/control").into_client_request().expect("request");
    req.headers_mut().insert("authorization", format!("Bearer {token}").parse().expect("header"));
    tokio_tungstenite::connect_async(req).await.expect("connect").0
}

/// Sends one JSON-RPC request (id 1) and returns the next text frame as JSON.
pub async fn call(ws: &mut Ws, method: &str, params: Value) -> Value {
    let frame = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    ws.send(tungstenite::Message::Text(frame.into())).await.expect("send");
    loop {
        if let tungstenite::Message::Text(t) = ws.next().await.expect("frame").expect("ok") {
            return serde_json::from_str(&t).expect("json");
        }
    }
}
