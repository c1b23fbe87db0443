//! The MCP Streamable HTTP reverse proxy (`blindfold run` with `[mcp_http]`): the official
//! Python `mcp` SDK on both ends, JSON and SSE answers, both eras; header/body consistency; an
//! upstream dying mid-stream; upstream HTTP errors (their `error.data` too) scrubbed or replaced;
//! SSE event fields scrubbed, with resumption from a scrubbed event id still working.

use blindfold_integration_tests::transports::{
    World, http_post, mcp_client, python_peer, run_daemon, wait_port,
};
use blindfold_integration_tests::{Daemon, free_port};
use blindfold_leak_oracle::leaks as oracle_leaks;
use serde_json::{Value, json};
use std::time::Duration;

fn reason(r: &Value) -> &str {
    r["meta"]["blindfold/decision"]["decision"]["reason"].as_str().unwrap_or("")
}

fn daemon(w: &World, upstream: &str, task: &str) -> Daemon {
    daemon_allowing(w, upstream, task, "read_note,write_file")
}

/// [`daemon`] with the stage's tool allowlist `tools` (comma-separated).
fn daemon_allowing(w: &World, upstream: &str, task: &str, tools: &str) -> Daemon {
    Daemon::start(
        &w.state,
        &[
            ("BLINDFOLD_GRANTS__TRUSTED_KEYS", w.path("keys/issuer.pub.pem").display().to_string()),
            ("BLINDFOLD_MCP_HTTP__UPSTREAM", upstream.to_owned()),
            ("BLINDFOLD_MCP_HTTP__TASK", task.to_owned()),
            ("BLINDFOLD_MCP__TRUSTED", "true".to_owned()),
            ("BLINDFOLD_MCP__ALLOW_TOOLS", tools.to_owned()),
            ("BLINDFOLD_TRANSPORTS__UPSTREAM_TIMEOUT_S", "10".to_owned()),
        ],
    )
}

fn grant_drop(w: &World, name: &str, token: &str) -> Value {
    let staged = w.path(&format!("{name}.jwt"));
    std::fs::write(&staged, token).expect("stage grant");
    json!({"drop": [staged, w.state.join("grants").join(format!("{name}.jwt"))]})
}

