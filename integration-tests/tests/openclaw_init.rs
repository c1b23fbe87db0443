//! `blindfold init openclaw`: installs the plugin folder, adds it to the project's
//! `openclaw.json` without losing any setting, points its provider at the model-API proxy, writes
//! `blindfold.toml` with the same listen address and state dir the plugin uses and the
//! sub-agents' identities, shows a diff and asks unless `--yes`, changes nothing on a second run
//! and is undone by `--remove`.

use blindfold_integration_tests::{blindfold, workspace_root};
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

fn init(dir: &Path, config: &Path, extra: &[&str], answer: &str) -> Output {
    let mut child = blindfold()
        .args(["init", "openclaw", "--dir"])
        .arg(dir)
        .arg("--config")
        .arg(config)
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn init");
    child.stdin.take().expect("stdin").write_all(answer.as_bytes()).expect("answer");
    child.wait_with_output().expect("init output")
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json")
}

#[test]
fn init_openclaw_adds_the_plugin_keeps_the_config_and_asks_first() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (dir, state, config) =
        (tmp.path().join("project"), tmp.path().join("state"), tmp.path().join("bf.toml"));
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(&config, format!("[server]\nlisten = \"127.0.0.1:7812\"\n\n[state]\ndir = {state:?}\n"))
        .expect("config");
    let original = json!({
        "models": {"providers": {"probe": {"baseUrl": "http://127.0.0.1:1/v1", "api": "openai-completions"}}},
        "agents": {"entries": {"scout": {"model": "probe/quill-mini-4"}, "critic": {"model": {"primary": "probe/lattice-7b"}}}},
        "plugins": {"allow": ["other"], "entries": {"other": {"enabled": false}}}
    });
    std::fs::write(dir.join("openclaw.json"), original.to_string()).expect("write");

    // Declined: the diff is shown, nothing is written.
    let out = init(&dir, &config, &[], "n\n");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("+ ") && shown.contains("allowConversationAccess"), "{shown}");
    assert!(shown.contains("new file") && shown.contains("index.ts"), "{shown}");
    assert_eq!(read_json(&dir.join("openclaw.json")), original);
    assert!(!dir.join(".openclaw").exists() && !dir.join("blindfold.toml").exists());

    // Accepted on stdin.
    let out = init(&dir, &config, &[], "y\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cfg = read_json(&dir.join("openclaw.json"));
    let mut routed = original["models"].clone();
    routed["providers"]["probe"]["baseUrl"] = json!("http://127.0.0.1:7701/v1");
    assert_eq!(cfg["models"], routed, "the provider goes through the model-API proxy");
    assert_eq!(cfg["agents"], original["agents"]);
    let plugins = &cfg["plugins"];
    assert_eq!(plugins["allow"], json!(["other", "blindfold"]));
    assert_eq!(plugins["entries"]["other"], json!({"enabled": false}));
    let plugin_dir = std::fs::canonicalize(&dir).expect("dir").join(".openclaw/plugins/blindfold");
    assert_eq!(plugins["load"]["paths"], json!([plugin_dir.display().to_string()]));
    let entry = &plugins["entries"]["blindfold"];
    assert_eq!(entry["enabled"], json!(true));
    assert_eq!(entry["hooks"]["allowConversationAccess"], json!(true));
    assert_eq!(entry["config"]["url"], json!("ws://127.0.0.1:7812/v1/control"));
    assert_eq!(entry["config"]["tokenFile"], json!(state.join("adapter.token").display().to_string()));
    assert_eq!(entry["config"]["modelProxy"], json!(true));
    assert!(entry["config"].get("trajectory").is_none(), "no pinned trajectory: one per session");
    assert!(state.join("adapter.token").exists(), "the adapter token exists");

    // The plugin is the shipped one; its control client is the shared one, next to it.
    let src = workspace_root().join("adapters");
    for (installed, shipped) in [
        ("index.ts", "openclaw-plugin/index.ts"),
        ("openclaw.plugin.json", "openclaw-plugin/openclaw.plugin.json"),
        ("../blindfold-common/control.ts", "blindfold-common/control.ts"),
    ] {
        assert_eq!(
            std::fs::read(plugin_dir.join(installed)).expect("installed"),
            std::fs::read(src.join(shipped)).expect("shipped"),
            "{installed}"
        );
    }
    let toml = std::fs::read_to_string(dir.join("blindfold.toml")).expect("project config");
    assert!(toml.contains("id = \"scout\"\nmodel = \"quill-mini-4\""), "{toml}");
    assert!(toml.contains("id = \"critic\"\nmodel = \"lattice-7b\""), "{toml}");
    let validated =
        blindfold().args(["run", "--print-config", "--config"]).arg(dir.join("blindfold.toml")).output();
    let validated = validated.expect("print-config");
    assert!(validated.status.success(), "the written config is valid");
    let effective: toml::Value = toml::from_str(&String::from_utf8_lossy(&validated.stdout)).expect("toml");
    assert_eq!(effective["server"]["listen"].as_str(), Some("127.0.0.1:7812"), "the plugin's port");
    assert_eq!(effective["state"]["dir"].as_str(), Some(state.display().to_string().as_str()));
    assert_eq!(effective["model_proxy"]["upstream"].as_str(), Some("http://127.0.0.1:1"));

    // Running again changes nothing.
    let out = init(&dir, &config, &["--yes"], "");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to change"));

    // A hand-edited plugin file is shown as a diff and replaced only when confirmed.
    std::fs::write(plugin_dir.join("index.ts"), "// edited by hand\n").expect("edit");
    let out = init(&dir, &config, &[], "n\n");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("- // edited by hand"));
    assert_eq!(std::fs::read_to_string(plugin_dir.join("index.ts")).expect("kept"), "// edited by hand\n");
    assert!(init(&dir, &config, &["--yes"], "").status.success());
    assert_ne!(
        std::fs::read_to_string(plugin_dir.join("index.ts")).expect("replaced"),
        "// edited by hand\n"
    );

    // Undone: the plugin leaves the config, the provider points at its model API again.
    let out = init(&dir, &config, &["--remove", "--yes"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let back = read_json(&dir.join("openclaw.json"));
    assert_eq!(back["models"], original["models"]);
    assert_eq!(back["plugins"]["allow"], json!(["other"]));
    assert!(back["plugins"]["entries"].get("blindfold").is_none(), "{back}");
    assert!(!plugin_dir.join("index.ts").exists());
}

#[test]
fn json5_configs_are_not_rewritten() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let config = tmp.path().join("bf.toml");
    std::fs::write(&config, format!("[state]\ndir = {:?}\n", tmp.path().join("state"))).expect("config");
    std::fs::write(tmp.path().join("openclaw.json"), "{ // mine\n  agents: {},\n}").expect("write");
    let out = init(tmp.path(), &config, &["--yes"], "");
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stdout));
    assert!(String::from_utf8_lossy(&out.stderr).contains("plugins.load.paths"));
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("openclaw.json")).expect("kept"),
        "{ // mine\n  agents: {},\n}"
    );
    assert!(!tmp.path().join(".openclaw").exists());
}
