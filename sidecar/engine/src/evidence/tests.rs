//! Seed-derived evidence-graph tests: independence counts sources, not agents; revocation
//! propagates to derived artifacts, claims and pending decisions.

use super::graph::NewArtifact;
use super::*;
use crate::testkit::{Kit, call, delegate, response, result};
use blindfold_schemas::{Channel, ClaimState, EvidenceScope, Intent, Lifecycle, Provenance, Relation};
use serde_json::json;

fn artifact(g: &mut EvidenceGraph, group: &str, parents: &[&str]) -> String {
    g.add(NewArtifact {
        producer: "a".into(),
        producer_family: None,
        channel: Channel::C4,
        provenance: Provenance {
            derived_from: parents.iter().map(|p| (*p).to_owned()).collect(),
            ..Default::default()
        },
        independence_group: group.into(),
        scope: EvidenceScope::default(),
    })
}

#[test]
fn three_agents_citing_one_page_count_as_one_source() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y"), ("a3", "fam-z"), ("a4", "fam-w")]);
    k.step(response(
        "a4",
        "Proposal below.",
        &[("p1", "write_file", json!({"path": "/w/x", "content": "y"}))],
        &[],
    ));
    k.step(result("web_fetch", "The page says the setting is safe."));
    for agent in ["a1", "a2", "a3"] {
        k.step(response(
            agent,
            "Per https://docs.example.org/page it is correct.",
            &[],
            &[("p1", Relation::FullSupport)],
        ));
    }
    let g = k.traj.evidence();
    assert_eq!(g.independent_groups("p1", Relation::FullSupport), 1);
    assert_eq!(g.claim_state("p1"), ClaimState::Supported);
    // Reasoning-only answers are grouped by true family: two families, two groups.
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y"), ("a3", "fam-x"), ("a4", "fam-w")]);
    k.step(response(
        "a4",
        "Proposal.",
        &[("p1", "write_file", json!({"path": "/w/x", "content": "y"}))],
        &[],
    ));
    for agent in ["a1", "a2", "a3"] {
        k.step(response(agent, "I agree.", &[], &[("p1", Relation::FullSupport)]));
    }
    assert_eq!(k.traj.evidence().independent_groups("p1", Relation::FullSupport), 2);
}

#[test]
fn support_and_refutation_make_a_mixed_claim_never_a_vote() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y"), ("a3", "fam-z"), ("a4", "fam-w")]);
    k.step(response(
        "a4",
        "Proposal.",
        &[("p1", "write_file", json!({"path": "/w/x", "content": "y"}))],
        &[],
    ));
    k.step(response("a1", "fine", &[], &[("p1", Relation::FullSupport)]));
    k.step(response("a2", "fine", &[], &[("p1", Relation::FullSupport)]));
    k.step(response("a3", "no", &[], &[("p1", Relation::Refutes)]));
    assert_eq!(k.traj.evidence().claim_state("p1"), ClaimState::Mixed);
}

#[test]
fn independence_needs_another_family_and_disjoint_sources() {
    let fam = |f: &str, s: &[&str]| Independence {
        family: f.into(),
        sources: s.iter().map(|x| (*x).to_owned()).collect(),
    };
    assert!(independent(&fam("x", &[]), &fam("y", &[])));
    assert!(!independent(&fam("x", &[]), &fam("x", &[])));
    assert!(!independent(&fam("x", &["page"]), &fam("y", &["page", "other"])));
    assert!(independent(&fam("x", &["page"]), &fam("y", &[])), "reasoning-only: family alone");
    assert!(!independent(&fam("", &[]), &fam("y", &[])), "unknown family is independent of nobody");
}

