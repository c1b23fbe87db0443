//! `blindfold init pi --yes`: installs the extension and its settings pointing at the same daemon
//! as the project's `blindfold.toml`, routes the project's providers through the model-API proxy
//! (in the extension's settings and in Pi's own `models.json`, changing only the base URL), records
//! the agents of both agent folders with their true identities, changes nothing when run again
//! and is undone by `--remove` (`models.json` byte for byte); `--keep-models-json` leaves Pi's
//! file alone.

use blindfold_integration_tests::{blindfold, workspace_root};
use serde_json::{Value, json};
use std::path::Path;

fn init(project: &Path, agent_dir: &Path, state: &Path, extra: &[&str]) -> std::process::Output {
    blindfold()
        .args(["init", "pi", "--dir"])
        .arg(project)
        .args(extra)
        .env("PI_CODING_AGENT_DIR", agent_dir)
        .env("BLINDFOLD_SERVER__LISTEN", "127.0.0.1:7821")
        .env("BLINDFOLD_STATE__DIR", state)
        .env("BLINDFOLD_MODEL_PROXY__LISTEN", "127.0.0.1:7822")
        .output()
        .expect("init pi")
}

#[test]
fn init_pi_installs_the_extension_routes_the_provider_and_records_the_agents() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (project, agent_dir, state) =
        (dir.path().join("project"), dir.path().join("agent"), dir.path().join("state"));
    std::fs::create_dir_all(agent_dir.join("agents")).expect("agent dir");
    std::fs::create_dir_all(project.join(".pi/agents")).expect("project agents");
    let models = json!({"providers": {"probe": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-completions",
        "apiKey": "k", "models": [{"id": "coord-1"}]}}});
    std::fs::write(agent_dir.join("models.json"), models.to_string()).expect("models.json");
    std::fs::write(
        agent_dir.join("agents/scout.md"),
        "---\nname: scout\nmodel: probe/quill-mini-4\nprovider: Quillworks\n---\n",
    )
    .expect("user agent");
    std::fs::write(
        project.join(".pi/agents/critic.md"),
        "---\nname: critic\nmodel: probe/claude-haiku-4\n---\n",
    )
    .expect("project agent");

    let out = init(&project, &agent_dir, &state, &["--yes"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("blindfold run --config") && stdout.contains("pi -p"), "{stdout}");
    assert!(stdout.contains("run the daemon as its own system user"), "init offers it: {stdout}");
    let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    assert_eq!(
        read(&project.join(".pi/extensions/blindfold/index.ts")),
        read(&workspace_root().join("adapters/pi-extension/index.ts"))
    );
    assert_eq!(
        read(&project.join(".pi/extensions/blindfold-common/control.ts")),
        read(&workspace_root().join("adapters/blindfold-common/control.ts"))
    );
    let settings: Value = serde_json::from_str(&read(&project.join(".pi/blindfold.json"))).expect("json");
    assert_eq!(settings["url"], "ws://127.0.0.1:7821/v1/control");
    assert_eq!(settings["tokenFile"], state.join("adapter.token").display().to_string());
    assert_eq!(settings["providers"], json!({"probe": "http://127.0.0.1:7822/v1"}));
    let routed = models.to_string().replace("http://127.0.0.1:9/v1", "http://127.0.0.1:7822/v1");
    assert_eq!(read(&agent_dir.join("models.json")), routed, "only the provider's base URL changes");
    let toml_path = project.join("blindfold.toml");
    let printed =
        blindfold().args(["run", "--print-config", "--config"]).arg(&toml_path).output().expect("run");
    assert!(printed.status.success(), "{}", String::from_utf8_lossy(&printed.stderr));
    let effective: toml::Value = toml::from_str(&String::from_utf8_lossy(&printed.stdout)).expect("toml");
    assert_eq!(effective["server"]["listen"].as_str(), Some("127.0.0.1:7821"));
    assert_eq!(effective["model_proxy"]["upstream"].as_str(), Some("http://127.0.0.1:9"));
    let agents: Vec<(String, String, String)> = effective["identity"]["agents"]
        .as_array()
        .expect("agents")
        .iter()
        .map(|a| {
            let f = |k: &str| a[k].as_str().unwrap_or_default().to_owned();
            (f("id"), f("model"), f("provider"))
        })
        .collect();
    let expect = |a: &str, b: &str, c: &str| (a.to_owned(), b.to_owned(), c.to_owned());
    assert_eq!(
        agents,
        [expect("critic", "claude-haiku-4", "Anthropic"), expect("scout", "quill-mini-4", "Quillworks")]
    );

    let again = init(&project, &agent_dir, &state, &["--yes"]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("nothing to change"));

    let removed = init(&project, &agent_dir, &state, &["--remove", "--yes"]);
    assert!(removed.status.success(), "{}", String::from_utf8_lossy(&removed.stderr));
    assert!(
        !project.join(".pi/extensions/blindfold").exists() && !project.join(".pi/blindfold.json").exists()
    );
    assert_eq!(read(&agent_dir.join("models.json")), models.to_string(), "--remove restores models.json");

    // Asked to leave models.json alone, init says what that costs and leaves it.
    let kept = init(&project, &agent_dir, &state, &["--yes", "--keep-models-json"]);
    assert!(kept.status.success(), "{}", String::from_utf8_lossy(&kept.stderr));
    assert!(String::from_utf8_lossy(&kept.stdout).contains("reaches the model directly"));
    assert_eq!(read(&agent_dir.join("models.json")), models.to_string());
}
