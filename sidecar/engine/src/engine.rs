//! The engine facade: per-trajectory state in, one decision per effectful event out.
//!
//! This is the contract every transport, the replay runner and the trace writer use:
//! `Engine::step(&mut Trajectory, &Event, StepContext) -> Step`. It never blocks and never
//! reads a clock; `StepContext` carries the time and the modes in force.

use crate::action;
use crate::cascade::{self, CallCtx, MemCtx};
use crate::grants::{ActionFacts, GrantCache, GrantStore, NoWorkspace, TrustedKeys, Workspaces};
use crate::registry::{DerivedAction, Registry};
use crate::state::{LedgerEntry, MemRecord, ProposalRec, State};
use crate::text::Target;
use blindfold_schemas::{
    Channel, Decision, DetectedRelation, Event, EvidenceScope, Layer, Lifecycle, ModeSet, ProposalRef,
    Provenance, Reason, Verdict,
};
use serde_json::{Map, Value};
use std::sync::Arc;

pub use crate::config::EngineConfig;

/// One trajectory's state (Blindfold assigns the id; never taken from a model's field).
#[derive(Debug, Clone)]
pub struct Trajectory {
    /// Trajectory (task) id; grants name it.
    pub id: String,
    /// Events seen so far.
    pub events: u64,
    pub(crate) state: State,
}

impl Trajectory {
    /// A fresh trajectory.
    pub fn new(id: impl Into<String>) -> Self {
        Self { id: id.into(), events: 0, state: State::default() }
    }

    /// The evidence graph (artifacts, lifecycle, transitions, claim states).
    pub fn evidence(&self) -> &crate::evidence::EvidenceGraph {
        &self.state.graph
    }

    /// Revokes an evidence artifact (a source found compromised): everything derived from it —
    /// artifacts, claims, pending decisions — is marked `NEEDS_REVALIDATION`, memory records it
    /// holds are no longer delivered, and a verification it carried (or that derives from it) no
    /// longer evidences its proposal's targets.
    pub fn revoke_evidence(
        &mut self,
        id: &str,
        reason: &str,
        actor: &str,
        now_ms: u64,
    ) -> crate::evidence::Revalidation {
        let out = self.state.graph.revoke(id, reason, actor, now_ms);
        self.state.reindex_verified();
        for recs in self.state.memory.values_mut() {
            for r in recs.iter_mut().filter(|r| r.evidence == id) {
                r.lifecycle = Lifecycle::Revoked;
            }
        }
        out
    }

    /// Records that pending decision `decision` (an action held for a human, say) rests on the
    /// artifacts `evidence`: revoking one of them, or anything they derive from, lists it in
    /// [`Revalidation::decisions`](crate::evidence::Revalidation) for re-checking.
    pub fn record_pending(&mut self, decision: &str, evidence: Vec<String>) {
        self.state.graph.record_pending(decision, evidence);
    }

    /// Number of standing disputes (refuted targets).
    pub fn disputes(&self) -> usize {
        self.state.disputes.len()
    }

    /// The standing disputes resting on any of `evidence_refs` (a step's refs), for a human
    /// reviewing the action: what was refuted, by whom, how, on which evidence.
    pub fn disputes_on(&self, evidence_refs: &[String]) -> Vec<DisputeInfo> {
        self.state
            .disputes
            .iter()
            .filter(|d| evidence_refs.contains(&d.evidence))
            .map(|d| DisputeInfo {
                target: d.target.key(),
                by: d.by.clone(),
                proposal: d.proposal.clone(),
                evidence: d.evidence.clone(),
                via: d.via,
            })
            .collect()
    }
}

/// One standing dispute, as shown to a reviewer.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DisputeInfo {
    /// The disputed target (`path:/data`, `command:rm -rf /data`, …).
    pub target: String,
    /// The agent (configured id) whose response refuted it.
    pub by: String,
    /// The proposal refuted, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<String>,
    /// The refuting evidence artifact.
    pub evidence: String,
    /// How the refutation was found.
    pub via: blindfold_schemas::Detection,
}

