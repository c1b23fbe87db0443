//! Deciding one tool call, as named steps: its targets (with what a file it runs inherited),
//! the proposal it executes, the disputes and evidence it rests on, the cascade, and what a run
//! leaves behind (replay keys, ledger, what a write names).

use crate::action;
use crate::cascade::{self, CallCtx};
use crate::engine::{Engine, Step, StepContext, Trajectory};
use crate::grants::ActionFacts;
use crate::registry::DerivedAction;
use crate::state::{Dispute, LedgerEntry, ProposalRec, State};
use crate::text::Target;
use blindfold_schemas::ProposalRef;
use serde_json::{Map, Value};

/// One tool call as the engine receives it.
pub(crate) struct ToolCall<'a> {
    pub(crate) actor: &'a str,
    pub(crate) tool: &'a str,
    pub(crate) args: &'a Map<String, Value>,
    pub(crate) proposal: Option<&'a str>,
    pub(crate) call_id: Option<&'a str>,
    /// What the transport saw of the call on the wire (checked at the head of the cascade).
    pub(crate) wire: &'a blindfold_schemas::Facts,
}

/// Which proposal a call executes, and on whose behalf.
struct Executes<'s> {
    /// The proposal it executes or adopts.
    proposal: Option<&'s ProposalRec>,
    /// True when the call names its proposal (or the proposer runs it itself).
    named: bool,
    /// A proposal id the call names that was never relayed.
    named_unknown: Option<&'s str>,
    /// The sub-agent whose proposal this is; `None` for the coordinator's own call.
    proposer: Option<String>,
    /// The proposal reference the step reports.
    adopts: Option<ProposalRef>,
}

impl Engine {
    /// Decides one tool call of `trajectory`.
    pub(crate) fn tool_call(
        &self,
        trajectory: &mut Trajectory,
        call: ToolCall<'_>,
        ctx: StepContext,
    ) -> Step {
        let registry = &self.config.registry;
        let mut action = registry.derive(call.tool, call.args);
        if action.unknown && call.wire.trusted_read_only {
            // What a registry entry `{effect = "read"}` with no target or artifact argument
            // would derive: the same target, bytes and fingerprint, as a read.
            action.effect = blindfold_schemas::Effect::Read;
            action.unknown = false;
        }
        let fingerprint = action::fingerprint(registry, call.tool, call.args);
        let st = &trajectory.state;
        let targets = self.call_targets(st, &call, &action);
        let executes = executed_proposal(st, &call, &action, &fingerprint);
        let against =
            cascade::disputes_against(st, &targets, executes.proposal, executes.proposer.as_deref());
        let contradicted = action.effect.is_effectful() && !against.is_empty();
        let mut refuted_by: Vec<String> = Vec::new();
        for d in against.iter().filter(|_| contradicted) {
            if !refuted_by.contains(&d.by) {
                refuted_by.push(d.by.clone());
            }
        }
        let evidence_refs = evidence_refs(st, &against, executes.proposal);
        let facts = self.action_facts(&trajectory.id, &call, &action, ctx);
        let cctx = CallCtx {
            engine: self,
            facts: &facts,
            st,
            task_id: &trajectory.id,
            actor: call.actor,
            tool: call.tool,
            args: call.args,
            action: &action,
            fingerprint: &fingerprint,
            targets: &targets,
            proposal: executes.proposal,
            proposer: executes.proposer.as_deref(),
            named: executes.named,
            named_unknown: executes.named_unknown,
            call_id: call.call_id,
            wire: call.wire,
            against: &against,
            modes: ctx.modes,
            now_ms: ctx.now_ms,
            consume: ctx.consume,
            granted: std::cell::RefCell::new(None),
        };
        let decision = cascade::run(cascade::TOOL_CALL, |check| check(&cctx));
        // The decision names the grant whose use it took (never the token).
        let mut decision = match cctx.granted.take() {
            Some(jti) if decision.is_allow() => decision.with_grant(jti),
            _ => decision,
        };
        if decision.is_allow() && decision.detail.is_none() && facts.paths_unseen() {
            decision.detail = Some(crate::grants::UNSEEN_PATHS.to_owned());
        }
        let verified_run = match executes.proposal {
            Some(p) if ctx.consume && decision.is_allow() && ctx.modes.preverify => {
                verification_rested_on(st, p, &fingerprint)
            }
            _ => None,
        };
        let adopts = executes.adopts;
        // What runs is recorded (in observe mode, everything runs); dry runs record nothing.
        let runs = decision.is_allow() || !ctx.modes.enforce;
        let st = &mut trajectory.state;
        if let Some((id, evidence)) = verified_run {
            st.graph.record_pending(&id, evidence);
        }
        if ctx.consume && runs {
            if action.effect.is_effectful() {
                let run = Run { call: &call, action: &action, fingerprint: &fingerprint, targets: &targets };
                record_effect(st, self, &run, ctx.now_ms);
            }
            if let Some(cid) = call.call_id {
                st.tool_call_ids.insert(cid.to_owned());
            }
            st.last_call = Some(crate::state::LastCall {
                tool: call.tool.to_owned(),
                call_id: call.call_id.map(str::to_owned),
                source: source_key(&action),
                actor: call.actor.to_owned(),
            });
        }
        Step {
            decision: Some(decision),
            enforced: ctx.modes.enforce,
            action: Some(action),
            fingerprint: Some(fingerprint),
            adopts,
            contradicted,
            refuted_by,
            evidence_refs,
            ..Step::default()
        }
    }

