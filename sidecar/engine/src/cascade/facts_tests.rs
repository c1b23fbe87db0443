//! What the transport saw, checked by the cascade: each fact stops a call by its own check, in
//! table order and before the registry; framing and the event limit are hygiene (enforced in
//! every mode, `off` included) while every other check is observe-only without `enforce`.

use crate::testkit::{Kit, T0_MS, call, result, task};
use crate::{EngineConfig, Input, StepContext};
use blindfold_schemas::{CheckId, Facts, ModeSet, Reason, ToolPin, Verdict};
use serde_json::json;

fn kit() -> Kit {
    let mut k = Kit::new(EngineConfig::default(), "task-facts");
    k.step(task("Maintain /w: write /w/a.txt"));
    k
}

fn write() -> blindfold_schemas::Event {
    call("coordinator", "write_file", json!({"path": "/w/a.txt", "content": "x"}), None)
}

fn decided(step: &crate::Step) -> (Verdict, Reason, CheckId) {
    let d = step.decision.clone().expect("a decision");
    (d.decision, d.reason, d.check)
}

#[test]
fn each_fact_stops_the_call_by_its_own_check_in_table_order() {
    let pin = ToolPin::Changed { server: "stdio:srv".into() };
    let all = Facts {
        unreadable_call: Some("arguments are not a JSON object".into()),
        inexact_number: Some("1e400".into()),
        allowlisted: Some(false),
        tool_pin: Some(pin.clone()),
        ..Facts::default()
    };
    let mut k = kit();
    assert_eq!(
        decided(&k.step_with(&write(), &all)),
        (Verdict::Deny, Reason::MalformedInput, CheckId::Schema)
    );
    let later = Facts { unreadable_call: None, ..all.clone() };
    assert_eq!(
        decided(&k.step_with(&write(), &later)),
        (Verdict::Deny, Reason::MalformedInput, CheckId::ExactNumbers)
    );
    let later = Facts { inexact_number: None, ..later };
    assert_eq!(
        decided(&k.step_with(&write(), &later)),
        (Verdict::Deny, Reason::ToolNotAllowed, CheckId::Allowlist)
    );
    let later = Facts { allowlisted: Some(true), ..later };
    let s = k.step_with(&write(), &later);
    assert_eq!(decided(&s), (Verdict::Review, Reason::ToolDefinitionChanged, CheckId::ToolPin));
    // The detail names the server and says an operator must accept; the operator's command is
    // the person's channel's (`blindfold why`, the log), never in a detail a client may show.
    let detail = s.decision.and_then(|d| d.detail).unwrap_or_default();
    assert!(detail.contains("server `stdio:srv`") && detail.contains("an operator must accept"), "{detail}");
    assert!(!detail.contains("blindfold"), "{detail}");
    let unavailable =
        Facts { tool_pin: Some(ToolPin::Unavailable { error: "disk".into() }), ..Facts::default() };
    assert_eq!(
        decided(&k.step_with(&write(), &unavailable)),
        (Verdict::Deny, Reason::InternalError, CheckId::ToolPin)
    );
    // Without facts the same call reaches the grant check: the facts were what stopped it.
    assert_eq!(decided(&k.step(write())), (Verdict::Deny, Reason::NoGrant, CheckId::Grant));
}

#[test]
fn a_call_on_the_allowlist_with_its_pin_and_exact_numbers_goes_on_to_the_rest() {
    let mut k = kit();
    k.grant("write_file", "/w/a.txt", b"x", json!({}), None, None);
    let fine = Facts { allowlisted: Some(true), ..Facts::default() };
    assert_eq!(decided(&k.step_with(&write(), &fine)).0, Verdict::Allow);
}

#[test]
fn without_enforce_a_fact_is_recorded_and_the_call_runs_in_every_mode_alike() {
    for modes in [ModeSet::OFF, ModeSet { enforce: false, ..ModeSet::ALL }] {
        let mut k = kit();
        k.modes = modes;
        let facts =
            Facts { allowlisted: Some(false), inexact_number: Some("1e400".into()), ..Facts::default() };
        let s = k.step_with(&write(), &facts);
        assert_eq!(decided(&s).2, CheckId::ExactNumbers);
        assert!(!s.enforced && !s.blocks(), "{modes:?}: {s:?}");
    }
}

#[test]
fn a_faulty_frame_is_refused_in_every_mode_and_an_unrelayed_method_only_when_enforced() {
    let engine = kit().engine;
    let bad = Facts::malformed("duplicate key `id`");
    let unrelayed = Facts::unrelayed("tools/teleport", "MCP defines no such request");
    for modes in [ModeSet::ALL, ModeSet::OFF] {
        let s = engine.frame(&bad, modes);
        assert_eq!(decided(&s), (Verdict::Deny, Reason::MalformedInput, CheckId::Frame));
        assert!(s.blocks(), "hygiene holds in {modes:?}");
        let s = engine.frame(&unrelayed, modes);
        assert_eq!(decided(&s).2, CheckId::Method);
        assert_eq!(s.blocks(), modes.enforce, "{modes:?}");
    }
    let clean = engine.frame(&Facts::default(), ModeSet::ALL);
    assert!(!clean.blocks() && clean.decision.is_some_and(|d| d.is_allow()));
}

#[test]
fn the_event_limit_refuses_every_kind_in_every_mode_before_any_state_changes() {
    let mut k = Kit::new(EngineConfig { max_events: 2, ..EngineConfig::default() }, "task-limit");
    k.modes = ModeSet::OFF;
    k.step(task("Maintain /w"));
    k.step(result("read_file", "hello"));
    for event in [result("read_file", "more"), task("another"), write()] {
        let s = k.step(event);
        assert_eq!(decided(&s), (Verdict::Deny, Reason::LimitExceeded, CheckId::EventLimit));
        assert!(s.blocks(), "{s:?}");
    }
    assert_eq!(k.traj.events, 2, "refused events are not counted into the state");
    // A dry run is refused the same way.
    let ctx = StepContext { now_ms: T0_MS, modes: ModeSet::ALL, consume: false };
    let s = k.engine.step_with(&mut k.traj, Input::event(&write()), ctx);
    assert_eq!(decided(&s).2, CheckId::EventLimit);
}