/// What the caller passes with each event.
#[derive(Debug, Clone, Copy)]
pub struct StepContext {
    /// Milliseconds since the Unix epoch.
    pub now_ms: u64,
    /// Modes in force for this trajectory now.
    pub modes: ModeSet,
    /// True at the moment of forwarding (consume grants); false for a dry run.
    pub consume: bool,
}

/// The engine's answer to one event.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Step {
    /// The decision for an effectful event (tool call, memory write/read); `None` for events
    /// that only inform (responses, results, cards).
    pub decision: Option<Decision>,
    /// True when the decision is enforced (false in `observe`: recorded, not applied).
    pub enforced: bool,
    /// The derived action, for tool calls.
    pub action: Option<DerivedAction>,
    /// The action fingerprint (hex SHA-256 of its canonical form), for tool calls.
    pub fingerprint: Option<String>,
    /// For a tool call: the proposal it executes or adopts (named by the event, else matched by
    /// fingerprint); for an agent's own unproposed call, `auto-…` with the agent as proposer;
    /// `None` for the coordinator's own call.
    pub adopts: Option<ProposalRef>,
    /// For a response: the relations detected toward proposals (structured, lexical, judge).
    pub relations: Vec<DetectedRelation>,
    /// For a response: the proposals it made.
    pub proposals: Vec<ProposalRef>,
    /// For a response: `(proposal id, action fingerprint)` of each proposal it made, computed
    /// once here so the trace and the authority tracker need not fingerprint again.
    pub proposal_fingerprints: Vec<(String, String)>,
    /// For a tool call: true when contradicting evidence stands against the action (whatever
    /// the modes; with `preverify` it is what blocks it).
    pub contradicted: bool,
    /// Evidence artifacts this event created or rests on (`ev-…`).
    pub evidence_refs: Vec<String>,
    /// For an allowed memory read: the records delivered (filtered, redacted, neutralised).
    pub records: Option<Vec<Value>>,
}

impl Step {
    fn informational(evidence_refs: Vec<String>) -> Self {
        Self { evidence_refs, ..Self::default() }
    }

    /// A denial caused by Blindfold's own failure (fail closed).
    pub fn fail_closed(detail: &str, enforce: bool) -> Self {
        Self {
            decision: Some(
                Decision::deny(Reason::InternalError, "P0.internal", Layer::ContentFree).with_detail(detail),
            ),
            enforced: enforce,
            ..Self::default()
        }
    }

    /// True when the caller must not let the event through.
    pub fn blocks(&self) -> bool {
        self.enforced && self.decision.as_ref().is_some_and(|d| d.decision != Verdict::Allow)
    }
}

/// The decision engine.
pub struct Engine {
    pub(crate) config: EngineConfig,
    pub(crate) keys: Arc<TrustedKeys>,
    pub(crate) grants: Arc<GrantCache>,
    pub(crate) store: Arc<dyn GrantStore>,
    pub(crate) workspaces: Arc<dyn Workspaces>,
}

impl Engine {
    /// An engine over a configuration, trusted keys, submitted grants and a grant store.
    pub fn new(
        config: EngineConfig,
        keys: Arc<TrustedKeys>,
        grants: Arc<GrantCache>,
        store: Arc<dyn GrantStore>,
    ) -> Self {
        Self { config, keys, grants, store, workspaces: Arc::new(NoWorkspace::default()) }
    }

    /// The same engine resolving paths through `workspaces` (where each task's workspace is and
    /// what a path resolves to now); without it, paths are compared as written.
    pub fn with_workspaces(mut self, workspaces: Arc<dyn Workspaces>) -> Self {
        self.workspaces = workspaces;
        self
    }

    /// Where paths are resolved.
    pub fn workspaces(&self) -> &dyn Workspaces {
        self.workspaces.as_ref()
    }

