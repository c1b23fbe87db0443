//! An incremental Server-Sent Events decoder that keeps each event's raw bytes, so events that
//! need no change are forwarded byte for byte.

/// One SSE event: its raw bytes (terminator included), `event:` name and joined `data:` lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The bytes as received, blank-line terminator included.
    pub raw: Vec<u8>,
    /// The `event:` field, when present.
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`; `None` for comments and events without data.
    pub data: Option<String>,
}

impl SseEvent {
    /// Encodes an event the way upstreams send it: optional `event:` line, one `data:` line.
    pub fn encode(event: Option<&str>, data: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(data.len() + 32);
        if let Some(name) = event {
            out.extend_from_slice(b"event: ");
            out.extend_from_slice(name.as_bytes());
            out.push(b'\n');
        }
        for line in data.split('\n') {
            out.extend_from_slice(b"data: ");
            out.extend_from_slice(line.as_bytes());
            out.push(b'\n');
        }
        out.push(b'\n');
        out
    }
}

/// Splits a byte stream into SSE events; partial events wait for more bytes.
#[derive(Debug, Default)]
pub struct SseDecoder {
    buf: Vec<u8>,
    /// Bytes of `buf` already scanned for a terminator (avoids rescanning long events).
    scanned: usize,
}

/// Longest event accepted (16 MiB); a longer one is an error, not unbounded memory.
pub const MAX_EVENT_BYTES: usize = 16 << 20;

impl SseDecoder {
    /// A decoder with an empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds bytes and returns every event they complete, in order.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, super::MalformedBody> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.terminator_end() {
            let raw: Vec<u8> = self.buf.drain(..end).collect();
            self.scanned = 0;
            out.push(parse(raw)?);
        }
        if self.buf.len() > MAX_EVENT_BYTES {
            return Err(super::MalformedBody::new("stream event", "event larger than 16 MiB"));
        }
        Ok(out)
    }

    /// The bytes of an unfinished event at the end of the stream (empty when none).
    pub fn remainder(&self) -> &[u8] {
        &self.buf
    }

    /// End of the first event in the buffer (after its blank line), if complete. Scanning resumes
    /// at the start of the last incomplete line, so long events are not rescanned.
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
                    // a lone \r at the end may be the first half of \r\n
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

fn parse(raw: Vec<u8>) -> Result<SseEvent, super::MalformedBody> {
    let text = std::str::from_utf8(&raw)
        .map_err(|_| super::MalformedBody::new("stream event", "not UTF-8"))?
        .to_owned();
    let mut event = None;
    let mut data: Option<String> = None;
    for line in text.split(['\n', '\r']).filter(|l| !l.is_empty()) {
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "event" => event = Some(value.to_owned()),
            "data" => match &mut data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(value);
                }
                None => data = Some(value.to_owned()),
            },
            _ => {}
        }
    }
    Ok(SseEvent { raw, event, data })
}