#[test]
fn revocation_marks_every_derived_claim_and_pending_decision() {
    let mut g = EvidenceGraph::default();
    let raw = artifact(&mut g, "src:log", &[]);
    let parsed = artifact(&mut g, "src:log", &[&raw]);
    let summary = artifact(&mut g, "family:x", &[&parsed]);
    let unrelated = artifact(&mut g, "family:y", &[]);
    g.relate(&summary, "claim-1", Relation::FullSupport);
    g.relate(&unrelated, "claim-2", Relation::FullSupport);
    g.record_pending("decision-1", vec![summary.clone()]);
    g.record_pending("decision-2", vec![unrelated.clone()]);
    assert!(g.transition(&raw, Lifecycle::Validated, "hash checked", "blindfold", 1));
    let out = g.revoke(&raw, "source compromised", "human:ops", 2);
    assert_eq!(out.artifacts, vec![parsed.clone(), summary.clone()]);
    assert_eq!(out.claims, vec!["claim-1".to_owned()]);
    assert_eq!(out.decisions, vec!["decision-1".to_owned()]);
    assert_eq!(g.claim_state("claim-1"), ClaimState::NeedsRevalidation);
    assert_eq!(g.claim_state("claim-2"), ClaimState::Supported);
    assert!(g.decision_stale("decision-1") && !g.decision_stale("decision-2"));
    let a = g.get(&raw).expect("raw");
    assert_eq!(a.lifecycle_state, Lifecycle::Revoked);
    assert_eq!(a.transitions.len(), 2);
    assert_eq!((a.transitions[1].from, a.transitions[1].to), (Lifecycle::Validated, Lifecycle::Revoked));
    assert!(!g.usable(&summary), "derived evidence needs revalidation before use");
    assert!(!g.transition(&raw, Lifecycle::Validated, "undo", "x", 3), "revocation is final");
}

#[test]
fn a_revoked_source_removes_the_verification_resting_on_it() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
    k.step(response(
        "a1",
        "Proposal.",
        &[("p1", "write_file", json!({"path": "/w/x", "content": "y"}))],
        &[],
    ));
    k.step(delegate("a2", Intent::Verify, "check p1", Some("p1")));
    let r = k.step(response("a2", "go ahead", &[], &[("p1", Relation::FullSupport)]));
    let ev = r.evidence_refs[0].clone();
    let out = k.traj.revoke_evidence(&ev, "verifier compromised", "human:ops", k.now_ms);
    assert_eq!(out.claims, vec!["p1".to_owned()]);
    assert_eq!(k.traj.evidence().claim_state("p1"), ClaimState::NeedsRevalidation);
}

#[test]
fn a_revoked_verification_no_longer_authorises() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
    k.step(crate::testkit::task("update /w/x"));
    k.step(response(
        "a1",
        "Proposal.",
        &[("p1", "write_file", json!({"path": "/w/x", "content": "y"}))],
        &[],
    ));
    k.step(delegate("a2", Intent::Verify, "check p1", Some("p1")));
    let r = k.step(response("a2", "go ahead", &[], &[("p1", Relation::FullSupport)]));
    k.grant("write_file", "/w/x", b"y", json!({}), None, Some(2));
    let ev = r.evidence_refs[0].clone();
    k.traj.revoke_evidence(&ev, "verifier compromised", "human:ops", k.now_ms);
    let s = k.step(crate::testkit::call(
        "coordinator",
        "write_file",
        json!({"path": "/w/x", "content": "y"}),
        Some("p1"),
    ));
    assert_eq!(s.decision.expect("d").reason, blindfold_schemas::Reason::Unverified);
}

fn state_of(k: &Kit, id: &str) -> Lifecycle {
    k.traj.evidence().get(id).expect("artifact").lifecycle_state
}

fn last_transition(k: &Kit, id: &str) -> blindfold_schemas::Transition {
    k.traj.evidence().get(id).and_then(|a| a.transitions.last().cloned()).expect("a transition")
}

fn write(path: &str, content: &str) -> serde_json::Value {
    json!({"path": path, "content": content})
}