    /// The registry in use.
    pub fn registry(&self) -> &Registry {
        &self.config.registry
    }

    /// The configuration in use.
    pub fn config(&self) -> &EngineConfig {
        &self.config
    }

    /// Feeds one event of `trajectory` and returns the decision, if the event needs one.
    pub fn step(&self, trajectory: &mut Trajectory, event: &Event, ctx: StepContext) -> Step {
        trajectory.events += 1;
        let now = ctx.now_ms;
        let st = &mut trajectory.state;
        st.expire(now, self.config.ledger_window_ms);
        match event {
            Event::Task { text } => Step::informational(self.observe_task(st, text, now)),
            Event::Card { agent, .. } => {
                let _ = agent;
                Step::informational(Vec::new())
            }
            Event::Delegate { to, intent, text, proposal } => {
                Step::informational(self.observe_delegate(st, to, *intent, text, proposal.as_deref(), now))
            }
            Event::Response { from, text, proposals, relations, .. } => {
                let o = self.observe_response(st, from, text, proposals, relations, now);
                Step {
                    relations: o.relations,
                    proposals: o.proposals,
                    proposal_fingerprints: o.fingerprints,
                    evidence_refs: o.evidence,
                    ..Step::default()
                }
            }
            Event::ToolResult { tool, content, call_id } => {
                Step::informational(self.observe_tool_result(st, tool, content, call_id.as_deref(), now))
            }
            Event::ToolCall { actor, tool, args, proposal, call_id } => self.tool_call(
                trajectory,
                ToolCall { actor, tool, args, proposal: proposal.as_deref(), call_id: call_id.as_deref() },
                ctx,
            ),
            Event::MemoryWrite { actor, store, record } => {
                self.memory_write(trajectory, actor, store, record, ctx)
            }
            Event::MemoryRead { actor, store, query } => {
                self.memory_read(trajectory, actor, store, query, ctx)
            }
        }
    }

    fn tool_call(&self, trajectory: &mut Trajectory, call: ToolCall<'_>, ctx: StepContext) -> Step {
        let registry = &self.config.registry;
        let action = registry.derive(call.tool, call.args);
        let fingerprint = action::fingerprint(registry, call.tool, call.args);
        let st = &trajectory.state;
        // Targets are read by the dispute check, the argument rules and what only effectful
        // actions go through; a read call with none of those in play needs none (finding them
        // scans every argument).
        let needs_targets = action.effect.is_effectful()
            || !st.disputes.is_empty()
            || self.config.arg_rules.iter().any(|r| r.tool == "*" || r.tool == call.tool);
        let mut targets =
            if needs_targets { action::targets(registry, call.tool, call.args) } else { Vec::new() };
        // Running a file that was written in this trajectory touches what the file names.
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

        // Which proposal this call executes: named, else adopted by fingerprint, else (for an
        // agent acting itself) the same operation on the same target.
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
            None => st.proposal_by_fingerprint(&fingerprint).or_else(|| {
                let own = st.proposals.iter().rev().find(|p| {
                    !coordinator
                        && p.proposer == call.actor
                        && p.tool == call.tool
                        && p.action.target == action.target
                });
                if own.is_some() {
                    named = true;
                }
                own
            }),
        };
        let proposer: Option<String> = match (proposal, named_unknown) {
            (Some(p), _) => Some(p.proposer.clone()),
            (None, _) if !coordinator => Some(call.actor.to_owned()),
            (None, _) => None,
        };
        let adopts = match (proposal, &proposer, named_unknown) {
            (Some(p), _, _) => Some(ProposalRef { proposal: p.id.clone(), proposer: p.proposer.clone() }),
            (None, Some(who), Some(id)) => {
                Some(ProposalRef { proposal: id.to_owned(), proposer: who.clone() })
            }
            (None, Some(who), None) => {
                Some(ProposalRef { proposal: format!("auto-{}", &fingerprint[..12]), proposer: who.clone() })
            }
            (None, None, _) => None,
        };
        let against = cascade::disputes_against(st, &targets, proposal, proposer.as_deref());
        let contradicted = action.effect.is_effectful() && !against.is_empty();
        let mut evidence_refs: Vec<String> = against.iter().map(|d| d.evidence.clone()).collect();
        if let Some(p) = proposal {
            evidence_refs.push(p.evidence.clone());
        }
        if let Some(p) = proposal {
            evidence_refs.extend(st.verifications_of(p).map(|v| v.evidence.clone()));
        }
        evidence_refs.sort();
        evidence_refs.dedup();

