//! `blindfold mcp-stdio --daemon` next to a running `blindfold run` on the same state dir: the
//! relay asks the daemon for every decision (its grants, single-use ids and trace), so the
//! daemon's trace holds the relay's calls and results. A daemon that is configured but not
//! reachable makes every call a refusal with the reason (fail closed), nothing forwarded.

use blindfold_integration_tests::transports::{World, arg, mcp_client, node_bin, run_daemon, trace_records};
use blindfold_integration_tests::{blindfold_bin, free_port};
use serde_json::{Value, json};
use std::ffi::{OsStr, OsString};

fn relay_args(w: &World, daemon: &str, task: &str, server: &[&OsStr]) -> Vec<OsString> {
    let mut v: Vec<OsString> = vec!["--".into(), blindfold_bin().into(), "mcp-stdio".into()];
    v.extend(["--config".into(), w.config.clone().into(), "--daemon".into(), daemon.into()]);
    v.extend(["--task".into(), task.into(), "--".into()]);
    v.extend(server.iter().map(OsString::from));
    v
}

fn reason(r: &Value) -> &str {
    r["meta"]["blindfold/decision"]["decision"]["reason"].as_str().unwrap_or("")
}

#[test]
fn the_relay_shares_the_running_daemons_decisions_grants_and_trace() {
    let w = World::new("");
    let root = w.path("root");
    std::fs::create_dir_all(&root).expect("mkdir");
    std::fs::write(root.join("a.txt"), "alpha").expect("write");
    let target = root.join("b.txt");
    let target_s = target.to_str().expect("utf8");
    let (_daemon, port) = run_daemon(&w, "");
    let fs_bin = node_bin("mcp-server-filesystem");
    let server = [arg(&fs_bin), arg(&root)];
    let token = w.issue("task-d", "write_file", target_s, b"beta");
    let staged = w.path("beta.jwt");
    std::fs::write(&staged, token).expect("stage");
    let write = json!({"call": "write_file", "args": {"path": target_s, "content": "beta"}});
    let ops = json!([
        {"call": "list_directory", "args": {"path": root}},
        write,
        {"drop": [staged, w.state.join("grants").join("beta.jwt")]},
        write,
        write,
    ]);
    let daemon = format!("ws://127.0.0.1:{port}");
    let r = mcp_client(&ops, "legacy", &relay_args(&w, &daemon, "task-d", &server));
    let res = |i: usize| &r["results"][i];
    assert_eq!(res(0)["isError"], false, "{r}");
    assert!(res(0)["text"].as_str().unwrap_or("").contains("a.txt"), "{r}");
    assert_eq!(reason(res(1)), "no_grant", "{r}");
    assert_eq!(res(3)["isError"], false, "the grant reached the daemon on the trusted path: {r}");
    // Its one use is spent: the daemon forgot it and its file is gone, so the refusal names
    // what is missing, not the used-up grant.
    assert_eq!(reason(res(4)), "no_grant", "{r}");
    assert!(!w.state.join("grants").join("beta.jwt").exists(), "the spent grant file was pruned");
    assert_eq!(std::fs::read_to_string(&target).expect("written"), "beta");
    let forgotten: Vec<Value> = trace_records(&w.state.join("traces"), "blindfold-control")
        .into_iter()
        .filter(|r| r["tool"] == "forget_grant")
        .collect();
    assert_eq!(forgotten.len(), 1, "the daemon traced forgetting it: {forgotten:?}");

    // The daemon decided and traced every call, and recorded the results.
    let trace = trace_records(&w.state.join("traces"), "task-d");
    let calls: Vec<&str> = trace
        .iter()
        .filter(|r| r["kind"] == "tool_call")
        .map(|r| r["reason"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(calls, ["allowed", "no_grant", "allowed", "no_grant"], "{trace:?}");
    let results = trace.iter().filter(|r| r["kind"] == "tool_result").count();
    assert_eq!(results, 2, "{trace:?}");
    // The relay's scratch dir is gone.
    let left: Vec<_> = std::fs::read_dir(&w.state)
        .expect("state")
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("relay-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_spent_grant_file_given_with_grant_file_is_forgotten_but_never_touched() {
    let w = World::new("");
    let root = w.path("root");
    std::fs::create_dir_all(&root).expect("mkdir");
    let target = root.join("b.txt");
    let target_s = target.to_str().expect("utf8");
    let (_daemon, port) = run_daemon(&w, "");
    let fs_bin = node_bin("mcp-server-filesystem");
    let server = [arg(&fs_bin), arg(&root)];
    let given = w.path("given.jwt");
    std::fs::write(&given, w.issue("task-g", "write_file", target_s, b"beta")).expect("grant file");
    let write = json!({"call": "write_file", "args": {"path": target_s, "content": "beta"}});
    let daemon = format!("ws://127.0.0.1:{port}");
    let mut args = relay_args(&w, &daemon, "task-g", &server);
    let at = args.iter().position(|a| a == "--task").expect("--task");
    args.splice(at..at, [OsString::from("--grant-file"), given.clone().into()]);
    let r = mcp_client(&json!([write, write]), "legacy", &args);
    assert_eq!(r["results"][0]["isError"], false, "{r}");
    assert_eq!(reason(&r["results"][1]), "no_grant", "the spent grant no longer counts: {r}");
    assert!(given.exists(), "a --grant-file is never touched");
}

#[test]
fn an_unreachable_daemon_refuses_every_call() {
    let w = World::new("");
    let root = w.path("root");
    std::fs::create_dir_all(&root).expect("mkdir");
    // The tokens exist (a daemon ran here once) but nothing listens now.
    let (daemon, _) = run_daemon(&w, "");
    drop(daemon);
    let target = root.join("b.txt");
    let fs_bin = node_bin("mcp-server-filesystem");
    let server = [arg(&fs_bin), arg(&root)];
    let token = w.issue("task-u", "write_file", target.to_str().expect("utf8"), b"beta");
    w.drop_grant(&token);
    let ops = json!([
        {"call": "list_directory", "args": {"path": root}},
        {"call": "write_file", "args": {"path": target, "content": "beta"}},
    ]);
    let daemon = format!("ws://127.0.0.1:{}", free_port());
    let r = mcp_client(&ops, "legacy", &relay_args(&w, &daemon, "task-u", &server));
    for i in 0..2 {
        let res = &r["results"][i];
        assert_eq!(res["isError"], true, "{r}");
        assert_eq!(reason(res), "internal_error", "{r}");
        assert!(res["text"].as_str().unwrap_or("").contains("daemon"), "{r}");
    }
    assert!(!target.exists(), "nothing was forwarded");
}
