//! Facts: what the tracker needs to know about one event, whichever way it was learned.

use super::fingerprint::action_fingerprint;
use crate::engine::Step;
use blindfold_schemas::{
    Event, Intent, Layer, Reason, Relation, RelationClaim, TraceKind, TraceRecord, Verdict,
};

/// The principal name of the coordinator in facts and records.
pub const COORDINATOR: &str = "coordinator";

/// One authority-relevant observation about a trajectory.
#[derive(Debug, Clone, PartialEq)]
pub enum Fact {
    /// The coordinator gave `to` work with `intent`.
    Delegate {
        /// Agent key (alias).
        to: String,
        /// Why.
        intent: Intent,
    },
    /// `from` answered with proposals and relations.
    Response {
        /// Agent key (alias).
        from: String,
        /// `(proposal id, fingerprint)` of each proposal made.
        proposals: Vec<(String, String)>,
        /// `(proposal id, relation)` stated or detected about proposals.
        relations: Vec<(String, Relation)>,
    },
    /// A decided call (tool call or memory operation).
    Call(CallFact),
    /// Nothing that moves authority (task input, cards, tool results).
    Other,
}

/// A decided call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallFact {
    /// `coordinator` or an agent key.
    pub actor: String,
    /// Action fingerprint, for matching proposals.
    pub fingerprint: Option<String>,
    /// The proposal the call names or the engine matched.
    pub proposal: Option<String>,
    /// The proposer the engine matched, when it did.
    pub proposer: Option<String>,
    /// Whether the action is effectful (mutate, external, memory write).
    pub effectful: bool,
    /// The decision.
    pub verdict: Verdict,
    /// False in `observe`: the action ran whatever the verdict.
    pub enforced: bool,
    /// Reason code of the decision.
    pub reason: Reason,
    /// Check that decided.
    pub check: String,
    /// Its layer.
    pub layer: Layer,
    /// Agent keys whose answers are the contradicting evidence against the call (empty when
    /// none stands, or the record predates this field).
    pub refuted_by: Vec<String>,
}

impl CallFact {
    /// True when the action went ahead (allowed, or blocked only on paper).
    pub fn passed(&self) -> bool {
        self.verdict == Verdict::Allow || !self.enforced
    }
}

/// The relations a response bears toward proposals, as the trace and the tracker keep them:
/// what it stated (also about proposals Blindfold does not know yet) and what the engine found
/// in its text (lexical, judge) — a refusal written only in prose counts like a stated one —
/// each `(proposal, relation)` once, in that order.
pub fn response_relations(stated: &[RelationClaim], step: &Step) -> Vec<(String, Relation)> {
    let mut out: Vec<(String, Relation)> = Vec::with_capacity(stated.len() + step.relations.len());
    let found = step.relations.iter().map(|r| (&r.proposal, r.relation));
    for (proposal, relation) in stated.iter().map(|r| (&r.proposal, r.relation)).chain(found) {
        if !out.iter().any(|(p, r)| p == proposal && *r == relation) {
            out.push((proposal.clone(), relation));
        }
    }
    out
}

