//! The daemon's identity state: one lexicon of every configured agent (`[identity]` agents and
//! A2A upstreams) and one anonymizer per trajectory, shared by every transport so that an alias
//! is the same on every path of a trajectory; the trace's directory of those aliases and the
//! agents' true identities; and Blindfold's own card-signing key.

use crate::config::Config;
use crate::runtime::state::{Kept, KeptStore, check_private_file, create_private_once};
use crate::runtime::trace::{ActorDirectory, TraceSink};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use blindfold_engine::grants::IssuerKey;
use blindfold_engine::identity::{AliasMap, Anonymizer, CARD_JWS_ALG, Lexicon, LexiconBuilder};
use blindfold_schemas::{AgentIdentity, ModeSet, TraceKind, TraceRecord};
use dashmap::{DashMap, DashSet};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::watch;

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
    /// Where each trajectory's aliases are recorded (none without a trace).
    log: Option<AliasLog>,
    /// Where kept trajectories' aliases survive a restart (none without a state directory).
    store: Option<Arc<KeptStore>>,
    /// The trajectories whose aliases are kept (harness sessions: [`Identities::keep`]).
    kept: DashSet<String>,
}

/// The trace each trajectory's aliases are recorded in, and the global modes to stamp the
/// records with.
pub struct AliasLog {
    /// The trace's writer.
    pub sink: Arc<TraceSink>,
    /// The daemon's global modes.
    pub modes: Arc<watch::Sender<ModeSet>>,
}

impl Identities {
    /// [`Identities::from_config`] with Blindfold's card-signing key (the configured
    /// `[identity] card_signing_key`, else the state dir's, generated (0600) on first start),
    /// recording each trajectory's aliases in `log`'s trace.
    pub fn open(config: &Config, log: Option<AliasLog>) -> Result<Self, String> {
        let signer = load_card_signer(config)?;
        let mut ids = Self::from_config(config);
        ids.card_signer = Arc::new(signer);
        ids.log = log;
        Ok(ids)
    }

