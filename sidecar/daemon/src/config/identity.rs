//! `[identity]`: the true identity of the harness's agents (its sub-agents by name) and extra
//! words, for the lexicon every path rewrites with.

use super::validate::ConfigError;
use blindfold_schemas::AgentIdentity;
use serde::{Deserialize, Serialize};

/// `[identity]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawIdentity {
    /// `[[identity.agents]]`: agents known by name (e.g. a harness's sub-agents).
    #[serde(default)]
    pub agents: Vec<RawAgent>,
    /// Further words that must never reach the coordinator.
    #[serde(default)]
    pub extra_words: Vec<String>,
}

/// One `[[identity.agents]]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawAgent {
    /// The agent's name as the harness knows it (mapped to an alias toward the coordinator).
    pub id: String,
    /// True identity: model.
    #[serde(default)]
    pub model: String,
    /// True identity: family.
    #[serde(default)]
    pub family: String,
    /// True identity: tier.
    #[serde(default)]
    pub tier: String,
    /// True identity: provider.
    #[serde(default)]
    pub provider: String,
}

/// `[identity]`, validated.
#[derive(Debug, Clone, Default)]
pub struct IdentityConfig {
    /// Agents by name with their true identity, in config order.
    pub agents: Vec<(String, AgentIdentity)>,
    /// Extra words.
    pub extra_words: Vec<String>,
}

impl RawIdentity {
    /// Checks names are present and unique.
    pub fn validate(&self) -> Result<IdentityConfig, ConfigError> {
        let mut agents: Vec<(String, AgentIdentity)> = Vec::new();
        for (i, a) in self.agents.iter().enumerate() {
            let id = a.id.trim();
            if id.is_empty() || agents.iter().any(|(seen, _)| seen == id) {
                return Err(ConfigError::field(format!("identity.agents[{i}].id"), "empty or repeated"));
            }
            let identity = AgentIdentity {
                model: a.model.clone(),
                family: a.family.clone(),
                tier: a.tier.clone(),
                provider: a.provider.clone(),
            };
            agents.push((id.to_owned(), identity));
        }
        let extra_words = self.extra_words.iter().filter(|w| !w.trim().is_empty()).cloned().collect();
        Ok(IdentityConfig { agents, extra_words })
    }
}
