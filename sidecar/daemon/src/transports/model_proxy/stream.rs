//! Relaying an upstream SSE stream: each upstream frame is decoded, run through the API's stream
//! codec and sent on at once. The relay owns the upstream body, so when the client goes away and
//! the relay is dropped, the upstream request is cancelled with it.

use super::calls::CallDecider;
use super::errors::ProxyError;
use axum::body::Body;
use blindfold_adapters::model_api::{
    CallGate, ChatStream, MalformedBody, MessagesStream, ModelApi, ResponsesStream, SseDecoder, SseEvent,
};
use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;

/// The per-API stream state.
enum Codec {
    Chat(ChatStream),
    Messages(MessagesStream),
    Responses(ResponsesStream),
}

impl Codec {
    fn on_event(&mut self, ev: &SseEvent, gate: &mut dyn CallGate) -> Result<Vec<Vec<u8>>, MalformedBody> {
        match self {
            Codec::Chat(s) => s.on_event(ev, gate),
            Codec::Messages(s) => s.on_event(ev, gate),
            Codec::Responses(s) => s.on_event(ev, gate),
        }
    }

    fn finish(&mut self, gate: &mut dyn CallGate) -> Vec<Vec<u8>> {
        match self {
            Codec::Chat(s) => s.finish(gate),
            Codec::Messages(s) => s.close_unfinished(gate),
            Codec::Responses(s) => s.finish(gate),
        }
    }
}

struct Relay {
    api: ModelApi,
    upstream: Incoming,
    decoder: SseDecoder,
    codec: Codec,
    gate: CallDecider,
    done: bool,
}

/// The client-facing body of a streamed answer.
pub fn relay(api: ModelApi, upstream: Incoming, gate: CallDecider) -> Body {
    let codec = match api {
        ModelApi::ChatCompletions => Codec::Chat(ChatStream::new()),
        ModelApi::Messages => Codec::Messages(MessagesStream::new()),
        ModelApi::Responses => Codec::Responses(ResponsesStream::new()),
    };
    let relay = Relay {
        api,
        upstream,
        decoder: SseDecoder::new(blindfold_adapters::sse::MAX_EVENT_BYTES),
        codec,
        gate,
        done: false,
    };
    Body::from_stream(futures_util::stream::unfold(relay, |mut r| async move {
        let bytes = r.next_bytes().await?;
        Some((Ok::<Bytes, std::convert::Infallible>(bytes), r))
    }))
}

impl Relay {
    /// The next bytes for the client; `None` when the stream is over.
    async fn next_bytes(&mut self) -> Option<Bytes> {
        while !self.done {
            let out = match self.upstream.frame().await {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => self.feed(&data),
                    Err(_) => continue, // trailers carry nothing the client needs
                },
                Some(Err(e)) => {
                    self.done = true;
                    let err = ProxyError::BadUpstream(format!("upstream stream failed: {e}"));
                    tracing::warn!(error = %err, "model stream ended by upstream error");
                    err.stream_event(self.api)
                }
                None => {
                    // An unfinished trailing event is dropped: it may be half a tool call.
                    self.done = true;
                    self.codec.finish(&mut self.gate).concat()
                }
            };
            if !out.is_empty() {
                return Some(Bytes::from(out));
            }
        }
        None
    }

    fn feed(&mut self, data: &[u8]) -> Vec<u8> {
        let events = match self.decoder.push(data) {
            Ok(events) => events,
            Err(e) => return self.fail(e.into()),
        };
        let mut out = Vec::new();
        for ev in &events {
            match self.codec.on_event(ev, &mut self.gate) {
                Ok(parts) => parts.iter().for_each(|p| out.extend_from_slice(p)),
                Err(e) => {
                    out.extend(self.fail(e));
                    break;
                }
            }
        }
        out
    }

    /// Fails closed: nothing more of this stream is passed on.
    fn fail(&mut self, e: MalformedBody) -> Vec<u8> {
        self.done = true;
        let err = ProxyError::BadUpstream(e.to_string());
        tracing::warn!(error = %err, "model stream refused");
        err.stream_event(self.api)
    }
}
