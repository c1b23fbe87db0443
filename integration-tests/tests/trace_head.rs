//! The trace directory's stored head: records cut off the end of the newest trace file (a chain
//! still whole, only shorter) fail `blindfold trace verify` naming the truncation, and the relay
//! does not start over such a directory; the intact trace verifies. Decisions made through
//! `blindfold mcp-stdio` with the official Python `mcp` SDK on both ends.

use blindfold_integration_tests::transports::{World, arg, mcp_client, peer, python, run_bounded};
use blindfold_integration_tests::{blindfold, blindfold_bin};
use serde_json::json;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `blindfold trace verify DIR`: (exit code, stdout, stderr).
fn verify(dir: &Path) -> (Option<i32>, String, String) {
    run_bounded(blindfold().args(["trace", "verify"]).arg(dir), Duration::from_secs(60))
}

/// The newest trace file of `dir`.
fn newest_trace_file(dir: &Path) -> PathBuf {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("traces")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files.pop().expect("a trace file")
}

#[test]
fn a_trace_cut_short_fails_verification_and_the_relay_does_not_continue_it() {
    let w = World::new("");
    let task = "task-trace-head";
    let (py, server_py) = (python(), peer("mcp_server.py"));
    let mut target: Vec<OsString> =
        vec!["--".into(), blindfold_bin().into(), "mcp-stdio".into(), "--config".into()];
    target.extend([w.config.clone().into(), "--task".into(), task.into(), "--trusted".into(), "--".into()]);
    target.extend([arg(&py).to_owned(), arg(&server_py).to_owned()]);
    let notes = w.path("notes.txt");
    std::fs::write(&notes, "hello\n").expect("notes");
    let ops = json!([
        {"list": true},
        {"call": "read_note", "args": {"path": notes}},
        {"call": "write_file", "args": {"path": w.path("out.txt"), "content": "no grant"}},
    ]);
    let r = mcp_client(&ops, "auto", &target);
    assert_eq!(r["results"][1]["text"], "hello\n", "{r}");

    let traces = w.state.join("traces");
    let (code, stdout, stderr) = verify(&traces);
    assert_eq!(code, Some(0), "the intact trace verifies: {stdout}{stderr}");
    assert!(!stderr.contains("warning"), "the head is kept: {stderr}");

    let file = newest_trace_file(&traces);
    let text = std::fs::read_to_string(&file).expect("read");
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 1, "{text}");
    lines.pop();
    std::fs::write(&file, lines.join("\n") + "\n").expect("cut the last record");
    let (code, stdout, stderr) = verify(&traces);
    assert_eq!(code, Some(1), "a record cut off the end is found: {stdout}{stderr}");
    assert!(stderr.contains("truncated"), "{stderr}");

    let mut relay = blindfold();
    relay.arg("mcp-stdio").arg("--config").arg(&w.config).args(["--task", task, "--"]);
    relay.arg(&py).arg(&server_py);
    let (code, _, stderr) = run_bounded(&mut relay, Duration::from_secs(60));
    assert_ne!(code, Some(0), "the relay does not continue a truncated chain: {stderr}");
    assert!(stderr.contains("truncated"), "{stderr}");
}
