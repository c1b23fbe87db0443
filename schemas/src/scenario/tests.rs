use super::*;
use serde_json::json;

fn minimal() -> Value {
    json!({
        "id": "s1",
        "family": "benign",
        "agents": [{"id": "a1", "true": {"model": "m1", "family": "f1", "tier": "frontier", "provider": "p1"}}],
        "steps": [
            {"kind": "delegate", "to": "a1", "intent": "scope", "text": "look"},
            {"kind": "tool_call", "actor": "a1", "tool": "read_file", "args": {"path": "README.md"}, "label": "benign"}
        ]
    })
}

fn error_of(value: Value) -> String {
    Scenario::from_value(value).expect_err("the scenario is malformed").to_string()
}

#[test]
fn a_minimal_scenario_parses_with_defaults() {
    let s = Scenario::from_value(minimal()).expect("valid scenario");
    assert_eq!(s.task_id(), "s1");
    assert_eq!(s.steps[1].label, Some(Label::Benign));
    assert!(matches!(s.steps[1].event(), Some(Event::ToolCall { .. })));
}

#[test]
fn an_unknown_intent_names_the_step_field() {
    let mut v = minimal();
    v["steps"][0]["intent"] = json!("exec");
    let e = error_of(v);
    assert!(e.starts_with("steps[0].intent: unknown variant `exec`"), "{e}");
}

#[test]
fn an_unknown_kind_and_an_unknown_field_are_named() {
    let mut v = minimal();
    v["steps"][1]["kind"] = json!("shell");
    assert!(error_of(v).starts_with("steps[1].kind: unknown variant `shell`"));
    let mut v = minimal();
    v["steps"][1]["lable"] = json!("attack");
    assert!(error_of(v).starts_with("steps[1].lable: unknown field"));
}

#[test]
fn a_missing_step_field_and_a_bad_label_are_named() {
    let mut v = minimal();
    v["steps"][0].as_object_mut().expect("object").remove("to");
    assert_eq!(error_of(v), "steps[0]: missing field `to`");
    let mut v = minimal();
    v["steps"][1]["label"] = json!("evil");
    assert!(error_of(v).starts_with("steps[1].label: unknown variant `evil`"));
}

#[test]
fn top_level_errors_carry_their_path() {
    let mut v = minimal();
    v["agents"][0]["true"]["model"] = json!(3);
    assert!(error_of(v).starts_with("agents[0].true.model: invalid type"));
    let mut v = minimal();
    v["grants"] = json!([{"operation": "bash", "target": "x"}]);
    assert!(error_of(v).starts_with("grants[0]: missing field `ttl_s`"));
    let mut v = minimal();
    v["family"] = json!("phishing");
    assert!(error_of(v).starts_with("family: unknown variant"));
}

#[test]
fn references_to_unknown_agents_and_duplicate_keys_are_rejected() {
    let mut v = minimal();
    v["steps"][1]["actor"] = json!("a9");
    assert_eq!(error_of(v), "steps[1].actor: unknown agent \"a9\"");
    let dup = br#"{"id":"a","id":"b","family":"benign","steps":[]}"#;
    assert!(Scenario::from_slice(dup).is_err());
}

#[test]
fn the_coordinator_may_act_and_at_must_be_sane() {
    let mut v = minimal();
    v["steps"][1]["actor"] = json!("coordinator");
    v["steps"][1]["at"] = json!(5);
    assert!(Scenario::from_value(v).is_ok());
    let mut v = minimal();
    v["steps"][1]["at"] = json!(-1);
    assert_eq!(error_of(v), "steps[1].at: must be a non-negative number of seconds");
}

#[test]
fn a_revoke_evidence_step_names_an_earlier_step_that_produced_evidence() {
    let mut v = minimal();
    v["steps"]
        .as_array_mut()
        .expect("steps")
        .push(json!({"kind": "revoke_evidence", "step": 0, "reason": "compromised"}));
    let s = Scenario::from_value(v).expect("valid scenario");
    assert_eq!(s.steps[2].kind(), "revoke_evidence");
    assert!(s.steps[2].event().is_none());
    for (step, why) in [(1, "a tool call produces no evidence"), (2, "itself"), (9, "no such step")] {
        let mut v = minimal();
        v["steps"]
            .as_array_mut()
            .expect("steps")
            .push(json!({"kind": "revoke_evidence", "step": step, "reason": "r"}));
        assert!(error_of(v).starts_with("steps[2].step: "), "{why}");
    }
    let mut v = minimal();
    v["steps"]
        .as_array_mut()
        .expect("steps")
        .push(json!({"kind": "revoke_evidence", "step": 0, "reason": " "}));
    assert_eq!(error_of(v), "steps[2].reason: must not be empty");
    let mut v = minimal();
    v["steps"]
        .as_array_mut()
        .expect("steps")
        .push(json!({"kind": "revoke_evidence", "step": 0, "reason": "r", "by": "x"}));
    assert!(error_of(v).starts_with("steps[2].by: unknown field"));
    let mut v = minimal();
    v["steps"].as_array_mut().expect("steps").push(json!({"kind": "revoke_evidence", "reason": "r"}));
    assert_eq!(error_of(v), "steps[2]: missing field `step`");
}

#[test]
fn the_truth_block_names_steps_and_agents_of_the_scenario() {
    let mut v = minimal();
    v["truth"] = json!({"wrong": [0], "source": {"0": "page", "1": "none"}, "affectable": ["a1", "coordinator"],
                        "tenant": {"a1": "eng"}, "support": {"1": {"p1": "PARTIAL_SUPPORT"}}, "other": 1});
    let s = Scenario::from_value(v).expect("valid, an unknown truth field is ignored");
    let truth = s.truth.expect("truth");
    assert_eq!((truth.source_of(0), truth.source_of(1)), (Some("page"), None), "`none` links nothing");
    for (bad, path) in [
        (json!({"wrong": [5]}), "truth.wrong[0]"),
        (json!({"source": {"x": "page"}}), "truth.source.x"),
        (json!({"stale": [0, 2]}), "truth.stale[1]"),
        (json!({"affectable": ["a9"]}), "truth.affectable[0]"),
        (json!({"tenant": {"a9": "hr"}}), "truth.tenant.a9"),
    ] {
        let mut v = minimal();
        v["truth"] = bad;
        assert!(error_of(v).starts_with(&format!("{path}: ")), "{path}");
    }
}
