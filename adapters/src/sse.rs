//! Server-Sent Events framing (sans-IO), the one decoder every stream Blindfold reads goes
//! through (A2A and MCP streams, model-API streams, OpenCode's event feed): bytes in, events out,
//! each with its raw bytes (so an event that needs no change is forwarded byte for byte) and its
//! fields, bounded per event; and an event's serialisation back to bytes.
//!
//! A line ends at CRLF, LF or a lone CR, as in the SSE specification and in every EventSource:
//! reading a lone CR as data would let an upstream hide a field or an event boundary from
//! Blindfold that the client then sees. A CR at the end of the input waits for the next byte.

/// One event: its raw bytes and its `id`, `event`, `data` and `retry` fields.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The bytes as received, blank-line terminator included (empty for an event Blindfold
    /// builds itself).
    pub raw: Vec<u8>,
    /// `id:` field, if any.
    pub id: Option<String>,
    /// `event:` field, if any.
    pub event: Option<String>,
    /// `data:` lines joined with `\n`; `None` when the event has no `data:` line (a comment,
    /// a keep-alive).
    pub data: Option<String>,
    /// `retry:` field, if any.
    pub retry: Option<String>,
}

impl SseEvent {
    /// An event of `data` (and the `event:` name, when given) built by Blindfold.
    pub fn new(event: Option<&str>, data: impl Into<String>) -> Self {
        Self { event: event.map(str::to_owned), data: Some(data.into()), ..Self::default() }
    }

    /// The event's data, empty when it has none.
    pub fn data_str(&self) -> &str {
        self.data.as_deref().unwrap_or("")
    }

    /// True when the event carries no field at all (only comments or unknown fields): nothing a
    /// client would dispatch.
    pub fn is_blank(&self) -> bool {
        self.id.is_none() && self.event.is_none() && self.data.is_none() && self.retry.is_none()
    }

    /// The event's fields as wire bytes (`data` split on newlines), ending with a blank line.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::new();
        if let Some(id) = &self.id {
            out.push_str(&format!("id: {id}\n"));
        }
        if let Some(ev) = &self.event {
            out.push_str(&format!("event: {ev}\n"));
        }
        if let Some(r) = &self.retry {
            out.push_str(&format!("retry: {r}\n"));
        }
        if let Some(data) = &self.data {
            for line in data.split('\n') {
                out.push_str(&format!("data: {line}\n"));
            }
        }
        out.push('\n');
        out.into_bytes()
    }

    /// The bytes of an event the way upstreams send it: an optional `event:` line, `data:` lines.
    pub fn encode(event: Option<&str>, data: &str) -> Vec<u8> {
        Self::new(event, data).to_bytes()
    }
}

/// Why a stream could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SseError {
    /// An event grew past the limit.
    #[error("stream event exceeds the limit of {0} bytes")]
    TooLarge(usize),
    /// An event that is not UTF-8 (SSE is UTF-8; a client would read other bytes than Blindfold).
    #[error("stream event is not UTF-8")]
    NotUtf8,
}

/// Longest event the model-API proxy accepts (16 MiB).
pub const MAX_EVENT_BYTES: usize = 16 << 20;

/// Splits a byte stream into events; a partial event waits for more bytes.
#[derive(Debug)]
pub struct SseDecoder {
    buf: Vec<u8>,
    /// Bytes of `buf` already scanned for a terminator (long events are not rescanned).
    scanned: usize,
    max: usize,
}

impl SseDecoder {
    /// A decoder refusing events over `max` bytes.
    pub fn new(max: usize) -> Self {
        Self { buf: Vec::new(), scanned: 0, max }
    }

    /// Feeds bytes and returns every event they complete, in order (blank ones included: their
    /// raw bytes may need forwarding).
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, SseError> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.terminator_end() {
            if end > self.max {
                return Err(SseError::TooLarge(self.max));
            }
            let raw: Vec<u8> = self.buf.drain(..end).collect();
            self.scanned = 0;
            out.push(parse(raw)?);
        }
        if self.buf.len() > self.max {
            return Err(SseError::TooLarge(self.max));
        }
        Ok(out)
    }

    /// The bytes of an unfinished event at the end of the stream (empty when none).
    pub fn remainder(&self) -> &[u8] {
        &self.buf
    }

    /// End of the first event in the buffer (after its blank line), if complete. Scanning resumes
    /// at the start of the last incomplete line.
    fn terminator_end(&mut self) -> Option<usize> {
        let b = &self.buf;
        let mut line_start = self.scanned;
        loop {
            let Some(offset) = b[line_start..].iter().position(|&c| c == b'\n' || c == b'\r') else {
                self.scanned = line_start;
                return None;
            };
            let pos = line_start + offset;
            let end = match (b[pos], b.get(pos + 1)) {
                (b'\r', None) => {
                    // A lone CR at the end may be the first half of CRLF.
                    self.scanned = line_start;
                    return None;
                }
                (b'\r', Some(b'\n')) => pos + 2,
                _ => pos + 1,
            };
            if pos == line_start {
                return Some(end);
            }
            line_start = end;
        }
    }
}

fn parse(raw: Vec<u8>) -> Result<SseEvent, SseError> {
    let text = std::str::from_utf8(&raw).map_err(|_| SseError::NotUtf8)?;
    let mut ev = SseEvent::default();
    for line in text.split(['\n', '\r']).filter(|l| !l.is_empty()) {
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => match &mut ev.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => ev.data = Some(value.to_owned()),
            },
            "id" => ev.id = Some(value.to_owned()),
            "event" => ev.event = Some(value.to_owned()),
            "retry" => ev.retry = Some(value.to_owned()),
            _ => {}
        }
    }
    ev.raw = raw;
    Ok(ev)
}

#[cfg(test)]
mod tests;
