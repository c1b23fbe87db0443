//! The JSON-RPC-over-WebSocket relay (`/v1/relay`): frames pass the MCP gate; a refused call is
//! answered by Blindfold and never reaches the upstream; closing one side closes the other.

use blindfold_integration_tests::transports::{World, run_daemon};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_tungstenite::tungstenite::Message;

/// A WebSocket upstream that records every text frame and answers requests with `{}`.
async fn upstream(seen: Arc<Mutex<Vec<String>>>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let port = listener.local_addr().expect("addr").port();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let Ok(mut ws) = tokio_tungstenite::accept_async(stream).await else { return };
                ws.send(Message::Text(
                    json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"data": "hello"}})
                        .to_string()
                        .into(),
                ))
                .await
                .ok();
                while let Some(Ok(Message::Text(t))) = ws.next().await {
                    seen.lock().expect("lock").push(t.to_string());
                    let v: Value = serde_json::from_str(&t).unwrap_or(Value::Null);
                    if v.get("id").is_some() {
                        let reply = json!({"jsonrpc": "2.0", "id": v["id"], "result": {}});
                        if ws.send(Message::Text(reply.to_string().into())).await.is_err() {
                            break;
                        }
                    }
                }
                seen.lock().expect("lock").push("CLOSED".into());
            });
        }
    });
    port
}

async fn next_json<S>(ws: &mut S) -> Value
where
    S: futures_util::Stream<Item = Result<Message, tokio_tungstenite::tungstenite::Error>> + Unpin,
{
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(10), ws.next()).await.expect("frame in time");
        if let Some(Ok(Message::Text(t))) = msg {
            return serde_json::from_str(&t).expect("json");
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn frames_pass_the_gate_and_refusals_never_reach_the_upstream() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let port = upstream(seen.clone()).await;
    let w = World::new("");
    let (_daemon, bf) =
        run_daemon(&w, &format!("[ws_relay]\nupstream = \"ws://127.0.0.1:{port}/\"\ntask = \"task-ws\"\n"));
    let (mut ws, _) =
        tokio_tungstenite::connect_async(format!("ws://127.0.0.1:{bf}/v1/relay")).await.expect("connect");
    assert_eq!(next_json(&mut ws).await["params"]["data"], "hello", "server frames are relayed");

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "write_file", "arguments": {"path": "/x", "content": "y"}}});
    ws.send(Message::Text(call.to_string().into())).await.expect("send");
    let refused = next_json(&mut ws).await;
    assert_eq!(refused["id"], 1);
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    assert_eq!(refused["result"]["_meta"]["blindfold/decision"]["decision"]["reason"], "no_grant");

    ws.send(Message::Text("{broken".into())).await.expect("send");
    assert_eq!(next_json(&mut ws).await["error"]["code"], -32700);

    ws.send(Message::Text(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string().into()))
        .await
        .expect("send");
    assert_eq!(next_json(&mut ws).await, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    ws.close(None).await.expect("close");

    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while !seen.lock().expect("lock").contains(&"CLOSED".to_owned()) {
        assert!(std::time::Instant::now() < deadline, "the upstream connection was not closed");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let seen = seen.lock().expect("lock").clone();
    assert_eq!(seen.len(), 2, "only the ping reached the upstream: {seen:?}");
    assert!(seen[0].contains("\"ping\""));
}