    /// Keeps the aliases of the trajectories marked with [`Identities::keep`] in `store`, and
    /// restores any trajectory's aliases from it when the trajectory is first met again.
    pub fn with_store(mut self, store: Arc<KeptStore>) -> Self {
        self.store = Some(store);
        self
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

    /// The lexicon of `config`: the built-in data (or `[identity] lexicon_file`, its provider
    /// words unless `builtin = false`, minus `allow_words`), the agents' true identities and ids,
    /// and the extra words; no trajectory yet; an ephemeral card-signing key (use
    /// [`Identities::open`] for the durable one).
    pub fn from_config(config: &Config) -> Self {
        let ident = &config.identity;
        let allowed = ident.allow_words.iter().map(String::as_str);
        let mut builder = LexiconBuilder::from_data(&ident.lexicon, ident.builtin, allowed);
        let mut agents = Vec::new();
        let mut true_identities = HashMap::new();
        let upstreams = config.transports.a2a_upstreams.iter().map(|u| (u.id.clone(), u.identity.clone()));
        let known: Vec<_> = config.identity.agents.iter().cloned().chain(upstreams).collect();
        // The verifiers Blindfold asks itself are agents of the task too (validated with the config).
        let verifiers = config.verifiers.identities(&known).unwrap_or_default();
        for (id, identity) in known.iter().chain(verifiers.iter()) {
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
            log: None,
            store: None,
            kept: DashSet::new(),
        }
    }

    /// The anonymizer of `trajectory`, created on first use: with the aliases it kept across a
    /// restart when it has some ([`Identities::keep`], recorded in the trace as `restored`), else
    /// with a fresh random alias order, whose seed is recorded in the trace ([`aliases_record`],
    /// `drawn`).
    pub fn anonymizer(&self, trajectory: &str) -> Arc<Anonymizer> {
        if let Some(a) = self.by_trajectory.get(trajectory) {
            return a.clone();
        }
        let restored = self.restored(trajectory);
        let mut how = None;
        let anon = self
            .by_trajectory
            .entry(trajectory.to_owned())
            .or_insert_with(|| {
                let (aliases, h) = match restored {
                    Some(aliases) => (aliases, "restored"),
                    None => (AliasMap::new(rand::random::<u64>(), self.agents.iter()), "drawn"),
                };
                how = Some(h);
                Arc::new(Anonymizer::new(self.lexicon.clone(), aliases))
            })
            .clone();
        if let Some(how) = how {
            self.record(trajectory, anon.aliases(), how);
            if how == "drawn" {
                self.persist(trajectory, anon.aliases());
            }
        }
        anon
    }

    /// The aliases `trajectory` kept in the store, with every configured agent (one added to the
    /// configuration since gets the next free alias).
    fn restored(&self, trajectory: &str) -> Option<AliasMap> {
        let kept = self.store.as_ref()?.get(trajectory).ok().flatten()?;
        let mut aliases = AliasMap::from_record(kept.aliases.as_ref()?);
        for agent in &self.agents {
            aliases.ensure(agent);
        }
        Some(aliases)
    }

    /// Marks `trajectory` (a harness session) as kept: its aliases are written to the store now
    /// and whenever they change, so a restarted daemon shows its agents by the same aliases.
    pub fn keep(&self, trajectory: &str) {
        if self.store.is_none() || !self.kept.insert(trajectory.to_owned()) {
            return;
        }
        let anon = self.anonymizer(trajectory);
        self.persist(trajectory, anon.aliases());
    }

    /// True when `trajectory` is kept ([`Identities::keep`]).
    pub fn is_kept(&self, trajectory: &str) -> bool {
        self.kept.contains(trajectory)
    }

    /// Changes the anonymizer of `trajectory` with `change` (a harness registering its agents:
    /// aliases and identity words); when `change` says it changed something, the new aliases are
    /// recorded in the trace (`extended`) and kept.
    pub fn extend(&self, trajectory: &str, change: impl FnOnce(&mut Anonymizer) -> bool) -> Arc<Anonymizer> {
        let current = self.anonymizer(trajectory);
        let mut next = current.as_ref().clone();
        if !change(&mut next) {
            return current;
        }
        let aliases_changed = next.aliases() != current.aliases();
        let next = Arc::new(next);
        self.by_trajectory.insert(trajectory.to_owned(), next.clone());
        if aliases_changed {
            self.record(trajectory, next.aliases(), "extended");
            self.persist(trajectory, next.aliases());
        }
        next
    }

    /// Writes the aliases of a kept trajectory to the store (its modes are kept as they were).
    fn persist(&self, trajectory: &str, aliases: &AliasMap) {
        let Some(store) = self.store.as_ref().filter(|_| self.kept.contains(trajectory)) else { return };
        let written = store.get(trajectory).and_then(|kept| {
            let mut kept = kept.unwrap_or(Kept { aliases: None, anonymize: true, attest: false });
            kept.aliases = Some(aliases.record());
            store.put(trajectory, &kept)
        });
        if let Err(e) = written {
            tracing::warn!(trajectory, error = %e, "aliases not kept");
        }
    }

    /// Makes `make()` the anonymizer of `trajectory` unless it already has one: for a transport
    /// whose aliases were shown before the trajectory existed (A2A discovery), so that every
    /// path — and the trace — names its agents by the aliases the coordinator saw. The adopted
    /// aliases and their seed are recorded in the trace ([`aliases_record`], `adopted`).
    pub fn adopt(&self, trajectory: &str, make: impl FnOnce() -> Anonymizer) {
        if self.by_trajectory.contains_key(trajectory) {
            return;
        }
        // A kept trajectory met again after a restart keeps the aliases it had.
        if self.restored(trajectory).is_some() {
            self.anonymizer(trajectory);
            return;
        }
        let mut adopted = None;
        self.by_trajectory.entry(trajectory.to_owned()).or_insert_with(|| {
            let anon = Arc::new(make());
            adopted = Some(anon.clone());
            anon
        });
        if let Some(anon) = adopted {
            self.record(trajectory, anon.aliases(), "adopted");
            self.persist(trajectory, anon.aliases());
        }
    }

    /// Logs and traces the aliases `trajectory` was given (`how`), stamped with the global modes.
    fn record(&self, trajectory: &str, aliases: &AliasMap, how: &str) {
        tracing::info!(
            trajectory,
            alias_seed = aliases.seed(),
            agents = aliases.len(),
            how,
            "aliases assigned"
        );
        if let Some(log) = &self.log {
            trace_aliases(&log.sink, aliases_record(trajectory, aliases, how, *log.modes.borrow()));
        }
    }

    /// Forgets a trajectory's aliases (it ended); returns them, for the caller to free where it
    /// costs nothing.
    pub fn end(&self, trajectory: &str) -> Option<impl Send + 'static> {
        self.by_trajectory.remove(trajectory)
    }

