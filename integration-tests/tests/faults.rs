//! Faults around the daemon: an MCP upstream that refuses, hangs or answers garbage; a trace that
//! can no longer be written (disk full: `/dev/full`); a trace directory that cannot be created;
//! a corrupted grant store or trace at start. Effectful actions are denied with a reason, reads
//! fail cleanly, the daemon stays up — or, when its durable state is unusable, it refuses to
//! start with a message instead of running without it. (An upstream dying mid-stream is in
//! `mcp_http` and `a2a_proxy`.)

use blindfold_integration_tests::control_ws::{call, connect};
use blindfold_integration_tests::transports::{World, http_post};
use blindfold_integration_tests::{Daemon, blindfold, free_port, http_get};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpListener;
use std::time::Duration;

/// How the scripted upstream misbehaves on every connection.
#[derive(Clone, Copy)]
enum Misbehave {
    /// Reads the request, never answers.
    Hang,
    /// Answers 200 `application/json` with bytes that are not JSON.
    Garbage,
    /// Answers bytes that are not HTTP, then closes.
    NotHttp,
}

/// A loopback upstream that misbehaves; returns its port. Connections are served by a thread
/// that lives as long as the test process.
fn bad_upstream(how: Misbehave) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    std::thread::spawn(move || {
        for mut conn in listener.incoming().filter_map(Result::ok) {
            std::thread::spawn(move || {
                let _ = conn.set_read_timeout(Some(Duration::from_secs(1)));
                let mut buf = [0u8; 65536];
                let _ = conn.read(&mut buf);
                match how {
                    Misbehave::Hang => std::thread::sleep(Duration::from_secs(60)),
                    Misbehave::Garbage => {
                        let body = "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"te";
                        let _ = write!(
                            conn,
                            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                            body.len()
                        );
                    }
                    Misbehave::NotHttp => {
                        let _ = conn.write_all(b"\x00\x01garbage that is not HTTP\r\n\r\n");
                    }
                }
            });
        }
    });
    port
}

fn mcp_daemon(w: &World, upstream_port: u16) -> Daemon {
    Daemon::start(
        &w.state,
        &[
            ("BLINDFOLD_GRANTS__TRUSTED_KEYS", w.path("keys/issuer.pub.pem").display().to_string()),
            ("BLINDFOLD_MCP_HTTP__UPSTREAM", format!("http://127.0.0.1:{upstream_port}/mcp")),
            ("BLINDFOLD_MCP_HTTP__TASK", "task-faults".to_owned()),
            ("BLINDFOLD_MCP__TRUSTED", "true".to_owned()),
            ("BLINDFOLD_TRANSPORTS__UPSTREAM_TIMEOUT_S", "2".to_owned()),
        ],
    )
}

