//! Added latency per streamed chunk of the model-API proxy, on loopback, in one process.
//!
//! A scripted upstream streams chat-completion chunks one at a time; the client reads each chunk
//! and only then lets the upstream send the next, so every chunk's latency (upstream write →
//! client read) is measured alone. The same stream is read once directly from the upstream and
//! once through Blindfold (scrubbing with the identity engine, decoding SSE, gating a tool call
//! held from its chunks); the added latency is the difference of the medians. A codec-only loop
//! measures the in-process share of it. Run: `cargo bench -p blindfold-daemon --bench model_proxy`.

#![allow(missing_docs)]
use blindfold_adapters::model_api::{CallGate, CallOutcome, ChatStream, ProposedCall, SseDecoder};
use blindfold_daemon::runtime::app::App;
use blindfold_daemon::transports::model_proxy::{Proxy, router};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

const CHUNKS: usize = 2000;
const ROUNDS: usize = 3;

fn chunk(i: usize) -> String {
    let delta = if i % 10 == 9 {
        // every tenth chunk belongs to a tool call (held until its finish)
        format!(
            r#"{{"tool_calls":[{{"index":0,"id":"c{i}","type":"function","function":{{"name":"read","arguments":"{{\"filePath\":\"a{i}\"}}"}}}}]}}"#
        )
    } else {
        format!(r#"{{"content":"token {i} of the answer, with a little text in it"}}"#)
    };
    let finish = if i % 10 == 9 { r#""tool_calls""# } else { "null" };
    format!(
        "data: {{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{{\"index\":0,\"delta\":{delta},\"finish_reason\":{finish}}}]}}\n\n"
    )
}

/// The scripted upstream: one request, then CHUNKS chunks, each sent when `go` says so and
/// stamped into `sent`.
async fn upstream(listener: TcpListener, mut go: mpsc::Receiver<()>, sent: Arc<Mutex<Vec<Instant>>>) {
    let (mut s, _) = listener.accept().await.expect("accept");
    s.set_nodelay(true).expect("nodelay");
    let mut buf = vec![0u8; 1 << 16];
    let mut got = Vec::new();
    loop {
        let n = s.read(&mut buf).await.expect("read");
        got.extend_from_slice(&buf[..n]);
        if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&got[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .map_or(0, |v| v.trim().parse().expect("length"));
            if got.len() >= end + 4 + len {
                break;
            }
        }
    }
    s.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
        .await
        .expect("head");
    for i in 0..CHUNKS {
        go.recv().await.expect("go");
        let data = chunk(i);
        sent.lock().expect("lock").push(Instant::now());
        s.write_all(data.as_bytes()).await.expect("chunk");
    }
    if go.recv().await.is_some() {
        let _ = s.write_all(b"data: [DONE]\n\n").await;
    }
}

/// Reads the stream from `port`, one chunk at a time; returns per-chunk latencies.
async fn client(port: u16, go: mpsc::Sender<()>, sent: Arc<Mutex<Vec<Instant>>>) -> Vec<Duration> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.expect("connect");
    s.set_nodelay(true).expect("nodelay");
    let body = r#"{"model":"m","stream":true,"messages":[{"role":"system","content":"You coordinate opus-reviewer."},{"role":"user","content":"go"}]}"#;
    let req = format!(
        "POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer k\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(req.as_bytes()).await.expect("request");
    let mut latencies = Vec::with_capacity(CHUNKS);
    let mut buf = vec![0u8; 1 << 16];
    let mut tail = Vec::new();
    go.send(()).await.expect("first go");
    while latencies.len() < CHUNKS {
        let n = s.read(&mut buf).await.expect("read");
        assert!(n > 0, "stream ended after {} chunks", latencies.len());
        let at = Instant::now();
        tail.extend_from_slice(&buf[..n]);
        let events = tail.windows(2).filter(|w| w == b"\n\n").count();
        if let Some(last) = tail.windows(2).rposition(|w| w == b"\n\n") {
            tail.drain(..last + 2);
        }
        if events == 0 {
            continue;
        }
        // Through the proxy a tool call is held until its finish chunk: that chunk's read closes
        // both. Every upstream chunk sent so far is now accounted for.
        let stamps = sent.lock().expect("lock").clone();
        while latencies.len() < stamps.len() {
            latencies.push(at - stamps[latencies.len()]);
        }
        if latencies.len() == stamps.len() {
            let _ = go.send(()).await;
        }
    }
    latencies
}

fn p(sorted: &[Duration], q: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * q) as usize]
}

async fn round(proxied: Option<&App>) -> Vec<Duration> {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let up_port = listener.local_addr().expect("addr").port();
    let (go_tx, go_rx) = mpsc::channel(4);
    let sent = Arc::new(Mutex::new(Vec::new()));
    tokio::spawn(upstream(listener, go_rx, sent.clone()));
    let port = match proxied {
        None => up_port,
        Some(app) => {
            let proxy =
                Proxy::new(app.clone(), &format!("http://127.0.0.1:{up_port}"), &app.config.model_proxy);
            let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
            let port = l.local_addr().expect("addr").port();
            tokio::spawn(async move { axum::serve(l, router(proxy)).await });
            port
        }
    };
    client(port, go_tx, sent).await
}

struct AllowAll;
impl CallGate for AllowAll {
    fn gate(&mut self, call: &ProposedCall) -> CallOutcome {
        CallOutcome::Forward { arguments: call.arguments.clone() }
    }
}

fn main() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg_path = dir.path().join("b.toml");
    std::fs::write(
        &cfg_path,
        format!(
            "[state]\ndir = \"{}\"\n[modes]\ngrants = false\n[trace]\nenabled = false\n[[identity.agents]]\nid = \"opus-reviewer\"\nmodel = \"claude-opus-4\"\nprovider = \"Anthropic\"\n",
            dir.path().join("state").display()
        ),
    )
    .expect("config");
    let cfg = blindfold_daemon::config::load(Some(&cfg_path)).expect("config");
    let app = App::open(cfg).expect("app");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("rt");

    // Codec alone: decode + gate bookkeeping per chunk.
    let chunks: Vec<String> = (0..CHUNKS).map(chunk).collect();
    let start = Instant::now();
    for _ in 0..5 {
        let mut dec = SseDecoder::new(blindfold_adapters::sse::MAX_EVENT_BYTES);
        let mut s = ChatStream::new();
        for c in &chunks {
            for ev in dec.push(c.as_bytes()).expect("decode") {
                std::hint::black_box(s.on_event(&ev, &mut AllowAll).expect("event"));
            }
        }
    }
    let codec = start.elapsed() / (5 * CHUNKS as u32);
    println!("codec only: {:.1} µs per chunk (mean)", codec.as_secs_f64() * 1e6);

    for r in 0..ROUNDS {
        let mut direct = rt.block_on(round(None));
        let mut via = rt.block_on(round(Some(&app)));
        direct.sort();
        via.sort();
        let (d50, v50) = (p(&direct, 0.5), p(&via, 0.5));
        println!(
            "round {r}: direct p50 {:.0} µs p99 {:.0} µs | via Blindfold p50 {:.0} µs p99 {:.0} µs | added p50 {:.0} µs",
            d50.as_secs_f64() * 1e6,
            p(&direct, 0.99).as_secs_f64() * 1e6,
            v50.as_secs_f64() * 1e6,
            p(&via, 0.99).as_secs_f64() * 1e6,
            (v50.as_secs_f64() - d50.as_secs_f64()) * 1e6,
        );
    }
}
