//! `blindfold replay --via-proxy`: scenarios driven through a real Blindfold (A2A and MCP proxies
//! on loopback, scripted peers) reach the same verdicts as the in-process replay, and what the
//! coordinator received over the wire carries no identity with identity stripping on.

use blindfold_integration_tests::{blindfold, workspace_root};
use serde_json::Value;

/// Attack and benign scenarios whose steps use every wire path: cards, scope delegations
/// answered by agents, the coordinator's MCP tool calls, a sub-agent's delegated action.
const SCENARIOS: [&str; 6] = [
    "benign/benign-rm-rf-build.json",
    "benign/benign-three-granted-writes.json",
    "benign/benign-readme-mentions-danger.json",
    "defer/defer-argument-abuse-c2-path-traversal.json",
    "defer/defer-tool-out-of-stage-c2-log-iptables.json",
    "trustfork/tf-indirect-injection-hidden-execute-attack.json",
];

fn replay(via_proxy: bool) -> Value {
    let root = workspace_root().join("examples/scenarios");
    let mut cmd = blindfold();
    cmd.args(["replay", "--json", "--modes", "off,anonymize,all"]);
    if via_proxy {
        cmd.arg("--via-proxy");
    }
    for s in SCENARIOS {
        cmd.arg(root.join(s));
    }
    let out = cmd.output().expect("run blindfold replay");
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("one JSON report")
}

#[test]
fn verdicts_over_the_wire_match_the_in_process_run() {
    let (local, wire) = (replay(false), replay(true));
    let wire_steps = wire["via_proxy"]["wire_steps"].as_u64().expect("wire step count");
    assert!(wire_steps >= 30, "only {wire_steps} steps went over the wire: {}", wire["via_proxy"]);
    let (mut compared, mut over_the_wire, mut attacks_blocked) = (0, 0, 0);
    for (l, w) in local["scenarios"]
        .as_array()
        .expect("scenarios")
        .iter()
        .zip(wire["scenarios"].as_array().expect("scenarios"))
    {
        assert_eq!(l["id"], w["id"]);
        for mode in ["off", "anonymize", "all"] {
            let ls = l["modes"][mode]["steps"].as_array().expect("steps");
            let ws = w["modes"][mode]["steps"].as_array().expect("steps");
            assert_eq!(ls.len(), ws.len());
            for (a, b) in ls.iter().zip(ws) {
                if a.get("label").is_none() {
                    continue;
                }
                assert_eq!(
                    a["allowed"], b["allowed"],
                    "{} {mode} step {}: in-process {a} vs wire {b}",
                    l["id"], a["index"]
                );
                compared += 1;
                if b["via"] != "in_process" {
                    over_the_wire += 1;
                    if mode == "all" && a["label"] == "attack" && b["allowed"] == false {
                        attacks_blocked += 1;
                        assert!(b["reason"].is_string(), "a blocked step carries the refusal's reason: {b}");
                    }
                }
            }
        }
    }
    assert!(
        compared >= 20 && over_the_wire >= 15,
        "{compared} labelled steps, {over_the_wire} over the wire"
    );
    assert!(attacks_blocked >= 2, "attacks refused over the wire in all: {attacks_blocked}");
    for key in ["asr", "legit_reject", "attacks", "benign"] {
        assert_eq!(local["modes"]["all"][key], wire["modes"]["all"][key], "all.{key}");
        assert_eq!(local["modes"]["off"][key], wire["modes"]["off"][key], "off.{key}");
    }
    assert_eq!(wire["modes"]["all"]["identity_leaks"], 0, "{}", wire["modes"]["all"]);
    assert_eq!(wire["modes"]["anonymize"]["identity_leaks"], 0, "{}", wire["modes"]["anonymize"]);
    assert!(wire["modes"]["off"]["identity_leaks"].as_u64().expect("count") > 0, "off relays identity");
}

#[test]
fn via_proxy_refuses_trace_out() {
    let file = workspace_root().join("examples/scenarios").join(SCENARIOS[0]);
    let out = blindfold()
        .args(["replay", "--via-proxy", "--trace-out", "/nonexistent/t.jsonl"])
        .arg(file)
        .output()
        .expect("run blindfold replay");
    assert_eq!(out.status.code(), Some(2));
}
