//! The WebSocket control API client side: `check_action` calls (sequential per connection, or
//! pipelined with a window), and many idle connections held open for the memory workload.

use crate::stats::Summary;
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// One control API socket.
pub type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// The adapter token from Blindfold's state directory.
pub fn adapter_token(state_dir: &Path) -> Result<String, String> {
    std::fs::read_to_string(state_dir.join("adapter.token"))
        .map(|t| t.trim().to_owned())
        .map_err(|e| format!("adapter token: {e}"))
}

/// Opens `/v1/control` on `port` with `token`.
pub async fn open(port: u16, token: &str) -> Result<Socket, String> {
    let mut req =
        format!("ws://127.0.0.1:{port}/v1/control").into_client_request().map_err(|e| e.to_string())?;
    let auth = format!("Bearer {token}").parse().map_err(|e| format!("{e}"))?;
    req.headers_mut().insert("authorization", auth);
    let (ws, _) = tokio_tungstenite::connect_async(req).await.map_err(|e| format!("connect: {e}"))?;
    Ok(ws)
}

/// A `check_action` request for a read in trajectory `trajectory`.
pub fn check_request(id: u64, trajectory: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "check_action", "params": {
        "trajectory": trajectory, "tool": "read_file", "args": {"path": format!("/work/src/f{}.rs", id % 97)}}})
    .to_string()
}

async fn next_answer(ws: &mut Socket) -> Result<Value, String> {
    loop {
        match ws.next().await {
            Some(Ok(Message::Text(t))) => return serde_json::from_str(&t).map_err(|e| e.to_string()),
            Some(Ok(Message::Close(_))) | None => return Err("control socket closed".into()),
            Some(Ok(_)) => continue,
            Some(Err(e)) => return Err(e.to_string()),
        }
    }
}

fn check_allowed(v: &Value) -> Result<(), String> {
    if v.pointer("/result/allowed") == Some(&Value::Bool(true)) {
        Ok(())
    } else {
        Err(format!("check_action answered {v}"))
    }
}

/// `conns` sockets each calling `check_action` one at a time for `secs`; calls per second and
/// the latency of each call.
pub async fn sequential_checks(
    port: u16,
    token: &str,
    conns: usize,
    secs: f64,
) -> Result<(f64, Summary), String> {
    // Each measurement has trajectories of its own: one per socket would otherwise carry every
    // round's calls and reach `limits.max_events_per_trajectory` on a fast machine.
    static MEASUREMENTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let run = MEASUREMENTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    sequential_requests(port, token, conns, secs, move |k, id| {
        check_request(id, &format!("bench-ws-{run}-{k}"))
    })
    .await
}

/// `conns` sockets each sending `request(socket, call)` one at a time for `secs`, every answer
/// required to be `allowed`; calls per second and the latency of each call.
pub async fn sequential_requests<F>(
    port: u16,
    token: &str,
    conns: usize,
    secs: f64,
    request: F,
) -> Result<(f64, Summary), String>
where
    F: Fn(usize, u64) -> String + Send + Sync + 'static,
{
    let request = std::sync::Arc::new(request);
    let end = Instant::now() + Duration::from_secs_f64(secs);
    let mut tasks = Vec::new();
    for k in 0..conns {
        let mut ws = open(port, token).await?;
        let request = request.clone();
        tasks.push(tokio::spawn(async move {
            let mut lat = Vec::new();
            let mut id = 0u64;
            while Instant::now() < end {
                id += 1;
                let start = Instant::now();
                ws.send(Message::Text(request(k, id).into())).await.map_err(|e| e.to_string())?;
                check_allowed(&next_answer(&mut ws).await?)?;
                lat.push(start.elapsed());
            }
            let _ = ws.close(None).await;
            Ok::<_, String>(lat)
        }));
    }
    let started = Instant::now();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.map_err(|e| e.to_string())??);
    }
    let elapsed = started.elapsed().as_secs_f64().max(secs);
    Ok((all.len() as f64 / elapsed, Summary::of(&all)))
}

/// One call of `method` on `ws`: its `result`, or the error it answered.
pub async fn call(ws: &mut Socket, method: &str, params: Value) -> Result<Value, String> {
    let req = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
    ws.send(Message::Text(req.into())).await.map_err(|e| e.to_string())?;
    let v = next_answer(ws).await?;
    v.get("result").cloned().ok_or_else(|| format!("{method} answered {v}"))
}

/// `total` `check_action` calls spread over `trajectories` trajectories (starting at call
/// `first`), pipelined `window` deep on each of `conns` sockets; calls per second.
pub async fn pipelined_checks(
    port: u16,
    token: &str,
    conns: usize,
    window: usize,
    first: u64,
    total: u64,
    trajectories: u64,
) -> Result<f64, String> {
    let per = total / conns as u64;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for k in 0..conns as u64 {
        let ws = open(port, token).await?;
        let (mut tx, mut rx) = ws.split();
        let from = first + k * per;
        tasks.push(tokio::spawn(async move {
            let (credit_tx, mut credit_rx) = tokio::sync::mpsc::channel::<()>(window);
            for _ in 0..window {
                credit_tx.send(()).await.map_err(|e| e.to_string())?;
            }
            let writer = tokio::spawn(async move {
                for i in from..from + per {
                    if credit_rx.recv().await.is_none() {
                        break;
                    }
                    let traj = format!("bench-mem-{}", i % trajectories);
                    if tx.send(Message::Text(check_request(i, &traj).into())).await.is_err() {
                        break;
                    }
                }
                tx
            });
            for _ in 0..per {
                let v = loop {
                    match rx.next().await {
                        Some(Ok(Message::Text(t))) => {
                            break serde_json::from_str::<Value>(&t).map_err(|e| e.to_string())?;
                        }
                        Some(Ok(_)) => continue,
                        _ => return Err("control socket closed".to_owned()),
                    }
                };
                check_allowed(&v)?;
                let _ = credit_tx.try_send(());
            }
            let mut tx = writer.await.map_err(|e| e.to_string())?;
            let _ = tx.close().await;
            Ok::<_, String>(())
        }));
    }
    for t in tasks {
        t.await.map_err(|e| e.to_string())??;
    }
    Ok((per * conns as u64) as f64 / start.elapsed().as_secs_f64())
}

/// Opens `n` sockets, each answering one `status` call, and returns them (held open).
pub async fn hold_open(port: u16, token: &str, n: usize) -> Result<Vec<Socket>, String> {
    let mut socks = Vec::with_capacity(n);
    for i in 0..n {
        let mut ws = open(port, token).await?;
        let req = json!({"jsonrpc": "2.0", "id": i, "method": "status"}).to_string();
        ws.send(Message::Text(req.into())).await.map_err(|e| e.to_string())?;
        let v = next_answer(&mut ws).await?;
        if v.get("result").is_none() {
            return Err(format!("status answered {v}"));
        }
        socks.push(ws);
    }
    Ok(socks)
}
