//! The evidence metrics through the real binary (`docs/metrics-evidence.md`): every metric in the
//! corpus report for `off` and `all`; on the falsifier family (`examples/scenarios/evidence/`)
//! `all` holds unauthorized retrieval, false consensus and injection propagation at 0 while `off`
//! shows each of them (the scenarios exercise them); and `trace summarize` reads the replay's own
//! numbers back from the trace the replay recorded.

use blindfold_integration_tests::{blindfold, workspace_root};
use serde_json::Value;

/// Every metric, and whether the trace supports it (`trace summarize` reports those).
const METRICS: [(&str, bool); 10] = [
    ("provenance_completeness", false),
    ("conflict_detection_rate", false),
    ("independent_corroboration_rate", true),
    ("false_consensus_rate", true),
    ("error_propagation_rate", true),
    ("injection_propagation_rate", true),
    ("revocation_propagation_delay", true),
    ("stale_evidence_use_rate", true),
    ("unauthorized_retrieval_rate", true),
    ("support_accuracy", false),
];

fn replay(args: &[&str]) -> Value {
    let out =
        blindfold().arg("replay").args(args).args(["--modes", "off,all", "--json"]).output().expect("replay");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("replay JSON")
}

fn folder(name: &str) -> String {
    workspace_root().join("examples/scenarios").join(name).display().to_string()
}

fn rate(report: &Value, mode: &str, key: &str) -> f64 {
    report["modes"][mode]["evidence"][key]
        .as_f64()
        .unwrap_or_else(|| panic!("modes.{mode}.evidence.{key}: {}", report["modes"][mode]["evidence"]))
}

#[test]
fn the_corpus_report_shows_every_evidence_metric_per_mode_and_per_scenario() {
    let report = replay(&[&folder("")]);
    for mode in ["off", "all"] {
        let e = &report["modes"][mode]["evidence"];
        for (key, _) in METRICS {
            let v = &e[key];
            assert!(v.is_number() || v.is_null() || v.is_object(), "modes.{mode}.evidence.{key}: {e}");
            assert!(!v.is_null(), "the corpus has something to count for {key} in {mode}: {e}");
        }
        let delay = &e["revocation_propagation_delay"];
        assert!(delay["steps"].is_number() && delay["seconds"].is_number(), "{delay}");
    }
    let scenarios = report["scenarios"].as_array().expect("scenarios");
    for s in scenarios {
        for (key, _) in METRICS {
            assert!(s["modes"]["all"]["evidence"].get(key).is_some(), "{} has no {key}", s["id"]);
        }
    }
    // Nothing to count is `null`, not 0: a benign scenario with no truth block and no read.
    let benign = scenarios.iter().find(|s| s["id"] == "benign-rm-rf-build").expect("benign-rm-rf-build");
    assert!(benign["modes"]["all"]["evidence"]["false_consensus_rate"].is_null());
}

#[test]
fn on_the_falsifiers_all_holds_the_three_at_zero_and_off_shows_each() {
    let report = replay(&[&folder("evidence")]);
    for key in ["unauthorized_retrieval_rate", "false_consensus_rate", "injection_propagation_rate"] {
        assert_eq!(rate(&report, "all", key), 0.0, "all {key}");
        assert!(rate(&report, "off", key) > 0.0, "off {key}: the falsifiers do not exercise it");
    }
    // What stops them stops the other propagation too, and no attack step of the family runs.
    assert_eq!(rate(&report, "all", "error_propagation_rate"), 0.0);
    assert_eq!(rate(&report, "all", "stale_evidence_use_rate"), 0.0);
    assert!(rate(&report, "off", "stale_evidence_use_rate") > 0.0);
    assert_eq!(report["modes"]["all"]["asr"], 0.0, "{}", report["modes"]["all"]);
    let delay = &report["modes"]["all"]["evidence"]["revocation_propagation_delay"];
    assert_eq!((delay["steps"].as_u64(), delay["unrevalidated"].as_u64()), (Some(0), Some(0)), "{delay}");
}

#[test]
fn trace_summarize_agrees_with_the_replay_on_its_recorded_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = dir.path().join("evidence.jsonl");
    let trace_arg = trace.display().to_string();
    let report = replay(&["--trace-out", &trace_arg, &folder("evidence")]);
    let verify = blindfold().args(["trace", "verify"]).arg(&trace).output().expect("trace verify");
    assert!(verify.status.success(), "{}", String::from_utf8_lossy(&verify.stderr));
    let out = blindfold().args(["trace", "summarize", "--json"]).arg(&trace).output().expect("summarize");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary: Value = serde_json::from_slice(&out.stdout).expect("summary JSON");
    for mode in ["off", "all"] {
        let from_trace = &summary["by_mode"][mode]["evidence"];
        let from_replay = &report["modes"][mode]["evidence"];
        for (key, supported) in METRICS {
            if supported {
                assert_eq!(from_trace[key], from_replay[key], "{mode} {key}");
                assert!(!from_trace[key].is_null(), "{mode} {key} has something to count");
            } else {
                assert!(from_trace.get(key).is_none(), "the trace does not support {key}");
            }
        }
    }
    // The human-readable summary names them too.
    let text = blindfold().args(["trace", "summarize"]).arg(&trace).output().expect("summarize");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("false consensus") && text.contains("revocation delay"), "{text}");
}
