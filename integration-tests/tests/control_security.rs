//! Control-plane security: operator actions (mode toggles, grants submitted, revocations) are
//! written to the authority trace before they take effect; capability tokens and grant tokens
//! never reach the log, even at debug level; token files with loose permissions stop the daemon
//! with a message; `grant.forget` drops only grants that can allow nothing, and never gives a
//! use back. (Loopback-only listening, the bearer token and the Origin check are in
//! `daemon_run`; an operator action refused when it cannot be traced is in `faults`.)

use blindfold_integration_tests::control_ws::{call, connect};
use blindfold_integration_tests::transports::World;
use blindfold_integration_tests::{Daemon, blindfold, free_port, http_get};
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

/// `blindfold run` on `w`'s config with debug logging into `log`.
fn start_logged(w: &World, log: &Path, env: &[(&str, &str)]) -> Daemon {
    let port = free_port();
    let mut cmd = blindfold();
    cmd.args(["run", "--config"])
        .arg(&w.config)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{port}"))
        .env("BLINDFOLD_LOG", "trace")
        .stdout(Stdio::null())
        .stderr(std::fs::File::create(log).expect("log file"));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().expect("spawn");
    let mut daemon = Daemon { child, port, state_dir: w.state.clone() };
    let deadline = Instant::now() + Duration::from_secs(30);
    while http_get(port, "/healthz").map(|r| r.0).unwrap_or(0) != 200 {
        if let Some(status) = daemon.child.try_wait().expect("wait") {
            panic!("blindfold exited: {status}: {}", std::fs::read_to_string(log).unwrap_or_default());
        }
        assert!(Instant::now() < deadline, "no /healthz in time");
        std::thread::sleep(Duration::from_millis(50));
    }
    daemon
}

