//! The real OpenCode (`opencode-ai@1.18.33`, offline, scripted model) set up exactly as the docs
//! say: the user's project (one sub-agent in `opencode.json`, one in `.opencode/agent/*.md`),
//! `blindfold init opencode --yes`, `blindfold run --config blindfold.toml`, then `opencode run`.
//! The plugin and the model-API proxy share one trajectory per session with no id typed by hand:
//!
//! - delegation reaches the sub-agent the coordinator named (the model server sees each
//!   sub-agent's true model, in the order asked), the refuted destructive command is held by
//!   `P3.contradiction`, and the trace holds one record per event;
//! - after a daemon restart the continued session keeps its aliases; a write without a grant is
//!   refused, `blindfold why` gives the exact grant command, and that command (with `--submit`)
//!   lets the retry in the same session run; `blindfold doctor` passes the wired project, `trace
//!   summarize` counts the blocks the records show and the picture's legend names each alias with
//!   its true model;
//! - with the plugin gone, the proxy refuses every tool call (`unpaired_session`).

use blindfold_integration_tests::blindfold;
use blindfold_integration_tests::opencode::{DESTRUCTIVE, MARKER, keygen};
use blindfold_integration_tests::opencode_init::InitProject;
use blindfold_integration_tests::session_checks::{
    self, alias_maps, grant_command, kinds, last_refusal_id, run_printed, summary_agrees,
};
use blindfold_integration_tests::transports::trace_records;
use serde_json::Value;
use std::time::Duration;

const LIMIT: Duration = Duration::from_secs(300);

