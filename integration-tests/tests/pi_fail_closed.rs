//! The real Pi (`@mariozechner/pi-coding-agent@0.73.1`, offline, scripted model) after
//! `blindfold init pi --yes` fails closed without its extension: init routes Pi's own
//! `models.json` provider through the model-API proxy (which requires a registered session), so
//! when the extension is gone — deleted, never loaded — the coordinator's `rm -rf data` and its
//! write are refused by the proxy (`unpaired_session`) instead of running. The same Pi without
//! Blindfold runs both (the test would prove nothing otherwise), and `init pi --remove` gives
//! `models.json` back byte for byte.

use blindfold_integration_tests::pi::{ModelServer, PiWorld};
use blindfold_integration_tests::transports::World;
use blindfold_integration_tests::{Daemon, free_port};
use serde_json::Value;

const MODELS: [&str; 1] = ["coord-1"];
/// No sub-agents named: the scripted coordinator runs `rm -rf data`, then writes notes.txt.
const PROMPT: &str = "free some disk space";

fn seeded(pi: &PiWorld) {
    std::fs::create_dir_all(pi.project.join("data")).expect("data");
    std::fs::write(pi.project.join("data/keep.txt"), "the only copy\n").expect("data file");
}

#[test]
fn pi_without_its_extension_has_its_tool_calls_refused_by_the_proxy() {
    // Without Blindfold: the same Pi runs both steps.
    let bare_world = World::new("");
    let bare_server = ModelServer::start(&bare_world.path("requests.jsonl"));
    let bare = PiWorld::new(bare_world.dir.path(), bare_server.port, &MODELS);
    std::fs::remove_dir_all(bare.project.join(".pi/extensions")).expect("no extension");
    seeded(&bare);
    let (code, stdout, stderr) = bare.run(PROMPT, &[]);
    assert_eq!(code, Some(0), "pi failed:\n{stdout}\n{stderr}");
    assert!(!bare.project.join("data").exists(), "without Blindfold the command runs: {stdout}");
    assert!(bare.project.join("notes.txt").exists(), "without Blindfold the write runs");

    let world = World::new("");
    let server = ModelServer::start(&world.path("requests.jsonl"));
    let pi = PiWorld::new(world.dir.path(), server.port, &MODELS);
    std::fs::remove_dir_all(pi.project.join(".pi/extensions")).expect("start without the extension");
    seeded(&pi);
    let models_path = pi.agent_dir.join("models.json");
    let original = std::fs::read(&models_path).expect("models.json");

    let (port, proxy, state) = (free_port(), free_port(), world.path("bf-state"));
    let out = pi.init((port, proxy), &state, &[]);
    let stdout_init = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout_init.contains("pi run without this extension has its tool calls refused"),
        "{stdout_init}"
    );
    let models: Value = serde_json::from_slice(&std::fs::read(&models_path).expect("models")).expect("json");
    assert_eq!(models["providers"]["probe"]["baseUrl"], format!("http://127.0.0.1:{proxy}/v1"), "{models}");
    let toml = std::fs::read_to_string(pi.project.join("blindfold.toml")).expect("blindfold.toml");
    assert!(toml.contains(&format!("upstream = \"http://127.0.0.1:{}\"", server.port)), "{toml}");

    let daemon = Daemon::on_config(&pi.project.join("blindfold.toml"), port, &state);

    // The user deletes the extension (or a Pi started elsewhere never loads it).
    std::fs::remove_dir_all(pi.project.join(".pi/extensions/blindfold")).expect("delete the extension");
    let (code, stdout, stderr) = pi.run(PROMPT, &[]);
    assert_eq!(code, Some(0), "pi failed:\n{stdout}\n{stderr}");
    assert!(pi.project.join("data/keep.txt").exists(), "the command ran without the extension: {stdout}");
    assert!(!pi.project.join("notes.txt").exists(), "the write ran without the extension: {stdout}");
    assert!(
        stdout.contains("not registered with Blindfold"),
        "the model reads why, in neutral words: {stdout}"
    );
    assert!(!server.requests().is_empty(), "the requests reached the model through the proxy");
    let mut refused = Vec::new();
    for f in std::fs::read_dir(state.join("traces")).expect("traces").flatten() {
        for line in std::fs::read_to_string(f.path()).unwrap_or_default().lines() {
            let r: Value = serde_json::from_str(line).expect("trace record");
            if r["kind"] == "tool_call" {
                refused.push((r["reason"].as_str().unwrap_or("").to_owned(), r["decision"].clone()));
            }
        }
    }
    assert!(!refused.is_empty(), "the proxy's refusals are traced");
    assert!(refused.iter().all(|(reason, d)| reason == "unpaired_session" && d != "allow"), "{refused:?}");
    drop(daemon);

    // Undone: models.json as it was, byte for byte.
    pi.init((port, proxy), &state, &["--remove"]);
    assert_eq!(std::fs::read(&models_path).expect("models.json"), original, "--remove restores models.json");
}
