//! `[identity]`: the true identity of the harness's agents (its sub-agents by name) and extra
//! words, for the lexicon every path rewrites with; the keys agent-card signatures are
//! verified with (`attest`) and Blindfold's own card-signing key.

use super::error::ConfigError;
use blindfold_engine::grants::TrustedKeys;
use blindfold_engine::identity::LexiconData;
use blindfold_schemas::AgentIdentity;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

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
    /// SPKI PEM files of the keys agent-card signatures are verified with in `attest` (a card's
    /// `jku` is never followed).
    #[serde(default)]
    pub card_keys: Vec<String>,
    /// PKCS#8 PEM file of Blindfold's own card-signing key (redacted cards are signed with it);
    /// empty: `<state dir>/card-signing.key.pem`, generated (0600) at first start.
    #[serde(default)]
    pub card_signing_key: String,
    /// The built-in lexicon's provider words (vendors, families, model ids) apply.
    #[serde(default = "default_true")]
    pub builtin: bool,
    /// Words of the built-in lexicon that pass (a per-word opt-out).
    #[serde(default)]
    pub allow_words: Vec<String>,
    /// A lexicon data file used instead of the embedded one; empty: the embedded one.
    #[serde(default)]
    pub lexicon_file: String,
}

fn default_true() -> bool {
    true
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
#[derive(Clone)]
pub struct IdentityConfig {
    /// Agents by name with their true identity, in config order.
    pub agents: Vec<(String, AgentIdentity)>,
    /// Extra words.
    pub extra_words: Vec<String>,
    /// Keys trusted for agent-card signatures.
    pub card_keys: TrustedKeys,
    /// Blindfold's card-signing key file, when configured.
    pub card_signing_key: Option<PathBuf>,
    /// The built-in lexicon's provider words apply.
    pub builtin: bool,
    /// Words of the built-in lexicon that pass.
    pub allow_words: Vec<String>,
    /// The lexicon data (`lexicon_file`, else the embedded data).
    pub lexicon: std::sync::Arc<LexiconData>,
}

impl Default for IdentityConfig {
    fn default() -> Self {
        Self {
            agents: Vec::new(),
            extra_words: Vec::new(),
            card_keys: TrustedKeys::new(),
            card_signing_key: None,
            builtin: true,
            allow_words: Vec::new(),
            lexicon: std::sync::Arc::new(LexiconData::embedded().clone()),
        }
    }
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
        let mut card_keys = TrustedKeys::new();
        for (i, path) in self.card_keys.iter().enumerate() {
            let field = format!("identity.card_keys[{i}]");
            let pem = std::fs::read_to_string(path)
                .map_err(|e| ConfigError::field(&field, format!("cannot read {path}: {e}")))?;
            card_keys.add_pem(&pem).map_err(|e| ConfigError::field(&field, format!("{path}: {e}")))?;
        }
        let card_signing_key =
            (!self.card_signing_key.trim().is_empty()).then(|| PathBuf::from(self.card_signing_key.trim()));
        let lexicon = match self.lexicon_file.trim() {
            "" => LexiconData::embedded().clone(),
            path => {
                let field = "identity.lexicon_file";
                let text = std::fs::read_to_string(path)
                    .map_err(|e| ConfigError::field(field, format!("cannot read {path}: {e}")))?;
                LexiconData::parse(&text).map_err(|e| ConfigError::field(field, format!("{path}: {e}")))?
            }
        };
        let allow_words = self.allow_words.iter().filter(|w| !w.trim().is_empty()).cloned().collect();
        Ok(IdentityConfig {
            agents,
            extra_words,
            card_keys,
            card_signing_key,
            builtin: self.builtin,
            allow_words,
            lexicon: std::sync::Arc::new(lexicon),
        })
    }
}
