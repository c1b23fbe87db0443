//! Streaming fidelity of the model-API proxy at the byte level: a client that goes away cancels
//! the upstream request; bad request bodies get a native error and nothing is forwarded.

mod model_proxy_support;

use model_proxy_support::{ModelProxy, ScriptedModel};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

fn post(port: u16, path: &str, body: &str) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    write!(
        s,
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("write");
    s
}

#[test]
fn client_disconnect_cancels_the_upstream_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let proxy = ModelProxy::start(dir.path(), model.port, &[], &[]);
    let body = r#"{"model":"m","stream":true,"messages":[{"role":"user","content":"slow-stream"}]}"#;
    let mut s = post(proxy.port, "/v1/chat/completions", body);
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&seen).contains("tick") {
        let n = s.read(&mut buf).expect("read");
        assert!(n > 0, "stream ended early");
        seen.extend_from_slice(&buf[..n]);
    }
    drop(s);
    // The upstream writes a chunk every 100 ms for 4 s; its next writes fail once Blindfold has
    // dropped the upstream connection, and it logs the cancellation.
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        let requests = model.requests();
        if requests.iter().any(|r| r["cancelled"] == true) {
            break;
        }
        assert!(Instant::now() < deadline, "upstream request was not cancelled: {requests:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn malformed_requests_get_a_native_error_and_reach_no_model() {
    let dir = tempfile::tempdir().expect("tempdir");
    let model = ScriptedModel::start(dir.path());
    let proxy = ModelProxy::start(dir.path(), model.port, &[], &[]);
    for (path, body, shape) in [
        ("/v1/chat/completions", r#"{"messages":[1],"messages":[2]}"#, r#""error":{"#),
        ("/v1/messages", "not json", r#""type":"error""#),
        ("/v1/responses", r#"{"input":7}"#, r#""error":{"#),
    ] {
        let mut s = post(proxy.port, path, body);
        let mut raw = String::new();
        s.read_to_string(&mut raw).ok();
        assert!(raw.starts_with("HTTP/1.1 400"), "{path}: {raw}");
        assert!(raw.contains(shape), "{path}: protocol-native error body: {raw}");
    }
    assert!(model.requests().is_empty(), "nothing was forwarded");
}