/// Posts one MCP tool call; returns the JSON-RPC answer (from a JSON body or an SSE stream).
fn tool_call(port: u16, id: u32, tool: &str, args: Value) -> (u16, Value) {
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": args}});
    let headers = [
        ("Accept", "application/json, text/event-stream"),
        ("Content-Type", "application/json"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    let (code, _, text) = http_post(port, "/mcp", &headers, &body.to_string());
    let answer = serde_json::from_str(&text).ok().or_else(|| {
        text.lines()
            .filter_map(|l| l.trim().strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str::<Value>(d.trim()).ok())
            .find(|v| v["id"] == id)
    });
    (code, answer.unwrap_or_else(|| panic!("no JSON-RPC answer for {id}: {code} {text}")))
}

fn assert_clean_error(answer: &Value, what: &str) {
    assert!(answer["error"]["code"].is_i64(), "{what}: a JSON-RPC error, got {answer}");
    assert!(answer.get("result").is_none(), "{what}: no partial result: {answer}");
}

#[test]
fn an_upstream_that_refuses_hangs_or_answers_garbage_gives_clean_errors() {
    let refused = free_port(); // nothing listens there
    for (name, port) in [
        ("refused", refused),
        ("hang", bad_upstream(Misbehave::Hang)),
        ("garbage", bad_upstream(Misbehave::Garbage)),
        ("not http", bad_upstream(Misbehave::NotHttp)),
    ] {
        let w = World::new("");
        let d = mcp_daemon(&w, port);
        let (_, read) = tool_call(d.port, 1, "read_file", json!({"path": "/w/notes.md"}));
        assert_clean_error(&read, name);
        // An effectful call without a grant never reaches the upstream: denied with its reason.
        let (_, write) = tool_call(d.port, 2, "write_file", json!({"path": "/w/x", "content": "x"}));
        let text = write.to_string();
        assert!(text.contains("no_grant"), "{name}: effectful call denied with a reason: {text}");
        // With a grant it is forwarded once; the failed upstream turns into an error, not a result.
        let token = w.issue("task-faults", "write_file", "/w/x", b"x");
        let dir = w.state.join("grants");
        std::fs::create_dir_all(&dir).expect("grants dir");
        std::fs::write(dir.join("g.jwt"), token).expect("grant");
        let (_, granted) = tool_call(d.port, 3, "write_file", json!({"path": "/w/x", "content": "x"}));
        assert!(
            granted.get("result").is_none() || granted.to_string().contains("no_grant"),
            "{name}: {granted}"
        );
        assert_eq!(http_get(d.port, "/healthz").expect("health").0, 200, "{name}: the daemon stays up");
    }
}

/// Points every trace file the writer may rotate into next at `/dev/full`: from then on every
/// write fails with ENOSPC (disk full), without touching the real disk.
fn fill_disk(traces: &std::path::Path) {
    let mut last = 0u64;
    for entry in std::fs::read_dir(traces).expect("traces").filter_map(Result::ok) {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(seq) = name.strip_prefix("trace-").and_then(|s| s.strip_suffix(".jsonl")) {
            last = last.max(seq.parse().expect("seq"));
        }
    }
    for seq in last + 1..last + 4000 {
        let path = traces.join(format!("trace-{seq:020}.jsonl"));
        std::os::unix::fs::symlink("/dev/full", path).expect("symlink");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_trace_disk_denies_effectful_actions_and_operator_changes_reads_go_on() {
    let dir = tempfile::tempdir().expect("tmp");
    let daemon = Daemon::start(dir.path(), &[("BLINDFOLD_TRACE__MAX_FILE_BYTES", (64 * 1024).to_string())]);
    let mut ws = connect(daemon.port, &daemon.adapter_token()).await;
    let mut op = connect(daemon.port, &daemon.operator_token()).await;
    let write =
        json!({"trajectory": "t-full", "tool": "write_file", "args": {"path": "/w/a", "content": "x"}});
    let r = call(&mut ws, "check_action", write.clone()).await;
    assert_eq!(r["result"]["decision"]["reason"], "no_grant", "{r}");
    fill_disk(&dir.path().join("traces"));
    // Records go on into the current file until it rotates into the full disk.
    let mut denied = None;
    for _ in 0..3000 {
        let r = call(&mut ws, "check_action", write.clone()).await;
        assert_eq!(r["result"]["allowed"], false, "{r}");
        if r["result"]["decision"]["reason"] == "internal_error" {
            denied = Some(r);
            break;
        }
    }
    let denied = denied.expect("the full disk was reached");
    let detail = denied["result"]["decision"]["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("trace") || detail.contains("space"), "the reason names the trace: {denied}");
    let again = call(&mut ws, "check_action", write).await;
    assert_eq!(again["result"]["decision"]["reason"], "internal_error", "still denied: {again}");
    let read = json!({"trajectory": "t-full", "tool": "read_file", "args": {"path": "/w/a"}});
    assert_eq!(call(&mut ws, "check_action", read).await["result"]["allowed"], true, "reads go on");
    let modes = call(&mut op, "set_modes", json!({"name": "off"})).await;
    assert!(modes["error"]["message"].as_str().is_some_and(|m| m.contains("trace")), "{modes}");
    let status = call(&mut op, "status", json!({})).await;
    assert_eq!(status["result"]["modes"]["grants"], true, "an unrecorded mode change did not happen");
    // Review answers are operator changes too: refused before the queue is touched.
    for (method, params) in [
        ("review.approve", json!({"id": "rv-any", "token": "a.b.c"})),
        ("review.reject", json!({"id": "rv-any"})),
    ] {
        let answer = call(&mut op, method, params).await;
        assert!(
            answer["error"]["message"].as_str().is_some_and(|m| m.contains("trace")),
            "{method}: {answer}"
        );
    }
    assert_eq!(http_get(daemon.port, "/healthz").expect("health").0, 200, "the daemon stays up");
}

fn start_fails(state: &std::path::Path, env: &[(&str, String)]) -> String {
    let mut cmd = blindfold();
    cmd.arg("run")
        .env("BLINDFOLD_STATE__DIR", state)
        .env("BLINDFOLD_SERVER__LISTEN", format!("127.0.0.1:{}", free_port()));
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("run");
    assert!(!out.status.success(), "the daemon must refuse to start");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn an_unwritable_trace_directory_stops_the_start_with_a_message() {
    let dir = tempfile::tempdir().expect("tmp");
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"x").expect("file");
    let stderr = start_fails(
        &dir.path().join("state"),
        &[("BLINDFOLD_TRACE__DIR", file.join("traces").display().to_string())],
    );
    assert!(stderr.contains("trace.dir"), "{stderr}");
}

#[test]
fn a_corrupted_grant_store_or_trace_stops_the_start_with_a_message() {
    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("state");
    drop(Daemon::start(&state, &[]));
    let store = state.join("grants.redb");
    let mut bytes = std::fs::read(&store).expect("store");
    for b in bytes.iter_mut().take(4096) {
        *b ^= 0x5a;
    }
    std::fs::write(&store, &bytes).expect("corrupt");
    let stderr = start_fails(&state, &[]);
    assert!(stderr.contains("blindfold:"), "a message, not a crash: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    let dir = tempfile::tempdir().expect("tmp");
    let state = dir.path().join("state");
    drop(Daemon::start(&state, &[]));
    let traces = state.join("traces");
    let file = std::fs::read_dir(&traces)
        .expect("traces")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"));
    let file = file.unwrap_or_else(|| traces.join("trace-00000000000000000001.jsonl"));
    let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&file).expect("trace file");
    f.write_all(b"{\"v\":1,\"seq\":1,\"kind\":\"tool_call\",\"prev\":\"00\"}\n{not a record}\n")
        .expect("damage");
    let stderr = start_fails(&state, &[]);
    assert!(stderr.contains("trace"), "{stderr}");
}
