//! Decisions, their reason codes and the layer of the check that made them (SPEC §2, §6, §7).

use crate::check::CheckId;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What happens to an action: it runs, it does not, or it waits for a human.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The action may run now.
    Allow,
    /// The action must not run.
    Deny,
    /// Not allowed now; queued for a human who may answer with a grant.
    Review,
}

/// How much a check trusts what it reads (SPEC §2): the audit category of a decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Layer {
    /// Decided from structure and state only.
    ContentFree,
    /// Deterministic, but reads attacker-influenced values.
    ContentDependent,
    /// Similarity against a fixed threshold.
    Threshold,
    /// A model judge.
    Judge,
}

/// Declares the reason enum, its wire names and the list of all of them in one place.
macro_rules! reasons {
    ($($(#[$doc:meta])* $variant:ident => $name:literal,)*) => {
        /// Every reason code a decision can carry. The wire form is the snake_case name.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum Reason {
            $($(#[$doc])* $variant,)*
        }

        impl Reason {
            /// Every reason, in declaration order.
            pub const ALL: &'static [Reason] = &[$(Reason::$variant,)*];

            /// The wire name of the reason (`expired_grant`, …).
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Reason::$variant => $name,)*
                }
            }
        }
    };
}

reasons! {
    // --- grants (SPEC §6), in check order ---
    /// Every check passed.
    Allowed => "allowed",
    /// The proposal (or a call's arguments) does not have exactly the expected fields.
    InvalidSchema => "invalid_schema",
    /// No grant was presented or found for the action.
    NoGrant => "no_grant",
    /// The token is malformed, not EdDSA, or its signature does not verify.
    BadSignature => "bad_signature",
    /// The token's key id is not a trusted (or not an unrevoked) issuer key.
    UntrustedIssuer => "untrusted_issuer",
    /// The grant is bound to another task.
    WrongTask => "wrong_task",
    /// The grant has expired.
    ExpiredGrant => "expired_grant",
    /// The grant's `nbf` lies in the future.
    NotYetValid => "not_yet_valid",
    /// The grant allows another operation.
    OperationDenied => "operation_denied",
    /// The grant allows another target.
    TargetDenied => "target_denied",
    /// The bytes about to be sent (or the other arguments) differ from the approved ones.
    ArtifactChanged => "artifact_changed",
    /// The grant's uses are spent.
    ReplayedGrant => "replayed_grant",
    /// The grant was revoked.
    RevokedGrant => "revoked_grant",
    /// The grant's lifetime exceeds the configured maximum.
    GrantTooLong => "grant_too_long",
    /// A path the action names resolves (symlinks included) outside the grant's target or scope.
    PathEscapes => "path_escapes",
    /// The action is critical (a delete, a force-push, `rm -rf`, an external send) and no scope
    /// entry names its operation and its exact target.
    CriticalAction => "critical_action",
    /// The bytes about to be sent exceed the scoped grant's limit for the operation.
    ByteLimitExceeded => "byte_limit_exceeded",
    // --- the cascade (SPEC §7) ---
    /// The tool is not in the trusted registry.
    UnknownTool => "unknown_tool",
    /// The tool is outside the acting agent's stage allowlist.
    ToolNotAllowed => "tool_not_allowed",
    /// A per-stage action cap is exhausted.
    ActionCapExceeded => "action_cap_exceeded",
    /// An argument rule (denied pattern, critical asset, wildcard) forbids the call.
    ArgumentDenied => "argument_denied",
    /// The action reaches Blindfold's own state (its state dir, config, keys, tokens) or its
    /// listeners and control socket: no agent Blindfold mediates may.
    ProtectedTarget => "protected_target",
    /// The action's target appears nowhere in the trajectory's trusted evidence.
    TargetNotInEvidence => "target_not_in_evidence",
    /// The same action was already executed inside the replay window.
    ReplayedAction => "replayed_action",
    /// Contradicting evidence stands against the action.
    Contradicted => "contradicted",
    /// An effectful proposal lacks an independent positive verification.
    Unverified => "unverified",
    /// What is about to execute is not what was approved.
    ExecutedMismatch => "executed_mismatch",
    /// An MCP tool definition changed since it was pinned.
    DefinitionChanged => "definition_changed",
    /// A memory record lacks schema fields or provenance.
    MemoryInvalid => "memory_invalid",
    /// A memory record carries instruction-like content.
    InstructionLike => "instruction_like",
    /// A memory record contradicts a stored record.
    MemoryConflict => "memory_conflict",
    /// A memory write repeats an earlier write inside the replay window.
    MemoryReplay => "memory_replay",
    /// A memory record is not supported by the trajectory's evidence.
    MemoryUnsupported => "memory_unsupported",
    /// The actor may not read or write that store (stage policy, ACL or tenant).
    StoreDenied => "store_denied",
    /// A model judge denied the action.
    JudgeDenied => "judge_denied",
    /// The judge failed, timed out or answered garbage.
    JudgeUnavailable => "judge_unavailable",
    /// No rule could decide; a human must.
    Undecided => "undecided",
    /// A human rejected the action in the review queue (or its review expired unanswered).
    ReviewRejected => "review_rejected",
    /// An MCP tool's definition changed since it was pinned; an operator must accept it.
    ToolDefinitionChanged => "tool_definition_changed",
    /// The trajectory has too many events or pending reviews.
    LimitExceeded => "limit_exceeded",
    /// A frame or message could not be parsed or is not allowed on an effectful path.
    MalformedInput => "malformed_input",
    /// A model request carried no session of a harness whose plugin registered with Blindfold
    /// (`[model_proxy] sessions = "required"`): its tool calls are refused.
    UnpairedSession => "unpaired_session",
    /// Blindfold itself failed (store, trace, timeout); failing closed.
    InternalError => "internal_error",
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A decision with the check that made it (SPEC §2): auditable on its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Decision {
    /// allow, deny or review.
    pub decision: Verdict,
    /// The reason code.
    pub reason: Reason,
    /// The check that decided (`P3.grant`, …).
    pub check: CheckId,
    /// Layer of that check (always `check`'s own, [`CheckId::layer`]).
    pub layer: Layer,
    /// A short, actionable explanation for the user (never a hint around the boundary).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// The id (`jti`) of the grant whose use this allow took, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant: Option<String>,
}

impl Decision {
    /// An allow made by `check`.
    pub fn allow(check: CheckId) -> Self {
        Self::new(Verdict::Allow, Reason::Allowed, check)
    }

    /// A denial with `reason` made by `check`.
    pub fn deny(reason: Reason, check: CheckId) -> Self {
        Self::new(Verdict::Deny, reason, check)
    }

    /// A referral to human review with `reason` made by `check`.
    pub fn review(reason: Reason, check: CheckId) -> Self {
        Self::new(Verdict::Review, reason, check)
    }

    fn new(decision: Verdict, reason: Reason, check: CheckId) -> Self {
        Self { decision, reason, check, layer: check.layer(), detail: None, grant: None }
    }

    /// The same decision with an explanation attached.
    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    /// The same decision naming the grant whose use it took.
    pub fn with_grant(mut self, jti: impl Into<String>) -> Self {
        self.grant = Some(jti.into());
        self
    }

    /// True when the action may run.
    pub fn is_allow(&self) -> bool {
        self.decision == Verdict::Allow
    }
}
