//! Authority trace records (SPEC §8): one JSON line per event and decision, hash-chained.
//!
//! A record carries both the alias the coordinator saw and the agent's true identity, the mode set
//! in force, the decision with the check and layer that made it, and enough about proposals,
//! relations and adoption that the authority vectors of a trajectory can be recomputed from the
//! file alone (`blindfold trace summarize`). Secrets (grant tokens, credentials) never appear.

use crate::{AgentIdentity, Effect, Intent, Layer, ModeSet, Reason, Relation, Verdict};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Version of the record format written by this build (`v`).
pub const TRACE_VERSION: u32 = 1;

/// `prev` of the very first record of a chain (64 hex zeros).
pub const GENESIS_PREV: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// What a record is about: the canonical event kinds, plus Blindfold's own control actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// The user's task input.
    Task,
    /// An agent announced itself.
    Card,
    /// The coordinator delegated work.
    Delegate,
    /// An agent answered.
    Response,
    /// A tool call (the decision record).
    ToolCall,
    /// A tool answered.
    ToolResult,
    /// A memory write (decision record).
    MemoryWrite,
    /// A memory read (decision record).
    MemoryRead,
    /// An operator action on the trusted path (grant submitted, revoked, review answered).
    Control,
    /// A message decided before it became an event (an unreadable frame, a request for a method
    /// Blindfold does not relay): the decision record of the frame checks.
    Frame,
}

/// The TrustFork authority stages (SPEC §2): which authority a record transfers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum AuthorityStage {
    /// The agent received concrete work.
    Scope,
    /// The agent was trusted to check someone's proposal.
    Verify,
    /// The agent's proposal was adopted (acted on) by the coordinator.
    Adopt,
    /// The agent's proposal (or its own action) was allowed to change the system.
    Execute,
}

/// A scenario label, for scoring only (the engine never sees it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Label {
    /// The step is part of an attack: it must not run.
    Attack,
    /// The step is legitimate work: it should run.
    Benign,
}

/// A proposal an agent made, as recorded on its response.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceProposal {
    /// Proposal id, unique within the trajectory.
    pub id: String,
    /// Tool it would run.
    pub tool: String,
    /// Its action fingerprint (what adoption and execution are matched by).
    pub fingerprint: String,
}

/// A relation an agent stated (or the engine detected) about a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceRelation {
    /// The proposal it is about.
    pub proposal: String,
    /// The relation (`REFUTES`, `FULL_SUPPORT`, …).
    pub relation: Relation,
    /// Alias of the agent whose proposal it is, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposer_alias: Option<String>,
    /// True when Blindfold counted this support as an independent verification of the proposal.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub counts_as_verification: bool,
}

/// A record's scoring ground truth, from the scenario's `truth` block (replay only, like
/// `label`; the daemon never writes it): what the evidence metrics score the record against.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecordTruth {
    /// The step's claims are false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wrong: bool,
    /// The step carries injected instructions.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub injected: bool,
    /// The step's evidence no longer applies.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub stale: bool,
    /// A read of a store the reader is not entitled to (another tenant's, or outside its ACL).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unauthorized: bool,
    /// The underlying source the step's content comes from (for a revocation: the revoked
    /// step's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// On the trajectory's first record: aliases of the agents downstream of a wrong or
    /// injected step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub affectable: Vec<String>,
}

impl RecordTruth {
    /// True when the record carries no ground truth at all.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }
}

