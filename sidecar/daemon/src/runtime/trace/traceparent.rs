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

/// `request` (the bytes of an MCP request) with `params._meta.traceparent` set to `ctx`, spliced
/// into its bytes: `_meta` (or, when `_meta` exists, `traceparent`) goes in as the first member,
/// and every other byte stays as it was (key order, number spelling, whitespace), so the server
/// receives the request that was decided. `None` — the request goes as it is — when `params` or
/// `_meta` is not an object, `_meta` already has a `traceparent`, a key appears twice, or the
/// bytes are not a JSON object.
pub fn splice_mcp_meta(request: &[u8], ctx: &TraceContext) -> Option<Vec<u8>> {
    let top = object_members(request, 0)?;
    let params = only_member(&top, "params")?;
    let members = object_members(request, params.value)?;
    let traceparent = format!("\"{TRACEPARENT}\":\"{}\"", ctx.to_header());
    let (at, insert, rest_empty) = match find_member(&members, "_meta")? {
        Some(meta) => {
            let inner = object_members(request, meta.value)?;
            if find_member(&inner, TRACEPARENT)?.is_some() {
                return None;
            }
            (meta.value + 1, traceparent, inner.is_empty())
        }
        None => (params.value + 1, format!("\"_meta\":{{{traceparent}}}"), members.is_empty()),
    };
    let mut out = Vec::with_capacity(request.len() + insert.len() + 1);
    out.extend_from_slice(&request[..at]);
    out.extend_from_slice(insert.as_bytes());
    if !rest_empty {
        out.push(b',');
    }
    out.extend_from_slice(&request[at..]);
    Some(out)
}

/// One member of a JSON object in the bytes it was read from.
struct Member {
    /// The key, unescaped.
    key: String,
    /// Where its value starts.
    value: usize,
}

/// The member named `key`: `None` when it appears more than once (which one counts is
/// ambiguous), `Some(None)` when it is absent.
fn find_member<'m>(members: &'m [Member], key: &str) -> Option<Option<&'m Member>> {
    let mut found = members.iter().filter(|m| m.key == key);
    let first = found.next();
    if found.next().is_some() { None } else { Some(first) }
}

/// The member named `key`, present exactly once.
fn only_member<'m>(members: &'m [Member], key: &str) -> Option<&'m Member> {
    find_member(members, key).flatten()
}

/// The members of the JSON object starting at `at` (after whitespace) in `bytes`; `None` when no
/// object starts there or it does not read to its closing brace.
fn object_members(bytes: &[u8], at: usize) -> Option<Vec<Member>> {
    let mut scan = Scan { bytes, at };
    scan.whitespace();
    scan.expect(b'{')?;
    let mut members = Vec::new();
    scan.whitespace();
    if scan.peek()? == b'}' {
        return Some(members);
    }
    loop {
        scan.whitespace();
        let key_start = scan.at;
        scan.string()?;
        let key: String = serde_json::from_slice(&bytes[key_start..scan.at]).ok()?;
        scan.whitespace();
        scan.expect(b':')?;
        scan.whitespace();
        members.push(Member { key, value: scan.at });
        scan.value()?;
        scan.whitespace();
        match scan.peek()? {
            b',' => scan.at += 1,
            b'}' => return Some(members),
            _ => return None,
        }
    }
}

/// A cursor over JSON text, skipping whole values without building them.
struct Scan<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.at += 1)
    }

    fn whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// Past one string (at its opening quote).
    fn string(&mut self) -> Option<()> {
        self.expect(b'"')?;
        loop {
            match self.peek()? {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }

    /// Past one value: a string, an object or array (strings inside skipped whole), or a literal.
    fn value(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => self.string(),
            b'{' | b'[' => self.nested(),
            _ => {
                let start = self.at;
                while self
                    .peek()
                    .is_some_and(|b| !matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                {
                    self.at += 1;
                }
                (self.at > start).then_some(())
            }
        }
    }

    fn nested(&mut self) -> Option<()> {
        let mut depth = 0usize;
        loop {
            match self.peek()? {
                b'"' => self.string()?,
                b'{' | b'[' => {
                    depth += 1;
                    self.at += 1;
                }
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    self.at += 1;
                    if depth == 0 {
                        return Some(());
                    }
                }
                _ => self.at += 1,
            }
        }
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

    fn spliced(request: &str) -> Option<String> {
        let ctx = TraceContext::for_trajectory("t");
        splice_mcp_meta(request.as_bytes(), &ctx).map(|b| String::from_utf8(b).expect("utf8"))
    }

    #[test]
    fn mcp_meta_and_headers_carry_it() {
        let ctx = TraceContext::for_trajectory("t");
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "bash", "arguments": {}}});
        let out = spliced(&request.to_string()).expect("spliced");
        let out: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(out["params"]["_meta"]["traceparent"], json!(ctx.to_header()));
        assert_eq!(extract_mcp_meta(&out["params"]), Some(ctx));
        let mut headers = HeaderMap::new();
        inject_header(&mut headers, &ctx);
        assert_eq!(extract_header(&headers), Some(ctx));
    }

    #[test]
    fn the_context_is_spliced_in_and_every_other_byte_kept() {
        let tp = TraceContext::for_trajectory("t").to_header();
        let request = r#"{"jsonrpc":"2.0","method":"tools/call","id":7,"params":{"name":"write","arguments":{"z":1,"a":123456789012345678901234567890,"m":[1.50,{"y":"}\"{"}]}}}"#;
        let out = spliced(request).expect("spliced");
        let expected =
            request.replacen(r#""params":{"#, &format!(r#""params":{{"_meta":{{"traceparent":"{tp}"}},"#), 1);
        assert_eq!(out, expected, "key order, a 30-digit integer and 1.50 kept byte for byte");

        let spaced = "{ \"params\" : { } , \"id\" : 1 }";
        assert_eq!(
            spliced(spaced).expect("empty params"),
            format!("{{ \"params\" : {{\"_meta\":{{\"traceparent\":\"{tp}\"}} }} , \"id\" : 1 }}")
        );
    }

    #[test]
    fn an_existing_meta_is_merged_and_a_caller_context_or_odd_shape_is_left_alone() {
        let tp = TraceContext::for_trajectory("t").to_header();
        let request = r#"{"params":{"name":"x","_meta":{"progressToken":"p","z":2},"arguments":{}}}"#;
        assert_eq!(
            spliced(request).expect("merged"),
            format!(
                r#"{{"params":{{"name":"x","_meta":{{"traceparent":"{tp}","progressToken":"p","z":2}},"arguments":{{}}}}}}"#
            )
        );
        assert_eq!(
            spliced(r#"{"params":{"_meta":{}}}"#).expect("empty _meta"),
            format!(r#"{{"params":{{"_meta":{{"traceparent":"{tp}"}}}}}}"#)
        );
        let escaped = r#"{"params":{"_m\u0065ta":{"tr\u0061ceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}"#;
        for untouched in [
            r#"{"params":{"_meta":{"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}}"#,
            escaped,
            r#"{"params":{"_meta":null}}"#,
            r#"{"params":[1]}"#,
            r#"{"params":null}"#,
            r#"{"id":1}"#,
            r#"{"params":{"_meta":{},"_meta":{}}}"#,
            r#"{"params":{},"params":{}}"#,
            r#"{"params":{"a":"#,
            r#"[{"params":{}}]"#,
        ] {
            assert_eq!(spliced(untouched), None, "{untouched}");
        }
    }
}
