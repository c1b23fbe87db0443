//! Sans-IO codecs for the coordinator's own model traffic (OpenAI chat completions and responses,
//! Anthropic messages): identity scrubbing of requests, and tool calls assembled from responses
//! and streams, gated one by one, then forwarded or replaced by a refusal text.
//!
//! Nothing here performs I/O: the caller hands in bodies and SSE events, a [`Scrubber`] (the
//! identity engine) and a [`CallGate`] (the decision engine), and sends out what comes back.

mod anthropic_blocks;
mod anthropic_messages;
mod anthropic_stream;
mod calls;
mod chat;
mod chat_calls;
mod chat_stream;
mod history_calls;
mod json_text;
mod patch;
mod response_items;
mod responses;
mod responses_stream;

#[cfg(test)]
mod anthropic_blocks_tests;
#[cfg(test)]
mod chat_calls_tests;
#[cfg(test)]
mod declared_agent_tests;
#[cfg(test)]
mod openclaw_tests;
#[cfg(test)]
mod orphan_result_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod verify_strip_tests;

pub use crate::sse::{MAX_EVENT_BYTES, SseDecoder, SseError, SseEvent};
pub use anthropic_messages::{rewrite_messages_request, rewrite_messages_response};
pub use anthropic_stream::MessagesStream;
pub use calls::{
    AGENT_TOOLS, BRIDGE, CallGate, CallOutcome, DecidableCall, MalformedCall, ProposedCall, UnreadableItem,
    call_events, decidable_call, is_agent_call, is_agent_call_text, map_agent_aliases, refusal_text,
};
pub use chat::{rewrite_chat_request, rewrite_chat_response};
pub use chat_stream::ChatStream;
pub use responses::{rewrite_responses_request, rewrite_responses_response};
pub use responses_stream::ResponsesStream;

/// The API a request speaks, chosen by its path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelApi {
    /// OpenAI `POST /v1/chat/completions`.
    ChatCompletions,
    /// OpenAI `POST /v1/responses`.
    Responses,
    /// Anthropic `POST /v1/messages`.
    Messages,
}

/// What identity scrubbing needs from the identity engine.
pub trait Scrubber {
    /// The text as the coordinator may read it (identity words and real agent names replaced);
    /// `None` when nothing in it changes.
    fn scrub(&self, text: &str) -> Option<String>;
    /// The real agent name behind `alias`, when the coordinator named an agent by its alias;
    /// `None` when `alias` is not one of this trajectory's aliases.
    fn real_agent(&self, alias: &str) -> Option<String>;
}

/// A scrubber that changes nothing (the `anonymize` mode is off).
pub struct NoScrub;

impl Scrubber for NoScrub {
    fn scrub(&self, _: &str) -> Option<String> {
        None
    }
    fn real_agent(&self, _: &str) -> Option<String> {
        None
    }
}

/// A body that could not be read as the API it claims to speak.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed {what}: {detail}")]
pub struct MalformedBody {
    /// What was being read (`request`, `response`, `stream event`).
    pub what: &'static str,
    /// Why it is malformed.
    pub detail: String,
}

impl MalformedBody {
    pub(crate) fn new(what: &'static str, detail: impl Into<String>) -> Self {
        Self { what, detail: detail.into() }
    }
}

impl From<SseError> for MalformedBody {
    fn from(e: SseError) -> Self {
        Self::new("stream event", e.to_string())
    }
}

/// A request body after scrubbing.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewritten {
    /// The bytes to forward: the original bytes when nothing changed.
    pub body: Vec<u8>,
    /// How many text fields were changed.
    pub changed: usize,
}

/// Parses a JSON object body with duplicate keys rejected (parsers disagree on which one wins).
pub(crate) fn parse_object(
    what: &'static str,
    bytes: &[u8],
) -> Result<serde_json::Map<String, serde_json::Value>, MalformedBody> {
    match blindfold_schemas::strict_json::value_from_slice(bytes) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(_) => Err(MalformedBody::new(what, "not a JSON object")),
        Err(e) => Err(MalformedBody::new(what, e.to_string())),
    }
}

/// Serialises `map`, or returns `original` when `changed` is zero (byte fidelity).
pub(crate) fn finish(
    original: &[u8],
    map: &serde_json::Map<String, serde_json::Value>,
    changed: usize,
) -> Rewritten {
    if changed == 0 {
        return Rewritten { body: original.to_vec(), changed };
    }
    let body = serde_json::to_vec(map).expect("a JSON map always serialises");
    Rewritten { body, changed }
}
