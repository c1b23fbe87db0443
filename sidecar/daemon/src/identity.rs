//! The daemon's identity state: one lexicon of every configured agent (`[identity]` agents and
//! A2A upstreams) and one anonymizer per trajectory, shared by every transport so that an alias
//! is the same on every path of a trajectory; the trace's directory of those aliases and the
//! agents' true identities; and Blindfold's own card-signing key.

use crate::config::Config;
use crate::state::{check_private_file, create_private_once};
use crate::trace::ActorDirectory;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use blindfold_engine::grants::IssuerKey;
use blindfold_engine::identity::{AliasMap, Anonymizer, CARD_JWS_ALG, Lexicon};
use blindfold_schemas::AgentIdentity;
use dashmap::DashMap;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// File name of the generated card-signing key inside the state directory (PKCS#8 PEM, 0600).
pub const CARD_KEY_FILE: &str = "card-signing.key.pem";
/// File name of its public half (SPKI PEM), written next to it for operators to distribute.
pub const CARD_PUB_FILE: &str = "card-signing.pub.pem";

/// Lexicon and per-trajectory anonymizers.
pub struct Identities {
    lexicon: Lexicon,
    agents: Vec<String>,
    true_identities: HashMap<String, AgentIdentity>,
    by_trajectory: DashMap<String, Arc<Anonymizer>>,
    card_signer: Arc<IssuerKey>,
}

impl Identities {
    /// [`Identities::from_config`] with Blindfold's card-signing key: the configured
    /// `[identity] card_signing_key`, else the state dir's, generated (0600) on first start.
    pub fn open(config: &Config) -> Result<Self, String> {
        let signer = load_card_signer(config)?;
        let mut ids = Self::from_config(config);
        ids.card_signer = Arc::new(signer);
        Ok(ids)
    }

    /// Blindfold's card-signing key.
    pub fn card_signer(&self) -> &IssuerKey {
        &self.card_signer
    }

    /// The public card-signing key as a JWK Set (RFC 7517; `kid` is the RFC 7638 thumbprint), what
    /// a client verifies the signature of a card Blindfold served with.
    pub fn card_jwks(&self) -> Value {
        let x = URL_SAFE_NO_PAD.encode(self.card_signer.verifying_key().as_bytes());
        json!({"keys": [{
            "kty": "OKP", "crv": "Ed25519", "x": x, "kid": self.card_signer.kid(),
            "alg": CARD_JWS_ALG, "use": "sig",
        }]})
    }

    /// The lexicon of `config`'s agents and extra words; no trajectory yet; an ephemeral
    /// card-signing key (use [`Identities::open`] for the durable one).
    pub fn from_config(config: &Config) -> Self {
        let mut builder = Lexicon::builder();
        let mut agents = Vec::new();
        let mut true_identities = HashMap::new();
        let upstreams = config.transports.a2a_upstreams.iter().map(|u| (&u.id, &u.identity));
        for (id, identity) in config.identity.agents.iter().map(|(id, i)| (id, i)).chain(upstreams) {
            builder.agent(id, identity);
            agents.push(id.clone());
            true_identities.insert(id.clone(), identity.clone());
        }
        for word in &config.identity.extra_words {
            builder.extra(word);
        }
        Self {
            lexicon: builder.build(),
            agents,
            true_identities,
            by_trajectory: DashMap::new(),
            card_signer: Arc::new(IssuerKey::generate()),
        }
    }

    /// The anonymizer of `trajectory`, created on first use with a fresh random alias order (its
    /// seed is logged so the trace can record it).
    pub fn anonymizer(&self, trajectory: &str) -> Arc<Anonymizer> {
        if let Some(a) = self.by_trajectory.get(trajectory) {
            return a.clone();
        }
        self.by_trajectory
            .entry(trajectory.to_owned())
            .or_insert_with(|| {
                let seed = rand::random::<u64>();
                tracing::info!(trajectory, alias_seed = seed, agents = self.agents.len(), "aliases assigned");
                Arc::new(Anonymizer::new(self.lexicon.clone(), AliasMap::new(seed, self.agents.iter())))
            })
            .clone()
    }

