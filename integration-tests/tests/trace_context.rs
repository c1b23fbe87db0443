//! W3C `traceparent` carried to MCP servers (SPEC §8): a forwarded `tools/call` carries the
//! trajectory's trace context — the trace and span id of the trajectory's OTLP span — in
//! `params._meta`, and over Streamable HTTP in the `traceparent` header too, unless the client
//! sent its own, which passes untouched. Only the context is added: the rest of the call reaches
//! the server as the client wrote it. The official Python `mcp` SDK on both ends.

use blindfold_daemon::runtime::trace::traceparent::TraceContext;
use blindfold_integration_tests::transports::{
    World, arg, mcp_client, mcp_client_text, peer, python, python_peer, wait_port,
};
use blindfold_integration_tests::{Daemon, blindfold_bin, free_port};
use serde_json::{Value, json};
use std::ffi::OsString;
use std::time::Duration;

/// The client's own trace context (the W3C specification's example).
const CLIENTS: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// The listing (a trusted server's read-only annotation counts once listed), then the calls: one
/// without trace context, one carrying the client's.
fn ops() -> Value {
    json!([
        {"list": true},
        {"call": "trace_context", "args": {}},
        {"call": "trace_context", "args": {}, "meta": {"traceparent": CLIENTS}},
    ])
}

/// What the server saw of result `i`: `(params._meta.traceparent, traceparent header)`.
fn seen(r: &Value, i: usize) -> (Value, Value) {
    let text = r["results"][i]["text"].as_str().unwrap_or_else(|| panic!("no answer {i}: {r}"));
    let v: Value = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (v["meta"].clone(), v["header"].clone())
}

#[test]
fn mcp_stdio_carries_the_trajectorys_traceparent_in_meta_and_leaves_the_clients_own() {
    let w = World::new("");
    let task = "task-traceparent";
    let (py, server_py) = (python(), peer("mcp_server.py"));
    let mut target: Vec<OsString> =
        vec!["--".into(), blindfold_bin().into(), "mcp-stdio".into(), "--config".into()];
    target.extend([w.config.clone().into(), "--task".into(), task.into(), "--trusted".into(), "--".into()]);
    target.extend([arg(&py).to_owned(), arg(&server_py).to_owned()]);
    let r = mcp_client(&ops(), "auto", &target);
    let ours = TraceContext::for_trajectory(task).to_header();
    assert_eq!(seen(&r, 1), (json!(ours), Value::Null), "{r}");
    assert_eq!(seen(&r, 2), (json!(CLIENTS), Value::Null), "the client's own context is untouched: {r}");
}

#[test]
fn mcp_stdio_adds_the_context_without_reordering_keys_and_refuses_numbers_no_double_holds() {
    let w = World::new("");
    let task = "task-traceparent-bytes";
    let (py, server_py) = (python(), peer("mcp_server.py"));
    let mut target: Vec<OsString> =
        vec!["--".into(), blindfold_bin().into(), "mcp-stdio".into(), "--config".into()];
    target.extend([w.config.clone().into(), "--task".into(), task.into(), "--trusted".into(), "--".into()]);
    target.extend([arg(&py).to_owned(), arg(&server_py).to_owned()]);
    // Written as text: a serde_json value would sort the keys and write the wide integer (a
    // double's exact value) as 1e29.
    let payload = r#"{"zz":1,"aa":100000000000000000000000000000,"mm":{"y":2,"b":[3,1]}}"#;
    // A number no double holds: deciding it as a double could let another value run.
    let inexact = r#"{"aa":123456789012345678901234567890}"#;
    let ops = format!(
        r#"[{{"list":true}},{{"call":"echo_payload","args":{{"payload":{payload}}}}},{{"call":"trace_context","args":{{}}}},{{"call":"echo_payload","args":{{"payload":{inexact}}}}}]"#
    );
    let r = mcp_client_text(&ops, "auto", &target);
    assert_eq!(r["results"][1]["text"], json!(payload), "the server got the decided arguments: {r}");
    let ours = TraceContext::for_trajectory(task).to_header();
    assert_eq!(seen(&r, 2), (json!(ours), Value::Null), "{r}");
    // Refused by the cascade's exact-number rule (traced), as on every path: a tool error result.
    let refused = &r["results"][3];
    assert_eq!(refused["isError"], true, "{r}");
    assert_eq!(refused["meta"]["blindfold/decision"]["decision"]["check"], "P1.exact_numbers", "{r}");
    assert!(refused["text"].as_str().is_some_and(|m| m.contains("123456789012345678901234567890")), "{r}");
}

#[test]
fn mcp_http_carries_the_trajectorys_traceparent_in_meta_and_header() {
    let w = World::new("");
    let port = free_port();
    let _server = python_peer("mcp_server.py", &["--http", &port.to_string(), "--json"]);
    wait_port(port, Duration::from_secs(60));
    let task = "task-traceparent-http";
    let d = Daemon::start(
        &w.state,
        &[
            ("BLINDFOLD_MCP_HTTP__UPSTREAM", format!("http://127.0.0.1:{port}/mcp")),
            ("BLINDFOLD_MCP_HTTP__TASK", task.to_owned()),
            ("BLINDFOLD_MCP__TRUSTED", "true".to_owned()),
            ("BLINDFOLD_TRANSPORTS__UPSTREAM_TIMEOUT_S", "10".to_owned()),
        ],
    );
    let url = format!("http://127.0.0.1:{}/mcp", d.port);
    let r = mcp_client(&ops(), "auto", &["--url", &url]);
    let ours = json!(TraceContext::for_trajectory(task).to_header());
    assert_eq!(seen(&r, 1), (ours.clone(), ours.clone()), "{r}");
    assert_eq!(seen(&r, 2).0, json!(CLIENTS), "the client's own context is untouched: {r}");
}
