//! The decoder on split input, line ends, blank events, limits and bytes that are not UTF-8.

use super::*;

fn dispatched(d: &mut SseDecoder, bytes: &[u8]) -> Vec<SseEvent> {
    d.push(bytes).expect("decodes").into_iter().filter(|e| !e.is_blank()).collect()
}

#[test]
fn split_anywhere_the_events_and_their_raw_bytes_are_the_same() {
    let stream =
        b": keepalive\r\n\r\nid: 7\r\nevent: ping\r\ndata: {\"a\":1}\r\n\r\ndata: line1\ndata: line2\n\nretry: 50\ndata: [DONE]\n\n";
    for cut in 0..stream.len() {
        let mut d = SseDecoder::new(1 << 16);
        let mut events = d.push(&stream[..cut]).expect("first part");
        events.extend(d.push(&stream[cut..]).expect("second part"));
        assert_eq!(events.len(), 4, "cut at {cut}");
        assert_eq!(events.iter().flat_map(|e| e.raw.clone()).collect::<Vec<u8>>(), stream.to_vec());
        assert!(events[0].is_blank() && events[0].data.is_none());
        assert_eq!((events[1].id.as_deref(), events[1].event.as_deref()), (Some("7"), Some("ping")));
        assert_eq!(events[1].data.as_deref(), Some("{\"a\":1}"));
        assert_eq!(events[2].data.as_deref(), Some("line1\nline2"));
        assert_eq!((events[3].retry.as_deref(), events[3].data_str()), (Some("50"), "[DONE]"));
        assert!(d.remainder().is_empty());
    }
}

#[test]
fn a_lone_cr_ends_a_line_as_in_every_event_source() {
    let mut d = SseDecoder::new(1 << 16);
    let evs = dispatched(&mut d, b"event: a\rdata: x\r\rdata: y\r\n\r\ndata: z\n\n");
    let got: Vec<_> = evs.iter().map(|e| (e.event.as_deref(), e.data_str())).collect();
    assert_eq!(got, [(Some("a"), "x"), (None, "y"), (None, "z")]);
    // A CR split from its LF across reads is one line end.
    let mut d = SseDecoder::new(1 << 16);
    assert!(d.push(b"data: q\r").expect("ok").is_empty());
    let evs = d.push(b"\n\r\n").expect("ok");
    assert_eq!((evs.len(), evs[0].data_str()), (1, "q"));
}

#[test]
fn events_built_by_blindfold_serialise_their_fields() {
    let ev = SseEvent { id: Some("1".into()), ..SseEvent::new(Some("message"), "x\ny") };
    assert_eq!(ev.to_bytes(), b"id: 1\nevent: message\ndata: x\ndata: y\n\n");
    assert_eq!(SseEvent::encode(None, "{}"), b"data: {}\n\n");
    let mut d = SseDecoder::new(1 << 16);
    assert_eq!(d.push(&ev.to_bytes()).expect("ok")[0].data_str(), "x\ny");
}

#[test]
fn oversize_events_and_bytes_that_are_not_utf8_are_refused() {
    let mut d = SseDecoder::new(16);
    assert_eq!(d.push(b"data: 0123456789abcdef0123\n\n"), Err(SseError::TooLarge(16)));
    let mut d = SseDecoder::new(16);
    assert_eq!(d.push(&[b'x'; 40]), Err(SseError::TooLarge(16)));
    let mut d = SseDecoder::new(1 << 16);
    assert_eq!(d.push(b"data: \xff\xfe\n\n"), Err(SseError::NotUtf8));
}
