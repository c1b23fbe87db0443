//! The engine facade: per-trajectory state in, one decision per effectful event out.
//!
//! This is the contract every transport, the replay runner and the trace writer use:
//! `Engine::step(&mut Trajectory, &Event, StepContext) -> Step`. It never blocks and never
//! reads a clock; `StepContext` carries the time and the modes in force.

use crate::call::ToolCall;
use crate::cascade::{self, MemCtx};
use crate::grants::{GrantCache, GrantStore, NoWorkspace, TrustedKeys, Workspaces};
use crate::registry::{DerivedAction, Registry};
use crate::state::{MemRecord, State};
use blindfold_schemas::{
    Channel, CheckId, Decision, DetectedRelation, Event, EvidenceScope, Facts, Lifecycle, ModeSet,
    ProposalRef, Provenance, Reason, Verdict,
};
use serde_json::Value;
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
                text: self.state.refuting_texts.get(&d.evidence).cloned(),
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
    /// The refuting answer's text (its start), as the agent wrote it, for the reviewer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
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

/// One message for the engine: its canonical event, when it became one, and what the transport
/// saw of it besides (empty for an event no transport carried).
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    /// The event; `None` for a message that never became one (an unreadable frame, a request
    /// for a method Blindfold does not relay): only the frame checks decide it.
    pub event: Option<&'a Event>,
    /// The transport's facts about the message.
    pub facts: &'a Facts,
}

impl<'a> Input<'a> {
    /// An event without transport facts.
    pub fn event(event: &'a Event) -> Self {
        static NONE: std::sync::LazyLock<Facts> = std::sync::LazyLock::new(Facts::default);
        Self { event: Some(event), facts: &NONE }
    }

    /// An event with the facts its transport saw.
    pub fn with_facts(event: &'a Event, facts: &'a Facts) -> Self {
        Self { event: Some(event), facts }
    }

    /// A message that never became an event.
    pub fn frame(facts: &'a Facts) -> Self {
        Self { event: None, facts }
    }
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
    /// For a tool call against which contradicting evidence stands: the agents (configured ids)
    /// whose answers that evidence is, each once, in the order they refuted — who refuted it,
    /// where the engine's check only acts on it.
    pub refuted_by: Vec<String>,
    /// Evidence artifacts this event created or rests on (`ev-…`).
    pub evidence_refs: Vec<String>,
    /// For an allowed memory read: the records delivered (filtered, redacted, neutralised).
    pub records: Option<Vec<Value>>,
    /// For a delegation that asks to verify pending actions: the instruction and handles its
    /// transport adds to what the verifier receives.
    pub verification: Option<crate::verify::VerificationRequest>,
}

impl Step {
    fn informational(evidence_refs: Vec<String>) -> Self {
        Self { evidence_refs, ..Self::default() }
    }

    /// A denial caused by Blindfold's own failure (fail closed, in every mode).
    pub fn fail_closed(detail: &str) -> Self {
        Self::decided(
            Decision::deny(Reason::InternalError, CheckId::Internal).with_detail(detail),
            ModeSet::OFF,
        )
    }

    /// The step of `decision` alone, enforced as its check is under `modes` ([`enforced`]).
    pub fn decided(decision: Decision, modes: ModeSet) -> Self {
        Self { enforced: enforced(&decision, modes), decision: Some(decision), ..Self::default() }
    }

    /// True when the caller must not let the event through.
    pub fn blocks(&self) -> bool {
        self.enforced && self.decision.as_ref().is_some_and(|d| d.decision != Verdict::Allow)
    }
}

/// Whether `decision` is applied under `modes`: hygiene checks in every mode, policy only with
/// `enforce` ([`CheckId::class`]).
pub fn enforced(decision: &Decision, modes: ModeSet) -> bool {
    modes.enforce || decision.check.always_enforced()
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
        self.step_with(trajectory, Input::event(event), ctx)
    }

    /// Feeds one message of `trajectory`: a message that never became an event is decided by
    /// the frame checks alone ([`Engine::frame`]); an event past the trajectory's event limit is
    /// refused before it touches any state (`P0.limit`); any other event is stepped with the
    /// transport's facts.
    pub fn step_with(&self, trajectory: &mut Trajectory, input: Input<'_>, ctx: StepContext) -> Step {
        let Some(event) = input.event else { return self.frame(input.facts, ctx.modes) };
        if let Some(decision) = cascade::run_stops(cascade::EVERY_EVENT, |check| check(self, trajectory)) {
            return Step::decided(decision, ctx.modes);
        }
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
            Event::Delegate { to, intent, text, proposal, call_id } => {
                let delegation = crate::observe::Delegation {
                    to,
                    intent: *intent,
                    text,
                    proposal: proposal.as_deref(),
                    call_id: call_id.as_deref(),
                };
                let (evidence_refs, verification) =
                    self.observe_delegate(st, &trajectory.id, &delegation, now);
                Step { evidence_refs, verification, ..Step::default() }
            }
            Event::Response { from, text, proposals, relations, call_id, .. } => {
                let answer =
                    crate::observe::Answer { from, text, proposals, relations, call_id: call_id.as_deref() };
                let o = self.observe_response(st, &answer, now);
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
                ToolCall {
                    actor,
                    tool,
                    args,
                    proposal: proposal.as_deref(),
                    call_id: call_id.as_deref(),
                    wire: input.facts,
                },
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

    /// Decides a message that never became an event by the frame checks ([`cascade::FRAME`]);
    /// no trajectory state is read or changed. A message with no fault passes.
    pub fn frame(&self, facts: &Facts, modes: ModeSet) -> Step {
        Step::decided(cascade::run(cascade::FRAME, |check| check(facts)), modes)
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
                derived_from: parents.ids,
            },
            independence_group: format!("family:{}", self.config.family(actor)),
            scope: EvidenceScope {
                tenant: self.config.stores.get(store).and_then(|s| s.tenant.clone()),
                acl: self.config.stores.get(store).map(|s| s.readers.clone()).unwrap_or_default(),
            },
        });
        let enforced = enforced(&decision, ctx.modes);
        let runs = decision.is_allow() || !enforced;
        // A record that reads as instruction-like is quarantined whichever check stopped it
        // first (observe mode still stores it, and it must never be delivered).
        let instruction = decision.reason == Reason::InstructionLike
            || (!decision.is_allow() && cascade::carries_instruction(self, record));
        if ctx.consume {
            if instruction {
                st.graph.transition(
                    &id,
                    Lifecycle::Quarantined,
                    CheckId::InstructionLike.as_str(),
                    "blindfold",
                    ctx.now_ms,
                );
            }
            if runs {
                let lifecycle = if instruction { Lifecycle::Quarantined } else { Lifecycle::Candidate };
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
        Step { decision: Some(decision), enforced, evidence_refs: vec![id], ..Step::default() }
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
        let enforced = enforced(&decision, ctx.modes);
        let delivers = decision.is_allow() || !enforced;
        let records = delivers.then(|| cascade::deliver(self, &trajectory.state, store));
        if delivers && ctx.consume {
            // What a reader was handed is its own observation: its later answers derive from it.
            let st = &mut trajectory.state;
            let handed = cascade::delivered_evidence(st, store);
            crate::evidence::relay::record_handed(st, handed, (actor != "coordinator").then_some(actor));
        }
        Step { decision: Some(decision), enforced, records, ..Step::default() }
    }
}
