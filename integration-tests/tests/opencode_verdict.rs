//! An explicit verdict, bound to one action, with the real OpenCode (`opencode-ai@1.18.33`)
//! offline and the Blindfold plugin (pinned `[opencode] task`): a sub-agent proposes a `bash`
//! command that writes `notes.md`, the coordinator delegates its review to the other sub-agent
//! through `task`, then runs the command, for which a signed grant was submitted. The plugin
//! relays the review as a verification request (Blindfold's instruction, one handle per action,
//! appended to the `task` prompt); the scripted reviewer model answers as a model following it
//! would. An approving verdict for its handle lets the command run; an approval in prose only
//! holds it for review (`unverified`); a refusal holds it as a dispute (`P3.contradiction`).
//! The coordinator's model never reads the instruction or a handle.

use blindfold_integration_tests::opencode::{
    Project, blindfold_config, grant_bash, keygen, link, start_daemon, trace_records,
};
use serde_json::Value;
use std::time::Duration;

/// Generous: a run takes seconds on an idle machine, far more on a loaded 2-core one.
const LIMIT: Duration = Duration::from_secs(300);
const PROMPT: [&str; 4] = ["write", "the", "release", "notes"];
/// What the proposer proposes and the coordinator runs.
const COMMAND: &str = "printf 'release notes: reviewed\\n' > notes.md";
/// What it writes.
const CONTENT: &str = "release notes: reviewed\n";
/// The reviewer sub-agent's model (the scripted server answers it as the reviewer).
const REVIEWER_MODEL: &str = "claude-opus-4";

/// The `tool_use` events of `opencode run --format json` for `tool`.
fn tool_uses(stdout: &[u8], tool: &str) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_use" && e["part"]["tool"] == tool)
        .collect()
}

/// Every verdict handle (`bf-` and twelve base-32 characters) in `text`.
fn handles(text: &str) -> Vec<String> {
    let alphabet = |c: char| c.is_ascii_lowercase() || ('2'..='9').contains(&c);
    let mut out = Vec::new();
    for (at, _) in text.match_indices("bf-") {
        let body: String = text[at + 3..].chars().take(12).collect();
        let before = text[..at].chars().next_back().is_none_or(|c| !c.is_ascii_alphanumeric());
        if before && body.len() == 12 && body.chars().all(alphabet) {
            out.push(format!("bf-{body}"));
        }
    }
    out
}

/// One run of the scenario with the reviewer answering as `review` says.
struct Run {
    project: Project,
    out: std::process::Output,
    records: Vec<Value>,
    _daemon: blindfold_integration_tests::Daemon,
    _state: tempfile::TempDir,
}

fn run(task: &str, review: &str) -> Run {
    run_with(task, review, "")
}

