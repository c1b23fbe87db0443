//! `subscribe {trajectory?}` / `unsubscribe`: live trace records pushed over the control socket as
//! JSON-RPC notifications `{"method": "trace", "params": {"record": …}}`.
//!
//! Records carry true identities and the alias map, so only the operator token may subscribe.

use super::rpc::RpcError;
use crate::runtime::app::App;
use crate::runtime::state::Scope;
use blindfold_schemas::TraceRecord;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use tokio::sync::broadcast;

/// A live feed of one socket.
pub struct Subscription {
    rx: broadcast::Receiver<Arc<TraceRecord>>,
    trajectory: Option<String>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Params {
    #[serde(default)]
    trajectory: Option<String>,
}

/// Starts a feed for `params` (`{}` for every trajectory, `{"trajectory": ID}` for one).
pub fn subscribe(app: &App, scope: Scope, params: Value) -> Result<(Value, Subscription), RpcError> {
    if scope != Scope::Operator {
        return Err(RpcError::forbidden("subscribe"));
    }
    let p: Params = if params.is_null() {
        Params::default()
    } else {
        serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))?
    };
    let trace = app
        .trace
        .as_ref()
        .ok_or_else(|| RpcError::invalid_request("tracing is off ([trace] enabled = false)"))?;
    let sub = Subscription { rx: trace.sink().subscribe(), trajectory: p.trajectory.clone() };
    Ok((json!({"subscribed": true, "trajectory": p.trajectory}), sub))
}

impl Subscription {
    /// The next notification frame for this socket; `None` when the trace has stopped. A
    /// subscriber too slow to keep up is told how many records it missed.
    pub async fn next_frame(&mut self) -> Option<String> {
        loop {
            match self.rx.recv().await {
                Ok(record) => {
                    if self.trajectory.as_deref().is_some_and(|t| t != record.trajectory) {
                        continue;
                    }
                    return Some(
                        json!({"jsonrpc": "2.0", "method": "trace", "params": {"record": &*record}})
                            .to_string(),
                    );
                }
                Err(broadcast::error::RecvError::Lagged(missed)) => {
                    return Some(
                        json!({"jsonrpc": "2.0", "method": "trace_lagged", "params": {"missed": missed}})
                            .to_string(),
                    );
                }
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    }
}

/// Waits for the next frame of an optional feed (forever when there is none).
pub async fn next_live(live: &mut Option<Subscription>) -> Option<String> {
    match live {
        Some(sub) => sub.next_frame().await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use crate::runtime::fixtures::{app_in, demo_events};
    use futures_util::{SinkExt, StreamExt};
    use serde_json::{Value, json};
    use tokio_tungstenite::tungstenite::{Message, client::IntoClientRequest};

    async fn next_json<S>(ws: &mut S) -> Value
    where
        S: StreamExt<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
    {
        loop {
            let msg = tokio::time::timeout(std::time::Duration::from_secs(10), ws.next()).await;
            if let Message::Text(t) = msg.expect("a frame in time").expect("open").expect("ok") {
                return serde_json::from_str(&t).expect("json");
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_operator_receives_records_of_the_trajectory_it_asked_for() {
        let dir = tempfile::tempdir().expect("tmp");
        let app = app_in(dir.path(), 1 << 20, None);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let port = listener.local_addr().expect("addr").port();
        tokio::spawn(axum::serve(listener, super::super::router(app.clone())).into_future());
        let connect = |file: &str| {
            let token = std::fs::read_to_string(dir.path().join(file)).expect("token");
            let mut req = format!("ws://127.0.0.1:{port}/v1/control").into_client_request().expect("req");
            req.headers_mut()
                .insert("authorization", format!("Bearer {}", token.trim()).parse().expect("header"));
            tokio_tungstenite::connect_async(req)
        };
        let (mut adapter, _) = connect("adapter.token").await.expect("adapter connects");
        let sub =
            json!({"jsonrpc": "2.0", "id": 1, "method": "subscribe", "params": {"trajectory": "live-1"}});
        adapter.send(Message::Text(sub.to_string().into())).await.expect("send");
        assert_eq!(
            next_json(&mut adapter).await["error"]["code"],
            -32003,
            "adapters may not watch identities"
        );

        let (mut ws, _) = connect("operator.token").await.expect("operator connects");
        ws.send(Message::Text(sub.to_string().into())).await.expect("send");
        assert_eq!(next_json(&mut ws).await["result"]["subscribed"], true);
        let events = demo_events();
        app.decide_traced("other", &events[1], true).await;
        app.decide_traced("live-1", &events[1], true).await;
        app.decide_traced("live-1", &events[5], true).await;
        let first = next_json(&mut ws).await;
        assert_eq!(first["method"], "trace");
        assert_eq!(first["params"]["record"]["trajectory"], "live-1", "the other trajectory is filtered out");
        assert_eq!(first["params"]["record"]["kind"], "delegate");
        let second = next_json(&mut ws).await;
        assert_eq!(second["params"]["record"]["kind"], "tool_call");
        assert_eq!(second["params"]["record"]["tool"], "bash");

        // Requests still work on a subscribed socket.
        let status = json!({"jsonrpc": "2.0", "id": 2, "method": "status"});
        ws.send(Message::Text(status.to_string().into())).await.expect("send");
        assert_eq!(next_json(&mut ws).await["id"], 2);
    }
}
