//! Verdicts with the real Pi (`@mariozechner/pi-coding-agent@0.73.1`, offline, scripted model,
//! the reference `subagent` extension), set up as the docs say (`blindfold init pi --yes`,
//! `blindfold run --config blindfold.toml`, `pi -p …`): the coordinator asks `scout` for a build
//! step (`touch built.marker`), has `critic` check it, then runs it.
//!
//! - `critic` answers Blindfold's verdict request as a model would (prose, then `VERDICT
//!   <handle>: approve - …`): the step is verified and refused only for its grant; `blindfold
//!   why` gives the grant command, and with it the next turn's step runs. The coordinator's
//!   model never reads Blindfold's instruction or a handle.
//! - an approval in prose only holds the step for review (`unverified`); a refusal with a
//!   `refuse` verdict holds it at `P3.contradiction`.
//! - nobody asked to check it: held `unverified` — and with `[preverify] verifiers` (a scripted
//!   chat endpoint of another family) Blindfold asks one itself and the step is verified: the
//!   legitimate step goes to review without verifiers, not with them.

use blindfold_integration_tests::opencode::keygen;
use blindfold_integration_tests::pi::{ModelServer, PiWorld};
use blindfold_integration_tests::session_checks::{
    grant_command, kinds, last_refusal_id, run_printed, trajectories,
};
use blindfold_integration_tests::transports::{Peer, World, python_peer, trace_records, wait_port};
use blindfold_integration_tests::{Daemon, blindfold, free_port};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::Duration;

const MODELS: [&str; 3] = ["coord-1", "gpt-5-mini", "claude-opus-4"];
const STEP: &str = "touch built.marker";
/// What the user's prompt says about the step's target (the task names what it may touch).
const WHERE: &str = "; the build is recorded in built.marker";

/// A Pi project with `scout` and `critic`, Blindfold set up by `init pi` with a trusted grant key
/// and `extra` config, and its daemon running.
struct Session {
    world: World,
    server: ModelServer,
    pi: PiWorld,
    toml: PathBuf,
    traces: PathBuf,
    _daemon: Daemon,
}

fn session(extra: &str) -> Session {
    let world = World::new("");
    let server = ModelServer::start(&world.path("requests.jsonl"));
    let pi = PiWorld::new(world.dir.path(), server.port, &MODELS);
    std::fs::remove_dir_all(pi.project.join(".pi/extensions")).expect("start without the extension");
    pi.agent("scout", "gpt-5-mini", "OpenAI", "bash,read");
    pi.agent("critic", "claude-opus-4", "Anthropic", "read");
    let keys = keygen(&world.path("keys"));
    let (port, proxy, state) = (free_port(), free_port(), world.path("bf-state"));
    pi.init((port, proxy), &state, &[]);
    let toml = pi.project.join("blindfold.toml");
    let text = std::fs::read_to_string(&toml).expect("blindfold.toml");
    let trusted =
        format!("{text}\n[grants]\ntrusted_keys = [{:?}]\n{extra}\n", keys.public.display().to_string());
    std::fs::write(&toml, trusted).expect("config");
    let daemon = Daemon::on_config(&toml, port, &state);
    Session { traces: state.join("traces"), world, server, pi, toml, _daemon: daemon }
}

impl Session {
    fn turn(&self, prompt: &str, continues: bool) -> String {
        let (code, stdout, stderr) = self.pi.run_session(prompt, continues);
        assert_eq!(code, Some(0), "pi failed:\n{stdout}\n{stderr}");
        stdout
    }

    fn trajectory(&self) -> String {
        let ids: Vec<String> =
            trajectories(&self.traces).into_iter().filter(|t| t.starts_with("pi-")).collect();
        assert_eq!(ids.len(), 1, "one trajectory for the session: {ids:?}");
        ids[0].clone()
    }

    /// (decision, reason, check) of every decided run of the build step.
    fn step_decisions(&self) -> Vec<(String, String, String)> {
        let records = trace_records(&self.traces, &self.trajectory());
        kinds(&records, "tool_call")
            .into_iter()
            .filter(|r| r["target"] == STEP)
            .map(|r| {
                let f = |k: &str| r[k].as_str().unwrap_or_default().to_owned();
                (f("decision"), f("reason"), f("check"))
            })
            .collect()
    }

    fn marker(&self) -> bool {
        self.pi.project.join("built.marker").exists()
    }

    /// The requests of `model`, as text.
    fn requests_of(&self, model: &str) -> Vec<String> {
        self.server.requests().iter().filter(|r| r["model"] == model).map(Value::to_string).collect()
    }
}

