//! `blindfold run`: config validation, health, the authenticated control API, clean shutdown.

use blindfold_integration_tests::{Daemon, blindfold};
use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::{self, client::IntoClientRequest};

#[test]
fn bad_config_exits_64_naming_the_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let cfg = dir.path().join("bad.toml");
    std::fs::write(&cfg, "[grants]\nleeway_s = 9999\n").expect("write");
    let out = blindfold().args(["run", "--config"]).arg(&cfg).output().expect("run");
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("grants.leeway_s"));

    let out = blindfold().arg("run").env("BLINDFOLD_SERVER__LISTEN", "0.0.0.0:7700").output().expect("run");
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("server.listen"));

    let out = blindfold().arg("run").env("BLINDFOLD_SERVER__WORKERS", "100000").output().expect("run");
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("server.workers"));

    std::fs::write(&cfg, "[modes]\nbogus = true\n").expect("write");
    let out = blindfold().args(["run", "--config"]).arg(&cfg).output().expect("run");
    assert_eq!(out.status.code(), Some(64));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bogus"));
}

#[test]
fn print_config_shows_the_embedded_default() {
    let out = blindfold().args(["run", "--print-config"]).output().expect("run");
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).expect("utf8");
    let v: toml::Value = toml::from_str(&text).expect("toml");
    assert_eq!(v["server"]["listen"].as_str(), Some("127.0.0.1:7700"));
    assert_eq!(v["server"]["workers"].as_integer(), Some(1), "one runtime worker by default");
    for mode in ["anonymize", "preverify", "grants", "enforce"] {
        assert_eq!(v["modes"][mode].as_bool(), Some(true), "{mode} on by default");
    }
}

#[test]
fn server_workers_sets_the_runtime_threads() {
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    for (configured, expected) in [(None, 1), (Some("3"), 3), (Some("0"), cpus)] {
        let dir = tempfile::tempdir().expect("tempdir");
        let env: Vec<(&str, String)> =
            configured.map(|n| ("BLINDFOLD_SERVER__WORKERS", n.to_owned())).into_iter().collect();
        let daemon = Daemon::start(&dir.path().join("state"), &env);
        let (code, body) = blindfold_integration_tests::http_get(daemon.port, "/healthz").expect("get");
        assert_eq!(code, 200);
        let v: Value = serde_json::from_str(&body).expect("json");
        assert_eq!(v["workers"], expected, "workers = {configured:?}");
    }
}

#[test]
fn health_answers_and_sigterm_and_sigint_stop_cleanly() {
    for signal in ["TERM", "INT"] {
        let dir = tempfile::tempdir().expect("tempdir");
        let daemon = Daemon::start(&dir.path().join("state"), &[]);
        let (code, body) = blindfold_integration_tests::http_get(daemon.port, "/healthz").expect("get");
        assert_eq!(code, 200);
        let v: Value = serde_json::from_str(&body).expect("json");
        assert_eq!(v["status"], "ok");
        assert_eq!(v["modes"]["enforce"], true);
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&daemon.state_dir).expect("state").permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
        assert_eq!(daemon.stop_with(signal), Some(0), "SIG{signal} stops with exit 0");
    }
}

async fn connect(
    port: u16,
    token: Option<&str>,
    origin: Option<&str>,
) -> Result<
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>,
    tungstenite::Error,
> {
    let mut req = format!("ws://127.0.0.1:{port}/v1/control").into_client_request()?;
    if let Some(t) = token {
        req.headers_mut().insert("authorization", format!("Bearer {t}").parse().expect("header"));
    }
    if let Some(o) = origin {
        req.headers_mut().insert("origin", o.parse().expect("header"));
    }
    tokio_tungstenite::connect_async(req).await.map(|(ws, _)| ws)
}

