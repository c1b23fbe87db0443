//! `[limits]` against the real daemon: each limit is exceeded once and refused with an error that
//! names it, while the daemon keeps serving: header size (431), open connections (503), a client
//! too slow to send its headers (408, `header_timeout_s`) or its request body (408,
//! `client_timeout_s`), an idle keep-alive connection (closed), JSON nesting depth (parse error), events per trajectory
//! (`deny{limit_exceeded}`). Frame, body and SSE sizes are exceeded in `mcp_stdio_framing`,
//! `a2a_proxy`, `mcp_http` and `faults`.

use blindfold_integration_tests::{Daemon, http_get};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn connect(port: u16, token: &str) -> Ws {
    let mut req = format!("ws://127.0.0.1:{port}/v1/control").into_client_request().expect("request");
    req.headers_mut().insert("authorization", format!("Bearer {token}").parse().expect("header"));
    tokio_tungstenite::connect_async(req).await.expect("connect").0
}

async fn send_raw(ws: &mut Ws, frame: String) -> Value {
    ws.send(tungstenite::Message::Text(frame.into())).await.expect("send");
    loop {
        if let tungstenite::Message::Text(t) = ws.next().await.expect("frame").expect("ok") {
            return serde_json::from_str(&t).expect("json");
        }
    }
}

async fn call(ws: &mut Ws, method: &str, params: Value) -> Value {
    send_raw(ws, json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string()).await
}

/// Reads until the peer closes (or `limit` passes); returns what arrived.
fn read_all(s: &mut TcpStream, limit: Duration) -> String {
    s.set_read_timeout(Some(limit)).expect("timeout");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    String::from_utf8_lossy(&raw).into_owned()
}

#[test]
fn oversized_headers_get_431_naming_the_limit() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &[("BLINDFOLD_LIMITS__MAX_HEADER_BYTES", "4096".into())]);
    let mut s = TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
    let big = "x".repeat(5000);
    write!(s, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Pad: {big}\r\nConnection: close\r\n\r\n")
        .expect("send");
    let answer = read_all(&mut s, Duration::from_secs(20));
    assert!(answer.starts_with("HTTP/1.1 431"), "{answer}");
    assert!(answer.contains("limits.max_header_bytes"), "{answer}");
    assert_eq!(http_get(daemon.port, "/healthz").expect("health").0, 200, "a normal request still passes");
}

