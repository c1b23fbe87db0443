//! `blindfold why` across a daemon restart: a call refused before the restart is still answered
//! for after it — the same refusal id, the same text and the same grant command — and that
//! command, run as printed, hands the daemon a grant that lets the call through. The refusals'
//! journal in the state directory is private (0600).

use blindfold_integration_tests::openclaw::control_call;
use blindfold_integration_tests::session_checks::{grant_command, last_refusal_id, run_printed};
use blindfold_integration_tests::transports::World;
use blindfold_integration_tests::{Daemon, blindfold, free_port};
use serde_json::{Value, json};
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

const TASK: &str = "why-restart";

fn check(daemon: &Daemon) -> Value {
    let write = json!({"trajectory": TASK, "tool": "write_file", "args": {"path": "/w/notes.txt", "content": "kept\n"}, "consume": true});
    control_call(daemon.port, &daemon.adapter_token(), "check_action", write)["result"].clone()
}

/// `blindfold why ID --config FILE` in `dir`: (succeeded, stdout).
fn why(id: &str, config: &Path, dir: &Path) -> (bool, String) {
    let out = blindfold().args(["why", id, "--config"]).arg(config).current_dir(dir).output().expect("why");
    (out.status.success(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_refusal_before_a_restart_is_explained_after_it_and_its_grant_command_works() {
    let port = free_port();
    let w = World::new(&format!("[server]\nlisten = \"127.0.0.1:{port}\"\n"));
    let daemon = Daemon::on_config(&w.config, port, &w.state);
    let refused = check(&daemon);
    assert_eq!(
        (refused["allowed"].clone(), refused["decision"]["reason"].clone()),
        (json!(false), json!("no_grant"))
    );
    let told = refused["refusal"]["text"].as_str().unwrap_or_default();
    let id = last_refusal_id(&[], told).unwrap_or_else(|| panic!("no refusal id in {told}"));
    let (ok, before) = why(&id, &w.config, w.dir.path());
    assert!(ok && before.contains(&id), "{before}");

    drop(daemon);
    let journal = w.state.join("refusals.jsonl");
    let mode = std::fs::metadata(&journal).expect("the refusals journal").permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the journal holds refused bytes");
    let daemon = Daemon::on_config(&w.config, port, &w.state);
    let (ok, after) = why(&id, &w.config, w.dir.path());
    assert!(ok, "the restarted daemon lost {id}: {after}");
    assert_eq!(grant_command(&after), grant_command(&before), "the same grant command");
    assert_eq!(after, before, "the same refusal, word for word");
    assert!(after.contains("operation write_file") && after.contains(TASK), "{after}");
    let (unknown, _) = why("rf-0000000000000000", &w.config, w.dir.path());
    assert!(!unknown, "a refusal never made is not explained");

    let words = grant_command(&after);
    let issued = run_printed(&words, w.dir.path());
    let printed = String::from_utf8_lossy(&issued.stdout);
    assert!(issued.status.success(), "{}: {}", words.join(" "), String::from_utf8_lossy(&issued.stderr));
    assert!(printed.contains("accepted grant"), "{}: {printed}", words.join(" "));
    let retried = check(&daemon);
    assert_eq!(retried["allowed"], json!(true), "the granted retry: {retried}");
}