async fn call<S>(ws: &mut S, id: u64, method: &str, params: Value) -> Value
where
    S: SinkExt<tungstenite::Message>
        + StreamExt<Item = Result<tungstenite::Message, tungstenite::Error>>
        + Unpin,
    <S as futures_util::Sink<tungstenite::Message>>::Error: std::fmt::Debug,
{
    let frame = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string();
    ws.send(tungstenite::Message::Text(frame.into())).await.expect("send");
    loop {
        match ws.next().await.expect("frame").expect("ok") {
            tungstenite::Message::Text(t) => return serde_json::from_str(&t).expect("json"),
            _ => continue,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_api_needs_a_token_refuses_unknown_origins_and_scopes_methods() {
    let dir = tempfile::tempdir().expect("tempdir");
    let keys = dir.path().join("keys");
    let out = blindfold()
        .args(["keygen", "--out-dir"])
        .arg(&keys)
        .args(["--name", "ops"])
        .output()
        .expect("keygen");
    assert!(out.status.success());
    let daemon = Daemon::start(
        &dir.path().join("state"),
        &[("BLINDFOLD_GRANTS__TRUSTED_KEYS", keys.join("ops.pub.pem").display().to_string())],
    );
    let port = daemon.port;

    let no_token = connect(port, None, None).await.expect_err("no token");
    assert!(no_token.to_string().contains("401"), "{no_token}");
    let bad_token = connect(port, Some("nope"), None).await.expect_err("bad token");
    assert!(bad_token.to_string().contains("401"), "{bad_token}");
    let evil = connect(port, Some(&daemon.operator_token()), Some("https://evil.example"))
        .await
        .expect_err("origin");
    assert!(evil.to_string().contains("403"), "{evil}");

    // Issue a grant on the trusted path (CLI), submit it as operator, dry-run check it as adapter.
    let artifact = dir.path().join("a.txt");
    std::fs::write(&artifact, "hello").expect("write");
    let out = blindfold()
        .args(["grant", "issue", "--key"])
        .arg(keys.join("ops.key.pem"))
        .args(["--task", "t1", "--op", "write_file", "--target", "/w/a.txt", "--artifact"])
        .arg(&artifact)
        .args(["--ttl", "300"])
        .output()
        .expect("issue");
    let token = String::from_utf8(out.stdout).expect("utf8").trim().to_owned();

    let mut adapter = connect(port, Some(&daemon.adapter_token()), None).await.expect("adapter");
    let r = call(&mut adapter, 1, "submit_grant", json!({"token": token})).await;
    assert_eq!(r["error"]["code"], -32003, "adapters cannot submit grants: {r}");

    let mut operator = connect(port, Some(&daemon.operator_token()), None).await.expect("operator");
    let r = call(&mut operator, 2, "submit_grant", json!({"token": token})).await;
    assert_eq!(r["result"]["accepted"], true, "{r}");

    let proposal = json!({"task_id": "t1", "operation": "write_file", "target": "/w/a.txt"});
    for id in 3..6 {
        let r =
            call(&mut adapter, id, "check_grant", json!({"proposal": proposal, "artifact": "hello"})).await;
        assert_eq!(r["result"]["reason"], "allowed", "dry runs do not consume: {r}");
    }
    let r = call(&mut adapter, 6, "check_grant", json!({"proposal": proposal, "artifact": "hellO"})).await;
    assert_eq!(r["result"]["reason"], "artifact_changed", "{r}");

    // Bad frames get JSON-RPC errors, and the socket stays usable.
    adapter
        .send(tungstenite::Message::Text(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"status"}"#.into()))
        .await
        .expect("send");
    let reply = adapter.next().await.expect("frame").expect("ok");
    let v: Value = serde_json::from_str(reply.to_text().expect("text")).expect("json");
    assert_eq!(v["error"]["code"], -32700, "duplicate keys are a parse error: {v}");
    let r = call(&mut adapter, 7, "no_such_method", json!({})).await;
    assert_eq!(r["error"]["code"], -32601);

    let r = call(&mut operator, 8, "revoke_grant", json!({"jti": "whatever"})).await;
    assert_eq!(r["result"]["revoked"], "whatever");
    drop(daemon);
}
