//! The trace records of an evidence revocation (SPEC §5): the artifact `REVOKED`, then every
//! derived artifact, claim and pending decision marked `NEEDS_REVALIDATION`, one record each.
//! The control API writes them for a live trajectory and the replay for a `revoke_evidence`
//! step, so `trace summarize` reads one shape.

use blindfold_engine::evidence::{EvidenceGraph, Revalidation};
use blindfold_schemas::{ClaimState, ModeSet, TraceKind, TraceRecord};
use serde_json::{Value, json};

/// The `tool` of a lifecycle record: one per state change a revocation makes.
pub const EVIDENCE_LIFECYCLE: &str = "evidence_lifecycle";

/// The state a derived artifact, claim or decision is marked with (not a lifecycle state: an
/// artifact keeps its own, and is unusable until revalidated).
pub const NEEDS_REVALIDATION: &str = "NEEDS_REVALIDATION";

/// One revocation, as recorded.
pub struct Revoked<'a> {
    /// The trajectory.
    pub task_id: &'a str,
    /// The revoked artifact.
    pub evidence_id: &'a str,
    /// Why.
    pub reason: &'a str,
    /// Who revoked it (`human:operator`).
    pub actor: &'a str,
    /// Modes in force.
    pub mode: ModeSet,
    /// When, ms since the epoch.
    pub at: u64,
}

/// One record per change: the artifact `REVOKED` (its recorded transition, read from `graph`
/// after the revocation), and each derived artifact, claim and pending decision `marked`.
pub fn lifecycle_records(
    rev: &Revoked<'_>,
    graph: &EvidenceGraph,
    marked: &Revalidation,
) -> Vec<TraceRecord> {
    let record = |subject: &str, change: Value| {
        let mut r = TraceRecord::new(rev.task_id, TraceKind::Control, rev.at, rev.mode);
        r.tool = Some(EVIDENCE_LIFECYCLE.to_owned());
        r.target = Some(subject.to_owned());
        r.detail = Some(change.to_string());
        r.evidence_refs = vec![rev.evidence_id.to_owned()];
        r
    };
    let because = format!("rests on {}, revoked: {}", rev.evidence_id, rev.reason);
    let marking = |from: Value| json!({"from": from, "to": NEEDS_REVALIDATION, "reason": because, "actor": rev.actor, "at": rev.at});
    let mut out = Vec::new();
    if let Some(revoked) = graph.get(rev.evidence_id).and_then(|a| a.transitions.last()) {
        out.push(record(rev.evidence_id, json!(revoked)));
    }
    for id in &marked.artifacts {
        let from = graph.get(id).map(|a| a.lifecycle_state);
        out.push(record(id, marking(json!(from))));
    }
    for (claim, before) in marked.claims.iter().zip(&marked.claims_before) {
        out.push(record(&format!("claim:{claim}"), marking(claim_state(*before))));
    }
    for decision in &marked.decisions {
        out.push(record(&format!("decision:{decision}"), marking(json!("PENDING"))));
    }
    out
}

fn claim_state(s: ClaimState) -> Value {
    serde_json::to_value(s).unwrap_or(Value::Null)
}
