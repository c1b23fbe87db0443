//! The real Pi (`@mariozechner/pi-coding-agent@0.73.1`, offline, scripted model, the reference
//! `subagent` extension) set up as the docs say: agent files in the user's agent folder,
//! `blindfold init pi --yes`, `blindfold run --config blindfold.toml`, then
//! `pi -p …`. The extension and the model-API proxy share the session's trajectory by themselves
//! (no BLINDFOLD_TRAJECTORY): delegation reaches the agents the coordinator named (the scripted
//! model sees their true models), the refuted `rm -rf data` is held for review by
//! `P3.contradiction` (refused before it reaches Pi), and each delegation and the coordinator's
//! call are recorded once.

use blindfold_integration_tests::pi::{ModelServer, PiWorld};
use blindfold_integration_tests::transports::{World, trace_records};
use blindfold_integration_tests::{Daemon, free_port};
use serde_json::Value;

const MODELS: [&str; 3] = ["coord-1", "gpt-5-mini", "claude-opus-4"];
const PROMPT: &str = "ask scout for a plan and ask critic to review it, then act";

#[test]
fn a_pi_session_set_up_by_init_pairs_extension_and_proxy_and_the_refuted_command_never_runs() {
    let world = World::new("");
    let server = ModelServer::start(&world.path("requests.jsonl"));
    let pi = PiWorld::new(world.dir.path(), server.port, &MODELS);
    // As a user has it: no Blindfold in the project yet, the agents in the user's agent folder
    // (the reference `subagent` tool reads project agents only with `agentScope`; init reads both
    // folders: pi_init.rs).
    std::fs::remove_dir_all(pi.project.join(".pi/extensions")).expect("start without the extension");
    pi.agent("scout", "gpt-5-mini", "OpenAI", "bash,read");
    pi.agent("critic", "claude-opus-4", "Anthropic", "read");
    std::fs::create_dir_all(pi.project.join("data")).expect("data");
    std::fs::write(pi.project.join("data/keep.txt"), "the only copy\n").expect("data file");

    let (port, proxy, state) = (free_port(), free_port(), world.path("bf-state"));
    pi.init((port, proxy), &state, &[]);
    let mut daemon = Daemon::on_config(&pi.project.join("blindfold.toml"), port, &state);

    let (code, stdout, stderr) = pi.run(PROMPT, &[]);
    assert_eq!(code, Some(0), "pi failed:\n{stdout}\n{stderr}");
    let requests = server.requests();
    let models: Vec<&str> =
        requests.iter().filter_map(|r| r["model"].as_str()).filter(|m| *m != "coord-1").collect();
    let first = |m: &str| models.iter().position(|x| *x == m);
    assert!(
        first("gpt-5-mini").is_some() && first("gpt-5-mini") < first("claude-opus-4"),
        "{models:?}\n{stdout}"
    );
    assert!(pi.project.join("data/keep.txt").exists(), "the refuted command ran");
    assert!(stdout.contains("Blindfold refused the `bash`"), "the model is told: {stdout}");

    // One trajectory for the session (its children join it), each delegation recorded once, the
    // coordinator's rm -rf held.
    let mut ids: Vec<String> = Vec::new();
    for f in std::fs::read_dir(state.join("traces")).expect("traces").flatten() {
        for r in std::fs::read_to_string(f.path()).unwrap_or_default().lines() {
            let t =
                serde_json::from_str::<Value>(r).map(|v| v["trajectory"].as_str().unwrap_or("").to_owned());
            if let Ok(t) = t
                && t.starts_with("pi-")
                && !ids.contains(&t)
            {
                ids.push(t);
            }
        }
    }
    assert_eq!(ids.len(), 1, "{ids:?}");
    let records = trace_records(&state.join("traces"), &ids[0]);
    assert_eq!(records.iter().filter(|r| r["kind"] == "delegate").count(), 2, "{records:?}");
    let held: Vec<&Value> = records
        .iter()
        .filter(|r| {
            r["kind"] == "tool_call" && r["actor_alias"] == "coordinator" && r["target"] == "rm -rf data"
        })
        .collect();
    assert_eq!(held.len(), 1, "the coordinator's call once: {records:?}");
    // Held by the reviewer's refutation (issue 27: never allowed, never silently denied), though
    // nothing Blindfold trusts names the command either: the refutation decides, not the
    // evidence check it would also fail.
    let decided = (held[0]["decision"].as_str(), held[0]["check"].as_str(), held[0]["reason"].as_str());
    assert_eq!(decided, (Some("review"), Some("P3.contradiction"), Some("contradicted")), "{}", held[0]);
    let late = blindfold_integration_tests::session_checks::answered_after(&records, held[0]);
    assert!(late.is_empty(), "decided before the answers it follows were observed: {late:?}");
    let _ = daemon.child.kill();
}