    /// What grants read of an effectful call when grants are in force: resources, paths
    /// (resolved now), criticality, size.
    fn action_facts(
        &self,
        task_id: &str,
        call: &ToolCall<'_>,
        action: &DerivedAction,
        ctx: StepContext,
    ) -> ActionFacts {
        if !(action.effect.is_effectful() && ctx.modes.grants) {
            return ActionFacts::default();
        }
        let registry = &self.config.registry;
        ActionFacts::derive(registry, self.workspaces.as_ref(), task_id, call.tool, call.args, action)
    }

    /// The call's targets. They are read by the dispute check, the argument rules and what only
    /// effectful actions go through; a read call with none of those in play needs none (finding
    /// them scans every argument). Running a file that was written in this trajectory touches
    /// what the file names.
    fn call_targets(&self, st: &State, call: &ToolCall<'_>, action: &DerivedAction) -> Vec<Target> {
        let registry = &self.config.registry;
        let needs_targets = action.effect.is_effectful()
            || !st.disputes.is_empty()
            || self.config.arg_rules.iter().any(|r| r.tool == "*" || r.tool == call.tool);
        if !needs_targets {
            return Vec::new();
        }
        let mut targets = action::targets(registry, call.tool, call.args);
        let inherited: Vec<Target> = targets
            .iter()
            .filter_map(|t| match t {
                Target::Path(p) => st.written.get(p),
                _ => None,
            })
            .flatten()
            .cloned()
            .collect();
        targets.extend(inherited);
        targets.sort();
        targets.dedup();
        targets
    }
}

/// Which proposal `call` executes: named, else adopted by fingerprint, else (for an agent acting
/// itself) the same operation on the same target; and whose it is.
fn executed_proposal<'s>(
    st: &'s State,
    call: &ToolCall<'s>,
    action: &DerivedAction,
    fingerprint: &str,
) -> Executes<'s> {
    let coordinator = call.actor == "coordinator";
    let mut named = false;
    let mut named_unknown = None;
    let proposal: Option<&ProposalRec> = match call.proposal {
        Some(id) => {
            named = true;
            let p = st.proposal(id);
            if p.is_none() {
                named_unknown = Some(id);
            }
            p
        }
        None => st.proposal_by_fingerprint(fingerprint).or_else(|| {
            let own = st.proposals.iter().rev().find(|p| {
                !coordinator
                    && p.proposer == call.actor
                    && p.tool == call.tool
                    && p.action.target == action.target
            });
            named = own.is_some();
            own
        }),
    };
    let proposer: Option<String> = match proposal {
        Some(p) => Some(p.proposer.clone()),
        None if !coordinator => Some(call.actor.to_owned()),
        None => None,
    };
    let adopts = match (proposal, &proposer, named_unknown) {
        (Some(p), _, _) => Some(ProposalRef { proposal: p.id.clone(), proposer: p.proposer.clone() }),
        (None, Some(who), Some(id)) => Some(ProposalRef { proposal: id.to_owned(), proposer: who.clone() }),
        (None, Some(who), None) => {
            Some(ProposalRef { proposal: format!("auto-{}", &fingerprint[..12]), proposer: who.clone() })
        }
        (None, None, _) => None,
    };
    Executes { proposal, named, named_unknown, proposer, adopts }
}

