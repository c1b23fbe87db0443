//! Progress and log notifications toward the client lose identity (SPEC §4): a server on the
//! official Python `mcp` SDK reports progress during a tool call with a model's name cut across
//! two progress messages ("Asking Claude Op" + "us 4 by Anthro" + "pic; …"), a homoglyph name in
//! another, and logs a message naming a model. Through `mcp-stdio` and `/mcp`, every progress
//! message reaches the client at once (nothing held: one for each the server sent, in order),
//! and the leak oracle (no code shared with the anonymizer) finds no name in any of them, in
//! their joined text, or in the log messages; the words around the names are all there. Straight
//! from the server (no Blindfold) the same messages hold the names, so the test can fail.

use blindfold_integration_tests::blindfold_bin;
use blindfold_integration_tests::free_port;
use blindfold_integration_tests::transports::{
    World, mcp_client, peer, python, python_peer, run_daemon, wait_port,
};
use blindfold_leak_oracle::LeakOracle;
use serde_json::{Value, json};
use std::ffi::OsString;
use std::time::Duration;

const IDENTITY: [&str; 8] =
    ["claude", "opus", "anthropic", "gpt", "openai", "claude-opus-4-1", "gpt-5", "mini"];

/// The words of the progress and log messages that carry no identity.
const KEPT: [&str; 5] =
    ["Asking", "2 of 3 drafts done", "finished the review.", "after a timeout", "forwarded to"];

/// `[tools.<real name>]`: the aliased tool is a read, so its call runs.
const REGISTRY: &str = "[tools.ask_claude_opus_4]\neffect = \"read\"\n";

fn ops() -> Value {
    json!([{"list": true},
           {"call": "ask_model", "args": {"question": "hi", "model": "model_2"}, "progress": true}])
}

/// The progress messages and log notifications the client received.
fn notes(r: &Value) -> (Vec<String>, Value) {
    let progress = r["results"][1]["progress"].as_array().cloned().unwrap_or_default();
    let progress = progress.iter().map(|m| m.as_str().unwrap_or_default().to_owned()).collect();
    (progress, r["logs"].clone())
}

fn check(r: &Value, ctx: &str) {
    let oracle = LeakOracle::new(IDENTITY);
    assert_eq!(r["results"][1]["isError"], false, "{ctx}: {r}");
    let (progress, logs) = notes(r);
    assert_eq!(progress.len(), 4, "{ctx}: one message out for each the server sent: {progress:?}");
    // The name cut across messages is cut from the later one; each message goes out whole.
    let expected =
        ["Asking [model] Op", " by Anthro", "; 2 of 3 drafts done", "[model] finished the review."];
    assert_eq!(progress, expected, "{ctx}");
    let joined = progress.concat();
    for text in progress.iter().chain([&joined]) {
        assert_eq!(
            oracle.report_text(text),
            Vec::<(String, usize)>::new(),
            "{ctx}: {text:?} in {progress:?}"
        );
    }
    assert!(logs.as_array().is_some_and(|l| !l.is_empty()), "{ctx}: no log message: {r}");
    assert_eq!(oracle.report_json(&logs), Vec::<(String, usize)>::new(), "{ctx}: {logs}");
    let all = format!("{joined} {logs}");
    for kept in KEPT {
        assert!(all.contains(kept), "{ctx}: {kept:?} is gone from {all}");
    }
}

fn server() -> [OsString; 2] {
    [python().into_os_string(), peer("mcp_identity_server.py").into_os_string()]
}

#[test]
fn the_server_puts_names_in_its_progress_and_logs() {
    let mut direct: Vec<OsString> = vec!["--logs".into(), "--".into()];
    direct.extend(server());
    let ops = json!([{"call": "ask_claude_opus_4", "args": {"question": "hi", "model": "gpt-5-mini"}, "progress": true}]);
    let r = mcp_client(&ops, "legacy", &direct);
    let progress = r["results"][0]["progress"].as_array().cloned().unwrap_or_default();
    let oracle = LeakOracle::new(IDENTITY);
    let joined: String = progress.iter().filter_map(Value::as_str).collect();
    assert!(oracle.count_text(&joined) >= 3, "the split names are there when joined: {joined:?}");
    assert!(oracle.count_json(&r["logs"]) > 0, "{r}");
}

#[test]
fn mcp_stdio_rewrites_progress_and_log_messages() {
    for mode in ["legacy", "2026-07-28"] {
        let w = World::new(REGISTRY);
        let mut args: Vec<OsString> =
            vec!["--logs".into(), "--".into(), blindfold_bin().into(), "mcp-stdio".into(), "--config".into()];
        args.extend([w.config.clone().into_os_string(), "--".into()]);
        args.extend(server());
        check(&mcp_client(&ops(), mode, &args), &format!("mcp-stdio {mode}"));
    }
}

#[test]
fn mcp_http_rewrites_progress_and_log_messages() {
    let port = free_port();
    let _server = python_peer("mcp_identity_server.py", &["--http", &port.to_string()]);
    wait_port(port, Duration::from_secs(60));
    let w = World::new("");
    let upstream = format!(
        "[mcp_http]\nupstream = \"http://127.0.0.1:{port}/mcp\"\ntask = \"task-mcp-progress\"\n\n{REGISTRY}"
    );
    let (_daemon, dport) = run_daemon(&w, &upstream);
    let url = format!("http://127.0.0.1:{dport}/mcp");
    for mode in ["legacy", "2026-07-28"] {
        check(&mcp_client(&ops(), mode, &["--logs", "--url", &url]), &format!("/mcp {mode}"));
    }
}
