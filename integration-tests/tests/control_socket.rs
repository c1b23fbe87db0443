//! The control API on a Unix socket (`[server] control_socket`): the socket file is created with
//! mode 0600, the capability token is still required on it, the same JSON-RPC methods answer, a
//! stale socket left by a killed daemon is replaced, a live one is not taken over, the file is
//! removed at shutdown, and `blindfold review` reaches the daemon through it.

use blindfold_integration_tests::{Daemon, blindfold, free_port};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

type Ws = tokio_tungstenite::WebSocketStream<tokio::net::UnixStream>;

/// The WebSocket handshake over the socket at `path`, with `token` if any.
async fn connect(path: &Path, token: Option<&str>) -> Result<Ws, tungstenite::Error> {
    let mut req = "ws://localhost/v1/control".into_client_request().expect("request");
    if let Some(token) = token {
        req.headers_mut().insert("authorization", format!("Bearer {token}").parse().expect("header"));
    }
    let stream = tokio::net::UnixStream::connect(path).await.expect("the socket accepts connections");
    tokio_tungstenite::client_async(req, stream).await.map(|(ws, _)| ws)
}

async fn call(ws: &mut Ws, method: &str, params: Value) -> Value {
    let frame = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params}).to_string();
    ws.send(tungstenite::Message::Text(frame.into())).await.expect("send");
    loop {
        let msg = tokio::time::timeout(Duration::from_secs(30), ws.next()).await.expect("an answer in time");
        if let tungstenite::Message::Text(t) = msg.expect("frame").expect("ok") {
            return serde_json::from_str(&t).expect("json");
        }
    }
}

/// Waits until `path` is a socket (the daemon binds it right after its TCP listener).
fn wait_for_socket(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_socket()) {
        assert!(Instant::now() < deadline, "{} never appeared", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn socket_env(path: &Path) -> Vec<(&'static str, String)> {
    vec![("BLINDFOLD_SERVER__CONTROL_SOCKET", path.display().to_string())]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_unix_socket_is_0600_requires_the_token_and_is_removed_at_shutdown() {
    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("state");
    // A relative path lives in the state directory.
    let daemon = Daemon::start(&state, &[("BLINDFOLD_SERVER__CONTROL_SOCKET", "control.sock".into())]);
    let path = state.join("control.sock");
    wait_for_socket(&path);
    let mode = std::fs::metadata(&path).expect("socket").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "socket mode {mode:o}");

    let refused = connect(&path, None).await.expect_err("no token, no upgrade");
    assert!(refused.to_string().contains("401"), "{refused}");
    let bad = connect(&path, Some("not-a-token")).await.expect_err("a wrong token is refused");
    assert!(bad.to_string().contains("401"), "{bad}");

    let mut op = connect(&path, Some(&daemon.operator_token())).await.expect("operator upgrade");
    let status = call(&mut op, "status", json!({})).await;
    assert!(status["result"]["modes"].is_object(), "{status}");
    let mut adapter = connect(&path, Some(&daemon.adapter_token())).await.expect("adapter upgrade");
    let read = json!({"trajectory": "t-unix", "tool": "read_file", "args": {"path": "/w/a.txt"}});
    let r = call(&mut adapter, "check_action", read).await;
    assert_eq!(r["result"]["allowed"], true, "{r}");
    let r = call(&mut adapter, "set_modes", json!({"name": "off"})).await;
    assert!(r["error"].is_object(), "an adapter token keeps its scope on the socket: {r}");
    drop((op, adapter));

    assert_eq!(daemon.stop_with("TERM"), Some(0));
    assert!(std::fs::symlink_metadata(&path).is_err(), "the socket file is removed at shutdown");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_socket_is_replaced_and_a_live_one_is_not_taken_over() {
    let dir = tempfile::tempdir().expect("tmp");
    let path: PathBuf = dir.path().join("bf.sock");
    // A killed daemon leaves its socket file behind with nobody listening.
    drop(std::os::unix::net::UnixListener::bind(&path).expect("stale socket"));
    assert!(std::fs::symlink_metadata(&path).is_ok(), "the stale file exists");
    let daemon = Daemon::start(&dir.path().join("a"), &socket_env(&path));
    wait_for_socket(&path);
    let mut ws = connect(&path, Some(&daemon.operator_token())).await.expect("the replaced socket serves");
    assert!(call(&mut ws, "status", json!({})).await["result"].is_object());

    // A second daemon on the same socket path refuses to start instead of stealing it.
    let out = blindfold()
        .arg("run")
        .env("BLINDFOLD_STATE__DIR", dir.path().join("b"))
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", free_port()))
        .env("BLINDFOLD_SERVER__CONTROL_SOCKET", &path)
        .output()
        .expect("second daemon");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("server.control_socket") && stderr.contains("another process"), "{stderr}");
    assert!(call(&mut ws, "status", json!({})).await["result"].is_object(), "the first still serves");

    // A path that is a regular file is never replaced.
    let file = dir.path().join("not-a-socket");
    std::fs::write(&file, "keep me").expect("file");
    let out = blindfold()
        .arg("run")
        .env("BLINDFOLD_STATE__DIR", dir.path().join("c"))
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", free_port()))
        .env("BLINDFOLD_SERVER__CONTROL_SOCKET", &file)
        .output()
        .expect("third daemon");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a socket"));
    assert_eq!(std::fs::read_to_string(&file).expect("file"), "keep me");
}

#[test]
fn review_cli_reaches_the_daemon_over_the_unix_socket() {
    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("state");
    let path = dir.path().join("bf.sock");
    let daemon = Daemon::start(&state, &socket_env(&path));
    wait_for_socket(&path);
    // The CLI is pointed at a TCP port nobody listens on: only the socket can answer.
    let out = blindfold()
        .args(["review", "list", "--json"])
        .env("BLINDFOLD_STATE__DIR", &state)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", free_port()))
        .env("BLINDFOLD_SERVER__CONTROL_SOCKET", &path)
        .output()
        .expect("review list");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout} {}", String::from_utf8_lossy(&out.stderr));
    let listed: Value = serde_json::from_str(stdout.trim()).expect("json");
    assert!(listed["reviews"].is_array(), "{listed}");
    drop(daemon);
}

#[test]
fn a_socket_path_too_long_is_a_config_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let out = blindfold()
        .arg("run")
        .env("BLINDFOLD_STATE__DIR", dir.path())
        .env("BLINDFOLD_SERVER__CONTROL_SOCKET", format!("/tmp/{}.sock", "x".repeat(120)))
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("server.control_socket"));
}