/// [`run`] with `extra` appended to Blindfold's config.
fn run_with(task: &str, review: &str, extra: &str) -> Run {
    let state = tempfile::tempdir().expect("tempdir");
    let keys = keygen(&state.path().join("keys"));
    let cfg = state.path().join("blindfold.toml");
    blindfold_config(&cfg, task, Some(&keys.public));
    let text = std::fs::read_to_string(&cfg).expect("config");
    std::fs::write(&cfg, format!("{text}\n{extra}\n")).expect("config");
    let daemon = start_daemon(&state.path().join("state"), &cfg);
    // The person's signed approval of exactly this command: what is left to check is the verdict.
    grant_bash(&daemon, &keys, task, COMMAND);
    let root = tempfile::tempdir().expect("tempdir");
    let project =
        Project::in_root(root, "verified", Some(link(&daemon)), &["--command", COMMAND, "--review", review]);
    let out = project.run(&PROMPT, LIMIT);
    assert!(
        out.status.success(),
        "opencode run failed: {:?}\n{}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let records = trace_records(&daemon.state_dir.join("traces"), task);
    Run { project, out, records, _daemon: daemon, _state: state }
}

impl Run {
    /// The one `bash` call OpenCode attempted: exactly the proposed command.
    fn bash(&self) -> Value {
        let bash = tool_uses(&self.out.stdout, "bash");
        assert_eq!(bash.len(), 1, "one bash call: {bash:?}");
        assert_eq!(bash[0]["part"]["state"]["input"]["command"], COMMAND);
        bash[0].clone()
    }

    /// The handles the reviewer's model was asked about, checked against what it read: the
    /// coordinator's prompt, then Blindfold's instruction naming the proposed command.
    fn asked(&self) -> Vec<String> {
        let requests = self.project.requests();
        let reviewer: Vec<&Value> = requests.iter().filter(|r| r["model"] == REVIEWER_MODEL).collect();
        assert!(!reviewer.is_empty(), "the reviewer never ran");
        let read = reviewer[0]["messages"].to_string();
        assert!(read.contains("Review this proposed command before it runs"), "{read}");
        assert!(read.contains("[blindfold:verify]") && read.contains("VERDICT <handle>"), "{read}");
        let asked = handles(&read);
        assert_eq!(asked.len(), 1, "one handle for the one proposed action: {read}");
        asked
    }

    /// Neither the instruction nor any handle reached the coordinator's model: not in the `task`
    /// call's prompt in its history, not in the reviewer's answer as the `task` result.
    fn assert_coordinator_saw_no_handle(&self) {
        let coordinator = self.project.coordinator_requests();
        assert!(coordinator.len() >= 4, "coordinator requests: {}", coordinator.len());
        for r in &coordinator {
            let text = r["messages"].to_string();
            assert!(!text.contains("[blindfold:verify]"), "the instruction reached the coordinator: {text}");
            assert_eq!(handles(&text), Vec::<String>::new(), "a handle reached the coordinator: {text}");
        }
        // The reviewer's answer did reach it (the control: the scan looked at the right place).
        let last = coordinator.last().map(|r| r["messages"].to_string()).unwrap_or_default();
        assert!(last.contains("<task_result>"), "{last}");
    }

    /// The trace's decided `bash` call, after the reviewer's answer.
    fn decided_bash(&self) -> &Value {
        let bash = self
            .records
            .iter()
            .find(|r| r["kind"] == "tool_call" && r["tool"] == "bash" && r["actor_alias"] == "coordinator")
            .unwrap_or_else(|| panic!("no bash call in the trace: {:?}", self.records));
        let answered = self.records.iter().any(|r| {
            r["kind"] == "response"
                && r["seq"].as_u64() < bash["seq"].as_u64()
                && r["actor_true"]["model"] == REVIEWER_MODEL
        });
        assert!(answered, "the reviewer's answer is recorded before the decision: {:?}", self.records);
        bash
    }
}

#[test]
fn an_approving_verdict_for_its_handle_lets_the_granted_command_run() {
    let r = run("oc-verdict-approve", "approve");
    let asked = r.asked();
    let bash = r.bash();
    assert_eq!(bash["part"]["state"]["status"], "completed", "{bash}");
    let written = std::fs::read_to_string(r.project.dir().join("notes.md")).expect("notes.md written");
    assert_eq!(written, CONTENT);
    assert_eq!(r.decided_bash()["decision"], "allow", "{}", r.decided_bash());

    // What the user sees of the review in `opencode run`: the prompt as the reviewer read it, and
    // the reviewer's answer with its verdict word, its handle removed.
    let tasks = tool_uses(&r.out.stdout, "task");
    assert_eq!(tasks.len(), 2, "two delegations: {tasks:?}");
    let relayed = tasks[1]["part"]["state"]["input"]["prompt"].as_str().unwrap_or_default();
    assert!(relayed.contains("[blindfold:verify]") && relayed.contains(&asked[0]), "{relayed}");
    let shown = tasks[1]["part"]["state"]["output"].as_str().unwrap_or_default();
    assert!(shown.contains("VERDICT: approve - writes the release notes file"), "{shown}");
    assert!(!shown.contains(&asked[0]), "{shown}");
    r.assert_coordinator_saw_no_handle();
}

#[test]
fn an_approval_in_prose_only_holds_the_command_for_review() {
    let r = run("oc-verdict-prose", "prose");
    r.asked();
    let bash = r.bash();
    assert_eq!(bash["part"]["state"]["status"], "error", "{bash}");
    let error = bash["part"]["state"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("(unverified, check P3.verification)"), "{error}");
    assert!(error.contains("with reference rv-"), "held in a review a person can approve: {error}");
    assert!(!r.project.exists("notes.md"), "the unverified command ran");
    let decided = r.decided_bash();
    assert_eq!(
        (&decided["decision"], &decided["reason"]),
        (&"review".into(), &"unverified".into()),
        "{decided}"
    );
    r.assert_coordinator_saw_no_handle();
}

#[test]
fn a_refusing_verdict_holds_the_command_as_disputed() {
    let r = run("oc-verdict-refuse", "refuse");
    r.asked();
    let bash = r.bash();
    assert_eq!(bash["part"]["state"]["status"], "error", "{bash}");
    let error = bash["part"]["state"]["error"].as_str().unwrap_or_default();
    assert!(error.contains("(contradicted, check P3.contradiction)"), "{error}");
    assert!(!r.project.exists("notes.md"), "the refused command ran");
    let decided = r.decided_bash();
    assert_eq!(
        (&decided["decision"], &decided["reason"]),
        (&"review".into(), &"contradicted".into()),
        "{decided}"
    );
    r.assert_coordinator_saw_no_handle();
}

#[test]
fn a_command_nobody_checked_waits_for_review_unless_a_verifier_is_configured() {
    let bash = |r: &Run| -> Value {
        let found = r.records.iter().find(|x| x["kind"] == "tool_call" && x["tool"] == "bash");
        found.cloned().unwrap_or_else(|| panic!("no bash call in the trace: {:?}", r.records))
    };
    let without = run("oc-verdict-none", "none");
    let d = bash(&without);
    assert_eq!((&d["decision"], &d["reason"]), (&"review".into(), &"unverified".into()), "{d}");
    assert!(!without.project.dir().join("notes.md").exists());

    let port = blindfold_integration_tests::free_port();
    let dir = tempfile::tempdir().expect("tempdir");
    let record = dir.path().join("verifier.jsonl");
    let _verifier = blindfold_integration_tests::transports::python_peer(
        "chat_verifier.py",
        &[&port.to_string(), "approve", record.to_str().expect("utf8")],
    );
    blindfold_integration_tests::transports::wait_port(port, std::time::Duration::from_secs(20));
    let verifier = format!(
        "[[preverify.verifiers]]\nid = \"second-opinion\"\nchat_url = \"http://127.0.0.1:{port}/v1/chat/completions\"\n\
         model = \"r-small\"\nfamily = \"r\"\n"
    );
    let with = run_with("oc-verdict-verifier", "none", &verifier);
    let d = bash(&with);
    assert_eq!(d["decision"], "allow", "verified by Blindfold's verifier, then granted: {d}");
    let written = std::fs::read_to_string(with.project.dir().join("notes.md")).expect("notes.md written");
    assert_eq!(written, CONTENT);
    assert_eq!(std::fs::read_to_string(&record).unwrap_or_default().lines().count(), 1);
    eprintln!("opencode: legitimate command held for review — without verifiers 1/1, with verifiers 0/1");
}
