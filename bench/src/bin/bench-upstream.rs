//! A fast upstream for the HTTP workloads, on one thread: an A2A v1.0 agent (card at
//! `/.well-known/agent-card.json`, JSON-RPC at `/rpc`, `SendMessage` as JSON and
//! `SendStreamingMessage` as four SSE events) and a scripted model API (`/v1/chat/completions`
//! streaming `CHAT_CHUNKS` chunks and `[DONE]`). `bench-upstream PORT`.

use blindfold_bench::http::{body_bytes, serve};
use blindfold_bench::wire;
use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::{Method, Request, Response};
use serde_json::Value;
use std::convert::Infallible;

/// Chunks in every scripted chat stream.
const CHAT_CHUNKS: usize = 16;

type Body = BoxBody<Bytes, Infallible>;

fn full(status: u16, content_type: &str, body: String) -> Response<Body> {
    Response::builder()
        .status(status)
        .header("content-type", content_type)
        .body(Full::from(body).boxed())
        .expect("response")
}

fn sse(events: Vec<String>) -> Response<Body> {
    let frames = events.into_iter().map(|e| Ok::<_, Infallible>(Frame::data(Bytes::from(e))));
    Response::builder()
        .header("content-type", "text/event-stream")
        .header("cache-control", "no-cache")
        .body(BodyExt::boxed(StreamBody::new(futures_util::stream::iter(frames))))
        .expect("response")
}

async fn rpc(req: Request<Incoming>) -> Response<Body> {
    let Ok(bytes) = body_bytes(req.into_body()).await else {
        return full(400, "text/plain", "body".into());
    };
    let Ok(v) = serde_json::from_slice::<Value>(&bytes) else {
        return full(400, "text/plain", "not JSON".into());
    };
    let id = v.get("id").cloned().unwrap_or(Value::Null);
    let ctx = v.pointer("/params/message/contextId").and_then(Value::as_str).unwrap_or("ctx");
    match v.get("method").and_then(Value::as_str) {
        Some("SendStreamingMessage") => {
            sse(wire::a2a_stream(&id, ctx).into_iter().map(|e| format!("data: {e}\n\n")).collect())
        }
        _ => full(200, "application/json", wire::a2a_answer(&id, ctx)),
    }
}

fn chat() -> Response<Body> {
    let mut events: Vec<String> =
        (0..CHAT_CHUNKS).map(|i| format!("data: {}\n\n", wire::chat_chunk(i))).collect();
    events.push(format!("data: {}\n\ndata: [DONE]\n\n", wire::chat_finish()));
    sse(events)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let Some(port) = std::env::args().nth(1).and_then(|p| p.parse::<u16>().ok()) else {
        eprintln!("usage: bench-upstream PORT");
        std::process::exit(64);
    };
    let base = format!("http://127.0.0.1:{port}");
    let card = wire::a2a_card(&base).to_string();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    serve(listener, move |req: Request<Incoming>| {
        let card = card.clone();
        async move {
            match (req.method(), req.uri().path()) {
                (&Method::GET, "/.well-known/agent-card.json") => full(200, "application/json", card),
                (&Method::POST, "/rpc") => rpc(req).await,
                (&Method::POST, "/v1/chat/completions") => chat(),
                _ => full(404, "text/plain", "not found".into()),
            }
        }
    })
    .await;
}
