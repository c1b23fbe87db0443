//! A trusted MCP server whose `tools/list` is paginated (the official Python `mcp` SDK, one tool
//! per page): a read-only tool on a later page counts as a read before its first call is
//! decided, whether the client listed nothing or only the first page, through `mcp-stdio` and
//! `/mcp`; the relay walks the pages once, a listing that cycles ends the walk, and an untrusted
//! server's annotations never count.

use blindfold_integration_tests::transports::{World, mcp_client, peer, python, python_peer, wait_port};
use blindfold_integration_tests::{Daemon, blindfold_bin, free_port};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::time::Duration;

/// The cursors the server was asked `tools/list` with, in order (`null` for the first page).
fn listings(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .map(|v| v["cursor"].clone())
        .collect()
}

/// The paged server's arguments that log its listings to `log`.
fn logged(log: &Path) -> [&str; 2] {
    ["--log", log.to_str().expect("utf8")]
}

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": {"q": "x"}}})
}

/// A raw stdio client of `mcp-stdio` over the paged server: the handshake, then `frames`; the
/// answers to the requests among them, by id.
fn stdio_session(w: &World, task: &str, flags: &[&str], server: &[&str], frames: &[Value]) -> Vec<Value> {
    let mut child = std::process::Command::new(blindfold_bin())
        .args(["mcp-stdio", "--config"])
        .arg(&w.config)
        .args(["--task", task])
        .args(flags)
        .arg("--")
        .arg(python())
        .arg(peer("mcp_paged_server.py"))
        .args(server)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::inherit())
        .spawn()
        .expect("spawn mcp-stdio");
    let mut stdin = child.stdin.take().expect("stdin");
    let handshake = [
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    ];
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines().map_while(Result::ok);
    let mut answers = Vec::new();
    for f in handshake.iter().chain(frames) {
        writeln!(stdin, "{f}").expect("write");
        // One request at a time: each answer is read before the next frame goes.
        if let Some(id) = f.get("id") {
            let answer = lines
                .by_ref()
                .filter_map(|l| serde_json::from_str::<Value>(&l).ok())
                .find(|v| v["id"] == *id)
                .expect("an answer");
            answers.push(answer);
        }
    }
    drop(stdin);
    let _ = child.kill();
    let _ = child.wait();
    answers.remove(0);
    answers
}

fn refused(answer: &Value) -> bool {
    answer["result"]["isError"] == true
}

fn reason(answer: &Value) -> &str {
    answer["result"]["_meta"]["blindfold/decision"]["decision"]["reason"].as_str().unwrap_or("")
}

#[test]
fn a_read_only_tool_on_a_later_page_is_a_read_through_mcp_stdio() {
    let w = World::new("");
    // Nothing listed: the relay walks the pages until the called tool is known.
    let log = w.path("walk.log");
    let a = stdio_session(&w, "paged-1", &["--trusted"], &logged(&log), &[call(1, "lookup_peak")]);
    assert!(!refused(&a[0]), "a trusted read-only tool on page 4 is a read: {a:?}");
    assert_eq!(a[0]["result"]["content"][0]["text"], r#"{"arguments": {"q": "x"}, "name": "lookup_peak"}"#);
    assert_eq!(
        listings(&log),
        vec![json!(null), json!("page-1-of-4"), json!("page-2-of-4"), json!("page-3-of-4")]
    );

    // The client listed the first page only: the rest is walked for the tool on page 3, and
    // the walk stops there.
    let log = w.path("first-page.log");
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    let a = stdio_session(&w, "paged-2", &["--trusted"], &logged(&log), &[list, call(2, "lookup_river")]);
    assert_eq!(a[0]["result"]["nextCursor"], "page-1-of-4", "{a:?}");
    assert!(!refused(&a[1]), "{a:?}");
    assert_eq!(listings(&log), vec![json!(null), json!(null), json!("page-1-of-4"), json!("page-2-of-4")]);

    // A tool that is not read-only: the whole listing is walked once, the call needs a grant,
    // and a second call walks nothing again.
    let log = w.path("mutating.log");
    let a = stdio_session(
        &w,
        "paged-3",
        &["--trusted"],
        &logged(&log),
        &[call(1, "store_note"), call(2, "store_note")],
    );
    assert_eq!(reason(&a[0]), "no_grant", "{a:?}");
    assert_eq!(reason(&a[1]), "no_grant", "{a:?}");
    assert_eq!(listings(&log).len(), 4, "every page once: {:?}", listings(&log));

    // Untrusted: the server's annotations do not count, and the relay lists nothing itself.
    let log = w.path("untrusted.log");
    let a = stdio_session(&w, "paged-4", &[], &logged(&log), &[call(1, "lookup_peak")]);
    assert_eq!(reason(&a[0]), "no_grant", "{a:?}");
    assert!(listings(&log).is_empty(), "{:?}", listings(&log));
}

#[test]
fn a_listing_that_leads_back_to_a_cursor_already_asked_ends_the_walk() {
    let w = World::new("");
    let log = w.path("cycle.log");
    let server = [logged(&log).as_slice(), &["--cycle"]].concat();
    let a = stdio_session(&w, "paged-cycle", &["--trusted"], &server, &[call(1, "store_note")]);
    assert_eq!(reason(&a[0]), "no_grant", "{a:?}");
    assert_eq!(
        listings(&log),
        vec![json!(null), json!("page-1-of-4"), json!("page-2-of-4"), json!("page-3-of-4")]
    );
}

#[test]
fn a_read_only_tool_on_a_later_page_is_a_read_through_mcp_http() {
    let w = World::new("");
    let log = w.path("http.log");
    let port = free_port();
    let _server = python_peer(
        "mcp_paged_server.py",
        &["--http", &port.to_string(), "--log", log.to_str().expect("utf8")],
    );
    wait_port(port, Duration::from_secs(60));
    let d = Daemon::start(
        &w.state,
        &[
            ("BLINDFOLD_MCP_HTTP__UPSTREAM", format!("http://127.0.0.1:{port}/mcp")),
            ("BLINDFOLD_MCP_HTTP__TASK", "paged-http".to_owned()),
            ("BLINDFOLD_MCP__TRUSTED", "true".to_owned()),
            ("BLINDFOLD_TRANSPORTS__UPSTREAM_TIMEOUT_S", "10".to_owned()),
        ],
    );
    let url = format!("http://127.0.0.1:{}/mcp", d.port);
    let ops =
        json!([{"call": "lookup_peak", "args": {"q": "x"}}, {"call": "store_note", "args": {"q": "x"}}]);
    let r = mcp_client(&ops, "legacy", &["--url", &url]);
    assert_eq!(r["results"][0]["isError"], false, "{r}");
    assert_eq!(r["results"][1]["isError"], true, "{r}");
    assert_eq!(
        r["results"][1]["meta"]["blindfold/decision"]["decision"]["reason"], "no_grant",
        "a tool without a read-only annotation needs a grant: {r}"
    );
    // The relay walked the four pages once, for the first call; the SDK client then lists the
    // first page itself (to check the result against an output schema), and the second call
    // walks nothing again.
    let asked = listings(&log);
    assert_eq!(
        asked[..4],
        [json!(null), json!("page-1-of-4"), json!("page-2-of-4"), json!("page-3-of-4")],
        "{asked:?}"
    );
    assert!(asked[4..].iter().all(Value::is_null), "each later page asked once: {asked:?}");
}