/// The fact of an engine step;/// The fact of an engine step; `key` maps an agent's configured id to the key the tracker uses
/// (the alias the coordinator saw).
pub fn from_step(event: &Event, step: &Step, key: &dyn Fn(&str) -> String) -> Fact {
    match event {
        Event::Delegate { to, intent, .. } => Fact::Delegate { to: key(to), intent: *intent },
        Event::Response { from, proposals, relations, .. } => Fact::Response {
            from: key(from),
            proposals: proposal_fingerprints(proposals, step),
            relations: response_relations(relations, step),
        },
        Event::ToolCall { actor, tool, args, proposal, .. } => {
            let Some(decision) = &step.decision else { return Fact::Other };
            let effectful = step.action.as_ref().is_none_or(|a| a.effect.is_effectful());
            Fact::Call(CallFact {
                actor: principal(actor, key),
                fingerprint: Some(call_fingerprint(tool, args, step)),
                proposal: proposal.clone(),
                proposer: None,
                effectful,
                verdict: decision.decision,
                enforced: step.enforced,
                reason: decision.reason,
                check: decision.check.as_str().to_owned(),
                layer: decision.layer,
                refuted_by: step.refuted_by.iter().map(|b| key(b)).collect(),
            })
        }
        Event::MemoryWrite { actor, .. } | Event::MemoryRead { actor, .. } => {
            let Some(decision) = &step.decision else { return Fact::Other };
            Fact::Call(CallFact {
                actor: principal(actor, key),
                fingerprint: None,
                proposal: None,
                proposer: None,
                effectful: matches!(event, Event::MemoryWrite { .. }),
                verdict: decision.decision,
                enforced: step.enforced,
                reason: decision.reason,
                check: decision.check.as_str().to_owned(),
                layer: decision.layer,
                refuted_by: Vec::new(),
            })
        }
        Event::Task { .. } | Event::Card { .. } | Event::ToolResult { .. } => Fact::Other,
    }
}

/// The fingerprint of a tool call: the engine's (carried in its step), else computed here for a
/// step that did not come from the engine.
pub fn call_fingerprint(
    tool: &str,
    args: &serde_json::Map<String, serde_json::Value>,
    step: &Step,
) -> String {
    step.fingerprint.clone().unwrap_or_else(|| action_fingerprint(tool, args))
}

/// `(id, fingerprint)` of each proposal of a response: the engine's (carried in its step), else
/// computed here for a step that did not come from the engine.
pub fn proposal_fingerprints(
    proposals: &[blindfold_schemas::event::ProposedAction],
    step: &Step,
) -> Vec<(String, String)> {
    if step.proposal_fingerprints.len() == proposals.len() {
        return step.proposal_fingerprints.clone();
    }
    proposals.iter().map(|p| (p.id.clone(), action_fingerprint(&p.tool, &p.args))).collect()
}

fn principal(actor: &str, key: &dyn Fn(&str) -> String) -> String {
    if actor == COORDINATOR { COORDINATOR.to_owned() } else { key(actor) }
}

/// The fact a trace record states (records carry aliases already).
pub fn from_record(record: &TraceRecord) -> Fact {
    let alias = record.actor_alias.clone().unwrap_or_default();
    match record.kind {
        TraceKind::Delegate => match record.intent {
            Some(intent) => Fact::Delegate { to: alias, intent },
            None => Fact::Other,
        },
        TraceKind::Response => Fact::Response {
            from: alias,
            proposals: record.proposals.iter().map(|p| (p.id.clone(), p.fingerprint.clone())).collect(),
            relations: record.relations.iter().map(|r| (r.proposal.clone(), r.relation)).collect(),
        },
        TraceKind::ToolCall | TraceKind::MemoryWrite | TraceKind::MemoryRead => {
            let Some(verdict) = record.decision else { return Fact::Other };
            let effectful = match record.kind {
                TraceKind::ToolCall => record.effect.is_none_or(|e| e.is_effectful()),
                TraceKind::MemoryWrite => true,
                _ => false,
            };
            Fact::Call(CallFact {
                actor: if alias.is_empty() { COORDINATOR.to_owned() } else { alias },
                fingerprint: record.action_fingerprint.clone(),
                proposal: record.proposal.clone(),
                proposer: record.proposer_alias.clone(),
                effectful,
                verdict,
                enforced: record.enforced.unwrap_or(true),
                reason: record.reason.unwrap_or(Reason::InternalError),
                check: record.check.clone().unwrap_or_default(),
                layer: record.layer.unwrap_or(Layer::ContentFree),
                refuted_by: record.refuted_by.clone(),
            })
        }
        TraceKind::Task | TraceKind::Card | TraceKind::ToolResult | TraceKind::Control | TraceKind::Frame => {
            Fact::Other
        }
    }
}
