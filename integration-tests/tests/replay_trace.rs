//! `blindfold replay --trace-out` writes the authority trace in the daemon's own format: the
//! chain verifies, `trace summarize` reads the labels, and `trace render` draws the demo story.

use blindfold_integration_tests::{blindfold, workspace_root};

#[test]
fn the_demo_story_trace_verifies_summarizes_and_renders() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = dir.path().join("trace.jsonl");
    let story = workspace_root().join("examples/demo/story.json");
    let out = blindfold()
        .args(["replay", "--modes", "off,all", "--steps", "--trace-out"])
        .arg(&trace)
        .arg(&story)
        .output()
        .expect("run replay");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("rm -rf /srv/artifacts"), "{table}");

    let verify = blindfold().args(["trace", "verify"]).arg(&trace).output().expect("trace verify");
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stdout));

    let summary = blindfold().args(["trace", "summarize", "--json"]).arg(&trace).output().expect("summarize");
    assert!(summary.status.success());
    let summary: serde_json::Value = serde_json::from_slice(&summary.stdout).expect("summary JSON");
    assert_eq!(summary["trajectories"], 2, "one trajectory per mode: {summary}");

    let svg = dir.path().join("all.svg");
    let render = blindfold()
        .args(["trace", "render"])
        .arg(&trace)
        .args(["--trajectory", "demo-story", "--mode", "all", "--format", "svg", "--output"])
        .arg(&svg)
        .output()
        .expect("trace render");
    assert!(render.status.success(), "{}", String::from_utf8_lossy(&render.stderr));
    let picture = std::fs::read_to_string(&svg).expect("svg written");
    assert!(
        picture.starts_with("<svg") || picture.starts_with("<?xml"),
        "{}",
        &picture[..picture.len().min(80)]
    );
}