        // What grants read of the call: resources, paths (resolved now), criticality, size.
        let facts = if action.effect.is_effectful() && ctx.modes.grants {
            ActionFacts::derive(
                registry,
                self.workspaces.as_ref(),
                &trajectory.id,
                call.tool,
                call.args,
                &action,
            )
        } else {
            ActionFacts::default()
        };
        let cctx = CallCtx {
            engine: self,
            facts: &facts,
            st,
            task_id: &trajectory.id,
            events: trajectory.events,
            actor: call.actor,
            tool: call.tool,
            args: call.args,
            action: &action,
            fingerprint: &fingerprint,
            targets: &targets,
            proposal,
            proposer: proposer.as_deref(),
            named,
            named_unknown,
            call_id: call.call_id,
            against: &against,
            modes: ctx.modes,
            now_ms: ctx.now_ms,
            consume: ctx.consume,
        };
        let mut decision = cascade::run(cascade::TOOL_CALL, |check| check(&cctx));
        if decision.is_allow() && decision.detail.is_none() && facts.paths_unseen() {
            decision.detail = Some(crate::grants::UNSEEN_PATHS.to_owned());
        }
        let verified_run = match proposal {
            Some(p) if ctx.consume && decision.is_allow() && ctx.modes.preverify => {
                verification_rested_on(st, p, &fingerprint)
            }
            _ => None,
        };

