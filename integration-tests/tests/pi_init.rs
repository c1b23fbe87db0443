//! `blindfold init pi`: installs the extension and its settings, idempotently, and never
//! overwrites a file it did not write unless told to.

use blindfold_integration_tests::{blindfold, workspace_root};
use serde_json::Value;

#[test]
fn init_pi_installs_the_extension_pointed_at_this_blindfold() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = dir.path().join("blindfold.toml");
    let state = dir.path().join("state");
    std::fs::write(&config, format!("[server]\nlisten = \"127.0.0.1:7811\"\n\n[state]\ndir = {state:?}\n"))
        .expect("config");
    let project = dir.path().join("project");
    let init = |extra: &[&str]| {
        blindfold()
            .args(["init", "pi", "--dir"])
            .arg(&project)
            .arg("--config")
            .arg(&config)
            .args(extra)
            .output()
            .expect("init pi")
    };
    let out = init(&[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let installed = project.join(".pi/extensions/blindfold/index.ts");
    let source = workspace_root().join("adapters/pi-extension/index.ts");
    assert_eq!(std::fs::read(&installed).expect("index.ts"), std::fs::read(source).expect("source"));
    let control =
        std::fs::read(project.join(".pi/extensions/blindfold-common/control.ts")).expect("control.ts");
    let shared = workspace_root().join("adapters/blindfold-common/control.ts");
    assert_eq!(control, std::fs::read(shared).expect("shared"));
    let settings: Value =
        serde_json::from_slice(&std::fs::read(project.join(".pi/blindfold.json")).expect("settings"))
            .expect("json");
    assert_eq!(settings["url"], "ws://127.0.0.1:7811/v1/control");
    assert_eq!(settings["tokenFile"], state.join("adapter.token").display().to_string());

    let again = init(&[]);
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stdout).contains("unchanged"));

    std::fs::write(&installed, "// edited by hand\n").expect("edit");
    let refused = init(&[]);
    assert_eq!(refused.status.code(), Some(2), "{}", String::from_utf8_lossy(&refused.stderr));
    assert_eq!(std::fs::read_to_string(&installed).expect("kept"), "// edited by hand\n");
    assert!(init(&["--force"]).status.success());
    assert_ne!(std::fs::read_to_string(&installed).expect("replaced"), "// edited by hand\n");
}
