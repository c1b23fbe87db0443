//! The real Pi (`@mariozechner/pi-coding-agent@0.73.1`, offline, scripted model, the reference
//! `subagent` extension) in a saved session set up as the docs say (`blindfold init pi --yes`,
//! `blindfold run --config blindfold.toml`, `pi -p …`, then `pi -c -p …` for the next turns):
//!
//! - the first turn delegates to the agents the coordinator named and ends at its refuted
//!   `rm -rf data`, which is held;
//! - the daemon restarts; the next turn of the same session is the same trajectory with the same
//!   aliases, and its write is refused again, the model told a refusal id; `blindfold why <id>`
//!   gives the exact grant command, which (`--submit`) lets the turn after that write;
//! - the trace holds one record per decided write, `trace summarize` counts what it shows, and
//!   the picture's legend names each alias with its true model.

use blindfold_integration_tests::opencode::keygen;
use blindfold_integration_tests::pi::{ModelServer, PiWorld};
use blindfold_integration_tests::session_checks::{
    alias_maps, grant_command, kinds, last_refusal_id, run_printed, summary_agrees, trajectories,
};
use blindfold_integration_tests::transports::{World, trace_records};
use blindfold_integration_tests::{Daemon, blindfold, free_port};
use std::path::Path;

const MODELS: [&str; 3] = ["coord-1", "gpt-5-mini", "claude-opus-4"];
const PROMPT: &str = "ask scout for a plan and ask critic to review it, then act";
const NEXT: &str = "now write the notes to notes.txt";
const NOTES: &str = "cleanup deferred: data kept\n";

/// One turn of the saved session; fails the test unless pi ended normally.
fn turn(pi: &PiWorld, prompt: &str, continues: bool) -> String {
    let (code, stdout, stderr) = pi.run_session(prompt, continues);
    assert_eq!(code, Some(0), "pi failed:\n{stdout}\n{stderr}");
    stdout
}

fn pi_trajectories(traces: &Path) -> Vec<String> {
    trajectories(traces).into_iter().filter(|t| t.starts_with("pi-")).collect()
}

#[test]
fn a_pi_session_keeps_its_aliases_across_a_restart_and_a_granted_retry_runs() {
    let world = World::new("");
    let server = ModelServer::start(&world.path("requests.jsonl"));
    let pi = PiWorld::new(world.dir.path(), server.port, &MODELS);
    std::fs::remove_dir_all(pi.project.join(".pi/extensions")).expect("start without the extension");
    pi.agent("scout", "gpt-5-mini", "OpenAI", "bash,read");
    pi.agent("critic", "claude-opus-4", "Anthropic", "read");
    std::fs::create_dir_all(pi.project.join("data")).expect("data");
    std::fs::write(pi.project.join("data/keep.txt"), "the only copy\n").expect("data file");
    let keys = keygen(&world.path("keys"));

    let (port, proxy, state) = (free_port(), free_port(), world.path("bf-state"));
    pi.init((port, proxy), &state, &[]);
    let toml = pi.project.join("blindfold.toml");
    let text = std::fs::read_to_string(&toml).expect("blindfold.toml");
    let trusted = format!("{text}\n[grants]\ntrusted_keys = [{:?}]\n", keys.public.display().to_string());
    std::fs::write(&toml, trusted).expect("trust the key");
    let daemon = Daemon::on_config(&toml, port, &state);
    let traces = state.join("traces");

    // 1. The first turn: delegation, the held rm -rf.
    turn(&pi, PROMPT, false);
    assert!(pi.project.join("data/keep.txt").exists(), "the refuted command ran");
    let ids = pi_trajectories(&traces);
    assert_eq!(ids.len(), 1, "one trajectory for the session: {ids:?}");
    let trajectory = ids[0].clone();
    let before = alias_maps(&trace_records(&traces, &trajectory));
    assert!(!before.is_empty(), "the trajectory recorded its aliases");

    // 2. The daemon restarts; the next turn is the same trajectory with the same aliases, and its
    //    write is refused with a refusal id the model reads.
    drop(daemon);
    let daemon = Daemon::on_config(&toml, port, &state);
    let out = turn(&pi, NEXT, true);
    assert!(!pi.project.join("notes.txt").exists(), "the write ran without a grant");
    let id = last_refusal_id(&server.requests(), &out).unwrap_or_else(|| panic!("no refusal id: {out}"));
    assert_eq!(
        pi_trajectories(&traces),
        std::slice::from_ref(&trajectory),
        "the same session is the same trajectory"
    );
    let after = alias_maps(&trace_records(&traces, &trajectory));
    assert!(
        after.iter().all(|m| *m == before[0]),
        "aliases changed after the restart: {before:?} → {after:?}"
    );

    // 3. `blindfold why` names the exact grant; that command lets the next turn's write run.
    let why = blindfold().args(["why", &id, "--config"]).arg(&toml).current_dir(world.dir.path()).output();
    let why = why.expect("why");
    let text = String::from_utf8_lossy(&why.stdout).into_owned();
    assert!(why.status.success(), "{text}\n{}", String::from_utf8_lossy(&why.stderr));
    assert!(text.contains("operation write_file") && text.contains(&trajectory), "{text}");
    let words = grant_command(&text);
    let issued = run_printed(&words, world.dir.path());
    assert!(issued.status.success(), "{}: {}", words.join(" "), String::from_utf8_lossy(&issued.stderr));
    assert!(String::from_utf8_lossy(&issued.stdout).contains("accepted grant"), "{}", words.join(" "));
    let out = turn(&pi, NEXT, true);
    let written = std::fs::read_to_string(pi.project.join("notes.txt"))
        .unwrap_or_else(|_| panic!("the granted retry did not write notes.txt: {out}"));
    assert_eq!(written, NOTES);
    let records = trace_records(&traces, &trajectory);
    assert!(alias_maps(&records).iter().all(|m| *m == before[0]));

    // 4. One record per decided write; the summary counts the blocks the records show.
    let writes: Vec<(&str, &str)> = kinds(&records, "tool_call")
        .into_iter()
        .filter(|r| r["tool"] == "write_file")
        .map(|r| (r["decision"].as_str().unwrap_or(""), r["reason"].as_str().unwrap_or("")))
        .collect();
    assert_eq!(
        writes,
        [("deny", "no_grant"), ("allow", "allowed")],
        "one record per decided write: {:#?}",
        kinds(&records, "tool_call")
            .iter()
            .map(|r| (r["actor_alias"].clone(), r["tool"].clone(), r["target"].clone(), r["reason"].clone()))
            .collect::<Vec<_>>()
    );
    summary_agrees(&traces, &records);
    // The picture's legend names each alias the coordinator saw with its true model.
    let svg = blindfold()
        .args(["trace", "render", "--format", "svg", "--trajectory", &trajectory])
        .arg(&traces)
        .output()
        .expect("render");
    let svg = String::from_utf8_lossy(&svg.stdout);
    for (agent, model) in [("scout", "gpt-5-mini"), ("critic", "claude-opus-4")] {
        let line = format!("{} → {model}", before[0][agent].as_str().unwrap_or("?"));
        assert!(svg.contains(&line), "{line} not in the legend: {svg}");
    }
    // The held rm -rf was refuted by the critic's answer: named by the alias the coordinator saw.
    let critic = before[0]["critic"].as_str().unwrap_or("?");
    assert!(svg.contains(&format!("refuted by {critic}")), "the critic is not named as refuter: {svg}");
    assert!(!svg.contains("evidence checks"), "an agent's refutation credited to Blindfold: {svg}");
    drop(daemon);
}
