//! Building a trace record from one engine step: aliases, true identity, decision, transfer.

use super::secrets::mask_secrets;
use blindfold_engine::Step;
use blindfold_engine::authority::facts::{call_fingerprint, proposal_fingerprints, response_relations};
use blindfold_engine::authority::{COORDINATOR, CallTransfer};
use blindfold_schemas::{
    AgentIdentity, Event, ModeSet, TraceKind, TraceProposal, TraceRecord, TraceRelation,
};

/// Longest target kept in a record (characters).
const MAX_TARGET: usize = 200;

/// Who an agent is in a trajectory: the alias the coordinator sees, and its true identity.
///
/// The identity work provides the real directory (shuffled per-trajectory aliases, identities from
/// config); until one is installed, agents appear under their configured ids.
pub trait ActorDirectory: Send + Sync {
    /// The alias of agent `agent` (configured id) in `trajectory`.
    fn alias(&self, trajectory: &str, agent: &str) -> String;
    /// The agent's true identity, when Blindfold knows it.
    fn true_identity(&self, agent: &str) -> Option<AgentIdentity>;
}

/// Agents under their configured ids, identity unknown.
pub struct ConfiguredIds;

impl ActorDirectory for ConfiguredIds {
    fn alias(&self, _trajectory: &str, agent: &str) -> String {
        agent.to_owned()
    }
    fn true_identity(&self, _agent: &str) -> Option<AgentIdentity> {
        None
    }
}

/// What a record is built from besides the event.
pub struct RecordContext<'a> {
    /// Trajectory id.
    pub trajectory: &'a str,
    /// Decision time, ms since the epoch.
    pub ts: u64,
    /// Modes in force.
    pub mode: ModeSet,
    /// Time spent deciding, µs.
    pub latency_us: u64,
    /// Aliases and identities.
    pub directory: &'a dyn ActorDirectory,
}

/// The record for `event` decided as `step`, with the authority `transfer` the tracker saw.
pub fn build(ctx: &RecordContext<'_>, event: &Event, step: &Step, transfer: &CallTransfer) -> TraceRecord {
    let mut r = TraceRecord::new(ctx.trajectory, TraceKind::of(event), ctx.ts, ctx.mode);
    r.latency_us = ctx.latency_us;
    let agent = |id: &str| -> (Option<String>, Option<AgentIdentity>) {
        if id == COORDINATOR {
            (Some(COORDINATOR.to_owned()), None)
        } else {
            (Some(ctx.directory.alias(ctx.trajectory, id)), ctx.directory.true_identity(id))
        }
    };
    let who = match event {
        Event::Card { agent: a, .. } => Some(a.as_str()),
        Event::Delegate { to, intent, .. } => {
            r.intent = Some(*intent);
            Some(to.as_str())
        }
        Event::Response { from, proposals, relations, .. } => {
            r.proposals = proposals
                .iter()
                .zip(proposal_fingerprints(proposals, step))
                .map(|(p, (_, fingerprint))| TraceProposal {
                    id: p.id.clone(),
                    tool: p.tool.clone(),
                    fingerprint,
                })
                .collect();
            r.relations = response_relations(relations, step)
                .into_iter()
                .map(|(proposal, relation)| {
                    // Whether Blindfold credited this support as an independent verification.
                    let counts_as_verification = step.relations.iter().any(|d| {
                        d.proposal == proposal && d.relation == relation && d.counts_as_verification
                    });
                    TraceRelation { proposal, relation, proposer_alias: None, counts_as_verification }
                })
                .collect();
            Some(from.as_str())
        }
        Event::ToolCall { actor, tool, args, .. } => {
            r.tool = Some(tool.clone());
            r.action_fingerprint = Some(call_fingerprint(tool, args, step));
            if let Some(action) = &step.action {
                r.effect = Some(action.effect);
                r.target = Some(mask_secrets(&action.target).chars().take(MAX_TARGET).collect());
            }
            Some(actor.as_str())
        }
        Event::MemoryWrite { actor, store, .. } | Event::MemoryRead { actor, store, .. } => {
            r.target = Some(store.clone());
            Some(actor.as_str())
        }
        Event::ToolResult { tool, .. } => {
            r.tool = Some(tool.clone());
            None
        }
        Event::Task { .. } => None,
    };
    if let Some(id) = who {
        (r.actor_alias, r.actor_true) = agent(id);
    }
    decided(&mut r, step);
    r.stage = transfer.stage;
    r.proposal = transfer.proposal.clone();
    r.proposer_alias = transfer.proposer.clone();
    r.evidence_refs = transfer.evidence_refs.clone();
    // Who refuted, by the alias the coordinator saw (the true identity is `actor_true`'s alone).
    r.refuted_by = step.refuted_by.iter().filter_map(|by| agent(by).0).collect();
    r
}

/// The decision of `step` in record `r`.
fn decided(r: &mut TraceRecord, step: &Step) {
    if let Some(d) = &step.decision {
        r.decision = Some(d.decision);
        r.reason = Some(d.reason);
        r.check = Some(d.check.as_str().to_owned());
        r.layer = Some(d.layer);
        r.enforced = Some(step.enforced);
        r.detail = d.detail.as_deref().map(|detail| mask_secrets(detail).into_owned());
        r.grant_jti = d.grant.clone();
    }
}

/// The record of a message decided before it became an event ([`TraceKind::Frame`]): the
/// decision, and the method a request named when it is one Blindfold does not relay (as `tool`).
pub fn frame(
    trajectory: &str,
    facts: &blindfold_schemas::Facts,
    step: &Step,
    ts: u64,
    mode: ModeSet,
    latency_us: u64,
) -> TraceRecord {
    let mut r = TraceRecord::new(trajectory, TraceKind::Frame, ts, mode);
    r.latency_us = latency_us;
    r.tool = facts.unrelayed_method.as_ref().map(|m| m.method.chars().take(MAX_TARGET).collect());
    decided(&mut r, step);
    r
}
