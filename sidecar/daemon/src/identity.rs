//! The daemon's identity state: one lexicon of every configured agent (`[identity]` agents and
//! A2A upstreams) and one anonymizer per trajectory, shared by every transport so that an alias
//! is the same on every path of a trajectory.

use crate::config::Config;
use blindfold_engine::identity::{AliasMap, Anonymizer, Lexicon};
use dashmap::DashMap;
use std::sync::Arc;

/// Lexicon and per-trajectory anonymizers.
pub struct Identities {
    lexicon: Lexicon,
    agents: Vec<String>,
    by_trajectory: DashMap<String, Arc<Anonymizer>>,
}

impl Identities {
    /// The lexicon of `config`'s agents and extra words; no trajectory yet.
    pub fn from_config(config: &Config) -> Self {
        let mut builder = Lexicon::builder();
        let mut agents = Vec::new();
        for (id, identity) in &config.identity.agents {
            builder.agent(id, identity);
            agents.push(id.clone());
        }
        for upstream in &config.transports.a2a_upstreams {
            builder.agent(&upstream.id, &upstream.identity);
            agents.push(upstream.id.clone());
        }
        for word in &config.identity.extra_words {
            builder.extra(word);
        }
        Self { lexicon: builder.build(), agents, by_trajectory: DashMap::new() }
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

    /// Forgets a trajectory's aliases (it ended).
    pub fn end(&self, trajectory: &str) {
        self.by_trajectory.remove(trajectory);
    }

    /// The identity tokens of the lexicon (for leak scans).
    pub fn tokens(&self) -> Vec<String> {
        self.lexicon.identity_tokens().map(str::to_owned).collect()
    }
}
