//! A Streamable HTTP session's order through `/mcp`: a client whose `tools/call` overtakes its
//! standalone GET still gets the server's sampling request, which the server (the TypeScript
//! SDK's transport) sends on the standalone stream only. Directly the server loses that request
//! (no stream is open when it is sent); through Blindfold, which opened the stream upstream when
//! the handshake ended, it waits in the stream and arrives on the client's GET. The whole
//! exchange then completes: the client answers, the tool answers.

use blindfold_integration_tests::conformance::EverythingServer;
use blindfold_integration_tests::transports::{World, run_daemon};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Sends one request on a fresh connection; returns the stream, positioned after the request.
fn send(port: u16, method: &str, session: Option<&str>, body: Option<&Value>) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_millis(200))).expect("timeout");
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut head = format!(
        "{method} /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: application/json, text/event-stream\r\n\
         MCP-Protocol-Version: 2025-11-25\r\nConnection: close\r\n"
    );
    if let Some(id) = session {
        head.push_str(&format!("Mcp-Session-Id: {id}\r\n"));
    }
    if !body.is_empty() {
        head.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    write!(s, "{head}\r\n{body}").expect("send");
    s
}

/// Reads from `s` until `done` holds for what arrived, or `limit` passes; returns what arrived.
fn read_until(s: &mut TcpStream, limit: Duration, done: impl Fn(&str) -> bool) -> String {
    let deadline = Instant::now() + limit;
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    while Instant::now() < deadline && !done(&String::from_utf8_lossy(&got)) {
        match s.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(_) => continue,
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// The JSON messages of the `data:` lines in `text`.
fn messages(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|l| l.strip_prefix("data:"))
        .filter_map(|d| serde_json::from_str(d.trim()).ok())
        .collect()
}

fn session_of(text: &str) -> String {
    text.lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("mcp-session-id:").map(|v| v.trim().to_owned()))
        .expect("session id")
}

/// Runs the exchange against `port`; returns whether the sampling request reached the client's
/// GET and, when it did, the tool's final text.
fn overtaking_call(port: u16) -> (bool, String) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
        "clientInfo": {"name": "order-test", "version": "1"}}});
    let mut s = send(port, "POST", None, Some(&init));
    let answer = read_until(&mut s, Duration::from_secs(10), |t| t.contains("\"result\""));
    // The session id comes back lower-cased in the header name only; the value is as sent.
    let session = session_of(&answer);
    let mut s = send(
        port,
        "POST",
        Some(&session),
        Some(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
    );
    let answer = read_until(&mut s, Duration::from_secs(10), |t| t.contains("\r\n\r\n"));
    assert!(answer.starts_with("HTTP/1.1 202"), "{answer}");
    // The call goes first; it waits for the sampling answer, so it runs on its own thread.
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "test_sampling", "arguments": {"prompt": "say ok"}}});
    let (tx, rx) = mpsc::channel();
    let call_session = session.clone();
    std::thread::spawn(move || {
        let mut s = send(port, "POST", Some(&call_session), Some(&call));
        let text = read_until(&mut s, Duration::from_secs(20), |t| messages(t).iter().any(|m| m["id"] == 2));
        let _ = tx.send(text);
    });
    std::thread::sleep(Duration::from_millis(500));
    // Only now the standalone stream.
    let mut stream = send(port, "GET", Some(&session), None);
    let is_sampling = |m: &Value| m["method"] == "sampling/createMessage";
    let got = read_until(&mut stream, Duration::from_secs(5), |t| messages(t).iter().any(is_sampling));
    let Some(request) = messages(&got).into_iter().find(is_sampling) else { return (false, String::new()) };
    let reply = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "ok from the client"}, "model": "m"}});
    let mut s = send(port, "POST", Some(&session), Some(&reply));
    let _ = read_until(&mut s, Duration::from_secs(10), |t| t.contains("\r\n\r\n"));
    let text = rx.recv_timeout(Duration::from_secs(20)).unwrap_or_default();
    let result = messages(&text).into_iter().find(|m| m["id"] == 2).unwrap_or_default();
    (true, result["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned())
}

#[test]
fn a_call_that_overtakes_the_standalone_get_still_gets_the_servers_request() {
    let server = EverythingServer::start();
    let (reached, _) = overtaking_call(server.port);
    assert!(!reached, "directly, the server loses a request sent before the standalone stream is open");

    let w = World::new("");
    let upstream = server.url();
    let reads = "[tools.test_sampling]\neffect = \"read\"\n";
    for (arm, extra) in [
        (
            "off",
            "[modes]\nanonymize = false\nattest = false\npreverify = false\ngrants = false\nenforce = false\n",
        ),
        ("default modes", reads),
    ] {
        let (_daemon, port) = run_daemon(&w, &format!("[mcp_http]\nupstream = {upstream:?}\n\n{extra}"));
        let (reached, text) = overtaking_call(port);
        assert!(reached, "{arm}: the sampling request did not reach the client's GET");
        assert_eq!(text, "LLM response: ok from the client", "{arm}");
    }
}