#[test]
fn connections_over_the_limit_get_503_and_a_freed_slot_is_reused() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &[("BLINDFOLD_LIMITS__MAX_CONNECTIONS", "2".into())]);
    // Two connections hold both slots: each has been served one request and stays open (idle
    // keep-alive, past its headers, so not evictable). The start-up health check's connection may
    // still hold a slot for a moment, so a held connection may itself have been refused
    // (answered 503 and closed): such a one is replaced until a probe is refused.
    let mut held: Vec<TcpStream> = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    let refused = loop {
        held.retain(|h| {
            let mut byte = [0u8; 1];
            h.set_nonblocking(true).expect("nonblocking");
            let open = matches!(h.peek(&mut byte), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock);
            h.set_nonblocking(false).expect("blocking");
            open
        });
        while held.len() < 2 {
            let mut s = TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
            let _ = write!(s, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            s.set_read_timeout(Some(Duration::from_secs(10))).expect("timeout");
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            held.push(s);
        }
        std::thread::sleep(Duration::from_millis(100));
        let mut s = TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
        let _ = write!(s, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        let answer = read_all(&mut s, Duration::from_secs(10));
        if answer.starts_with("HTTP/1.1 503") || Instant::now() > deadline {
            break answer;
        }
    };
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    assert!(refused.contains("limits.max_connections"), "{refused}");
    drop(held);
    let deadline = Instant::now() + Duration::from_secs(20);
    while http_get(daemon.port, "/healthz").map(|r| r.0).unwrap_or(0) != 200 {
        assert!(Instant::now() < deadline, "a closed connection's slot was not released");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn a_client_too_slow_to_send_headers_gets_408_and_is_closed() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &[("BLINDFOLD_LIMITS__HEADER_TIMEOUT_S", "1".into())]);
    let mut s = TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
    write!(s, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n").expect("partial headers");
    let answer = read_all(&mut s, Duration::from_secs(30));
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    assert!(answer.contains("limits.header_timeout_s"), "{answer}");
    assert_eq!(http_get(daemon.port, "/healthz").expect("health").0, 200, "the daemon still serves");
}

#[test]
fn a_request_body_too_slow_gets_408_and_is_closed() {
    let dir = tempfile::tempdir().expect("tmp");
    // The model-API proxy listener reads request bodies; its upstream port has no listener.
    let (upstream, proxy) =
        (blindfold_integration_tests::free_port(), blindfold_integration_tests::free_port());
    let daemon = Daemon::start(
        dir.path(),
        &[
            ("BLINDFOLD_LIMITS__CLIENT_TIMEOUT_S", "1".into()),
            ("BLINDFOLD_MODEL_PROXY__UPSTREAM", format!("http://127.0.0.1:{upstream}")),
            ("BLINDFOLD_MODEL_PROXY__LISTEN", format!("127.0.0.1:{proxy}")),
        ],
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let mut s = loop {
        match TcpStream::connect(("127.0.0.1", proxy)) {
            Ok(s) => break s,
            Err(e) => assert!(Instant::now() < deadline, "proxy not listening: {e}"),
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // Complete headers, then a body that stops after 10 of its 100 bytes (slowloris on the body).
    write!(
        s,
        "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\
         Content-Length: 100\r\n\r\n{{\"model\":"
    )
    .expect("partial body");
    let answer = read_all(&mut s, Duration::from_secs(30));
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer:?}");
    assert!(answer.contains("request body") && answer.contains("limits.client_timeout_s"), "{answer}");
    assert_eq!(http_get(daemon.port, "/healthz").expect("health").0, 200, "the daemon still serves");
}

#[test]
fn an_idle_keep_alive_connection_is_closed_after_the_header_timeout() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &[("BLINDFOLD_LIMITS__HEADER_TIMEOUT_S", "1".into())]);
    let mut s = TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
    // Two requests on one keep-alive connection are served; then the client goes quiet.
    for _ in 0..2 {
        write!(s, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").expect("request");
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        let complete = |got: &[u8]| {
            let text = String::from_utf8_lossy(got);
            let Some((head, body)) = text.split_once("\r\n\r\n") else { return false };
            let len = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().to_owned())
                })
                .and_then(|v| v.parse::<usize>().ok())
                .expect("content-length");
            body.len() >= len
        };
        while !complete(&got) {
            let n = s.read(&mut buf).expect("response");
            assert!(n > 0, "closed while answering: {}", String::from_utf8_lossy(&got));
            got.extend_from_slice(&buf[..n]);
        }
        assert!(got.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&got));
    }
    // The server ends the idle connection (end of stream), instead of holding its slot forever.
    let mut buf = [0u8; 64];
    match s.read(&mut buf) {
        Ok(0) => {}
        Ok(n) => panic!("unexpected bytes on an idle connection: {:?}", String::from_utf8_lossy(&buf[..n])),
        Err(e) => panic!("the idle keep-alive connection was not closed: {e}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_nested_past_the_depth_limit_is_a_parse_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &[("BLINDFOLD_LIMITS__MAX_JSON_DEPTH", "8".into())]);
    let mut ws = connect(daemon.port, &daemon.adapter_token()).await;
    let deep = format!("{}1{}", "[".repeat(9), "]".repeat(9));
    let frame = format!(r#"{{"jsonrpc":"2.0","id":7,"method":"status","params":{{"x":{deep}}}}}"#);
    let r = send_raw(&mut ws, frame).await;
    assert_eq!(r["error"]["code"], -32700, "{r}");
    assert!(r["error"]["message"].as_str().is_some_and(|m| m.contains("limits.max_json_depth")), "{r}");
    let ok = call(&mut ws, "status", json!({})).await;
    assert!(ok["result"].is_object(), "the same socket still answers: {ok}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_past_the_trajectory_limit_are_denied_limit_exceeded() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &[("BLINDFOLD_LIMITS__MAX_EVENTS_PER_TRAJECTORY", "3".into())]);
    let mut ws = connect(daemon.port, &daemon.adapter_token()).await;
    let read = json!({"trajectory": "t-lim", "tool": "read_file", "args": {"path": "/a"}});
    for i in 0..3 {
        let r = call(&mut ws, "check_action", read.clone()).await;
        assert_eq!(r["result"]["allowed"], true, "event {i}: {r}");
    }
    let r = call(&mut ws, "check_action", read).await;
    assert_eq!(r["result"]["allowed"], false, "{r}");
    assert_eq!(r["result"]["decision"]["reason"], "limit_exceeded", "{r}");
    let other = json!({"trajectory": "t-other", "tool": "read_file", "args": {"path": "/a"}});
    assert_eq!(
        call(&mut ws, "check_action", other).await["result"]["allowed"],
        true,
        "other trajectories go on"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trajectories_past_the_live_limit_evict_the_least_recently_used() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(
        dir.path(),
        &[
            ("BLINDFOLD_LIMITS__MAX_EVENTS_PER_TRAJECTORY", "2".into()),
            ("BLINDFOLD_LIMITS__MAX_TRAJECTORIES", "2".into()),
        ],
    );
    let mut ws = connect(daemon.port, &daemon.adapter_token()).await;
    let read = |t: &str| json!({"trajectory": t, "tool": "read_file", "args": {"path": "/a"}});
    let allowed = |r: &serde_json::Value| r["result"]["allowed"] == true;
    for t in ["t-a", "t-a", "t-b"] {
        assert!(allowed(&call(&mut ws, "check_action", read(t)).await), "{t}");
    }
    // t-a is full: its state says so while it is live.
    let r = call(&mut ws, "check_action", read("t-a")).await;
    assert_eq!(r["result"]["decision"]["reason"], "limit_exceeded", "{r}");
    // t-a was used after t-b: a third trajectory evicts t-b, and t-b starts afresh (two events).
    assert!(allowed(&call(&mut ws, "check_action", read("t-c")).await));
    for i in 0..2 {
        assert!(allowed(&call(&mut ws, "check_action", read("t-b")).await), "t-b event {i} after eviction");
    }
    // Now t-a is the least recently used: t-d evicts it, and its full state is gone with it.
    assert!(allowed(&call(&mut ws, "check_action", read("t-d")).await));
    let r = call(&mut ws, "check_action", read("t-a")).await;
    assert!(allowed(&r), "t-a starts afresh once evicted: {r}");
}

#[test]
fn limits_out_of_range_are_refused_naming_the_field() {
    let dir = tempfile::tempdir().expect("tmp");
    for (var, field) in [
        ("BLINDFOLD_LIMITS__MAX_JSON_DEPTH", "limits.max_json_depth"),
        ("BLINDFOLD_LIMITS__MAX_CONNECTIONS", "limits.max_connections"),
        ("BLINDFOLD_LIMITS__CLIENT_TIMEOUT_S", "limits.client_timeout_s"),
        ("BLINDFOLD_LIMITS__HEADER_TIMEOUT_S", "limits.header_timeout_s"),
        ("BLINDFOLD_LIMITS__MAX_TRAJECTORIES", "limits.max_trajectories"),
        ("BLINDFOLD_LIMITS__TRAJECTORY_IDLE_S", "limits.trajectory_idle_s"),
    ] {
        let out = blindfold_integration_tests::blindfold()
            .args(["run", "--print-config"])
            .env("BLINDFOLD_STATE__DIR", dir.path())
            .env(var, "0")
            .output()
            .expect("run");
        assert_eq!(out.status.code(), Some(64), "{var}=0");
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(field),
            "{var}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn a_model_api_body_over_the_limit_gets_413_and_is_not_forwarded() {
    use blindfold_integration_tests::transports::http_post;
    let dir = tempfile::tempdir().expect("tmp");
    // The upstream port has no listener: a forwarded request would fail with a 5xx instead.
    let upstream = blindfold_integration_tests::free_port();
    let proxy = blindfold_integration_tests::free_port();
    let _daemon = Daemon::start(
        dir.path(),
        &[
            ("BLINDFOLD_MODEL_PROXY__UPSTREAM", format!("http://127.0.0.1:{upstream}")),
            ("BLINDFOLD_MODEL_PROXY__LISTEN", format!("127.0.0.1:{proxy}")),
            ("BLINDFOLD_MODEL_PROXY__MAX_BODY_BYTES", "2048".into()),
        ],
    );
    let big = json!({"model": "m", "messages": [{"role": "user", "content": "x".repeat(4096)}]}).to_string();
    let (code, _, text) =
        http_post(proxy, "/v1/chat/completions", &[("Content-Type", "application/json")], &big);
    assert_eq!(code, 413, "{text}");
    let small = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).to_string();
    let (code, _, text) =
        http_post(proxy, "/v1/chat/completions", &[("Content-Type", "application/json")], &small);
    assert!(code >= 500, "a small body is forwarded (and the dead upstream reported): {code} {text}");
}
