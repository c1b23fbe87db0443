//! Evidence facts: one per step of a trajectory, read from its trace records — the records the
//! daemon writes and the ones `blindfold replay` builds for the same steps — so the replay and
//! `trace summarize` measure the same facts with the same code.

use crate::runtime::trace::revocation::EVIDENCE_LIFECYCLE;
use blindfold_engine::authority::COORDINATOR;
use blindfold_schemas::{Label, Reason, RecordTruth, Relation, TraceKind, TraceRecord, Verdict};

/// What a step was, for the evidence metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FactKind {
    /// An agent's answer (claims, proposals, support).
    Response,
    /// A decided tool call.
    Call,
    /// A decided memory write.
    Write,
    /// A decided memory read.
    Read,
    /// An operator's revocation of evidence, with everything it marked.
    Revocation,
    /// Anything else (task, card, delegation, tool result).
    Other,
}

/// A support a response gave a proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Support {
    /// The proposal supported.
    pub proposal: String,
    /// True when Blindfold counted it as an independent verification.
    pub counted: bool,
}

/// One step of a trajectory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvidenceFact {
    /// Milliseconds since the epoch.
    pub at_ms: u64,
    /// What it was.
    pub kind: FactKind,
    /// The principal it is about (alias, or `coordinator`).
    pub actor: String,
    /// For decided steps: the step went ahead (allowed, or blocked only on paper).
    pub passed: bool,
    /// For calls: the action is effectful (mutate or external).
    pub effectful: bool,
    /// For reads: the ACL or tenant check refused it (the live daemon's own view of an
    /// unauthorized read, used where no ground truth is recorded).
    pub acl_denied: bool,
    /// True when the mode in force uses verifications (`preverify`).
    pub preverify: bool,
    /// Scoring label.
    pub label: Option<Label>,
    /// Proposals made (responses).
    pub proposals: Vec<String>,
    /// Supports given (responses).
    pub supports: Vec<Support>,
    /// The proposal a call executes.
    pub executes: Option<String>,
    /// Claims a revocation marked for revalidation.
    pub marked_claims: Vec<String>,
    /// Pending decisions a revocation marked for revalidation.
    pub marked_decisions: Vec<String>,
    /// Ground truth, when the record carries it.
    pub truth: Option<RecordTruth>,
}

impl EvidenceFact {
    fn new(kind: FactKind, r: &TraceRecord) -> Self {
        Self {
            at_ms: r.ts,
            kind,
            actor: r.actor_alias.clone().unwrap_or_else(|| COORDINATOR.to_owned()),
            passed: r.passed(),
            effectful: r.effect.is_none_or(|e| e.is_effectful()),
            acl_denied: r.decision.is_some_and(|d| d != Verdict::Allow)
                && r.reason == Some(Reason::StoreDenied)
                && r.check.as_deref().is_some_and(|c| c.starts_with("P5.")),
            preverify: r.mode.preverify,
            label: r.label,
            proposals: r.proposals.iter().map(|p| p.id.clone()).collect(),
            supports: r
                .relations
                .iter()
                .filter(|rel| rel.relation == Relation::FullSupport)
                .map(|rel| Support { proposal: rel.proposal.clone(), counted: rel.counts_as_verification })
                .collect(),
            executes: r.proposal.clone(),
            marked_claims: Vec::new(),
            marked_decisions: Vec::new(),
            truth: r.truth.clone(),
        }
    }

    /// The ground truth, empty when the record carries none.
    pub fn truth(&self) -> &RecordTruth {
        static EMPTY: std::sync::OnceLock<RecordTruth> = std::sync::OnceLock::new();
        self.truth.as_ref().unwrap_or_else(|| EMPTY.get_or_init(RecordTruth::default))
    }
}

/// True for a record a revocation writes (one per change it makes).
fn lifecycle(r: &TraceRecord) -> bool {
    r.kind == TraceKind::Control && r.tool.as_deref() == Some(EVIDENCE_LIFECYCLE)
}

/// The facts of one trajectory's records, in order: one per event record, and one per
/// revocation (its records — the artifact `REVOKED`, then each artifact, claim and pending
/// decision marked — are one fact). Other control records are left out.
pub fn facts_of<'a>(records: impl IntoIterator<Item = &'a TraceRecord>) -> Vec<EvidenceFact> {
    let mut out: Vec<EvidenceFact> = Vec::new();
    for r in records {
        if lifecycle(r) {
            let revoked = r.evidence_refs.first().map(String::as_str);
            let target = r.target.as_deref().unwrap_or_default();
            if revoked == Some(target) {
                out.push(EvidenceFact::new(FactKind::Revocation, r));
            } else if let Some(last) = out.last_mut().filter(|f| f.kind == FactKind::Revocation) {
                if let Some(claim) = target.strip_prefix("claim:") {
                    last.marked_claims.push(claim.to_owned());
                } else if let Some(decision) = target.strip_prefix("decision:") {
                    last.marked_decisions.push(decision.to_owned());
                }
            }
            continue;
        }
        let kind = match r.kind {
            TraceKind::Response => FactKind::Response,
            TraceKind::ToolCall if r.decision.is_some() => FactKind::Call,
            TraceKind::MemoryWrite if r.decision.is_some() => FactKind::Write,
            TraceKind::MemoryRead if r.decision.is_some() => FactKind::Read,
            TraceKind::Control => continue,
            _ => FactKind::Other,
        };
        out.push(EvidenceFact::new(kind, r));
    }
    out
}
