//! `blindfold init opencode`: the plugin, its settings and a project config pointing at the same
//! daemon, the provider routed through the model-API proxy by a one-value edit of the user's
//! config (key order, rules and comments kept), every sub-agent form (`agent` in opencode.json
//! and `.opencode/agent/*.md`) recorded with its true identity; asks unless `--yes`, changes
//! nothing when run again, and `--remove` gives the user's config back byte for byte.

use blindfold_integration_tests::{blindfold, workspace_root};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

const ORIGINAL: &str = r#"{
  "model": "local/m",
  "provider": {"local": {"npm": "@ai-sdk/openai-compatible", "options": {"baseURL": "http://127.0.0.1:8080/v1", "apiKey": "k"}}},
  "agent": {"reviewer": {"mode": "subagent", "description": "reviews", "model": "local/gpt-5"}},
  "permission": {"bash": "deny", "read": "allow", "edit": {"docs/**": "allow"}}
}
"#;

fn init(dir: &Path, state: &Path, extra: &[&str], answer: &str) -> Output {
    let mut child = blindfold()
        .args(["init", "opencode", "--dir"])
        .arg(dir)
        .args(extra)
        .env("BLINDFOLD_SERVER__LISTEN", "127.0.0.1:7811")
        .env("BLINDFOLD_STATE__DIR", state)
        .env("BLINDFOLD_MODEL_PROXY__LISTEN", "127.0.0.1:7812")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn init");
    child.stdin.take().expect("stdin").write_all(answer.as_bytes()).expect("answer");
    child.wait_with_output().expect("init output")
}

fn text(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn init_routes_the_provider_records_every_agent_form_and_undoes_itself() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (dir, state) = (tmp.path().join("project"), tmp.path().join("state"));
    std::fs::create_dir_all(dir.join(".opencode/agent")).expect("mkdir");
    std::fs::write(dir.join("opencode.json"), ORIGINAL).expect("write");
    std::fs::write(
        dir.join(".opencode/agent/auditor.md"),
        "---\ndescription: audits\nmode: subagent\nmodel: local/claude-haiku-4\n---\nAudit.\n",
    )
    .expect("md agent");

    // Declined: the diff is shown, nothing is written.
    let out = init(&dir, &state, &[], "n\n");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("+   \"provider\"") && shown.contains("127.0.0.1:7812/v1"), "{shown}");
    assert!(!dir.join(".opencode/plugins").exists() && !dir.join("blindfold.toml").exists());
    assert_eq!(text(&dir.join("opencode.json")), ORIGINAL);

    let out = init(&dir, &state, &["--yes"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let toml_path = dir.join("blindfold.toml");
    assert!(stdout.contains(&format!("blindfold run --config {}", toml_path.display())), "{stdout}");
    // One value changed; every rule, key and its order stays.
    assert_eq!(
        text(&dir.join("opencode.json")),
        ORIGINAL.replace("http://127.0.0.1:8080/v1", "http://127.0.0.1:7812/v1")
    );
    let shipped = |p: &str| text(&workspace_root().join("adapters").join(p));
    assert_eq!(text(&dir.join(".opencode/plugins/blindfold.ts")), shipped("opencode-plugin/blindfold.ts"));
    assert_eq!(
        text(&dir.join(".opencode/blindfold-common/control.ts")),
        shipped("blindfold-common/control.ts")
    );
    let settings: Value = serde_json::from_str(&text(&dir.join(".opencode/blindfold.json"))).expect("json");
    assert_eq!(settings["url"], "ws://127.0.0.1:7811/v1/control");
    assert_eq!(settings["tokenFile"], state.join("adapter.token").display().to_string());
    assert_eq!(settings["modelProxy"], true);
    assert!(state.join("adapter.token").exists(), "the adapter token exists");

    // The project config names what the plugin uses, and both agents with their models;
    // `run --print-config` shows them.
    let printed =
        blindfold().args(["run", "--print-config", "--config"]).arg(&toml_path).output().expect("run");
    assert!(printed.status.success(), "{}", String::from_utf8_lossy(&printed.stderr));
    let effective: toml::Value = toml::from_str(&String::from_utf8_lossy(&printed.stdout)).expect("toml");
    assert_eq!(effective["server"]["listen"].as_str(), Some("127.0.0.1:7811"));
    assert_eq!(effective["model_proxy"]["upstream"].as_str(), Some("http://127.0.0.1:8080"));
    assert_eq!(effective["model_proxy"]["listen"].as_str(), Some("127.0.0.1:7812"));
    assert_eq!(effective["model_proxy"]["sessions"].as_str(), Some("required"));
    let agents = effective["identity"]["agents"].as_array().expect("agents");
    let found: Vec<(&str, &str, &str, &str)> = agents
        .iter()
        .map(|a| {
            let f = |k: &str| a[k].as_str().unwrap_or_default();
            (f("id"), f("model"), f("family"), f("provider"))
        })
        .collect();
    assert_eq!(
        found,
        [("reviewer", "gpt-5", "gpt", "OpenAI"), ("auditor", "claude-haiku-4", "claude", "Anthropic")]
    );

    // Again: nothing changes.
    let out = init(&dir, &state, &["--yes"], "");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to change"));

    // Undone: the user's config byte for byte, the plugin gone.
    let out = init(&dir, &state, &["--remove", "--yes"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(text(&dir.join("opencode.json")), ORIGINAL);
    assert!(
        !dir.join(".opencode/plugins/blindfold.ts").exists()
            && !dir.join(".opencode/blindfold.json").exists()
    );
}

#[test]
fn a_commented_config_keeps_its_comments() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let original = ORIGINAL.replacen("{\n", "{\n  // my model\n", 1);
    std::fs::write(tmp.path().join("opencode.jsonc"), &original).expect("write");
    let out = init(tmp.path(), &tmp.path().join("state"), &["--yes"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let after = text(&tmp.path().join("opencode.jsonc"));
    assert_eq!(after, original.replace("127.0.0.1:8080", "127.0.0.1:7812"));
    assert!(!tmp.path().join("opencode.json").exists());
}