        // What runs is recorded (in observe mode, everything runs); dry runs record nothing.
        let runs = decision.is_allow() || !ctx.modes.enforce;
        if let Some((id, evidence)) = verified_run {
            trajectory.state.graph.record_pending(&id, evidence);
        }
        if ctx.consume && runs && action.effect.is_effectful() {
            let st = &mut trajectory.state;
            let expiry = ctx.now_ms.saturating_add(self.config.replay_expiry_ms);
            st.replay.insert(cascade::replay_key(call.call_id, &fingerprint), expiry);
            if call.call_id.is_some() {
                st.replay.insert(cascade::replay_key(None, &fingerprint), expiry);
            }
            st.ledger.push_back(LedgerEntry {
                at_ms: ctx.now_ms,
                actor: call.actor.to_owned(),
                fingerprint: fingerprint.clone(),
            });
            *st.actions.entry(call.actor.to_owned()).or_default() += 1;
            // A write remembers what the written content names (split actions stay disputed),
            // prose included: running the file touches whatever it names.
            let named: Vec<Target> = targets
                .iter()
                .chain(action::artifact_targets(registry, call.tool, call.args).iter())
                .filter(|t| {
                    !matches!(t, Target::Tool(_)) && Some(*t) != Some(&Target::Path(action.target.clone()))
                })
                .cloned()
                .collect();
            for t in &targets {
                if let Target::Path(p) = t
                    && (p == &crate::text::target::normalise_path(&action.target)
                        || !action::is_shell(registry, call.tool))
                {
                    st.written.entry(p.clone()).or_default().extend(named.iter().cloned());
                }
            }
            if action::is_shell(registry, call.tool) {
                for t in crate::shell::resources(&action.target) {
                    if let Target::Path(p) = t {
                        st.written.entry(p).or_default().extend(named.iter().cloned());
                    }
                }
            }
        }
        if ctx.consume && runs {
            trajectory.state.last_call =
                Some((call.tool.to_owned(), call.call_id.map(str::to_owned), source_key(&action)));
        }
        Step {
            decision: Some(decision),
            enforced: ctx.modes.enforce,
            action: Some(action),
            fingerprint: Some(fingerprint),
            adopts,
            contradicted,
            evidence_refs,
            ..Step::default()
        }
    }

    fn memory_write(
        &self,
        trajectory: &mut Trajectory,
        actor: &str,
        store: &str,
        record: &Value,
        ctx: StepContext,
    ) -> Step {
        let mctx = MemCtx {
            engine: self,
            st: &trajectory.state,
            actor,
            store,
            record: Some(record),
            query: None,
            now_ms: ctx.now_ms,
            modes: ctx.modes,
        };
        let decision = cascade::run(cascade::MEMORY_WRITE, |check| check(&mctx));
        let st = &mut trajectory.state;
        let text = record.to_string();
        // A record derives from what was relayed to its writer and what it cites, as an answer
        // does (evidence::relay): revoking that reaches the record.
        let parents =
            crate::evidence::relay::response_parents(st, actor, &crate::observe::text_targets(&text));
        let id = st.graph.add(crate::evidence::NewArtifact {
            producer: actor.to_owned(),
            producer_family: Some(self.config.family(actor).to_owned()),
            channel: Channel::C3,
            provenance: Provenance {
                source_type: "memory".into(),
                source_ref: format!("store:{store}"),
                hash: Some(crate::canonical::sha256_hex(text.as_bytes())),
                observed_at: ctx.now_ms,
                derived_from: parents,
            },
            independence_group: format!("family:{}", self.config.family(actor)),
            scope: EvidenceScope {
                tenant: self.config.stores.get(store).and_then(|s| s.tenant.clone()),
                acl: self.config.stores.get(store).map(|s| s.readers.clone()).unwrap_or_default(),
            },
        });
        let runs = decision.is_allow() || !ctx.modes.enforce;
        if ctx.consume {
            if decision.reason == Reason::InstructionLike {
                st.graph.transition(
                    &id,
                    Lifecycle::Quarantined,
                    "P4.instruction_like",
                    "blindfold",
                    ctx.now_ms,
                );
            }
            if runs {
                let lifecycle = if decision.reason == Reason::InstructionLike {
                    Lifecycle::Quarantined
                } else {
                    Lifecycle::Candidate
                };
                st.memory.entry(store.to_owned()).or_default().push(MemRecord {
                    record: record.clone(),
                    writer: actor.to_owned(),
                    evidence: id.clone(),
                    lifecycle,
                });
                st.memory_replay.insert(
                    cascade::write_key(store, record),
                    ctx.now_ms.saturating_add(self.config.replay_expiry_ms),
                );
            }
        }
        Step {
            decision: Some(decision),
            enforced: ctx.modes.enforce,
            evidence_refs: vec![id],
            ..Step::default()
        }
    }

    fn memory_read(
        &self,
        trajectory: &mut Trajectory,
        actor: &str,
        store: &str,
        query: &str,
        ctx: StepContext,
    ) -> Step {
        let mctx = MemCtx {
            engine: self,
            st: &trajectory.state,
            actor,
            store,
            record: None,
            query: Some(query),
            now_ms: ctx.now_ms,
            modes: ctx.modes,
        };
        let decision = cascade::run(cascade::MEMORY_READ, |check| check(&mctx));
        let records = (decision.is_allow() || !ctx.modes.enforce)
            .then(|| cascade::deliver(self, &trajectory.state, store));
        Step { decision: Some(decision), enforced: ctx.modes.enforce, records, ..Step::default() }
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

struct ToolCall<'a> {
    actor: &'a str,
    tool: &'a str,
    args: &'a Map<String, Value>,
    proposal: Option<&'a str>,
    call_id: Option<&'a str>,
}
