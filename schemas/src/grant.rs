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
    /// The task's authorization version this grant was issued under (default: `iat`): revoking a
    /// task's grants "before version V" revokes every grant of that task whose version is below V.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
}

impl GrantClaims {
    /// Uses allowed per `jti` (at least one).
    pub fn uses_allowed(&self) -> u32 {
        self.max_uses.unwrap_or(1).max(1)
    }

    /// The authorization version: `version`, else the issue time.
    pub fn version(&self) -> u64 {
        self.version.unwrap_or(self.iat)
    }
}

/// The claims of a scoped grant: standing authority within a task's explicit scope (seed 002),
/// checked for each concrete action instead of binding one target and the digest of its bytes.
///
/// Same signature, `kid`, `jti`, `exp` and revocation as [`GrantClaims`]; every action under it
/// still passes the whole cascade, and an action marked critical is covered only by an entry
/// that names its operation and its exact target (no wildcard).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScopedGrantClaims {
    /// The trajectory (task) the grant is bound to.
    pub task_id: String,
    /// What the grant allows: an action is in scope when one entry lists its operation and
    /// covers every resource it names.
    pub scope: Vec<ScopeEntry>,
    /// Largest artifact (bytes about to be sent) per operation, where limited.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub max_bytes: std::collections::BTreeMap<String, u64>,
    /// Expiry, seconds since the Unix epoch.
    pub exp: u64,
    /// Issue time, seconds since the Unix epoch.
    pub iat: u64,
    /// Unique grant id; uses are counted per `jti`.
    pub jti: String,
    /// Not valid before, seconds since the Unix epoch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nbf: Option<u64>,
    /// How many actions the grant may authorise in all (default 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_uses: Option<u32>,
    /// The task's authorization version (default: `iat`), as in [`GrantClaims::version`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<u64>,
    /// The review-queue item this grant answers, when approved through the review queue.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_id: Option<String>,
}

impl ScopedGrantClaims {
    /// Uses allowed per `jti` (at least one).
    pub fn uses_allowed(&self) -> u32 {
        self.max_uses.unwrap_or(1).max(1)
    }

    /// The authorization version: `version`, else the issue time.
    pub fn version(&self) -> u64 {
        self.version.unwrap_or(self.iat)
    }
}

/// One scope entry: operations (tool names; `*` for any — never covering a critical action) and
/// the targets they may touch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ScopeEntry {
    /// Operations (registry tool names) this entry covers; `*` is any operation.
    pub operations: Vec<String>,
    /// Target patterns; an action must have every resource it names covered by one of them.
    pub targets: Vec<TargetPattern>,
}

/// A target pattern of a scope entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TargetPattern {
    /// A path glob rooted in the workspace (`src/**`, `docs/*.md`): relative, no `..`; `*` stays
    /// inside one directory, `**` crosses directories. Matched against the path as resolved
    /// (symlinks included) where Blindfold can see the workspace.
    Path(String),
    /// A shell command pattern (`cargo test*`), matched against the one simple command a call
    /// parses to — never the raw string: operators, redirections, substitutions or a second
    /// command put a call outside every command pattern.
    Command(String),
    /// A URL glob (`https://api.example.com/v1/*`), matched against the normalised URL.
    Url(String),
    /// A host glob (`*.example.com`), matched against the host of an `http(s)` URL every client
    /// reads the same way.
    Host(String),
    /// Recipients (e-mail addresses, compared case-insensitively): every recipient of the call
    /// must be listed.
    Recipients(Vec<String>),
}

/// The claims of either kind of grant, as a token carries them: exactly one of the two shapes
/// (`target` with digests, or `scope`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum AnyGrantClaims {
    /// One operation on one target with these exact bytes.
    Exact(GrantClaims),
    /// Standing authority within a scope.
    Scoped(ScopedGrantClaims),
}

impl AnyGrantClaims {
    /// The task the grant is bound to.
    pub fn task_id(&self) -> &str {
        match self {
            Self::Exact(c) => &c.task_id,
            Self::Scoped(c) => &c.task_id,
        }
    }

    /// The grant id.
    pub fn jti(&self) -> &str {
        match self {
            Self::Exact(c) => &c.jti,
            Self::Scoped(c) => &c.jti,
        }
    }

    /// Expiry, seconds since the epoch.
    pub fn exp(&self) -> u64 {
        match self {
            Self::Exact(c) => c.exp,
            Self::Scoped(c) => c.exp,
        }
    }

    /// Issue time, seconds since the epoch.
    pub fn iat(&self) -> u64 {
        match self {
            Self::Exact(c) => c.iat,
            Self::Scoped(c) => c.iat,
        }
    }

    /// Not-before, seconds since the epoch.
    pub fn nbf(&self) -> Option<u64> {
        match self {
            Self::Exact(c) => c.nbf,
            Self::Scoped(c) => c.nbf,
        }
    }

    /// Uses allowed per `jti`.
    pub fn uses_allowed(&self) -> u32 {
        match self {
            Self::Exact(c) => c.uses_allowed(),
            Self::Scoped(c) => c.uses_allowed(),
        }
    }

    /// The authorization version.
    pub fn version(&self) -> u64 {
        match self {
            Self::Exact(c) => c.version(),
            Self::Scoped(c) => c.version(),
        }
    }

    /// The review item answered, if any.
    pub fn review_id(&self) -> Option<&str> {
        match self {
            Self::Exact(c) => c.review_id.as_deref(),
            Self::Scoped(c) => c.review_id.as_deref(),
        }
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
