//! Listener hygiene on every HTTP listener of `blindfold run` — the main listener, the control
//! API's Unix socket and the model-API proxy — in `off` too: a request naming another host
//! (DNS rebinding) or coming from a foreign browser origin is refused 403 while the same
//! request with a loopback `Host` is served; two `Origin` headers are refused even when the
//! first is allowed; a body that is not JSON is refused 415 and never forwarded; CORS
//! preflights are answered; a flood of connections that never finish their headers (four times
//! `[limits] max_connections`) does not stop `/healthz` from answering; every state file is 0600.

use blindfold_integration_tests::transports::{World, run_daemon};
use blindfold_integration_tests::{Daemon, free_port};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::UnixStream;
use std::path::Path;
use std::time::{Duration, Instant};

const OFF: [(&str, &str); 5] = [
    ("BLINDFOLD_MODES__ANONYMIZE", "false"),
    ("BLINDFOLD_MODES__ATTEST", "false"),
    ("BLINDFOLD_MODES__PREVERIFY", "false"),
    ("BLINDFOLD_MODES__GRANTS", "false"),
    ("BLINDFOLD_MODES__ENFORCE", "false"),
];

/// Sends `head` (request line and headers, without the blank line) and `body`; returns the
/// status and the whole answer.
fn exchange<S: Read + Write>(mut s: S, head: &str, body: &str) -> (u16, String) {
    write!(s, "{head}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).expect("send");
    let mut raw = Vec::new();
    let _ = s.read_to_end(&mut raw);
    let text = String::from_utf8_lossy(&raw).into_owned();
    (text.split(' ').nth(1).and_then(|c| c.parse().ok()).unwrap_or(0), text)
}

fn tcp(port: u16) -> TcpStream {
    let s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
    s
}

fn on_tcp(port: u16, head: &str, body: &str) -> (u16, String) {
    exchange(tcp(port), head, body)
}

fn wait_listening(port: u16) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn off_with(extra: &[(&'static str, String)]) -> Vec<(&'static str, String)> {
    OFF.iter().map(|(k, v)| (*k, (*v).to_owned())).chain(extra.iter().cloned()).collect()
}

#[test]
fn dns_rebinding_is_refused_on_every_listener_while_loopback_is_served() {
    let dir = tempfile::tempdir().expect("tmp");
    let (model_upstream, model_proxy) = (free_port(), free_port());
    let env = off_with(&[
        ("BLINDFOLD_SERVER__CONTROL_SOCKET", "control.sock".into()),
        ("BLINDFOLD_MODEL_PROXY__UPSTREAM", format!("http://127.0.0.1:{model_upstream}")),
        ("BLINDFOLD_MODEL_PROXY__LISTEN", format!("127.0.0.1:{model_proxy}")),
        ("BLINDFOLD_SERVER__ALLOWED_HOSTS", "blindfold.internal".into()),
    ]);
    let daemon = Daemon::start(dir.path(), &env);
    wait_listening(model_proxy);
    let socket = dir.path().join("control.sock");
    let unix = || {
        let s = UnixStream::connect(&socket).expect("unix connect");
        s.set_read_timeout(Some(Duration::from_secs(20))).expect("timeout");
        s
    };
    let evil = "Host: evil.example.com\r\nOrigin: http://evil.example.com";
    let port = daemon.port;
    // The main listener and the Unix socket: /healthz.
    for (name, run) in [
        ("tcp", Box::new(|h: &str| on_tcp(port, h, "")) as Box<dyn Fn(&str) -> (u16, String)>),
        ("unix", Box::new(|h: &str| exchange(unix(), h, ""))),
    ] {
        let (code, text) = run(&format!("GET /healthz HTTP/1.1\r\n{evil}"));
        assert_eq!(code, 403, "{name}: {text}");
        assert!(text.contains("evil.example.com") && text.contains("allowed_hosts"), "{name}: {text}");
        for host in
            [format!("127.0.0.1:{port}"), "localhost".into(), "[::1]".into(), "blindfold.internal".into()]
        {
            let (code, text) =
                run(&format!("GET /healthz HTTP/1.1\r\nHost: {host}\r\nOrigin: http://localhost:6274"));
            assert_eq!(code, 200, "{name} {host}: {text}");
        }
        let (code, text) = run("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example.com");
        assert_eq!(code, 403, "{name}: a foreign origin on a loopback host: {text}");
    }
    // The model-API proxy: refused before anything is read or forwarded; a loopback request
    // reaches the proxy (whose upstream is down: an answer of the proxy's own, not 403).
    let body = r#"{"model":"m","messages":[]}"#;
    let post = "POST /v1/chat/completions HTTP/1.1\r\nContent-Type: application/json";
    let (code, text) = on_tcp(model_proxy, &format!("{post}\r\n{evil}"), body);
    assert_eq!(code, 403, "{text}");
    let (code, text) = on_tcp(model_proxy, &format!("{post}\r\nHost: localhost:{model_proxy}"), body);
    assert!(code != 403 && code != 0 && !text.contains("allowed_hosts"), "served: {text}");
}

#[test]
fn two_origin_headers_are_refused_even_when_the_first_is_allowed() {
    let dir = tempfile::tempdir().expect("tmp");
    let env = off_with(&[("BLINDFOLD_SERVER__ALLOWED_ORIGINS", "https://console.example".into())]);
    let daemon = Daemon::start(dir.path(), &env);
    let token = daemon.operator_token();
    let upgrade = |origins: &str| {
        on_tcp(
            daemon.port,
            &format!(
                "GET /v1/control HTTP/1.1\r\nHost: 127.0.0.1\r\n{origins}Authorization: Bearer {token}\r\n\
                 Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\
                 Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ=="
            ),
            "",
        )
    };
    let (code, text) = upgrade("Origin: https://console.example\r\n");
    assert_eq!(code, 101, "the configured origin opens the control API: {text}");
    let (code, text) = upgrade("Origin: https://console.example\r\nOrigin: https://console.example\r\n");
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("more than one Origin"), "{text}");
    let (code, text) = upgrade("Origin: https://console.example\r\nOrigin: http://evil.example.com\r\n");
    assert_eq!(code, 400, "{text}");
    // A loopback origin passes the listener but opens the control API only when configured.
    let (code, text) = upgrade("Origin: http://localhost:3000\r\n");
    assert_eq!(code, 403, "{text}");
}

#[test]
fn a_body_that_is_not_json_is_refused_415_and_never_forwarded() {
    // Both upstreams are ports where nothing listens: a forwarded request would answer 502.
    let (mcp, agent) = (free_port(), free_port());
    let w = World::new(&format!(
        "[modes]\nanonymize = false\nattest = false\npreverify = false\ngrants = false\nenforce = false\n\n\
         [mcp_http]\nupstream = \"http://127.0.0.1:{mcp}/mcp\"\n\n\
         [[a2a.upstreams]]\nid = \"a\"\nurl = \"http://127.0.0.1:{agent}\"\n"
    ));
    let (_daemon, port) = run_daemon(&w, "");
    let rpc = r#"{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":{}}"#;
    for path in ["/mcp", "/a2a/a", "/a2a/agent-a"] {
        for ct in ["text/plain", "application/x-www-form-urlencoded"] {
            let head = format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: {ct}");
            let (code, text) = on_tcp(port, &head, rpc);
            assert_eq!(code, 415, "{path} {ct}: {text}");
            assert!(text.contains("application/json") && text.contains("\"jsonrpc\""), "{text}");
        }
        let (code, text) = on_tcp(port, &format!("POST {path} HTTP/1.1\r\nHost: 127.0.0.1"), rpc);
        assert_eq!(code, 415, "{path} without a Content-Type: {text}");
    }
    let head = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream";
    let (code, text) = on_tcp(port, head, rpc);
    assert_eq!(code, 502, "a JSON body reaches the proxy (and its dead upstream): {text}");
}

#[test]
fn cors_preflights_are_answered_for_allowed_origins() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &off_with(&[]));
    let head = "OPTIONS /healthz HTTP/1.1\r\nHost: localhost\r\nOrigin: http://localhost:6274\r\n\
                Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type, mcp-session-id";
    let (code, text) = on_tcp(daemon.port, head, "");
    assert_eq!(code, 204, "{text}");
    let lower = text.to_ascii_lowercase();
    assert!(lower.contains("access-control-allow-origin: http://localhost:6274"), "{text}");
    assert!(lower.contains("access-control-allow-headers: content-type, mcp-session-id"), "{text}");
    let (code, text) =
        on_tcp(daemon.port, "GET /healthz HTTP/1.1\r\nHost: localhost\r\nOrigin: http://127.0.0.1:5173", "");
    assert_eq!(code, 200, "{text}");
    assert!(
        text.to_ascii_lowercase().contains("access-control-allow-origin: http://127.0.0.1:5173"),
        "{text}"
    );
}

