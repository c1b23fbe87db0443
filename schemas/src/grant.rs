//! Grant claims (SPEC §6) and the proposal a grant is checked against.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The claims of a signed grant: what exactly a trusted issuer allowed, for how long.
///
/// `artifact_sha256` and `args_sha256` are lowercase hex SHA-256 digests: of the artifact's
/// UTF-8 bytes (strings) or RFC 8785 form (anything else), and of the JCS form of the object of
/// every other argument (`{}` when there are none).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GrantClaims {
    /// The trajectory (task) the grant is bound to; assigned by Blindfold, never by a model.
    pub task_id: String,
    /// The operation allowed; for tool calls, the tool name.
    pub operation: String,
    /// The one target allowed (a string, or the JCS form of a non-string target).
    pub target: String,
    /// Hex SHA-256 of the exact artifact bytes approved.
    pub artifact_sha256: String,
    /// Hex SHA-256 of the JCS form of every other argument.
    pub args_sha256: String,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
    /// Issue time, seconds since the Unix epoch.
    pub iat: u64,
    /// Unique grant id; the replay key.
    pub jti: String,
    /// Not valid before, seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<u64>,
    /// How many times the grant may be used (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
    /// The review-queue item this grant answers, when issued through the review queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_id: Option<String>,
}

impl GrantClaims {
    /// Uses allowed per `jti` (at least one).
    pub fn uses_allowed(&self) -> u32 {
        self.max_uses.unwrap_or(1).max(1)
    }
}

/// A proposed effect as the grant checker sees it: exactly these three fields.
///
/// Any other field (for example a model-written `approved: true`) makes the proposal
/// `invalid_schema`; a proposal cannot approve itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Proposal {
    /// The trajectory the action belongs to.
    pub task_id: String,
    /// The operation (tool name).
    pub operation: String,
    /// The target (a string, or the JCS form of a non-string target).
    pub target: String,
}
