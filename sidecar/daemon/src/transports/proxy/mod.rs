//! Shared plumbing of the HTTP reverse proxies (MCP Streamable HTTP, A2A): the upstream client,
//! which headers cross, bounded bodies, and SSE streams re-emitted event by event.

mod sse;
mod upstream;

#[cfg(test)]
mod tests;

pub use sse::{StreamEnd, is_event_stream, relay_sse, retry_millis};
pub use upstream::{
    ForwardHeaders, Upstream, UpstreamError, copy_request_headers, copy_response_headers, read_body,
    read_body_bytes,
};