#[test]
fn a_proposal_another_agent_refutes_is_disputed_both_sides_kept() {
    for structured in [true, false] {
        let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
        let made = k.step(response("a1", "Proposal.", &[("p1", "write_file", write("/w/x", "y"))], &[]));
        let proposal = made.evidence_refs[0].clone();
        k.step(delegate("a2", Intent::Verify, "check p1", Some("p1")));
        let r = if structured {
            k.step(response("a2", "see data part", &[], &[("p1", Relation::Refutes)]))
        } else {
            k.step(response("a2", "Do not write /w/x: it is the only copy.", &[], &[]))
        };
        let refuting = r.evidence_refs[0].clone();
        assert_eq!(state_of(&k, &proposal), Lifecycle::Disputed, "structured: {structured}");
        let t = last_transition(&k, &proposal);
        assert_eq!(
            (t.from, t.to, t.actor.as_str(), t.at),
            (Lifecycle::Candidate, Lifecycle::Disputed, "blindfold", k.now_ms)
        );
        assert!(t.reason.contains("p1") && t.reason.contains(&refuting), "{t:?}");
        // Both sides are kept: the refutation stands validated, the disputed proposal stays usable.
        assert_eq!(state_of(&k, &refuting), Lifecycle::Validated);
        assert!(k.traj.evidence().usable(&proposal));
    }
}

#[test]
fn a_proposers_own_doubt_in_prose_does_not_dispute_its_proposal_its_explicit_refusal_does() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
    let made = k.step(response("a1", "Proposal.", &[("p1", "write_file", write("/w/x", "y"))], &[]));
    let r = k.step(response("a1", "Writing /w/x is a little risky.", &[], &[]));
    assert!(r.relations.iter().any(|rel| rel.relation == Relation::Refutes), "{r:?}");
    assert_eq!(state_of(&k, &made.evidence_refs[0]), Lifecycle::Candidate, "a doubt");
    k.step(response("a1", "On second thought, do not write /w/x yet.", &[], &[]));
    assert_eq!(state_of(&k, &made.evidence_refs[0]), Lifecycle::Disputed, "an explicit refusal");
}

#[test]
fn a_proposal_made_after_its_refutation_is_disputed_when_made() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
    let r = k.step(response("a2", "see data part", &[], &[("p1", Relation::Refutes)]));
    let made = k.step(response("a1", "Proposal.", &[("p1", "write_file", write("/w/x", "y"))], &[]));
    assert_eq!(state_of(&k, &made.evidence_refs[0]), Lifecycle::Disputed);
    assert!(last_transition(&k, &made.evidence_refs[0]).reason.contains(&r.evidence_refs[0]));
}

#[test]
fn a_re_proposal_with_another_action_supersedes_the_artifact_it_replaces() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
    let first = k.step(response(
        "a1",
        "Two steps.",
        &[("p1", "write_file", write("/w/x", "y")), ("p2", "write_file", write("/w/z", "y"))],
        &[],
    ));
    let first = first.evidence_refs[0].clone();
    // Restating the same action, or another agent reusing an id, replaces nothing of a1's.
    let restated = k.step(response("a1", "Restated.", &[("p1", "write_file", write("/w/x", "y"))], &[]));
    k.step(response("a2", "Mine.", &[("p1", "write_file", write("/w/q", "y"))], &[]));
    assert_eq!(state_of(&k, &first), Lifecycle::Candidate);
    assert_eq!(state_of(&k, &restated.evidence_refs[0]), Lifecycle::Candidate);
    // Its proposer replacing p1 with another action: the first artifact still carries p2.
    k.step(response("a1", "Revised p1.", &[("p1", "write_file", write("/w/x", "other"))], &[]));
    assert_eq!(state_of(&k, &first), Lifecycle::Candidate, "p2 of the first artifact is still current");
    let newer = k.step(response("a1", "Revised p2.", &[("p2", "write_file", write("/w/z", "other"))], &[]));
    assert_eq!(state_of(&k, &first), Lifecycle::Superseded);
    let t = last_transition(&k, &first);
    assert_eq!(
        (t.from, t.to, t.actor.as_str(), t.at),
        (Lifecycle::Candidate, Lifecycle::Superseded, "blindfold", k.now_ms)
    );
    assert!(t.reason.contains("p2") && t.reason.contains(&newer.evidence_refs[0]), "{t:?}");
    assert!(k.traj.evidence().usable(&first), "superseded is history, still retrievable");
}