fn ran(out: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "opencode run failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// The trajectories of the trace and their records (every record has one).
fn trajectories(p: &InitProject) -> Vec<(String, Vec<Value>)> {
    let traces = p.state.join("traces");
    session_checks::trajectories(&traces)
        .into_iter()
        .map(|t| (t.clone(), trace_records(&traces, &t)))
        .collect()
}

#[test]
fn one_session_one_trajectory_through_plugin_and_proxy_restart_grant_and_retry() {
    let p = InitProject::new("prompted");
    let keys = keygen(&p.project.root.path().join("keys"));
    p.init(&[]);
    p.trust(&keys);
    let daemon = p.start_daemon();

    // 1. The coordinator asks the proposer, then the reviewer, then runs the refuted command.
    let out = ran(&p.project.run(&["please", "clean", "up"], LIMIT));
    let models: Vec<String> =
        p.project.requests().iter().map(|r| r["model"].as_str().unwrap_or_default().to_owned()).collect();
    let subs: Vec<&str> = models.iter().map(String::as_str).filter(|m| *m != "scripted-1").collect();
    assert_eq!(subs, ["gpt-5-mini", "claude-opus-4"], "each delegation reached the agent named: {models:?}");
    assert!(!p.project.exists(MARKER) && p.project.exists("data/keep.txt"), "the refuted command ran");
    assert!(out.contains("another agent's evidence contradicts it"), "the model is told why: {out}");
    let traces = trajectories(&p);
    assert_eq!(
        traces.len(),
        1,
        "one trajectory for the session: {:?}",
        traces.iter().map(|t| &t.0).collect::<Vec<_>>()
    );
    let (trajectory, records) = &traces[0];
    assert!(trajectory.starts_with("opencode-ses_"), "{trajectory}");
    assert_eq!(kinds(records, "delegate").len(), 2, "each delegation once: {records:?}");
    assert_eq!(kinds(records, "response").len(), 2, "each answer once");
    let calls = kinds(records, "tool_call");
    assert_eq!(calls.len(), 1, "the destructive call once: {calls:?}");
    assert_eq!(
        (calls[0]["target"].as_str(), calls[0]["check"].as_str()),
        (Some(DESTRUCTIVE), Some("P3.contradiction"))
    );
    let before = alias_maps(records);
    assert_eq!(before.len(), 1, "{before:?}");
    let doctor = blindfold().args(["doctor", "--dir"]).arg(p.project.dir()).output().expect("doctor");
    let report = String::from_utf8_lossy(&doctor.stdout);
    assert_eq!(doctor.status.code(), Some(0), "doctor on the wired project: {report}");

    // 2. The daemon restarts; the session goes on, its aliases kept; a write without a grant is
    //    refused with a refusal id the model reads.
    drop(daemon);
    let daemon = p.start_daemon();
    let out = ran(&p.project.run(&["--continue", "write", "the", "notes"], LIMIT));
    assert!(!p.project.exists("notes.txt"), "the write ran without a grant");
    let id = last_refusal_id(&[], &out).unwrap_or_else(|| panic!("no refusal id in {out}"));
    let traces = trajectories(&p);
    assert_eq!(traces.len(), 1, "the continued session is the same trajectory");
    let after = alias_maps(&traces[0].1);
    assert!(
        after.iter().all(|m| *m == before[0]),
        "aliases changed after the restart: {before:?} → {after:?}"
    );

    // 3. `blindfold why` names the exact grant; running it with --submit lets the retry run.
    let why = p.cli(&["why", &id]);
    let text = String::from_utf8_lossy(&why.stdout).into_owned();
    assert!(why.status.success(), "{text}\n{}", String::from_utf8_lossy(&why.stderr));
    assert!(text.contains("operation write_file") && text.contains(trajectory.as_str()), "{text}");
    let words = grant_command(&text);
    let command = words.join(" ");
    let issued = run_printed(&words, p.project.root.path());
    assert!(issued.status.success(), "{command}: {}", String::from_utf8_lossy(&issued.stderr));
    assert!(
        String::from_utf8_lossy(&issued.stdout).contains("accepted grant"),
        "{}",
        String::from_utf8_lossy(&issued.stdout)
    );
    let out = ran(&p.project.run(&["--continue", "write", "the", "notes"], LIMIT));
    let written = std::fs::read_to_string(p.project.dir().join("notes.txt"))
        .unwrap_or_else(|_| panic!("the granted retry did not write notes.txt: {out}"));
    assert_eq!(written, "hello from the coordinator\n");
    let records = &trajectories(&p)[0].1;
    let writes: Vec<&Value> =
        kinds(records, "tool_call").into_iter().filter(|r| r["tool"] == "write_file").collect();
    let decided: Vec<(&str, &str)> = writes
        .iter()
        .map(|r| (r["decision"].as_str().unwrap_or(""), r["reason"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(decided, [("deny", "no_grant"), ("allow", "allowed")], "one record per decided write");
    // 4. `trace summarize` counts the blocks the records show; the picture's legend names each
    //    alias the coordinator saw with its true model.
    summary_agrees(&p.state.join("traces"), records);
    let svg = blindfold()
        .args(["trace", "render", "--format", "svg", "--trajectory", trajectory])
        .arg(p.state.join("traces"))
        .output()
        .expect("render");
    let svg = String::from_utf8_lossy(&svg.stdout);
    let aliases = before[0].as_object().expect("aliases");
    for model in ["gpt-5-mini", "claude-opus-4"] {
        assert!(
            aliases.values().any(|a| svg.contains(&format!("{} → {model}", a.as_str().unwrap_or("?")))),
            "no legend line for {model}: {svg}"
        );
    }
    drop(daemon);
}

#[test]
fn without_the_plugin_the_proxy_refuses_every_tool_call() {
    let p = InitProject::new("destructive");
    p.init(&[]);
    let _daemon = p.start_daemon();
    std::fs::remove_file(p.project.dir().join(".opencode/plugins/blindfold.ts")).expect("remove the plugin");
    let out = ran(&p.project.run(&["please", "clean", "up"], LIMIT));
    assert!(out.contains("unpaired_session"), "{out}");
    let models: Vec<String> =
        p.project.requests().iter().map(|r| r["model"].as_str().unwrap_or_default().to_owned()).collect();
    assert!(models.iter().all(|m| m == "scripted-1"), "a sub-agent ran: {models:?}");
    assert!(!p.project.exists(MARKER));
}
