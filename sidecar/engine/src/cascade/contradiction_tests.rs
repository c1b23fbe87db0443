//! A refuted action is held by the refutation (issue 27): when another agent's refutation stands
//! against an effectful action, `P3.contradiction` holds it for review even where
//! `P2.target_in_evidence` would deny it for missing evidence; the hard refusals before it keep
//! their place (Blindfold's own secrets, a `deny` rule, a critical asset), the same trajectory
//! without the refutation is still denied for missing evidence, and nothing here is ever allowed.

use crate::testkit::{Kit, call, response, task};
use crate::{ArgRule, EngineConfig, RuleAction, Step};
use blindfold_schemas::{Layer, ModeSet, Reason, Verdict};
use serde_json::json;

/// The real Pi session's shape: a task that names no command, a planner's proposal, a reviewer.
const TASK: &str = "Tidy up the project workspace before the release.";
const RM: &str = "rm -rf data";
const REFUSAL: &str = "Do not run `rm -rf data`: data/keep.txt is the only copy and nothing backs it up.";

fn decided(step: &Step) -> (Verdict, Reason, String, Layer) {
    let d = step.decision.clone().expect("decision");
    (d.decision, d.reason, d.check.to_string(), d.layer)
}

fn detail(step: &Step) -> String {
    step.decision.as_ref().and_then(|d| d.detail.clone()).unwrap_or_default()
}

/// a1 proposes `rm -rf data`; a2 refutes it when `refuted`; the coordinator then runs it.
fn run_after(config: EngineConfig, refuted: bool) -> Step {
    let mut k = Kit::new(config, "task-refuted");
    k.step(task(TASK));
    k.step(response("a1", "Plan: clear the data folder.", &[("p1", "bash", json!({ "command": RM }))], &[]));
    if refuted {
        k.step(response("a2", REFUSAL, &[], &[]));
    }
    k.step(call("coordinator", "bash", json!({ "command": RM }), None))
}

fn agents() -> EngineConfig {
    let agents =
        [("a1", "heronix"), ("a2", "corvid")].map(|(id, fam)| (id.to_owned(), crate::testkit::agent(fam)));
    EngineConfig::from_policy(&Default::default(), agents)
}

const HELD: (Verdict, Reason, &str, Layer) =
    (Verdict::Review, Reason::Contradicted, "P3.contradiction", Layer::ContentDependent);

fn held(s: &Step) {
    let (v, r, c, l) = decided(s);
    assert_eq!((v, r, c.as_str(), l), HELD, "{s:?}");
    assert!(s.contradicted, "{s:?}");
}

#[test]
fn a_refuted_command_no_evidence_backs_is_held_by_the_refutation_not_denied_for_evidence() {
    let s = run_after(agents(), true);
    held(&s);
    let why = detail(&s);
    assert!(why.contains("`rm -rf data`"), "the human is told what is disputed: {why}");
    assert!(
        why.contains("nor is it backed: the command is not in the task"),
        "and what else is missing: {why}"
    );
    // Named as the proposal it executes: the same.
    let mut k = Kit::new(agents(), "task-named");
    k.step(task(TASK));
    k.step(response("a1", "Plan.", &[("p1", "bash", json!({ "command": RM }))], &[]));
    k.step(response("a2", REFUSAL, &[], &[]));
    held(&k.step(call("coordinator", "bash", json!({ "command": RM }), Some("p1"))));
}