#[test]
fn disputing_or_superseding_never_brings_back_quarantined_or_revoked_evidence() {
    let mut g = EvidenceGraph::default();
    let quarantined = artifact(&mut g, "g", &[]);
    let revoked = artifact(&mut g, "g", &[]);
    let disputed = artifact(&mut g, "g", &[]);
    assert!(g.transition(&quarantined, Lifecycle::Quarantined, "injection", "blindfold", 1));
    g.revoke(&revoked, "source compromised", "human:ops", 1);
    for id in [&quarantined, &revoked] {
        assert!(!g.dispute(id, "refuted", "blindfold", 2));
        assert!(!g.supersede(id, "replaced", "blindfold", 2));
        assert!(!g.usable(id));
    }
    // A disputed artifact can still be superseded; a superseded one is not disputed again.
    assert!(g.dispute(&disputed, "refuted", "blindfold", 2));
    assert!(g.supersede(&disputed, "replaced", "blindfold", 3));
    assert!(!g.dispute(&disputed, "refuted again", "blindfold", 4));
    assert_eq!(g.get(&disputed).map(|a| a.transitions.len()), Some(2));
}

/// a3's answer names the runbook; the coordinator relays the runbook to a2 for its own work.
fn relayed_runbook(k: &mut Kit) -> (String, String, String) {
    let source = k.step(response("a3", "The steps are in /w/runbook.md, section 2.", &[], &[]));
    let handoff = k.step(delegate("a2", Intent::Scope, "Summarise /w/runbook.md for me.", None));
    let answer = k.step(response("a2", "Section 2 restarts the service.", &[], &[]));
    (source.evidence_refs[0].clone(), handoff.evidence_refs[0].clone(), answer.evidence_refs[0].clone())
}

#[test]
fn an_answer_derives_from_the_responses_relayed_to_its_author() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y"), ("a3", "fam-z")]);
    let (source, handoff, answer) = relayed_runbook(&mut k);
    let derived =
        |k: &Kit, id: &str| k.traj.evidence().get(id).expect("artifact").provenance.derived_from.clone();
    assert_eq!(derived(&k, &handoff), vec![source.clone()], "the delegation carried a3's content");
    assert_eq!(derived(&k, &answer), vec![source.clone()], "a2's answer rests on what it was shown");
    // An agent shown nothing of a3's answer that observed for itself derives from what it
    // observed (evidence::relay: one that observed nothing derives from the coordinator's context).
    k.step(delegate("a1", Intent::Scope, "Check the disk usage.", None));
    k.step(call("a1", "bash", json!({"command": "df -h /w"}), None));
    let own = k.step(result("bash", "/dev/vda 50G 25G 25G 50% /w")).evidence_refs[0].clone();
    let unrelated = k.step(response("a1", "The disk is half full.", &[], &[]));
    assert_eq!(derived(&k, &unrelated.evidence_refs[0]), vec![own]);
    assert!(derived(&k, &source).is_empty());

    let out = k.traj.revoke_evidence(&source, "a3 was compromised", "human:ops", k.now_ms);
    assert_eq!(out.artifacts, vec![handoff.clone(), answer.clone()]);
    assert!(!k.traj.evidence().usable(&answer) && k.traj.evidence().usable(&unrelated.evidence_refs[0]));
}

#[test]
fn a_proposal_relayed_in_a_delegation_is_what_the_answer_derives_from() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
    let made = k.step(response("a1", "Proposal.", &[("p1", "write_file", write("/w/x", "y"))], &[]));
    k.step(delegate("a2", Intent::Execute, "Write /w/x as planned.", None));
    let answer = k.step(response("a2", "Done.", &[], &[]));
    let a = k.traj.evidence().get(&answer.evidence_refs[0]).expect("artifact");
    assert_eq!(a.provenance.derived_from, vec![made.evidence_refs[0].clone()]);
}

