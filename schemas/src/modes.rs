//! The mode set (SPEC §3): which mechanisms are on for a trajectory.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which mechanisms are on. `off` is everything false (observe, nothing rewritten, only traced).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ModeSet {
    /// Strip displayed identity; neutral shuffled aliases.
    pub anonymize: bool,
    /// Show identity only where verified (anonymize wins when both are set).
    pub attest: bool,
    /// Contradiction blocks execute; effectful proposals need independent verification first.
    pub preverify: bool,
    /// Mutations need a signed grant.
    pub grants: bool,
    /// Block (true) or only record what would have been blocked (false, `observe`).
    pub enforce: bool,
}

impl ModeSet {
    /// `all`: anonymize + preverify + grants + enforce (the default).
    pub const ALL: ModeSet =
        ModeSet { anonymize: true, attest: false, preverify: true, grants: true, enforce: true };
    /// `off`: nothing blocked or rewritten, only traced.
    pub const OFF: ModeSet =
        ModeSet { anonymize: false, attest: false, preverify: false, grants: false, enforce: false };

    /// Nothing is blocked or rewritten (`enforce`, `anonymize` and `attest` all off): a transport
    /// passes bytes unchanged; decisions are still made, unenforced, for the trace.
    pub fn transparent(&self) -> bool {
        !(self.enforce || self.anonymize || self.attest)
    }

    /// A named mode as used by `replay --modes` and the control API: `off`, `anonymize`, `attest`,
    /// `preverify`, `all`.
    pub fn named(name: &str) -> Option<ModeSet> {
        let with = |anonymize, attest, preverify| ModeSet {
            anonymize,
            attest,
            preverify,
            grants: true,
            enforce: true,
        };
        match name {
            "off" => Some(Self::OFF),
            "all" => Some(Self::ALL),
            "anonymize" => Some(with(true, false, false)),
            "attest" => Some(with(false, true, true)),
            "preverify" => Some(with(false, false, true)),
            _ => None,
        }
    }
}

impl Default for ModeSet {
    fn default() -> Self {
        Self::ALL
    }
}
