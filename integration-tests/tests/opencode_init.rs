//! `blindfold init opencode`: writes the plugin, its settings, a project config and the
//! permission block without clobbering the project's OpenCode config; asks unless `--yes`.

use blindfold_integration_tests::{blindfold, workspace_root};
use serde_json::{Value, json};
use std::io::Write;
use std::process::{Output, Stdio};

fn init(dir: &std::path::Path, state: &std::path::Path, extra: &[&str], answer: &str) -> Output {
    let mut child = blindfold()
        .args(["init", "opencode", "--dir"])
        .arg(dir)
        .args(extra)
        .env("XDG_STATE_HOME", state)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn init");
    child.stdin.take().expect("stdin").write_all(answer.as_bytes()).expect("answer");
    child.wait_with_output().expect("init output")
}

#[test]
fn init_merges_permissions_writes_the_plugin_and_asks_first() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (dir, state) = (tmp.path().join("project"), tmp.path().join("state"));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let original = json!({
        "model": "local/m", "agent": {"reviewer": {"mode": "subagent", "description": "reviews"}},
        "permission": {"bash": "deny", "read": "allow", "edit": {"docs/**": "allow"}}
    });
    std::fs::write(dir.join("opencode.json"), original.to_string()).expect("write");

    // Declined: the diff is shown, nothing is written.
    let out = init(&dir, &state, &[], "n\n");
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    let shown = String::from_utf8_lossy(&out.stdout);
    assert!(shown.contains("+ ") && shown.contains("\"webfetch\": \"ask\""), "{shown}");
    assert!(!dir.join(".opencode").exists());
    let kept: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("opencode.json")).expect("read"))
            .expect("json");
    assert_eq!(kept, original);

    // Accepted with --yes.
    let out = init(&dir, &state, &["--yes"], "");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let cfg: Value = serde_json::from_str(&std::fs::read_to_string(dir.join("opencode.json")).expect("read"))
        .expect("json");
    assert_eq!(cfg["model"], "local/m");
    assert_eq!(cfg["agent"], original["agent"]);
    let p = &cfg["permission"];
    assert_eq!(p["bash"], "deny", "a deny is never loosened");
    assert_eq!(p["read"], "allow");
    for key in ["webfetch", "external_directory", "task"] {
        assert_eq!(p[key], "ask", "{key}");
    }
    assert_eq!(p["edit"], json!({"*": "ask", "docs/**": "ask"}));
    let plugin = std::fs::read_to_string(dir.join(".opencode/plugins/blindfold.ts")).expect("plugin");
    let shipped =
        std::fs::read_to_string(workspace_root().join("adapters/opencode-plugin/blindfold.ts")).expect("src");
    assert_eq!(plugin, shipped);
    let control =
        std::fs::read_to_string(dir.join(".opencode/blindfold-common/control.ts")).expect("control");
    let shared = std::fs::read_to_string(workspace_root().join("adapters/blindfold-common/control.ts"))
        .expect("shared");
    assert_eq!(control, shared, "the plugin's import resolves to the shared client");
    let settings: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join(".opencode/blindfold.json")).expect("settings"),
    )
    .expect("json");
    assert_eq!(settings["url"], "ws://127.0.0.1:7700/v1/control");
    let token_file = settings["tokenFile"].as_str().expect("token file");
    assert!(std::path::Path::new(token_file).exists(), "the adapter token exists: {token_file}");
    let toml = std::fs::read_to_string(dir.join("blindfold.toml")).expect("project config");
    assert!(toml.contains("[opencode]") && toml.contains("task = \"opencode-"), "{toml}");
    assert!(toml.contains("# id = \"reviewer\""), "{toml}");
    let validated =
        blindfold().args(["run", "--print-config", "--config"]).arg(dir.join("blindfold.toml")).output();
    assert!(validated.expect("print-config").status.success(), "the written config is valid");

    // Running again changes nothing.
    let out = init(&dir, &state, &["--yes"], "");
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("nothing to change"));
}

#[test]
fn commented_configs_are_not_rewritten() {
    let tmp = tempfile::tempdir().expect("tempdir");
    std::fs::write(tmp.path().join("opencode.jsonc"), "{ // mine\n}").expect("write");
    let out = init(tmp.path(), &tmp.path().join("state"), &["--yes"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("add \"permission\""));
    assert!(!tmp.path().join("opencode.json").exists());
}
