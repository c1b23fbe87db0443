//! A review item: the held proposal exactly as a grant must bind it, why it was held, and its
//! answer.

use blindfold_engine::DisputeInfo;
use blindfold_schemas::{Decision, Effect, EvidenceArtifact, Proposal};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Artifacts up to this size are kept in the item for the reviewer to read; larger ones only by
/// digest and length (the grant binds the digest either way).
pub const MAX_STORED_ARTIFACT: usize = 256 * 1024;

/// Where a review stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewStatus {
    /// Waiting for a human.
    Pending,
    /// A human approved it with a grant bound to exactly this proposal.
    Approved,
    /// A human rejected it.
    Rejected,
    /// Nobody answered within `[review] timeout_secs` (treated as a rejection).
    Expired,
    /// Withdrawn before anyone answered: what held the action gave it up (an A2A task canceled
    /// while it waited), so there is nothing left to approve.
    Withdrawn,
}

impl ReviewStatus {
    /// Parses `pending|approved|rejected|expired|withdrawn`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "pending" => Some(Self::Pending),
            "approved" => Some(Self::Approved),
            "rejected" => Some(Self::Rejected),
            "expired" => Some(Self::Expired),
            "withdrawn" => Some(Self::Withdrawn),
            _ => None,
        }
    }
}

/// One held effectful action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewItem {
    /// `rv-` + 16 hex digits.
    pub id: String,
    /// The trajectory (task) it belongs to.
    pub trajectory: String,
    /// Who called (`coordinator` or an agent's configured id).
    pub actor: String,
    /// The tool.
    pub tool: String,
    /// Its effect class from the trusted registry.
    pub effect: Effect,
    /// Task, operation and target exactly as a grant must name them.
    pub proposal: Proposal,
    /// Hex SHA-256 of the exact artifact bytes.
    pub artifact_sha256: String,
    /// Length of the artifact in bytes.
    pub artifact_len: u64,
    /// The artifact, when it is UTF-8 and at most [`MAX_STORED_ARTIFACT`] bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_text: Option<String>,
    /// The artifact in base64, when it is not UTF-8 and at most [`MAX_STORED_ARTIFACT`] bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_base64: Option<String>,
    /// Every other argument of the call.
    pub args: Map<String, Value>,
    /// Hex SHA-256 of the JCS form of `args`.
    pub args_sha256: String,
    /// The action fingerprint.
    pub fingerprint: String,
    /// The decision that held it (reason, check, layer, detail).
    pub decision: Decision,
    /// The evidence the decision rested on.
    #[serde(default)]
    pub evidence: Vec<EvidenceArtifact>,
    /// The disputes standing against the action.
    #[serde(default)]
    pub disputes: Vec<DisputeInfo>,
    /// Creation time, ms since the epoch.
    pub created_ms: u64,
    /// When a pending item expires, ms since the epoch.
    pub expires_ms: u64,
    /// Where it stands.
    pub status: ReviewStatus,
    /// When it was answered (or expired), ms since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolved_ms: Option<u64>,
    /// The rejection reason a human (or the judge quorum) gave.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The reason code a retried action is denied with after a rejection (`judge_denied`,
    /// `judge_unavailable`; none: `review_rejected`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rejected_reason: Option<blindfold_schemas::Reason>,
    /// The approving grant's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_jti: Option<String>,
    /// The approving grant's expiry, seconds since the epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grant_exp: Option<u64>,
}

impl ReviewItem {
    /// The key the item is found by when the same action comes again.
    pub fn action_key(&self) -> String {
        action_key(&self.trajectory, &self.fingerprint)
    }
}

/// `trajectory` NUL `fingerprint`.
pub fn action_key(trajectory: &str, fingerprint: &str) -> String {
    format!("{trajectory}\u{0}{fingerprint}")
}

/// The artifact as kept in an item: text, base64, or neither when too large.
pub fn stored_artifact(bytes: &[u8]) -> (Option<String>, Option<String>) {
    use base64::Engine as _;
    if bytes.len() > MAX_STORED_ARTIFACT {
        return (None, None);
    }
    match std::str::from_utf8(bytes) {
        Ok(text) => (Some(text.to_owned()), None),
        Err(_) => (None, Some(base64::engine::general_purpose::STANDARD.encode(bytes))),
    }
}

/// A fresh review id.
pub fn new_id() -> String {
    let bytes: [u8; 8] = rand::random();
    format!("rv-{}", hex::encode(bytes))
}
