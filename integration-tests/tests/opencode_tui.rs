//! The real OpenCode TUI (`opencode-ai@1.18.33`, offline, scripted model) — `opencode`, the
//! README's command — on a pseudo-terminal, in a project set up exactly as the docs say: the
//! user's `opencode.json` (one sub-agent there, one in `.opencode/agent/auditor.md`), `blindfold
//! init opencode --dir … --yes`, `blindfold run --config blindfold.toml`, then `opencode` in the
//! project. The request is typed into the TUI's prompt and sent with Enter, as a person would:
//!
//! - the coordinator asks the proposer, then the reviewer: the screen shows each `task` under the
//!   alias the coordinator named, and each delegation reaches that sub-agent (the model server is
//!   asked for each one's true model, in that order);
//! - the refuted `rm -rf data && touch destroyed.marker` is held (`P3.contradiction`, waiting in
//!   a review): `data/` stays, and the screen shows Blindfold's words for it with the review's
//!   reference, which `blindfold review list` holds; no OpenCode permission prompt appears
//!   (`init` keeps the project's `allow` rules: Blindfold decides, nobody is asked);
//! - the trace holds the session's records: one trajectory `opencode-ses_…`, each delegation and
//!   each answer once, the destructive call once;
//! - Ctrl+C on the empty prompt quits OpenCode.

use blindfold_integration_tests::opencode::{DESTRUCTIVE, MARKER};
use blindfold_integration_tests::opencode_init::InitProject;
use blindfold_integration_tests::session_checks::{self, alias_maps, kinds, last_refusal_id};
use blindfold_integration_tests::transports::trace_records;
use serde_json::Value;
use std::time::{Duration, Instant};

/// The whole TUI run, start to exit (a loaded 2-core machine takes ~20–40 s).
const LIMIT: Duration = Duration::from_secs(100);

/// The screen the driver saw at `label` (`step N` or `last`), box-drawing characters and every
/// run of white space as one space (the TUI wraps lines and draws borders).
fn screen(screens: &str, label: &str) -> String {
    let head = format!("--- {label} ---\n");
    let at = screens.find(&head).map(|i| i + head.len()).unwrap_or_else(|| panic!("no {label}: {screens}"));
    let text = &screens[at..];
    let text = &text[..text.find("\n--- ").unwrap_or(text.len())];
    let unboxed: String =
        text.chars().map(|c| if ('\u{2500}'..='\u{259f}').contains(&c) { ' ' } else { c }).collect();
    unboxed.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_tui_delegates_to_the_agents_named_and_holds_the_refuted_command_with_the_reason_on_screen() {
    let started = Instant::now();
    let p = InitProject::new("prompted");
    p.init(&[]);
    let daemon = p.start_daemon();

    let (code, screens, stderr) = p.project.tui(
        &[
            // The prompt names the model once the TUI is up; the request is typed there.
            ("scripted-1", "please clean up"),
            // Typed in full, Enter sends it.
            ("please clean up", "\r"),
            // Blindfold's words for the held command end the turn; Ctrl+C on the empty prompt
            // quits (OpenCode's `app_exit`).
            ("another agent's evidence contradicts it", "\u{3}"),
        ],
        LIMIT,
    );
    let told = screen(&screens, "step 2");
    assert_eq!(code, Some(0), "opencode did not quit cleanly:\n{screens}\n{stderr}");

    // 1. Each delegation reached the sub-agent the coordinator named, in the order asked.
    let models: Vec<String> =
        p.project.requests().iter().map(|r| r["model"].as_str().unwrap_or_default().to_owned()).collect();
    let subs: Vec<&str> = models.iter().map(String::as_str).filter(|m| *m != "scripted-1").collect();
    assert_eq!(subs, ["gpt-5-mini", "claude-opus-4"], "each delegation reached the agent named: {models:?}");

    // 2. The refuted command did not run; the screen shows why, and the review it waits in.
    assert!(!p.project.exists(MARKER) && p.project.exists("data/keep.txt"), "the refuted command ran");
    // The TUI renders the text as markdown: the backticks around `bash` become styling.
    for words in ["Blindfold refused the bash", "check P3.contradiction", "it has not run"] {
        assert!(told.contains(words), "the screen shows {words:?}:\n{told}");
    }
    assert!(
        !told.contains("Allow once") && !told.contains("Permission required"),
        "OpenCode asked for a permission:\n{told}"
    );
    let reference =
        last_refusal_id(&[], &told).unwrap_or_else(|| panic!("no reference on the screen: {told}"));

    // 3. The trace holds the session's records.
    let traces = p.state.join("traces");
    let ids = session_checks::trajectories(&traces);
    assert_eq!(ids.len(), 1, "one trajectory for the session: {ids:?}");
    let trajectory = &ids[0];
    assert!(trajectory.starts_with("opencode-ses_"), "{trajectory}");
    let records: Vec<Value> = trace_records(&traces, trajectory);
    assert_eq!(kinds(&records, "delegate").len(), 2, "each delegation once: {records:?}");
    assert_eq!(kinds(&records, "response").len(), 2, "each answer once");
    let calls = kinds(&records, "tool_call");
    assert_eq!(calls.len(), 1, "the destructive call once: {calls:?}");
    assert_eq!(
        (calls[0]["target"].as_str(), calls[0]["check"].as_str()),
        (Some(DESTRUCTIVE), Some("P3.contradiction"))
    );
    assert_ne!(calls[0]["decision"], "allow", "{}", calls[0]);
    let aliases = alias_maps(&records);
    assert_eq!(aliases.len(), 1, "{records:?}");
    // The TUI shows each delegation under the alias the coordinator named (capitalised).
    let lower = told.to_lowercase();
    for (agent, asked) in [("cleaner", "propose a cleanup"), ("auditor", "review the cleanup")] {
        let alias = aliases[0][agent].as_str().unwrap_or_else(|| panic!("no alias for {agent}: {aliases:?}"));
        assert!(lower.contains(&format!("{alias} task — {asked}")), "{alias}'s task on the screen:\n{told}");
    }

    // The reference on the screen is the review the command waits in, in this session.
    let listed = p.cli(&["review", "list", "--json"]);
    let listed: Value = serde_json::from_slice(&listed.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&listed.stderr)));
    let held = listed["reviews"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["id"] == reference.as_str())
        .unwrap_or_else(|| panic!("{reference} is not a review: {listed}"));
    assert_eq!(held["trajectory"], trajectory.as_str(), "{held}");
    drop(daemon);
    eprintln!("opencode TUI session ({reference}): {:.1?}", started.elapsed());
}
