//! Seed-derived evidence-graph tests: independence counts sources, not agents; revocation
//! propagates to derived artifacts, claims and pending decisions.

use super::graph::NewArtifact;
use super::*;
use crate::testkit::{Kit, delegate, response, result};
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
