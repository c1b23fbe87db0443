//! `blindfold doctor` against a real wired set-up: the real Pi (`@mariozechner/pi-coding-agent`,
//! offline, the scripted model) set up by `blindfold init pi --yes` and `blindfold run --config
//! blindfold.toml`. With a session run through the extension and the proxy it reports all good
//! (exit 0); before any session registered, with the provider no longer through the proxy, with
//! the extension gone and with the daemon down it names exactly what is missing (exit 1). The
//! OpenClaw plugin loaded but disabled is `openclaw_session.rs`'s.

use blindfold_integration_tests::pi::{ModelServer, PiWorld};
use blindfold_integration_tests::transports::World;
use blindfold_integration_tests::{Daemon, blindfold, free_port};
use serde_json::json;
use std::path::Path;

/// `blindfold doctor --dir <project>`: its exit code and the `FAIL` findings (first line of each).
fn doctor(project: &Path) -> (Option<i32>, Vec<String>, String) {
    let out = blindfold().args(["doctor", "--dir"]).arg(project).output().expect("doctor");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let fails = text.lines().filter_map(|l| l.strip_prefix("FAIL  ")).map(str::to_owned).collect();
    (out.status.code(), fails, text)
}

#[test]
fn doctor_passes_a_wired_pi_project_and_names_each_missing_part() {
    let world = World::new("");
    let server = ModelServer::start(&world.path("requests.jsonl"));
    let pi = PiWorld::new(world.dir.path(), server.port, &["coord-1"]);
    std::fs::remove_dir_all(pi.project.join(".pi/extensions")).expect("start without the extension");
    let (port, proxy, state) = (free_port(), free_port(), world.path("bf-state"));
    pi.init((port, proxy), &state, &[]);
    let toml = pi.project.join("blindfold.toml");
    let mut daemon = Daemon::on_config(&toml, port, &state);

    // Wired, but no Pi session has registered with this daemon yet.
    let (code, fails, text) = doctor(&pi.project);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(fails, ["0 pi session(s) registered by the plugin since the daemon started"], "{text}");

    // A session through the extension and the proxy: all good.
    let (code, stdout, stderr) = pi.run("tidy up the workspace", &[]);
    assert_eq!(code, Some(0), "pi failed:\n{stdout}\n{stderr}");
    let (code, fails, text) = doctor(&pi.project);
    assert_eq!((code, fails.len()), (Some(0), 0), "{text}");
    assert!(text.contains("paired with their model requests at the proxy"), "{text}");

    // The provider no longer through the proxy.
    let settings = pi.project.join(".pi/blindfold.json");
    let wired = std::fs::read_to_string(&settings).expect("settings");
    let mut direct: serde_json::Value = serde_json::from_str(&wired).expect("json");
    direct["providers"]["probe"] = json!(format!("http://127.0.0.1:{}/v1", server.port));
    std::fs::write(&settings, direct.to_string()).expect("write");
    let (code, fails, text) = doctor(&pi.project);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        fails,
        [format!("the provider goes through the proxy (http://127.0.0.1:{proxy}/v1)")],
        "{text}"
    );
    std::fs::write(&settings, wired).expect("restore");

    // The extension gone.
    let extension = pi.project.join(".pi/extensions/blindfold/index.ts");
    let shipped = std::fs::read(&extension).expect("extension");
    std::fs::remove_file(&extension).expect("remove the extension");
    let (code, fails, text) = doctor(&pi.project);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        fails,
        [format!("the pi adapter is installed as shipped ({})", extension.display())],
        "{text}"
    );
    std::fs::write(&extension, shipped).expect("restore");

    // The daemon down: it, its proxy and its sessions are missing.
    let _ = daemon.child.kill();
    let _ = daemon.child.wait();
    let (code, fails, text) = doctor(&pi.project);
    assert_eq!(code, Some(1), "{text}");
    assert_eq!(
        fails.first().map(String::as_str),
        Some(format!("the daemon answers on 127.0.0.1:{port}").as_str()),
        "{text}"
    );
    assert!(
        fails.iter().any(|f| f.starts_with(&format!("the proxy answers on 127.0.0.1:{proxy}"))),
        "{text}"
    );
}
