//! The evidence graph's shapes (SPEC §5): artifacts with a lifecycle, recorded transitions,
//! claim relations and how a relation was detected; plus the Step annotations the authority
//! tracker reads (which proposal a call executes, which relations a response carries).

use crate::event::{Channel, Provenance, Relation, RelationClaim};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Governance state of an evidence artifact (never an irreversible `CONFIRMED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Lifecycle {
    /// Observed, not yet checked.
    Candidate,
    /// Passed the checks that apply; usable, still revisable.
    Validated,
    /// Credible conflicting evidence stands against it.
    Disputed,
    /// A newer version replaced it.
    Superseded,
    /// Suspected poisoned or of unknown origin; never returned by normal reads.
    Quarantined,
    /// Must not be used again; never returned by normal reads.
    Revoked,
}

impl Lifecycle {
    /// `QUARANTINED` and `REVOKED` are never retrievable by normal reads.
    pub fn retrievable(self) -> bool {
        !matches!(self, Lifecycle::Quarantined | Lifecycle::Revoked)
    }
}

/// One recorded lifecycle change: `{from, to, reason, actor, at}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Transition {
    /// State before.
    pub from: Lifecycle,
    /// State after.
    pub to: Lifecycle,
    /// Why (a check id or a short phrase).
    pub reason: String,
    /// Who caused it (`blindfold`, `human:<id>`, an agent id).
    pub actor: String,
    /// Milliseconds since the Unix epoch.
    pub at: u64,
}

/// A claim's state, derived from its evidence (evidence state ≠ claim state).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ClaimState {
    /// Positively supported by independent evidence, nothing refutes it.
    Supported,
    /// Refuted and not supported.
    Refuted,
    /// Both supported and refuted: unresolved, a human decides.
    Mixed,
    /// Not enough evidence either way.
    Insufficient,
    /// Something it rested on was revoked; re-check before use.
    NeedsRevalidation,
}

/// Tenant and ACL of an artifact: hard constraints on who may read it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EvidenceScope {
    /// Owning tenant, when restricted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// Agents allowed to read it; empty means unrestricted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acl: Vec<String>,
}

/// A relation an artifact bears to a claim or proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ClaimRelation {
    /// The claim or proposal id.
    pub claim_or_proposal_id: String,
    /// The relation.
    pub relation: Relation,
}

/// One evidence artifact (SPEC §5): sub-agent output as evidence, not conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EvidenceArtifact {
    /// Unique within the trajectory (`ev-<seq>`).
    pub evidence_id: String,
    /// Who produced it: an agent's configured id, `user`, `tool:<name>`, `store:<name>`.
    pub producer: String,
    /// The producer's true model family, when it is an agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub producer_family: Option<String>,
    /// Channel it arrived on.
    pub channel: Channel,
    /// What Blindfold observed about its origin.
    pub provenance: Provenance,
    /// Current lifecycle state.
    pub lifecycle_state: Lifecycle,
    /// Set when something it derives from was revoked.
    #[serde(default)]
    pub needs_revalidation: bool,
    /// Relations to claims or proposals.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub claim_relations: Vec<ClaimRelation>,
    /// Corroboration counts distinct groups, never agreeing agents.
    pub independence_group: String,
    /// Tenant and ACL.
    #[serde(default)]
    pub scope: EvidenceScope,
    /// Every lifecycle change, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub transitions: Vec<Transition>,
}

/// How a relation between a response and a proposal was found (cheapest first).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Detection {
    /// Stated in Blindfold's evidence schema (an A2A `data` part, a scenario `relations` entry).
    Structured,
    /// Found in the text: the response names the target near refusal or approval language.
    Lexical,
    /// A judge quorum said so.
    Judge,
    /// An explicit verdict for a handle Blindfold issued (a `VERDICT` line, a
    /// `blindfold/verdict` data part), or a structured relation in answer to that request.
    Verdict,
}

/// A proposal and the agent that proposed it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct ProposalRef {
    /// Proposal id (as the agent named it, or `auto-<fingerprint prefix>` when Blindfold
    /// derived it from an agent's own tool call).
    pub proposal: String,
    /// The proposing agent's configured id.
    pub proposer: String,
}

/// A relation Blindfold detected in a response toward a proposal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct DetectedRelation {
    /// The proposal the relation is about.
    pub proposal: String,
    /// Who proposed it.
    pub proposer: String,
    /// Who stated the relation (the responding agent's configured id).
    pub by: String,
    /// The relation (`REFUTES`, `FULL_SUPPORT`, …).
    pub relation: Relation,
    /// How it was detected.
    pub via: Detection,
    /// True when it answers a verify delegation and its author is independent of the proposer
    /// (true family and observed provenance): only then does support count as a verification.
    #[serde(default)]
    pub counts_as_verification: bool,
}

/// The evidence part an agent may attach to a response (an A2A `data` part whose object has
/// the key `blindfold_evidence`): structured relations to proposals.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EvidencePart {
    /// Relations to proposals or claims.
    #[serde(default)]
    pub relations: Vec<RelationClaim>,
}