    /// Makes `make()` the anonymizer of `trajectory` unless it already has one: for a transport
    /// whose aliases were shown before the trajectory existed (A2A discovery), so that every
    /// path — and the trace — names its agents by the aliases the coordinator saw.
    pub fn adopt(&self, trajectory: &str, make: impl FnOnce() -> Anonymizer) {
        if !self.by_trajectory.contains_key(trajectory) {
            self.by_trajectory.entry(trajectory.to_owned()).or_insert_with(|| Arc::new(make()));
        }
    }

    /// Forgets a trajectory's aliases (it ended); returns them, for the caller to free where it
    /// costs nothing.
    pub fn end(&self, trajectory: &str) -> Option<impl Send + 'static> {
        self.by_trajectory.remove(trajectory)
    }

    /// Number of trajectories holding aliases.
    pub fn len(&self) -> usize {
        self.by_trajectory.len()
    }

    /// True when no trajectory holds aliases.
    pub fn is_empty(&self) -> bool {
        self.by_trajectory.is_empty()
    }

    /// The lexicon of every configured agent (`[identity] agents` and A2A upstreams: true
    /// identities and ids) and `[identity] extra_words`: what every path's anonymizer starts from.
    pub fn lexicon(&self) -> &Lexicon {
        &self.lexicon
    }

    /// The identity tokens of the lexicon (for leak scans).
    pub fn tokens(&self) -> Vec<String> {
        self.lexicon.identity_tokens().map(str::to_owned).collect()
    }
}

/// The trace names an agent by its alias in the trajectory (the same on every path) and records
/// its configured true identity; an agent the configuration does not list keeps its own name.
impl ActorDirectory for Identities {
    fn alias(&self, trajectory: &str, agent: &str) -> String {
        if !self.true_identities.contains_key(agent) {
            return agent.to_owned();
        }
        let anon = self.anonymizer(trajectory);
        anon.aliases().alias_of(agent).map_or_else(|| agent.to_owned(), str::to_owned)
    }

    fn true_identity(&self, agent: &str) -> Option<AgentIdentity> {
        self.true_identities.get(agent).filter(|i| i.tokens().any(|t| !t.is_empty())).cloned()
    }
}

/// The configured card-signing key, else `<state>/card-signing.key.pem` (created with its public
/// half when missing). A key file others can read is refused.
fn load_card_signer(config: &Config) -> Result<IssuerKey, String> {
    let (path, generated) = match &config.identity.card_signing_key {
        Some(p) => (p.clone(), false),
        None => (config.state_dir.join(CARD_KEY_FILE), true),
    };
    if generated && !path.exists() {
        let key = IssuerKey::generate();
        let private = key.private_pem().map_err(|e| e.to_string())?;
        if create_private_once(&path, private.as_bytes()).map_err(|e| format!("{}: {e}", path.display()))? {
            write_public(&config.state_dir, &key)?;
            return Ok(key);
        }
        // Another process starting at the same moment created it first: theirs is read below.
    }
    check_private_file(&path).map_err(|e| format!("identity.card_signing_key: {e}"))?;
    let pem = std::fs::read_to_string(&path)
        .map_err(|e| format!("identity.card_signing_key: {}: {e}", path.display()))?;
    let key = IssuerKey::from_pem(&pem)
        .map_err(|e| format!("identity.card_signing_key: {}: {e}", path.display()))?;
    if generated && !config.state_dir.join(CARD_PUB_FILE).exists() {
        write_public(&config.state_dir, &key)?;
    }
    Ok(key)
}

fn write_public(dir: &Path, key: &IssuerKey) -> Result<(), String> {
    let path = dir.join(CARD_PUB_FILE);
    let public = key.public_pem().map_err(|e| e.to_string())?;
    std::fs::write(&path, public).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    #[test]
    fn processes_starting_together_on_a_fresh_state_directory_share_one_card_signing_key() {
        let dir = tempfile::tempdir().expect("tmp");
        let mut config = crate::config::load(None).expect("default config");
        config.state_dir = dir.path().to_owned();
        let kids = crate::state::started_together(8, || {
            super::load_card_signer(&config).expect("key").kid().to_owned()
        });
        let on_disk = super::load_card_signer(&config).expect("key").kid().to_owned();
        assert!(kids.iter().all(|k| *k == on_disk), "{kids:?} vs {on_disk}");
        let public = std::fs::read_to_string(dir.path().join(super::CARD_PUB_FILE)).expect("public half");
        let key = super::load_card_signer(&config).expect("key");
        assert_eq!(public, key.public_pem().expect("pem"), "the public half is the key's");
    }
}
