//! Canonical serde types shared by every Blindfold crate; `json/*.schema.json` is generated from them.
#![forbid(unsafe_code)]

pub mod check;
pub mod decision;
pub mod event;
pub mod evidence;
pub mod exact_numbers;
pub mod facts;
pub mod grant;
pub mod identity;
pub mod modes;
pub mod policy;
pub mod registry;
pub mod scenario;
pub mod strict_json;
pub mod trace;

pub use check::{CheckClass, CheckId};
pub use decision::{Decision, Layer, Reason, Verdict};
pub use event::{Channel, Event, Intent, Provenance, Relation, RelationClaim};
pub use evidence::{
    ClaimRelation, ClaimState, DetectedRelation, Detection, EvidenceArtifact, EvidencePart, EvidenceScope,
    Lifecycle, ProposalRef, Transition,
};
pub use facts::{Facts, ToolPin, UnrelayedMethod};
pub use grant::{AnyGrantClaims, GrantClaims, Proposal, ScopeEntry, ScopedGrantClaims, TargetPattern};
pub use identity::AgentIdentity;
pub use modes::ModeSet;
pub use policy::{Policy, Role, StoreAcl};
pub use registry::{Effect, ToolSpec};
pub use scenario::{OperatorStep, Scenario, ScenarioError, ScenarioStep, StepBody, Truth, VerdictWord};
pub use trace::{AuthorityStage, Label, RecordTruth, TraceKind, TraceProposal, TraceRecord, TraceRelation};

/// Every schema this crate publishes: the file stem under `schemas/json/` and its generator.
///
/// The generator binary writes each entry to `json/<name>.schema.json`; `--check` fails when a
/// committed file differs from what the types produce now.
pub fn published_schemas() -> Vec<(&'static str, schemars::Schema)> {
    vec![
        ("grant-claims", schemars::schema_for!(GrantClaims)),
        ("scoped-grant-claims", schemars::schema_for!(ScopedGrantClaims)),
        ("proposal", schemars::schema_for!(Proposal)),
        ("decision", schemars::schema_for!(Decision)),
        ("reason", schemars::schema_for!(Reason)),
        ("event", schemars::schema_for!(Event)),
        ("modes", schemars::schema_for!(ModeSet)),
        ("trace-record", schemars::schema_for!(TraceRecord)),
        ("scenario", schemars::schema_for!(Scenario)),
        ("evidence-artifact", schemars::schema_for!(EvidenceArtifact)),
        ("evidence-part", schemars::schema_for!(EvidencePart)),
        ("detected-relation", schemars::schema_for!(DetectedRelation)),
        ("policy", schemars::schema_for!(Policy)),
    ]
}