fn decision(d: &str, reason: &str, check: &str) -> (String, String, String) {
    (d.to_owned(), reason.to_owned(), check.to_owned())
}

#[test]
fn a_verdict_line_verifies_the_step_and_with_its_grant_it_runs() {
    let s = session("");
    let out = s.turn(&format!("ask scout for a build step and have critic verify it{WHERE}"), false);
    assert!(!s.marker(), "the step ran without a grant");
    assert_eq!(
        s.step_decisions(),
        [decision("deny", "no_grant", "P3.grant")],
        "verified, refused for the grant"
    );
    let critic = s.requests_of("claude-opus-4");
    assert!(
        critic.iter().any(|r| r.contains("[blindfold:verify]") && r.contains("- bf-")),
        "the critic read Blindfold's instruction with a handle: {critic:?}"
    );
    let coordinator = s.requests_of("coord-1").join("\n");
    assert!(
        !coordinator.contains("blindfold:verify")
            && blindfold_integration_tests::session_checks::handles_in(&coordinator).is_empty(),
        "{coordinator}"
    );
    assert!(coordinator.contains("VERDICT: approve"), "the verdict word stays for the coordinator");

    let id = last_refusal_id(&s.server.requests(), &out).unwrap_or_else(|| panic!("no refusal id: {out}"));
    let why =
        blindfold().args(["why", &id, "--config"]).arg(&s.toml).current_dir(s.world.dir.path()).output();
    let why = why.expect("why");
    let text = String::from_utf8_lossy(&why.stdout).into_owned();
    assert!(why.status.success(), "{text}");
    let issued = run_printed(&grant_command(&text), s.world.dir.path());
    assert!(issued.status.success(), "{}", String::from_utf8_lossy(&issued.stderr));
    s.turn("now run the build step", true);
    assert!(s.marker(), "the verified, granted step did not run");
    assert_eq!(
        s.step_decisions(),
        [decision("deny", "no_grant", "P3.grant"), decision("allow", "allowed", "P3.executed_matches")]
    );
}

#[test]
fn a_prose_approval_holds_the_step_and_a_refusal_holds_it_disputed() {
    for (verb, reason, check) in
        [("check", "unverified", "P3.verification"), ("vet", "contradicted", "P3.contradiction")]
    {
        let s = session("");
        s.turn(&format!("ask scout for a build step and have critic {verb} it{WHERE}"), false);
        assert!(!s.marker(), "{verb}: the step ran");
        assert_eq!(s.step_decisions(), [decision("review", reason, check)], "{verb}");
    }
}

/// A scripted chat verifier (`peers/chat_verifier.py`, approving) and the config naming it.
fn chat_verifier(dir: &Path) -> (Peer, String, PathBuf) {
    let port = free_port();
    let record = dir.join("verifier.jsonl");
    let peer =
        python_peer("chat_verifier.py", &[&port.to_string(), "approve", record.to_str().expect("utf8")]);
    wait_port(port, Duration::from_secs(20));
    let config = format!(
        "[[preverify.verifiers]]\nid = \"second-opinion\"\nchat_url = \"http://127.0.0.1:{port}/v1/chat/completions\"\n\
         model = \"r-small\"\nfamily = \"q\"\n"
    );
    (peer, config, record)
}

#[test]
fn without_a_check_the_step_waits_for_review_and_a_configured_verifier_checks_it() {
    let prompt = &format!("ask scout for a build step, then run it{WHERE}");
    let without = session("");
    without.turn(prompt, false);
    let held = without.step_decisions();
    assert_eq!(held, [decision("review", "unverified", "P3.verification")], "without verifiers");

    let dir = tempfile::tempdir().expect("tempdir");
    let (_verifier, config, record) = chat_verifier(dir.path());
    let with = session(&config);
    with.turn(prompt, false);
    let decided = with.step_decisions();
    assert_eq!(
        decided,
        [decision("deny", "no_grant", "P3.grant")],
        "with a verifier: verified, then the grant"
    );
    let asked = std::fs::read_to_string(&record).unwrap_or_default();
    assert_eq!(asked.lines().count(), 1, "{asked}");
    assert!(asked.contains(STEP) && !asked.contains("gpt-5-mini"), "{asked}");
    eprintln!(
        "pi: legitimate build step held for review — without verifiers {}/1, with verifiers {}/1",
        held.iter().filter(|d| d.0 == "review").count(),
        decided.iter().filter(|d| d.0 == "review").count()
    );
}
