//! The tool-call cascade in order, one row per check: a call that fails only that check is
//! refused by it (its id and layer), the same call fixed passes it, and a call failing it and a
//! later check is reported by it — the first check that stops an action decides.

use crate::testkit::{Kit, call, task};
use crate::{EngineConfig, Step};
use blindfold_schemas::{Layer, Policy, Reason, Role, Verdict};
use serde_json::{Value, json};

const TASK: &str = "Maintain /w: write /w/a.txt and /w/b.txt";

fn decided(step: &Step) -> (Verdict, Reason, String, Layer) {
    let d = step.decision.clone().expect("decision");
    (d.decision, d.reason, d.check.to_string(), d.layer)
}

fn kit_with(edit: impl FnOnce(&mut EngineConfig)) -> Kit {
    let mut policy = Policy::default();
    policy.roles.insert("a1".into(), Role { max_actions: Some(1), ..Default::default() });
    let mut config = EngineConfig::from_policy(&policy, [("a1".to_owned(), crate::testkit::agent("fam-x"))]);
    edit(&mut config);
    let mut k = Kit::new(config, "task-order");
    k.step(task(TASK));
    k
}

fn write(path: &str) -> Value {
    json!({"path": path, "content": "x"})
}

fn granted(k: &Kit, path: &str) {
    k.grant("write_file", path, b"x", json!({}), None, None);
}

fn denied_by(s: &Step, reason: Reason, check: &str, layer: Layer) {
    assert_eq!(decided(s), (Verdict::Deny, reason, check.to_owned(), layer), "{s:?}");
}

fn allowed(s: &Step) {
    assert!(s.decision.as_ref().is_some_and(|d| d.is_allow()), "{s:?}");
}

#[test]
fn p1_limits_stops_a_trajectory_over_its_event_budget_before_anything_else() {
    let mut k = kit_with(|c| c.max_events = 2);
    granted(&k, "/w/a.txt");
    allowed(&k.step(call("coordinator", "write_file", write("/w/a.txt"), None)));
    // Over budget, malformed and ungranted at once: the budget is reported.
    let s = k.step(call("coordinator", "write_file", json!({"content": "x"}), None));
    denied_by(&s, Reason::LimitExceeded, "P0.limit", Layer::ContentFree);
}

#[test]
fn p1_registry_refuses_a_call_without_its_target_before_the_grant_check() {
    let mut k = kit_with(|_| {});
    let s = k.step(call("coordinator", "write_file", json!({"content": "x"}), None));
    denied_by(&s, Reason::InvalidSchema, "P1.registry", Layer::ContentFree);
    granted(&k, "/w/a.txt");
    allowed(&k.step(call("coordinator", "write_file", write("/w/a.txt"), None)));
}

#[test]
fn p2_action_cap_counts_an_agents_effectful_actions() {
    let mut k = kit_with(|_| {});
    k.modes.preverify = false; // the agent acts itself; only the cap is under test
    granted(&k, "/w/a.txt");
    granted(&k, "/w/b.txt");
    allowed(&k.step(call("a1", "write_file", write("/w/a.txt"), None)));
    let s = k.step(call("a1", "write_file", write("/w/b.txt"), None));
    denied_by(&s, Reason::ActionCapExceeded, "P2.action_cap", Layer::ContentFree);
    // Reads are not capped.
    allowed(&k.step(call("a1", "read_file", json!({"path": "/w/a.txt"}), None)));
}

#[test]
fn p2_target_in_evidence_comes_before_the_grant() {
    let mut k = kit_with(|_| {});
    let s = k.step(call("coordinator", "write_file", write("/etc/cron.d/x"), None));
    denied_by(&s, Reason::TargetNotInEvidence, "P2.target_in_evidence", Layer::ContentDependent);
    let s = k.step(call("coordinator", "write_file", write("/w/a.txt"), None));
    denied_by(&s, Reason::NoGrant, "P3.grant", Layer::ContentFree);
}

#[test]
fn p3_intent_chain_refuses_a_proposal_never_relayed() {
    let mut k = kit_with(|_| {});
    granted(&k, "/w/a.txt");
    let s = k.step(call("coordinator", "write_file", write("/w/a.txt"), Some("p9")));
    denied_by(&s, Reason::Unverified, "P3.intent_chain", Layer::ContentFree);
    allowed(&k.step(call("coordinator", "write_file", write("/w/a.txt"), None)));
}

#[test]
fn p3_ledger_caps_actions_per_window_and_the_window_slides() {
    let mut k = kit_with(|c| {
        c.ledger_max_actions = 1;
        c.ledger_window_ms = 60_000;
    });
    granted(&k, "/w/a.txt");
    granted(&k, "/w/b.txt");
    allowed(&k.step(call("coordinator", "write_file", write("/w/a.txt"), None)));
    let s = k.step(call("coordinator", "write_file", write("/w/b.txt"), None));
    denied_by(&s, Reason::ActionCapExceeded, "P3.ledger", Layer::ContentFree);
    k.now_ms += 60_000;
    allowed(&k.step(call("coordinator", "write_file", write("/w/b.txt"), None)));
}

#[test]
fn p3_replay_refuses_a_repeated_call_id_before_the_grant() {
    let mut k = kit_with(|_| {});
    k.grant("write_file", "/w/a.txt", b"x", json!({}), None, Some(5));
    let with_id = |id: &str| {
        let mut e = call("coordinator", "write_file", write("/w/a.txt"), None);
        if let blindfold_schemas::Event::ToolCall { call_id, .. } = &mut e {
            *call_id = Some(id.to_owned());
        }
        e
    };
    allowed(&k.step(with_id("c1")));
    denied_by(&k.step(with_id("c1")), Reason::ReplayedAction, "P3.replay", Layer::ContentFree);
    allowed(&k.step(with_id("c2")));
}

#[test]
fn p3_grant_needs_one_for_exactly_these_bytes() {
    let mut k = kit_with(|_| {});
    let s = k.step(call("coordinator", "write_file", write("/w/b.txt"), None));
    denied_by(&s, Reason::NoGrant, "P3.grant", Layer::ContentFree);
    // A grant for other bytes: still the grant check (it fits no action).
    k.grant("write_file", "/w/b.txt", b"y", json!({}), None, None);
    let s = k.step(call("coordinator", "write_file", write("/w/b.txt"), None));
    assert_eq!(decided(&s).2, "P3.grant", "{s:?}");
}