#[test]
fn a_slow_header_flood_of_four_times_the_connection_limit_leaves_healthz_answering() {
    let dir = tempfile::tempdir().expect("tmp");
    let max = 16;
    let daemon =
        Daemon::start(dir.path(), &off_with(&[("BLINDFOLD_LIMITS__MAX_CONNECTIONS", max.to_string())]));
    let mut flood: Vec<TcpStream> = Vec::new();
    let slow = |flood: &mut Vec<TcpStream>, n: usize| {
        for _ in 0..n {
            let mut s = TcpStream::connect(("127.0.0.1", daemon.port)).expect("connect");
            // Headers begun, never finished.
            let _ = s.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
            flood.push(s);
        }
    };
    slow(&mut flood, 4 * max);
    std::thread::sleep(Duration::from_millis(300));
    for round in 0..20 {
        let (code, text) = on_tcp(daemon.port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1", "");
        assert_eq!(code, 200, "round {round}, {} slow connections opened: {text}", flood.len());
        slow(&mut flood, max / 4);
    }
    // The flood's older connections were closed to make room, told why.
    let mut evicted = 0;
    for s in flood.iter_mut().take(max) {
        s.set_read_timeout(Some(Duration::from_secs(5))).expect("timeout");
        let mut raw = Vec::new();
        let _ = s.read_to_end(&mut raw);
        if String::from_utf8_lossy(&raw).contains("limits.max_connections") {
            evicted += 1;
        }
    }
    assert!(evicted > 0, "no flood connection was told it was closed for a newer one");
}

#[test]
fn every_state_file_is_0600_and_every_state_folder_0700() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &[]);
    assert_eq!(blindfold_integration_tests::http_get(daemon.port, "/healthz").expect("health").0, 200);
    assert!(dir.path().join("grants").is_dir(), "grants/ is created with the state dir");
    let mut seen = Vec::new();
    check_modes(dir.path(), &mut seen);
    for name in ["grants.redb", "reviews.redb", "operator.token", "adapter.token", "card-signing.pub.pem"] {
        assert!(seen.iter().any(|p| p.ends_with(name)), "{name} not found in {seen:?}");
    }
}

fn check_modes(dir: &Path, seen: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).expect("read_dir").flatten() {
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).expect("metadata");
        let mode = meta.permissions().mode() & 0o777;
        if meta.is_dir() {
            assert_eq!(mode, 0o700, "{} is {mode:o}", path.display());
            check_modes(&path, seen);
        } else {
            assert_eq!(mode, 0o600, "{} is {mode:o}", path.display());
            seen.push(path.display().to_string());
        }
    }
}