#[test]
fn python_sdk_both_ends_json_and_sse_both_eras() {
    for (i, (flavour, mode)) in
        [("sse", "legacy"), ("json", "2026-07-28"), ("sse", "2026-07-28")].into_iter().enumerate()
    {
        let w = World::new("");
        let notes = w.path("notes.txt");
        std::fs::write(&notes, "hello notes\n").expect("write");
        let port = free_port();
        let mut args = vec!["--http".to_owned(), port.to_string()];
        if flavour == "json" {
            args.push("--json".into());
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let _server = python_peer("mcp_server.py", &args);
        wait_port(port, Duration::from_secs(60));
        let task = format!("task-http-{i}");
        let d = daemon(&w, &format!("http://127.0.0.1:{port}/mcp"), &task);
        let out = w.path(&format!("out-{i}.txt"));
        let out_s = out.to_str().expect("utf8");
        let write = json!({"call": "write_file", "args": {"path": out_s, "content": "approved"}});
        let ops = json!([
            {"list": true},
            {"call": "read_note", "args": {"path": notes}},
            write,
            grant_drop(&w, &format!("other-{i}"), &w.issue(&task, "write_file", out_s, b"not approved")),
            write,
            grant_drop(&w, &format!("exact-{i}"), &w.issue(&task, "write_file", out_s, b"approved")),
            write,
        ]);
        let url = format!("http://127.0.0.1:{}/mcp", d.port);
        let r = mcp_client(&ops, mode, &["--url", &url]);
        let res = |k: usize| &r["results"][k];
        let ctx = format!("{flavour}/{mode}: {r}");
        let want_version = if mode == "legacy" { "2025-11-25" } else { "2026-07-28" };
        assert_eq!(r["protocol_version"], want_version, "{ctx}");
        assert_eq!(r["tools"], json!(["read_note", "write_file"]), "{ctx}");
        assert_eq!(res(1)["text"], "hello notes\n", "{ctx}");
        assert_eq!(reason(res(2)), "no_grant", "{ctx}");
        assert_eq!(reason(res(4)), "artifact_changed", "{ctx}");
        assert_eq!(res(6)["isError"], false, "{ctx}");
        assert_eq!(std::fs::read_to_string(&out).expect("written"), "approved");
        if !r["server_info"].is_null() {
            assert_eq!(r["server_info"]["name"], "mcp-server", "{ctx}");
        }
        let leaks = oracle_leaks(r.to_string().as_bytes(), &["m-large-2", "ExampleCorp", "frontier"]);
        assert_eq!(leaks, 0, "identity reached the client: {ctx}");
    }
}

#[test]
fn mismatched_headers_are_refused_and_a_dying_upstream_gives_an_error() {
    let w = World::new("");
    let port = free_port();
    let _upstream = python_peer("dying_upstream.py", &[&port.to_string()]);
    wait_port(port, Duration::from_secs(30));
    let d = daemon(&w, &format!("http://127.0.0.1:{port}/mcp"), "task-dying");
    let accept = ("Accept", "application/json, text/event-stream");
    let ctype = ("Content-Type", "application/json");

    let body =
        r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_note","arguments":{}}}"#;
    let (code, _, text) = http_post(d.port, "/mcp", &[accept, ctype, ("Mcp-Method", "tools/list")], body);
    assert_eq!(code, 400, "{text}");
    let v: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(v["error"]["code"], -32020, "{v}");
    assert_eq!(v["id"], 3);

    let (code, _, text) =
        http_post(d.port, "/mcp", &[accept, ctype], r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#);
    assert_eq!(code, 400, "{text}");
    assert!(text.contains("-32700"), "{text}");

    let ping = r#"{"jsonrpc":"2.0","id":"p1","method":"ping"}"#;
    let (code, head, text) = http_post(d.port, "/mcp", &[accept, ctype, ("Mcp-Method", "ping")], ping);
    assert_eq!(code, 200, "{head}\n{text}");
    assert!(head.to_ascii_lowercase().contains("text/event-stream"), "{head}");
    let error_event = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .find(|v| v["id"] == "p1")
        .unwrap_or_else(|| panic!("no answer for p1 in {text}"));
    assert_eq!(error_event["error"]["code"], -32603, "{error_event}");
    assert!(!text.contains("m-large-2"), "the priming event's fields are scrubbed: {text}");
    assert!(text.contains("event: server-event\n"), "its event name is a neutral one: {text}");
    assert!(!text.contains("retry:"), "a retry that is not milliseconds is dropped: {text}");
}

/// Event ids naming the server (the first before it introduces itself) reach the client as
/// opaque ids of Blindfold's (seen raw on the wire), and a client resuming from one (the official Python SDK, after the server closed the
/// call's stream) gets its answer: the server was asked to replay after its own id.
#[test]
fn stream_event_ids_naming_the_server_are_opaque_and_resumption_works() {
    let w = World::new("");
    let port = free_port();
    let replays = w.path("replays.log");
    let _server = python_peer(
        "mcp_server.py",
        &["--http", &port.to_string(), "--resumable", replays.to_str().expect("utf8")],
    );
    wait_port(port, Duration::from_secs(60));
    let d =
        daemon_allowing(&w, &format!("http://127.0.0.1:{port}/mcp"), "task-resume", "answer_after_reconnect");
    let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let accept = ("Accept", "application/json, text/event-stream");
    let (code, head, text) = http_post(d.port, "/mcp", &[accept, ("Content-Type", "application/json")], init);
    assert_eq!(code, 200, "{head}\n{text}");
    let ids: Vec<&str> = text.lines().filter_map(|l| l.strip_prefix("id: ")).collect();
    assert!(!ids.is_empty(), "the server's events carry ids: {text}");
    assert!(ids.iter().all(|id| id.starts_with("bf-")), "opaque ids: {text}");
    assert!(!text.contains("m-large-2"), "identity reached the client: {text}");

    let ops = json!([{"list": true}, {"call": "answer_after_reconnect", "args": {}}]);
    let url = format!("http://127.0.0.1:{}/mcp", d.port);
    let r = mcp_client(&ops, "legacy", &["--url", &url]);
    assert_eq!(r["results"][1]["text"], "answered after the client resumed", "{r}");
    let asked = std::fs::read_to_string(&replays).expect("the client resumed");
    assert!(
        asked.lines().any(|id| id.starts_with("m-large-2/")),
        "the server was asked to replay after its own id: {asked}"
    );
    let leaks = oracle_leaks(r.to_string().as_bytes(), &["m-large-2", "ExampleCorp", "frontier"]);
    assert_eq!(leaks, 0, "identity reached the client: {r}");
}

#[test]
fn an_upstream_error_answer_is_scrubbed_or_replaced_never_relayed_raw() {
    let w = World::new(
        "[[identity.agents]]\nid = \"notes\"\nmodel = \"m-large-2\"\nprovider = \"ExampleCorp\"\n",
    );
    let port = free_port();
    let _upstream = python_peer("failing_upstream.py", &[&port.to_string()]);
    wait_port(port, Duration::from_secs(30));
    let upstream =
        format!("[mcp_http]\nupstream = \"http://127.0.0.1:{port}/mcp\"\ntask = \"task-failing\"\n");
    let (daemon, d_port) = run_daemon(&w, &upstream);
    let headers = [("Accept", "application/json, text/event-stream"), ("Content-Type", "application/json")];
    let identity = ["m-large-2", "ExampleCorp"];

    // HTTP 500 with a JSON-RPC error naming the model in its message and its data: scrubbed
    // like any answer, status kept.
    let (code, head, text) =
        http_post(d_port, "/mcp", &headers, r#"{"jsonrpc":"2.0","id":7,"method":"tools/list"}"#);
    assert_eq!(code, 500, "{head}\n{text}");
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!((v["id"].clone(), v["error"]["code"].clone()), (json!(7), json!(-32603)), "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| m.contains("overloaded")), "{v}");
    let data = &v["error"]["data"];
    assert!(data["detail"].as_str().is_some_and(|d| d.contains("rate limit")), "{v}");
    assert_eq!(data["retryAfter"], 30, "{v}");
    assert!(data.get("model").is_none() && data["upstream"].get("provider").is_none(), "{v}");
    assert_eq!(
        oracle_leaks(text.as_bytes(), &identity),
        0,
        "identity in a 500 answer reached the client: {text}"
    );

    // HTTP 502 with an HTML page: replaced by a JSON-RPC error for the request, status kept.
    let (code, head, text) =
        http_post(d_port, "/mcp", &headers, r#"{"jsonrpc":"2.0","id":"p2","method":"ping"}"#);
    assert_eq!(code, 502, "{head}\n{text}");
    assert!(head.to_ascii_lowercase().contains("content-type: application/json"), "{head}");
    let v: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    assert_eq!(v["id"], "p2", "{v}");
    assert!(v["error"]["message"].as_str().is_some_and(|m| m.contains("HTTP 502")), "{v}");
    assert_eq!(
        oracle_leaks(text.as_bytes(), &identity),
        0,
        "an upstream error page reached the client: {text}"
    );
    drop(daemon);

    // Modes `off`: the page passes as the upstream sent it.
    let off = "[modes]\nanonymize = false\npreverify = false\ngrants = false\nenforce = false\n";
    let (_daemon, d_port) = run_daemon(&w, &format!("{upstream}\n{off}"));
    let (code, _, text) =
        http_post(d_port, "/mcp", &headers, r#"{"jsonrpc":"2.0","id":"p3","method":"ping"}"#);
    assert_eq!(code, 502, "{text}");
    assert!(text.contains("<h1>502 Bad Gateway</h1>"), "{text}");
}
