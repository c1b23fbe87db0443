//! W3C Trace Context (`traceparent`) for a trajectory: carried in MCP `_meta` and HTTP headers so a
//! collector can join Blindfold's spans with the harness's and the tools'.
//!
//! A trajectory's trace id is derived from its Blindfold-assigned id, so every transport (and the
//! OTLP exporter) names the same trace without sharing state.

use axum::http::{HeaderMap, HeaderValue};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The HTTP header and MCP `_meta` key.
pub const TRACEPARENT: &str = "traceparent";

/// A parsed or derived trace context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TraceContext {
    /// 16-byte trace id (never all zero).
    pub trace_id: [u8; 16],
    /// 8-byte parent span id (never all zero).
    pub span_id: [u8; 8],
    /// The sampled flag.
    pub sampled: bool,
}

impl TraceContext {
    /// The context of `trajectory`: trace id from its id, span id of the trajectory's span.
    pub fn for_trajectory(trajectory: &str) -> Self {
        let digest = Sha256::digest(format!("blindfold-trajectory:{trajectory}").as_bytes());
        let mut trace_id = [0u8; 16];
        let mut span_id = [0u8; 8];
        trace_id.copy_from_slice(&digest[..16]);
        span_id.copy_from_slice(&digest[16..24]);
        trace_id[0] |= 1;
        span_id[0] |= 1;
        Self { trace_id, span_id, sampled: true }
    }

    /// The same trace with the span id of decision `seq` (so a tool's span hangs under it).
    pub fn child(&self, seq: u64) -> Self {
        let digest = Sha256::digest([&self.trace_id[..], &seq.to_be_bytes()].concat());
        let mut span_id = [0u8; 8];
        span_id.copy_from_slice(&digest[..8]);
        span_id[0] |= 1;
        Self { span_id, ..*self }
    }

    /// Trace id as 32 lowercase hex digits.
    pub fn trace_id_hex(&self) -> String {
        hex::encode(self.trace_id)
    }

    /// Span id as 16 lowercase hex digits.
    pub fn span_id_hex(&self) -> String {
        hex::encode(self.span_id)
    }

    /// The `traceparent` value: `00-<trace id>-<span id>-<flags>`.
    pub fn to_header(&self) -> String {
        format!("00-{}-{}-{:02x}", self.trace_id_hex(), self.span_id_hex(), u8::from(self.sampled))
    }

    /// Parses a `traceparent` value; `None` for anything malformed (version `ff`, upper-case hex,
    /// all-zero ids, wrong lengths). Future versions are read by their first four fields.
    pub fn parse(value: &str) -> Option<Self> {
        let parts: Vec<&str> = value.trim().split('-').collect();
        let [version, trace, span, flags, rest @ ..] = parts.as_slice() else { return None };
        let hex_ok = |s: &str, n: usize| {
            s.len() == n && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if !hex_ok(version, 2) || *version == "ff" || (*version == "00" && !rest.is_empty()) {
            return None;
        }
        if !hex_ok(trace, 32) || !hex_ok(span, 16) || !hex_ok(flags, 2) {
            return None;
        }
        let mut trace_id = [0u8; 16];
        let mut span_id = [0u8; 8];
        hex::decode_to_slice(trace, &mut trace_id).ok()?;
        hex::decode_to_slice(span, &mut span_id).ok()?;
        if trace_id == [0; 16] || span_id == [0; 8] {
            return None;
        }
        let flags = u8::from_str_radix(flags, 16).ok()?;
        Some(Self { trace_id, span_id, sampled: flags & 1 == 1 })
    }
}

/// Sets `params._meta.traceparent` of an MCP request's params (creating `_meta`); leaves
/// non-object params alone.
pub fn inject_mcp_meta(params: &mut Value, ctx: &TraceContext) {
    if params.is_null() {
        *params = Value::Object(serde_json::Map::new());
    }
    let Some(obj) = params.as_object_mut() else { return };
    let meta = obj.entry("_meta").or_insert_with(|| Value::Object(serde_json::Map::new()));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(TRACEPARENT.to_owned(), Value::String(ctx.to_header()));
    }
}

/// The trace context in an MCP request's `params._meta.traceparent`, if well-formed.
pub fn extract_mcp_meta(params: &Value) -> Option<TraceContext> {
    params.get("_meta")?.get(TRACEPARENT)?.as_str().and_then(TraceContext::parse)
}

/// Sets the `traceparent` header.
pub fn inject_header(headers: &mut HeaderMap, ctx: &TraceContext) {
    if let Ok(v) = HeaderValue::from_str(&ctx.to_header()) {
        headers.insert(TRACEPARENT, v);
    }
}

/// Sets the `traceparent` header to the context of `trajectory` unless the request carries one
/// already (the caller's own context passes untouched); true when it was set.
pub fn inject_header_if_absent(headers: &mut HeaderMap, trajectory: &str) -> bool {
    if headers.contains_key(TRACEPARENT) {
        return false;
    }
    inject_header(headers, &TraceContext::for_trajectory(trajectory));
    true
}

/// The trace context of a `traceparent` header, if well-formed.
pub fn extract_header(headers: &HeaderMap) -> Option<TraceContext> {
    headers.get(TRACEPARENT)?.to_str().ok().and_then(TraceContext::parse)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_trajectory_has_one_stable_trace_id_and_round_trips() {
        let a = TraceContext::for_trajectory("t-1");
        assert_eq!(a, TraceContext::for_trajectory("t-1"));
        assert_ne!(a.trace_id, TraceContext::for_trajectory("t-2").trace_id);
        assert_eq!(TraceContext::parse(&a.to_header()), Some(a));
        let child = a.child(7);
        assert_eq!(child.trace_id, a.trace_id);
        assert_ne!(child.span_id, a.span_id);
    }

    #[test]
    fn the_spec_example_parses_and_malformed_values_do_not() {
        let v = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
        let ctx = TraceContext::parse(v).expect("spec example");
        assert_eq!(ctx.to_header(), v);
        for bad in [
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "00-4bf92f35-00f067aa0ba902b7-01",
        ] {
            assert_eq!(TraceContext::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn mcp_meta_and_headers_carry_it() {
        let ctx = TraceContext::for_trajectory("t");
        let mut params = json!({"name": "bash", "arguments": {}});
        inject_mcp_meta(&mut params, &ctx);
        assert_eq!(params["_meta"]["traceparent"], json!(ctx.to_header()));
        assert_eq!(extract_mcp_meta(&params), Some(ctx));
        let mut headers = HeaderMap::new();
        inject_header(&mut headers, &ctx);
        assert_eq!(extract_header(&headers), Some(ctx));
    }
}