/// Every record of every trace file under `dir`.
fn trace_records(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("trace dir").filter_map(Result::ok) {
        let text = std::fs::read_to_string(entry.path()).expect("trace file");
        out.extend(text.lines().filter(|l| !l.is_empty()).map(|l| serde_json::from_str(l).expect("record")));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operator_actions_are_traced_and_no_token_reaches_the_log() {
    let w = World::new("");
    let log = w.path("daemon.log");
    let daemon = start_logged(&w, &log, &[]);
    let (operator_token, adapter_token) = (daemon.operator_token(), daemon.adapter_token());
    let mut op = connect(daemon.port, &operator_token).await;
    let mut adapter = connect(daemon.port, &adapter_token).await;

    let grant = w.issue("task-sec", "write_file", "/w/a.txt", b"hello");
    let r = call(&mut op, "submit_grant", json!({"token": grant})).await;
    assert_eq!(r["result"]["accepted"], true, "{r}");
    let jti = r["result"]["jti"].as_str().expect("jti").to_owned();
    let write = json!({"trajectory": "task-sec", "tool": "write_file", "args": {"path": "/w/a.txt", "content": "hello"}, "consume": true});
    assert_eq!(call(&mut adapter, "check_action", write).await["result"]["allowed"], true);
    let r = call(&mut op, "revoke_grant", json!({"jti": jti})).await;
    assert_eq!(r["result"]["revoked"], jti.as_str(), "{r}");
    let r = call(&mut op, "set_modes", json!({"name": "all"})).await;
    assert!(r["result"]["modes"].is_object(), "{r}");
    // A failed attempt with a bad token is logged too, without the token.
    let bad = format!("{}x", &operator_token[..operator_token.len() - 1]);
    let mut req = format!("ws://127.0.0.1:{}/v1/control", daemon.port).into_client_request().expect("req");
    req.headers_mut().insert("authorization", format!("Bearer {bad}").parse().expect("header"));
    assert!(tokio_tungstenite::connect_async(req).await.is_err(), "a wrong token is refused");
    drop((op, adapter));
    assert_eq!(daemon.stop_with("TERM"), Some(0));

    let records = trace_records(&w.state.join("traces"));
    let control: Vec<&Value> = records.iter().filter(|r| r["kind"] == "control").collect();
    let actions: Vec<&str> = control.iter().filter_map(|r| r["tool"].as_str()).collect();
    assert_eq!(actions, ["submit_grant", "revoke_grant", "set_modes"], "{control:?}");
    assert!(control.iter().all(|r| r["trajectory"] == "blindfold-control"));
    assert_eq!(control[0]["target"], jti.as_str(), "grants are named by jti");
    let verify = blindfold().args(["trace", "verify"]).arg(w.state.join("traces")).output().expect("verify");
    assert!(verify.status.success(), "the chain holds: {}", String::from_utf8_lossy(&verify.stderr));

    let logged = std::fs::read_to_string(&log).expect("log");
    assert!(logged.contains("blindfold listening"), "the log was captured: {logged}");
    let traces = records.iter().map(Value::to_string).collect::<String>();
    for (name, secret) in [
        ("operator token", &operator_token),
        ("adapter token", &adapter_token),
        ("bad token", &bad),
        ("grant", &grant),
    ] {
        let line = logged.lines().find(|l| l.contains(secret.as_str()));
        assert!(line.is_none(), "the {name} appears in the log: {}", line.unwrap_or_default());
        assert!(!traces.contains(secret.as_str()), "the {name} appears in the trace");
    }
    // The grant's signature alone (its last segment) must not leak either.
    let signature = grant.rsplit('.').next().expect("signature");
    assert!(!logged.contains(signature), "the grant signature appears in the log");
}

/// Runs `blindfold run` on `state` again: whether it exited 0, and its stderr.
fn restart(state: &Path) -> (bool, String) {
    let out = blindfold()
        .arg("run")
        .env("BLINDFOLD_STATE__DIR", state)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", free_port()))
        .output()
        .expect("run");
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

#[test]
fn token_files_with_loose_permissions_stop_the_daemon_with_a_message() {
    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("state");
    drop(Daemon::start(&state, &[]));
    let token = state.join("operator.token");
    std::fs::set_permissions(&token, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let (started, stderr) = restart(&state);
    assert!(!started, "the daemon must not start");
    assert!(stderr.contains("operator.token") && stderr.contains("chmod 600"), "{stderr}");
}

#[test]
fn key_files_with_loose_permissions_are_refused_with_a_message() {
    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("state");
    drop(Daemon::start(&state, &[]));
    // The daemon's own card-signing key, readable by others: the daemon does not start.
    let card_key = state.join("card-signing.key.pem");
    std::fs::set_permissions(&card_key, std::fs::Permissions::from_mode(0o640)).expect("chmod");
    let (started, stderr) = restart(&state);
    assert!(!started, "the daemon must not start: {stderr}");
    assert!(stderr.contains("card-signing.key.pem") && stderr.contains("chmod 600"), "{stderr}");
    std::fs::set_permissions(&card_key, std::fs::Permissions::from_mode(0o600)).expect("chmod");

    // An operator's issuer key readable by others: `review approve` refuses it before signing
    // anything or reaching the daemon.
    let key = dir.path().join("operator.key.pem");
    let made = blindfold()
        .args(["keygen", "--name", "operator", "--out-dir"])
        .arg(dir.path())
        .output()
        .expect("keygen");
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    let out = blindfold()
        .args(["review", "approve", "rv-0", "--key"])
        .arg(&key)
        .env("BLINDFOLD_STATE__DIR", &state)
        .output()
        .expect("review approve");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("operator.key.pem") && stderr.contains("chmod 600"), "{stderr}");
}

#[test]
fn capability_tokens_are_generated_at_first_start_private_and_kept() {
    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("state");
    assert!(!state.exists());
    let daemon = Daemon::start(&state, &[]);
    let (operator, adapter) = (daemon.operator_token(), daemon.adapter_token());
    for name in ["operator.token", "adapter.token"] {
        let mode = std::fs::metadata(state.join(name)).expect("token file").permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "{name} has mode {mode:o}");
    }
    assert!(operator.len() >= 32 && adapter.len() >= 32, "tokens carry enough entropy");
    assert_ne!(operator, adapter, "the two scopes have distinct tokens");
    assert_eq!(daemon.stop_with("TERM"), Some(0));
    let again = Daemon::start(&state, &[]);
    assert_eq!(again.operator_token(), operator, "the operator token is kept across restarts");
    assert_eq!(again.adapter_token(), adapter, "the adapter token is kept across restarts");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn grant_forget_drops_only_grants_that_allow_nothing_and_keeps_their_uses_spent() {
    let w = World::new("");
    let log = w.path("daemon.log");
    let daemon = start_logged(&w, &log, &[]);
    let mut op = connect(daemon.port, &daemon.operator_token()).await;
    let mut adapter = connect(daemon.port, &daemon.adapter_token()).await;
    let spent = w.issue("task-fg", "write_file", "/w/a.txt", b"one");
    let active = w.issue("task-other", "write_file", "/w/b.txt", b"two");
    let mut jtis = Vec::new();
    for token in [&spent, &active] {
        let r = call(&mut op, "submit_grant", json!({"token": token})).await;
        jtis.push(r["result"]["jti"].as_str().expect("jti").to_owned());
    }
    let write = json!({"trajectory": "task-fg", "tool": "write_file", "args": {"path": "/w/a.txt", "content": "one"}, "consume": true});
    assert_eq!(call(&mut adapter, "check_action", write.clone()).await["result"]["allowed"], true);
    // A fresh trajectory state, so the repeats below meet the grant check, not the replay guard.
    let r = call(&mut op, "end_trajectory", json!({"trajectory": "task-fg"})).await;
    assert_eq!(r["result"]["ended"], "task-fg", "{r}");

    let forget = json!({"jtis": [jtis[0], jtis[1], "no-such-grant"]});
    let r = call(&mut adapter, "grant.forget", forget.clone()).await;
    assert!(r["error"].is_object(), "operator only: {r}");
    let r = call(&mut op, "grant.forget", forget).await;
    let rows = r["result"]["grants"].as_array().expect("grants");
    let standing: Vec<(&str, bool)> =
        rows.iter().map(|g| (g["status"].as_str().unwrap_or(""), g["forgotten"] == true)).collect();
    assert_eq!(standing, [("spent", true), ("active", false), ("unknown", false)], "{r}");
    let held = call(&mut op, "grant.list", json!({})).await;
    let held: Vec<&str> =
        held["result"]["grants"].as_array().expect("list").iter().filter_map(|g| g["jti"].as_str()).collect();
    assert_eq!(held, [jtis[1].as_str()], "only the active grant is held");

    // Forgotten, the spent grant is no longer what a refusal names (the closest grant still held
    // is); submitted again, its use is still spent (forgetting never gives a use back).
    let r = call(&mut adapter, "check_action", write.clone()).await;
    assert_eq!(r["result"]["allowed"], false, "{r}");
    assert_ne!(r["result"]["decision"]["reason"], "replayed_grant", "{r}");
    let r = call(&mut op, "submit_grant", json!({"token": spent})).await;
    assert_eq!(r["result"]["accepted"], true, "{r}");
    let r = call(&mut adapter, "check_action", write).await;
    assert_eq!(r["result"]["decision"]["reason"], "replayed_grant", "{r}");
    drop((op, adapter));
    assert_eq!(daemon.stop_with("TERM"), Some(0));

    let forgotten: Vec<Value> = trace_records(&w.state.join("traces"))
        .into_iter()
        .filter(|r| r["kind"] == "control" && r["tool"] == "forget_grant")
        .collect();
    assert_eq!(forgotten.len(), 1, "{forgotten:?}");
    assert_eq!(forgotten[0]["target"], jtis[0].as_str());
}
