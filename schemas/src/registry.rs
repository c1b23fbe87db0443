//! The trusted tool registry's entry shape (SPEC §7, §11): effect class and argument roles.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What running a tool can do to the world.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Reads only.
    Read,
    /// Changes the workspace.
    Mutate,
    /// Sends something outside (network, mail, push).
    External,
}

impl Effect {
    /// `mutate` and `external` are effectful: they need a grant (and, with preverify, a verification).
    pub fn is_effectful(self) -> bool {
        !matches!(self, Effect::Read)
    }
}

/// One registry entry: how to classify a tool and derive (operation, target, artifact) from its
/// arguments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolSpec {
    /// Effect class.
    pub effect: Effect,
    /// Argument holding the target; none ⇒ the target is the tool name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_arg: Option<String>,
    /// Argument holding the artifact bytes; none ⇒ every non-target argument goes to `args`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_arg: Option<String>,
    /// Argument schema: the names a call may carry. When set, any other argument makes the
    /// call `invalid_schema`; when absent, arguments are not restricted by name (the grant's
    /// `args_sha256` still binds them).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<String>>,
    /// `false` exempts the tool from "target must appear in the trajectory's evidence".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_in_evidence: Option<bool>,
    /// `true` marks every call critical (deletes, irreversible changes): a scoped grant covers it
    /// only with an entry naming this operation and the exact target. External tools are critical
    /// whatever this says, except `web_fetch`, whose effect the host decides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub critical: Option<bool>,
}