    /// Forgets a kept trajectory for good (the operator ended it): a later event under the id
    /// draws new aliases.
    pub fn forget(&self, trajectory: &str) {
        if self.kept.remove(trajectory).is_some()
            && let Some(Err(e)) = self.store.as_ref().map(|s| s.remove(trajectory))
        {
            tracing::warn!(trajectory, error = %e, "kept trajectory not removed");
        }
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

/// The `control` record of the aliases a session of `trajectory` names its agents by (SPEC §4):
/// `tool` `aliases`, `target` how they came (`drawn` for the trajectory, `adopted` from A2A
/// discovery, `discovery` for the discovery session itself), `detail`
/// `{"seed": <the shuffle seed>, "aliases": {<agent id>: <alias>}}`.
pub fn aliases_record(trajectory: &str, aliases: &AliasMap, how: &str, mode: ModeSet) -> TraceRecord {
    let mut r = TraceRecord::new(trajectory, TraceKind::Control, crate::unix_now_ms(), mode);
    r.tool = Some("aliases".to_owned());
    r.target = Some(how.to_owned());
    let record = aliases.record();
    r.detail = Some(json!({"seed": record.seed, "aliases": record.aliases}).to_string());
    r
}

/// Queues an [`aliases_record`] as an informational record (it decides nothing, so nothing
/// waits for it); one that cannot be queued is logged.
pub fn trace_aliases(sink: &TraceSink, record: TraceRecord) {
    let trajectory = record.trajectory.clone();
    if let Err(e) = sink.submit(record, false) {
        tracing::warn!(%trajectory, error = %e, "alias record not traced");
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
    // Public, yet a state file like the others: 0600 inside the 0700 state directory.
    crate::runtime::state::write_private_file(&path, public.as_bytes())
        .map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use blindfold_engine::identity::{AliasMap, Anonymizer, Lexicon};
    use serde_json::Value;

    /// The `aliases` records of the trace under `dir`, by trajectory.
    fn alias_records(dir: &std::path::Path) -> Vec<(String, String, Value)> {
        let files = std::fs::read_dir(dir.join("traces")).expect("trace dir");
        let text: String = files.filter_map(|f| std::fs::read_to_string(f.ok()?.path()).ok()).collect();
        text.lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|r| r["kind"] == "control" && r["tool"] == "aliases")
            .map(|r| {
                let detail = serde_json::from_str(r["detail"].as_str().unwrap_or_default()).expect("detail");
                let text = |key: &str| r[key].as_str().unwrap_or_default().to_owned();
                (text("trajectory"), text("target"), detail)
            })
            .collect()
    }

    #[test]
    fn each_trajectorys_aliases_are_recorded_once_with_their_seed() {
        let dir = tempfile::tempdir().expect("dir");
        let app = crate::runtime::fixtures::app_in(dir.path(), u64::MAX, None);
        let drawn = app.identities.anonymizer("t-drawn");
        assert!(std::sync::Arc::ptr_eq(&drawn, &app.identities.anonymizer("t-drawn")), "drawn once");
        let discovery = || Anonymizer::new(Lexicon::default(), AliasMap::new(42, ["planner"]));
        app.identities.adopt("t-adopted", discovery);
        app.identities.adopt("t-adopted", || Anonymizer::new(Lexicon::default(), AliasMap::new(7, ["x"])));
        app.trace.as_ref().expect("trace").flush().expect("flushed");

        let records = alias_records(dir.path());
        assert_eq!(records.len(), 2, "{records:?}");
        let (trajectory, how, detail) = &records[0];
        assert_eq!((trajectory.as_str(), how.as_str()), ("t-drawn", "drawn"));
        assert_eq!(detail["seed"].as_u64(), Some(drawn.aliases().seed()), "{detail}");
        let (trajectory, how, detail) = &records[1];
        assert_eq!((trajectory.as_str(), how.as_str()), ("t-adopted", "adopted"));
        assert_eq!(detail, &serde_json::json!({"seed": 42, "aliases": {"planner": "agent-a"}}));
    }

    /// The configuration `toml` (in a file of `dir`) or its error.
    fn config(dir: &std::path::Path, toml: &str) -> Result<crate::config::Config, String> {
        let file = dir.join("blindfold.toml");
        std::fs::write(&file, toml).expect("config");
        crate::config::load(Some(&file)).map_err(|e| e.to_string())
    }

    #[test]
    fn the_built_in_lexicon_is_on_by_default_and_the_configuration_narrows_replaces_or_drops_it() {
        let dir = tempfile::tempdir().expect("tmp");
        let lexicon = |toml: &str| {
            super::Identities::from_config(&config(dir.path(), toml).expect("config")).lexicon().clone()
        };
        let default = lexicon("");
        assert!(default.kind_of("claude").is_some() && default.kind_of("gemini").is_some());
        let narrowed = lexicon("[identity]\nallow_words = [\"Gemini\", \"llama\"]\n");
        assert!(narrowed.kind_of("gemini").is_none() && narrowed.kind_of("llama").is_none());
        assert!(narrowed.kind_of("claude").is_some());
        let off = lexicon("[identity]\nbuiltin = false\nextra_words = [\"Nightjar\"]\n");
        assert!(off.kind_of("claude").is_none() && off.kind_of("nightjar").is_some());
        assert!(off.kind_of("frontier").is_some(), "tier words stay");
        let own = dir.path().join("lexicon.toml");
        std::fs::write(
            &own,
            "version = \"site-1\"\n[[provider]]\nname = \"Acme\"\nfamily = [\"Roadrunner\"]\n",
        )
        .expect("data");
        let replaced = lexicon(&format!("[identity]\nlexicon_file = {:?}\n", own));
        assert_eq!((replaced.data_version(), replaced.kind_of("claude")), ("site-1", None));
        assert!(replaced.kind_of("roadrunner").is_some());
        std::fs::write(&own, "version = \"\"\n").expect("data");
        let err =
            config(dir.path(), &format!("[identity]\nlexicon_file = {:?}\n", own)).err().expect("refused");
        assert!(err.contains("identity.lexicon_file"), "{err}");
    }

    #[test]
    fn processes_starting_together_on_a_fresh_state_directory_share_one_card_signing_key() {
        let dir = tempfile::tempdir().expect("tmp");
        let mut config = crate::config::load(None).expect("default config");
        config.set_state_dir(dir.path().to_owned());
        let kids = crate::runtime::state::started_together(8, || {
            super::load_card_signer(&config).expect("key").kid().to_owned()
        });
        let on_disk = super::load_card_signer(&config).expect("key").kid().to_owned();
        assert!(kids.iter().all(|k| *k == on_disk), "{kids:?} vs {on_disk}");
        let public = std::fs::read_to_string(dir.path().join(super::CARD_PUB_FILE)).expect("public half");
        let key = super::load_card_signer(&config).expect("key");
        assert_eq!(public, key.public_pem().expect("pem"), "the public half is the key's");
    }
}
