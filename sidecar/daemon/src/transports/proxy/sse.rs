//! Re-emits an upstream SSE stream event by event through a per-event filter, and tells the
//! caller how it ended so a request left unanswered gets an error event instead of a hang.

use axum::body::{Body, Bytes};
use blindfold_adapters::sse::{SseDecoder, SseEvent};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use std::convert::Infallible;
use std::time::Duration;
use tokio::sync::mpsc;

/// A `retry:` field as a client may see it: a number of milliseconds, or nothing (anything
/// else in it is the upstream's own text).
pub fn retry_millis(retry: Option<String>) -> Option<String> {
    retry.filter(|r| !r.is_empty() && r.bytes().all(|b| b.is_ascii_digit()))
}

/// How an upstream stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamEnd {
    /// The upstream closed the stream normally.
    Closed,
    /// It broke off, timed out or sent an oversize event (the detail says which).
    Failed(String),
}

/// Streams `upstream` to the returned body. `filter` maps each upstream event to the events to
/// send (none = drop it); `finish` is called once at the end and may add closing events.
pub fn relay_sse<F, G>(
    mut upstream: Incoming,
    max: usize,
    timeout: Duration,
    mut filter: F,
    finish: G,
) -> Body
where
    F: FnMut(SseEvent) -> Vec<SseEvent> + Send + 'static,
    G: FnOnce(StreamEnd) -> Vec<SseEvent> + Send + 'static,
{
    let (tx, rx) = mpsc::channel::<Bytes>(16);
    tokio::spawn(async move {
        let mut decoder = SseDecoder::new(max);
        let end = loop {
            let frame = match tokio::time::timeout(timeout, upstream.frame()).await {
                Err(_) => break StreamEnd::Failed(format!("no event from upstream within {timeout:?}")),
                Ok(None) => break StreamEnd::Closed,
                Ok(Some(Err(e))) => break StreamEnd::Failed(format!("upstream stream broke: {e}")),
                Ok(Some(Ok(f))) => f,
            };
            let Ok(data) = frame.into_data() else { continue };
            let events = match decoder.push(&data) {
                Ok(evs) => evs,
                Err(e) => break StreamEnd::Failed(e.to_string()),
            };
            // Comments and keep-alives carry nothing a client dispatches: only events are relayed.
            for ev in events.into_iter().filter(|e| !e.is_blank()).flat_map(&mut filter) {
                if tx.send(Bytes::from(ev.to_bytes())).await.is_err() {
                    return;
                }
            }
        };
        for ev in finish(end) {
            if tx.send(Bytes::from(ev.to_bytes())).await.is_err() {
                return;
            }
        }
    });
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|b| (Ok::<Bytes, Infallible>(b), rx))
    });
    Body::from_stream(stream)
}

/// True when an answer's `Content-Type` is an SSE stream (`text/event-stream`, any case).
pub fn is_event_stream(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.trim_start().to_ascii_lowercase().starts_with("text/event-stream"))
}