#[test]
fn without_the_refutation_it_is_still_denied_for_missing_evidence_and_says_where_it_was_seen() {
    let s = run_after(agents(), false);
    assert_eq!(
        decided(&s),
        (Verdict::Deny, Reason::TargetNotInEvidence, "P2.target_in_evidence".into(), Layer::ContentDependent)
    );
    assert!(!s.contradicted);
    let why = detail(&s);
    assert!(why.contains("not in the task, its grants, a tool result or verified evidence"), "{why}");
    assert!(why.contains("only in proposal `p1`, which is not verified"), "{why}");
    // Proposed twice under two ids: both are named, each once.
    let mut k = Kit::new(agents(), "task-twice");
    k.step(task(TASK));
    for (id, by) in [("p1", "a1"), ("p2", "a2"), ("p1", "a1")] {
        k.step(response(by, &format!("Plan {id}."), &[(id, "bash", json!({ "command": RM }))], &[]));
    }
    let s = k.step(call("coordinator", "bash", json!({ "command": RM }), None));
    assert!(detail(&s).contains("only in proposals `p1`, `p2`, none of them verified"), "{s:?}");
    // Named only in an agent's prose (no proposal): that is where it was seen.
    let mut k = Kit::new(agents(), "task-prose");
    k.step(task(TASK));
    k.step(response("a1", "You could run `rm -rf data` to tidy up.", &[], &[]));
    let s = k.step(call("coordinator", "bash", json!({ "command": RM }), None));
    assert!(detail(&s).contains("only in an agent's answer, which is not verified"), "{s:?}");
    // Seen nowhere: no place is named.
    let mut k = Kit::new(agents(), "task-nowhere");
    k.step(task(TASK));
    let s = k.step(call("coordinator", "bash", json!({ "command": RM }), None));
    assert_eq!(decided(&s).2, "P2.target_in_evidence");
    assert!(!detail(&s).contains("saw it"), "{s:?}");
}

#[test]
fn the_hard_refusals_before_it_keep_their_place() {
    let rule = |action| {
        let mut c = agents();
        c.arg_rules.push(ArgRule { tool: "*".into(), pattern: "rm -rf data".into(), action });
        c
    };
    // A `deny` rule denies whatever else stands.
    let s = run_after(rule(RuleAction::Deny), true);
    assert_eq!(decided(&s).2, "P2.argument_rules", "{s:?}");
    assert_eq!(decided(&s).0, Verdict::Deny);
    // A critical asset without a grant through review is left to a human by its rule.
    let s = run_after(rule(RuleAction::Critical), true);
    assert_eq!(
        decided(&s),
        (Verdict::Review, Reason::Undecided, "P2.argument_rules".into(), Layer::ContentDependent)
    );
    // Blindfold's own state: refused before anything reads evidence.
    let mut c = agents();
    c.protected.paths.push("/home/u/proj/data".into());
    let mut k = Kit::new(c, "task-protected");
    k.step(task(TASK));
    let rm = "rm -rf /home/u/proj/data";
    k.step(response("a1", "Plan.", &[("p1", "bash", json!({ "command": rm }))], &[]));
    k.step(response("a2", "Do not run that: /home/u/proj/data is the only copy.", &[], &[]));
    let s = k.step(call("coordinator", "bash", json!({ "command": rm }), None));
    assert_eq!(decided(&s).2, "P1.protected", "{s:?}");
}

#[test]
fn a_refuted_command_is_never_allowed_in_any_mode_that_enforces() {
    let without = |edit: fn(&mut ModeSet)| {
        let mut m = ModeSet::ALL;
        edit(&mut m);
        m
    };
    let sets = [
        ModeSet::ALL,
        without(|m| m.preverify = false),
        without(|m| m.grants = false),
        without(|m| m.anonymize = false),
    ];
    for modes in sets {
        let mut k = Kit::new(agents(), "task-modes");
        k.modes = modes;
        k.step(task(TASK));
        k.step(response("a1", "Plan.", &[("p1", "bash", json!({ "command": RM }))], &[]));
        k.step(response("a2", REFUSAL, &[], &[]));
        let s = k.step(call("coordinator", "bash", json!({ "command": RM }), None));
        let d = s.decision.clone().expect("decision");
        assert!(!d.is_allow(), "{modes:?}: {s:?}");
        // Without pre-verification the refutation is not a check: the evidence check decides.
        if !k.modes.preverify {
            assert_eq!(d.check.to_string(), "P2.target_in_evidence", "{modes:?}: {s:?}");
        } else {
            assert_eq!(d.check.to_string(), "P3.contradiction", "{modes:?}: {s:?}");
        }
    }
}
