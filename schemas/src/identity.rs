//! Agent identity (SPEC §2): the true identity from Blindfold's config, and the displayed one.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Who an agent is: model, family, tier, provider. As *true* identity it comes from Blindfold's
/// config (or a verified attestation); as *displayed* identity it is whatever the agent claims.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct AgentIdentity {
    /// Model name (`m-large-2`).
    #[serde(default)]
    pub model: String,
    /// Model family; two agents are independent verifiers only if their true families differ.
    #[serde(default)]
    pub family: String,
    /// Tier (`frontier`, `efficient`, …).
    #[serde(default)]
    pub tier: String,
    /// Provider / vendor.
    #[serde(default)]
    pub provider: String,
}

impl AgentIdentity {
    /// The non-empty identity strings (model, family, tier, provider), for lexicons and leak scans.
    pub fn tokens(&self) -> impl Iterator<Item = &str> {
        [&self.model, &self.family, &self.tier, &self.provider]
            .into_iter()
            .map(String::as_str)
            .filter(|s| !s.is_empty())
    }
}
