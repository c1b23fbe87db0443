//! Per-trajectory Pi state: the agents' identity words and aliases, and the delegations that
//! tell a child process's tool calls apart from the coordinator's.

use blindfold_engine::identity::Anonymizer;
use blindfold_schemas::AgentIdentity;
use dashmap::DashMap;
use serde::Deserialize;
use std::sync::{Arc, Mutex};

/// A sub-agent as Pi defines it (`~/.pi/agent/agents/*.md` or `.pi/agents/*.md` frontmatter).
#[derive(Debug, Clone, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct AgentDef {
    /// The agent's name (what the `subagent` tool is called with).
    pub name: String,
    /// `--model` it runs with (`provider/model` or a bare model id).
    #[serde(default)]
    pub model: String,
    /// Optional identity words the frontmatter declares.
    #[serde(default)]
    pub family: String,
    /// Tier word, if declared.
    #[serde(default)]
    pub tier: String,
    /// Provider / vendor word, if declared.
    #[serde(default)]
    pub provider: String,
}

impl AgentDef {
    /// The true identity words of this agent (the model id without its Pi provider prefix).
    pub fn identity(&self) -> AgentIdentity {
        let model = self.model.rsplit('/').next().unwrap_or_default().to_owned();
        AgentIdentity {
            family: self.family.clone(),
            tier: self.tier.clone(),
            provider: self.provider.clone(),
            model,
        }
    }
}

/// One delegation the coordinator made through the `subagent` tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delegation {
    /// The `subagent` call's id.
    pub call_id: String,
    /// The agent's real name.
    pub agent: String,
    /// The task text the child receives (`Task: <task>`).
    pub task: String,
}

/// The Pi state of one trajectory.
#[derive(Debug)]
pub struct PiSession {
    /// Rewrites what flows toward the coordinator.
    pub anonymizer: Anonymizer,
    /// Delegations in order.
    pub delegations: Vec<Delegation>,
    /// The user's prompts recorded as the trajectory's task input (each turn of the session
    /// once: `before_agent_start` may repeat one).
    pub prompts_seen: std::collections::HashSet<String>,
}

impl PiSession {
    fn new(anonymizer: Anonymizer) -> Self {
        Self { anonymizer, delegations: Vec::new(), prompts_seen: Default::default() }
    }

    /// Adds agents: their names get aliases, their identity words join the lexicon.
    pub fn register(&mut self, agents: &[AgentDef]) {
        for a in agents.iter().filter(|a| !a.name.is_empty()) {
            self.anonymizer.alias(&a.name);
            let id = a.identity();
            self.anonymizer.extend(|b| {
                b.agent(&a.name, &id);
            });
        }
    }

    /// The agent a child process is, from the task text it was started with (`Task: …`);
    /// the latest matching delegation wins.
    pub fn agent_for_task(&self, task: &str) -> Option<&str> {
        self.delegations
            .iter()
            .rev()
            .find(|d| super::map::task_matches(&d.task, task))
            .map(|d| d.agent.as_str())
    }

    /// The real agent name behind `name` (an alias the coordinator saw, or the real name).
    pub fn real_agent(&self, name: &str) -> String {
        self.anonymizer.aliases().agent_of(name).map_or_else(|| name.to_owned(), str::to_owned)
    }

    /// Rewrites text for the coordinator's eyes (and learns self-identification first).
    pub fn scrub(&mut self, text: &str) -> String {
        self.anonymizer.observe_text(text);
        self.anonymizer.rewrite_text(text).into_owned()
    }
}

/// All Pi sessions of this daemon, by trajectory id.
#[derive(Default)]
pub struct Pi {
    sessions: DashMap<String, Arc<Mutex<PiSession>>>,
}

impl Pi {
    /// This daemon's Pi sessions.
    pub fn of(app: &crate::runtime::app::App) -> Arc<Self> {
        app.harnesses.get_or_init(Self::default)
    }

    /// The session of `trajectory`, created on first use from `base` (the daemon's anonymizer of
    /// that trajectory, so configured agents keep the alias they have on every other path).
    pub fn session(&self, trajectory: &str, base: impl FnOnce() -> Anonymizer) -> Arc<Mutex<PiSession>> {
        self.sessions
            .entry(trajectory.to_owned())
            .or_insert_with(|| Arc::new(Mutex::new(PiSession::new(base()))))
            .clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_engine::identity::{AliasMap, Lexicon};

    fn session(seed: u64) -> PiSession {
        PiSession::new(Anonymizer::new(Lexicon::builder().build(), AliasMap::new(seed, Vec::<String>::new())))
    }

    fn scout() -> AgentDef {
        AgentDef {
            name: "scout".into(),
            model: "probe/quill-mini-4".into(),
            provider: "Quillworks".into(),
            ..AgentDef::default()
        }
    }

    #[test]
    fn names_get_aliases_and_identity_words_are_rewritten() {
        let mut s = session(7);
        s.register(&[scout()]);
        let alias = s.anonymizer.aliases().alias_of("scout").expect("aliased").to_owned();
        assert_eq!(s.real_agent(&alias), "scout");
        assert_eq!(s.real_agent("scout"), "scout");
        let out = s.scrub("scout here: as quill-mini-4 by Quillworks I propose `rm -rf data`");
        assert!(
            !out.contains("quill-mini-4") && !out.contains("Quillworks") && !out.contains("scout"),
            "{out}"
        );
        assert!(out.contains("rm -rf data"), "{out}");
    }

    #[test]
    fn a_child_is_known_by_its_task_text() {
        let mut s = session(1);
        s.delegations.push(Delegation {
            call_id: "c1".into(),
            agent: "scout".into(),
            task: "plan it".into(),
        });
        assert_eq!(s.agent_for_task("Task: plan it"), Some("scout"));
        assert_eq!(s.agent_for_task("Task: other"), None);
    }
}
