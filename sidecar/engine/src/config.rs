//! The engine's static configuration: registry, true identities, roles, restricted stores,
//! language patterns, windows and expiries. Constructible from a scenario's `agents[].true` and
//! `policy` alone ([`EngineConfig::from_policy`]) or from the daemon's config sections.

use crate::grants::GrantPolicy;
use crate::registry::Registry;
use crate::text::Patterns;
use blindfold_schemas::{AgentIdentity, Policy, Role, StoreAcl};
use std::collections::HashMap;

/// A per-tool argument rule (SPEC §7 P2): a denied pattern or a critical asset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArgRule {
    /// Tool it applies to; `*` for every tool.
    pub tool: String,
    /// Glob over a normalised target (`*` any run of characters, `?` one character).
    pub pattern: String,
    /// What a match does.
    pub action: RuleAction,
}

/// What an argument rule does when it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleAction {
    /// `deny{argument_denied}`: never allowed.
    Deny,
    /// A critical asset: a human decides (`review{undecided}`), whatever grants exist.
    Critical,
}

/// Static configuration of an engine (one per daemon, or one per replayed scenario).
#[derive(Clone)]
pub struct EngineConfig {
    /// Trusted tool registry (defaults + overrides, allowed hosts).
    pub registry: Registry,
    /// Grant time policy.
    pub grant_policy: GrantPolicy,
    /// Agents' TRUE identities by configured id (the true family decides independence).
    pub agents: HashMap<String, AgentIdentity>,
    /// Stage per agent; an agent without one may use every registry tool and no restricted store.
    pub roles: HashMap<String, Role>,
    /// Restricted stores.
    pub stores: HashMap<String, StoreAcl>,
    /// Per-tool argument rules.
    pub arg_rules: Vec<ArgRule>,
    /// Refusal, approval, negation and instruction-like language.
    pub patterns: Patterns,
    /// Window of the cross-event ledger, milliseconds.
    pub ledger_window_ms: u64,
    /// Most effectful actions per agent inside the ledger window (0 = no cap).
    pub ledger_max_actions: u32,
    /// How long an executed action's replay key is remembered, milliseconds (it expires).
    pub replay_expiry_ms: u64,
    /// Share of a memory record's words that must appear in the trajectory's evidence
    /// (0 = off, the default: word overlap is a weak proxy for support, so only the
    /// destinations a record introduces are checked unless an operator sets a threshold).
    pub memory_similarity: f32,
    /// Record fields redacted on memory reads (case-insensitive names).
    pub redact_fields: Vec<String>,
    /// Most events one trajectory may carry before everything is denied (`limit_exceeded`).
    pub max_events: u64,
    /// True when a judge quorum is configured (the daemon resolves `review{undecided}` with it).
    pub judge_enabled: bool,
    /// Operations that stay allowed under a revoked grant that covers them: reads the registry
    /// counts effectful that reconcile what already happened (seed 002).
    pub reconciliation: Vec<String>,
    /// The secret verdict handles are derived under (random per engine unless set: a replay
    /// fixes it so its runs repeat).
    pub handle_secret: [u8; 32],
    /// Paths, ports and sockets of Blindfold itself that no mediated agent may reach.
    pub protected: crate::protect::Protected,
}

impl Default for EngineConfig {
    fn default() -> Self {
        Self {
            registry: Registry::defaults(),
            grant_policy: GrantPolicy::default(),
            agents: HashMap::new(),
            roles: HashMap::new(),
            stores: HashMap::new(),
            arg_rules: Vec::new(),
            patterns: Patterns::defaults(),
            ledger_window_ms: 10 * 60 * 1000,
            ledger_max_actions: 0,
            replay_expiry_ms: 5 * 60 * 1000,
            memory_similarity: 0.0,
            redact_fields: ["password", "secret", "token", "api_key", "apikey", "ssn", "credit_card"]
                .into_iter()
                .map(str::to_owned)
                .collect(),
            max_events: 100_000,
            judge_enabled: false,
            reconciliation: Vec::new(),
            handle_secret: rand::random(),
            protected: crate::protect::Protected::default(),
        }
    }
}

impl EngineConfig {
    /// The configuration a scenario implies (SPEC §11): default registry with `policy.tools`
    /// overrides and `policy.allowed_hosts`, roles, restricted stores, and the agents' true
    /// identities. Everything else keeps its default.
    pub fn from_policy(policy: &Policy, agents: impl IntoIterator<Item = (String, AgentIdentity)>) -> Self {
        let mut registry = Registry::defaults();
        for (name, spec) in &policy.tools {
            registry.insert(name.clone(), spec.clone());
        }
        registry.set_allowed_hosts(policy.allowed_hosts.clone());
        Self {
            registry,
            agents: agents.into_iter().collect(),
            roles: policy.roles.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            stores: policy.stores.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            ..Self::default()
        }
    }

    /// The true family of `agent` (empty when unknown: an unknown agent is independent of
    /// nobody, see [`crate::evidence::independent`]).
    pub fn family(&self, agent: &str) -> &str {
        self.agents.get(agent).map_or("", |a| a.family.as_str())
    }
}