#[test]
fn a_verification_resting_on_revoked_content_no_longer_lets_the_action_run() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y"), ("a3", "fam-z")]);
    k.step(crate::testkit::task("update /w/x"));
    k.step(response("a1", "Proposal.", &[("p1", "write_file", write("/w/x", "y"))], &[]));
    let source = k.step(response("a3", "The runbook /w/runbook.md says /w/x is safe to rewrite.", &[], &[]));
    let source = source.evidence_refs[0].clone();
    k.step(delegate("a2", Intent::Verify, "check p1 against /w/runbook.md", Some("p1")));
    let verdict = k.step(response("a2", "go ahead", &[], &[("p1", Relation::FullSupport)]));
    assert!(verdict.relations.iter().any(|r| r.counts_as_verification), "{verdict:?}");
    k.grant("write_file", "/w/x", b"y", json!({}), None, Some(2));
    let run = |k: &mut Kit, id: &str| {
        let mut call = crate::testkit::call("coordinator", "write_file", write("/w/x", "y"), Some("p1"));
        if let blindfold_schemas::Event::ToolCall { call_id, .. } = &mut call {
            *call_id = Some(id.into());
        }
        k.step(call).decision.expect("decision")
    };
    assert!(run(&mut k, "c1").is_allow(), "verified, granted: it runs");

    let out = k.traj.revoke_evidence(&source, "the runbook was forged", "human:ops", k.now_ms);
    assert!(out.artifacts.contains(&verdict.evidence_refs[0]), "{out:?}");
    assert_eq!(out.claims, vec!["p1".to_owned()]);
    assert_eq!(out.claims_before, vec![ClaimState::Supported]);
    let decision = out.decisions.first().expect("the run that rested on it").clone();
    assert!(decision.starts_with("allowed:p1@"), "{decision}");
    assert!(k.traj.evidence().decision_stale(&decision));
    let again = run(&mut k, "c2");
    assert_eq!(again.reason, blindfold_schemas::Reason::Unverified, "{again:?}");
}

#[test]
fn a_pending_decision_on_revoked_evidence_is_listed_once_and_others_are_not() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
    let made = k.step(response("a1", "Proposal.", &[("p1", "write_file", write("/w/x", "y"))], &[]));
    let other = k.step(response("a2", "Unrelated notes.", &[], &[]));
    k.traj.record_pending("review:rv-1", vec![made.evidence_refs[0].clone()]);
    k.traj.record_pending("review:rv-2", vec![other.evidence_refs[0].clone()]);
    let out = k.traj.revoke_evidence(&made.evidence_refs[0], "forged", "human:ops", k.now_ms);
    assert_eq!(out.decisions, vec!["review:rv-1".to_owned()]);
    assert!(!k.traj.evidence().decision_stale("review:rv-2"));
}

#[test]
fn a_revoked_verification_no_longer_evidences_its_proposals_target() {
    let mut k = Kit::with_agents(&[("a1", "fam-x"), ("a2", "fam-y")]);
    k.step(crate::testkit::task("tidy up the workspace"));
    k.step(response("a1", "Proposal.", &[("p1", "write_file", write("/w/new.txt", "y"))], &[]));
    k.step(delegate("a2", Intent::Verify, "check p1", Some("p1")));
    let verdict = k.step(response("a2", "go ahead", &[], &[("p1", Relation::FullSupport)]));
    let other = |k: &mut Kit| {
        let s = k.step(crate::testkit::call("coordinator", "write_file", write("/w/new.txt", "other"), None));
        s.decision.expect("decision").check
    };
    assert_ne!(other(&mut k), "P2.target_in_evidence", "the verified proposal evidences /w/new.txt");
    k.traj.revoke_evidence(&verdict.evidence_refs[0], "verifier compromised", "human:ops", k.now_ms);
    assert_eq!(other(&mut k), "P2.target_in_evidence", "revoked, it evidences nothing");
}