/// The evidence a call's decision rests on: the disputes against it, the proposal it executes
/// and that proposal's verifications (sorted, deduplicated).
fn evidence_refs(st: &State, against: &[&Dispute], proposal: Option<&ProposalRec>) -> Vec<String> {
    let mut refs: Vec<String> = against.iter().map(|d| d.evidence.clone()).collect();
    if let Some(p) = proposal {
        refs.push(p.evidence.clone());
        refs.extend(st.verifications_of(p).map(|v| v.evidence.clone()));
    }
    refs.sort();
    refs.dedup();
    refs
}

/// An effectful call that runs, as [`record_effect`] reads it.
struct Run<'r> {
    call: &'r ToolCall<'r>,
    action: &'r DerivedAction,
    fingerprint: &'r str,
    targets: &'r [Target],
}

/// Records an effectful run: its replay keys (they expire), its ledger entry and count, and for
/// a write what the written content names (split actions stay disputed), prose included:
/// running the file touches whatever it names.
fn record_effect(st: &mut State, engine: &Engine, run: &Run<'_>, now_ms: u64) {
    let Run { call, action, fingerprint, targets } = *run;
    let registry = &engine.config.registry;
    let expiry = now_ms.saturating_add(engine.config.replay_expiry_ms);
    st.replay.insert(cascade::replay_key(call.call_id, fingerprint), expiry);
    if call.call_id.is_some() {
        st.replay.insert(cascade::replay_key(None, fingerprint), expiry);
    }
    st.ledger.push_back(LedgerEntry {
        at_ms: now_ms,
        actor: call.actor.to_owned(),
        fingerprint: fingerprint.to_owned(),
    });
    *st.actions.entry(call.actor.to_owned()).or_default() += 1;
    st.executed.insert(fingerprint.to_owned());
    let own = Target::Path(action.target.clone());
    let named: Vec<Target> = targets
        .iter()
        .chain(action::artifact_targets(registry, call.tool, call.args).iter())
        .filter(|t| !matches!(t, Target::Tool(_)) && *t != &own)
        .cloned()
        .collect();
    let shell = action::is_shell(registry, call.tool);
    for t in targets {
        if let Target::Path(p) = t
            && (p == &crate::text::target::normalise_path(&action.target) || !shell)
        {
            st.written.entry(p.clone()).or_default().extend(named.iter().cloned());
        }
    }
    if shell {
        for t in crate::shell::resources(&action.target) {
            if let Target::Path(p) = t {
                st.written.entry(p).or_default().extend(named.iter().cloned());
            }
        }
    }
}

/// The decision an allowed run of proposal `p` (action `fingerprint`) rests on, when a
/// verification let it through: `allowed:<proposal>@<fingerprint prefix>`, and the proposal's
/// artifact with the usable verifications of it. `None` when no verification counted (the
/// coordinator's own call, or a human's review grant let it through).
fn verification_rested_on(st: &State, p: &ProposalRec, fingerprint: &str) -> Option<(String, Vec<String>)> {
    let verifications: Vec<String> = st
        .verifications_of(p)
        .filter(|v| v.by != p.proposer && st.graph.usable(&v.evidence))
        .map(|v| v.evidence.clone())
        .collect();
    if verifications.is_empty() {
        return None;
    }
    let mut evidence = vec![p.evidence.clone()];
    evidence.extend(verifications);
    Some((format!("allowed:{}@{}", p.id, &fingerprint[..12.min(fingerprint.len())]), evidence))
}

/// The observed source a tool call reads from: its URL or path target (for a read registered
/// without a target argument, the URL or path among its arguments); for another read, the tool
/// and what it reads (`search:{"query":"…"}` — one resource, so a newer reading of it replaces the
/// older, evidence::relay); else the tool.
fn source_key(action: &DerivedAction) -> String {
    let resource = |s: &str| match crate::text::target::classify(s) {
        Some(t @ (Target::Url(_) | Target::Path(_))) => Some(t.key()),
        _ => None,
    };
    if let Some(key) = resource(&action.target) {
        return key;
    }
    if action.effect != blindfold_schemas::Effect::Read {
        return format!("tool:{}", action.operation);
    }
    if action.target != action.operation {
        return format!("{}:{}", action.operation, action.target);
    }
    let named = action.args.values().filter_map(Value::as_str).find_map(resource);
    named.unwrap_or_else(|| {
        format!("{}:{}", action.operation, crate::canonical::jcs_string(&Value::Object(action.args.clone())))
    })
}