/// One trace record: a JSON line of the trace file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TraceRecord {
    /// Record format version ([`TRACE_VERSION`]).
    pub v: u32,
    /// Milliseconds since the Unix epoch when Blindfold decided or observed it.
    pub ts: u64,
    /// Blindfold-assigned trajectory id.
    pub trajectory: String,
    /// Position in the writer's chain (strictly increasing by one across files and restarts).
    pub seq: u64,
    /// What the record is about.
    pub kind: TraceKind,
    /// The authority this record transfers, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stage: Option<AuthorityStage>,
    /// Alias of the principal the record is about (`coordinator`, `agent-a`, …): the recipient of
    /// a delegation, the author of a response, the actor of a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_alias: Option<String>,
    /// That principal's true identity (from Blindfold's config), when it is an agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub actor_true: Option<AgentIdentity>,
    /// Why the coordinator delegated (delegations only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intent: Option<Intent>,
    /// Tool of a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// Effect class of a call (from the trusted registry).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub effect: Option<Effect>,
    /// Target of a call as the registry derives it (a path, command, URL, recipient), cut to
    /// 200 characters; never an argument the registry marks as the artifact unless it is also
    /// the target (a shell command).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// Action fingerprint of a call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub action_fingerprint: Option<String>,
    /// The proposal a call adopts, when it matches one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposal: Option<String>,
    /// Alias of the agent whose proposal a call adopts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub proposer_alias: Option<String>,
    /// Proposals made in a response.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub proposals: Vec<TraceProposal>,
    /// Relations stated or detected in a response.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub relations: Vec<TraceRelation>,
    /// allow, deny or review (decision records only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<Verdict>,
    /// The reason code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<Reason>,
    /// Id of the check that decided (`P3.grant`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<String>,
    /// Layer of that check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layer: Option<Layer>,
    /// False when the decision was only recorded (`observe`): the action ran anyway.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enforced: Option<bool>,
    /// The decision's explanation (never a secret).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The id (`jti`) of the grant whose use the decision took (never the token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_jti: Option<String>,
    /// Time Blindfold spent deciding, microseconds.
    #[serde(default)]
    pub latency_us: u64,
    /// Records (`<trajectory>#<seq>`) or evidence ids the decision rests on.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence_refs: Vec<String>,
    /// For a call against which contradicting evidence stands: the aliases (as the coordinator
    /// saw them, never a true identity) of the agents whose answers that evidence is.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refuted_by: Vec<String>,
    /// The modes in force.
    pub mode: ModeSet,
    /// Scenario label (scoring only; replay writes it, the daemon never does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<Label>,
    /// Scenario ground truth for the evidence metrics (scoring only, like `label`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub truth: Option<RecordTruth>,
    /// Lowercase hex SHA-256 of the previous record's line ([`GENESIS_PREV`] for the first).
    pub prev: String,
}

impl TraceKind {
    /// The kind of record an event produces.
    pub fn of(event: &crate::Event) -> Self {
        use crate::Event as E;
        match event {
            E::Task { .. } => Self::Task,
            E::Card { .. } => Self::Card,
            E::Delegate { .. } => Self::Delegate,
            E::Response { .. } => Self::Response,
            E::ToolCall { .. } => Self::ToolCall,
            E::ToolResult { .. } => Self::ToolResult,
            E::MemoryWrite { .. } => Self::MemoryWrite,
            E::MemoryRead { .. } => Self::MemoryRead,
        }
    }
}

impl TraceRecord {
    /// A record of `kind` for `trajectory` with every optional field empty; the writer fills
    /// `seq` and `prev`.
    pub fn new(trajectory: impl Into<String>, kind: TraceKind, ts: u64, mode: ModeSet) -> Self {
        Self {
            v: TRACE_VERSION,
            ts,
            trajectory: trajectory.into(),
            seq: 0,
            kind,
            stage: None,
            actor_alias: None,
            actor_true: None,
            intent: None,
            tool: None,
            effect: None,
            target: None,
            action_fingerprint: None,
            proposal: None,
            proposer_alias: None,
            proposals: Vec::new(),
            relations: Vec::new(),
            decision: None,
            reason: None,
            check: None,
            layer: None,
            enforced: None,
            detail: None,
            grant_jti: None,
            latency_us: 0,
            evidence_refs: Vec::new(),
            refuted_by: Vec::new(),
            mode,
            label: None,
            truth: None,
            prev: String::new(),
        }
    }

    /// True for a record the writer must have on the OS before the decision takes effect: every
    /// deny or review, and every allow of an effectful action.
    pub fn is_durable(&self) -> bool {
        match self.decision {
            None => matches!(self.kind, TraceKind::Control | TraceKind::Frame),
            Some(Verdict::Allow) => {
                self.effect.is_some_and(Effect::is_effectful) || self.kind == TraceKind::MemoryWrite
            }
            Some(_) => true,
        }
    }

    /// True when the action went ahead: allowed, or blocked only on paper (`observe`).
    pub fn passed(&self) -> bool {
        match self.decision {
            Some(Verdict::Allow) => true,
            Some(_) => self.enforced == Some(false),
            None => false,
        }
    }

    /// The reference other records use for this one (`<trajectory>#<seq>`).
    pub fn reference(&self) -> String {
        format!("{}#{}", self.trajectory, self.seq)
    }
}
