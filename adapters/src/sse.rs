//! Server-Sent Events framing (sans-IO): bytes in, events out, with a per-event size limit;
//! and the serialisation of an event back to bytes.

/// One event: its `id`, `event` type and joined `data` lines.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// `id:` field, if any.
    pub id: Option<String>,
    /// `event:` field, if any.
    pub event: Option<String>,
    /// `data:` lines joined with `\n`.
    pub data: String,
    /// `retry:` field, if any.
    pub retry: Option<String>,
}

impl SseEvent {
    /// The event as wire bytes (`data` split on newlines), ending with a blank line.
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
        for line in self.data.split('\n') {
            out.push_str(&format!("data: {line}\n"));
        }
        out.push('\n');
        out.into_bytes()
    }
}

/// An event grew past the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("stream event exceeds the limit of {0} bytes")]
pub struct EventTooLarge(pub usize);

/// Incremental SSE parser.
#[derive(Debug)]
pub struct SseParser {
    buf: Vec<u8>,
    current: SseEvent,
    has_data: bool,
    size: usize,
    max: usize,
}

impl SseParser {
    /// A parser refusing events over `max` bytes.
    pub fn new(max: usize) -> Self {
        Self { buf: Vec::new(), current: SseEvent::default(), has_data: false, size: 0, max }
    }

    /// Feeds bytes; returns the events completed by them.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<Vec<SseEvent>, EventTooLarge> {
        self.buf.extend_from_slice(bytes);
        let mut events = Vec::new();
        // A line ends at CRLF, LF or a lone CR, as in the SSE specification (and in every
        // EventSource): reading a lone CR as data would let an upstream hide a field or an event
        // boundary from Blindfold that the client then sees. A CR at the end of the buffer waits
        // for the next byte.
        while let Some(pos) = self.buf.iter().position(|&b| b == b'\n' || b == b'\r') {
            let ending = match (self.buf[pos], self.buf.get(pos + 1)) {
                (b'\r', Some(b'\n')) => 2,
                (b'\r', None) => break,
                _ => 1,
            };
            let mut line: Vec<u8> = self.buf.drain(..pos + ending).collect();
            line.truncate(pos);
            self.size += line.len() + 1;
            if self.size > self.max {
                return Err(EventTooLarge(self.max));
            }
            if line.is_empty() {
                let done = std::mem::take(&mut self.current);
                let complete = std::mem::take(&mut self.has_data);
                self.size = 0;
                if complete || done.id.is_some() || done.event.is_some() || done.retry.is_some() {
                    events.push(done);
                }
                continue;
            }
            let line = String::from_utf8_lossy(&line).into_owned();
            if line.starts_with(':') {
                continue;
            }
            let (field, value) = match line.split_once(':') {
                Some((f, v)) => (f.to_owned(), v.strip_prefix(' ').unwrap_or(v).to_owned()),
                None => (line.clone(), String::new()),
            };
            match field.as_str() {
                "data" => {
                    if self.has_data {
                        self.current.data.push('\n');
                    }
                    self.current.data.push_str(&value);
                    self.has_data = true;
                }
                "id" => self.current.id = Some(value),
                "event" => self.current.event = Some(value),
                "retry" => self.current.retry = Some(value),
                _ => {}
            }
        }
        if self.buf.len() + self.size > self.max {
            return Err(EventTooLarge(self.max));
        }
        Ok(events)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_split_across_chunks() {
        let mut p = SseParser::new(1000);
        assert!(p.feed(b"id: 1\nevent: message\nda").expect("ok").is_empty());
        let evs = p.feed(b"ta: {\"a\":1}\r\n\r\n: comment\n\ndata: x\ndata: y\n\n").expect("ok");
        assert_eq!(evs.len(), 2);
        assert_eq!(evs[0].id.as_deref(), Some("1"));
        assert_eq!(evs[0].data, "{\"a\":1}");
        assert_eq!(evs[1].data, "x\ny");
        assert_eq!(evs[1].to_bytes(), b"data: x\ndata: y\n\n");
    }

    #[test]
    fn oversize_events_are_refused() {
        let mut p = SseParser::new(16);
        assert!(p.feed(b"data: 0123456789abcdef0123\n").is_err());
        let mut p = SseParser::new(16);
        assert!(p.feed(&[b'x'; 40]).is_err());
    }

    #[test]
    fn a_lone_cr_ends_a_line_as_in_every_event_source() {
        let mut p = SseParser::new(1 << 16);
        let evs = p.feed(b"event: a\rdata: x\r\rdata: y\r\n\r\ndata: z\n\n").expect("ok");
        let names: Vec<_> = evs.iter().map(|e| (e.event.as_deref(), e.data.as_str())).collect();
        assert_eq!(names, [(Some("a"), "x"), (None, "y"), (None, "z")]);
        // A CR split from its LF across reads is one line end.
        let mut p = SseParser::new(1 << 16);
        assert!(p.feed(b"data: q\r").expect("ok").is_empty());
        let evs = p.feed(b"\n\r\n").expect("ok");
        assert_eq!(evs.len(), 1);
        assert_eq!(evs[0].data, "q");
    }
}
