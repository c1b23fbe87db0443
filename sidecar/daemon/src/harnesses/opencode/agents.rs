//! The project's sub-agents as Blindfold shows them to the coordinator: neutral aliases in a
//! seeded random order, descriptions without identity words, and the map back to the real agent.

use blindfold_engine::identity::{AliasMap, Anonymizer, Lexicon};
use blindfold_schemas::AgentIdentity;
use std::sync::RwLock;

/// A sub-agent as the harness defines it (OpenCode `agent.<name>` config).
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AgentDef {
    /// The agent's OpenCode name.
    pub name: String,
    /// Its description (displayed identity may hide here).
    #[serde(default)]
    pub description: String,
    /// `provider/model` from the harness config, if set.
    #[serde(default)]
    pub model: String,
    /// `primary`, `subagent` or `all`.
    #[serde(default)]
    pub mode: String,
}

/// What the harness should show instead.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Shown {
    /// The original name.
    pub name: String,
    /// The name to show (an alias, or the original name for primary agents).
    pub alias: String,
    /// The description without identity words.
    pub description: String,
}

/// The sub-agents of one OpenCode instance and the anonymizer built from them.
#[derive(Debug)]
pub struct AgentBook {
    anon: RwLock<Anonymizer>,
    registered: std::sync::atomic::AtomicBool,
}

impl Default for AgentBook {
    fn default() -> Self {
        Self {
            anon: RwLock::new(Anonymizer::new(Lexicon::default(), AliasMap::new(0, Vec::<String>::new()))),
            registered: std::sync::atomic::AtomicBool::new(false),
        }
    }
}

/// The true identity of `def`: the operator's `[identity]` entry, else the model id of the
/// harness config (its provider part is usually a local provider key, so it is not a lexicon word).
fn true_identity(def: &AgentDef, configured: &[(String, AgentIdentity)]) -> AgentIdentity {
    match configured.iter().find(|(id, _)| *id == def.name) {
        Some((_, id)) => id.clone(),
        None => AgentIdentity {
            model: def.model.rsplit_once('/').map_or(def.model.as_str(), |(_, m)| m).to_owned(),
            ..AgentIdentity::default()
        },
    }
}

impl AgentBook {
    /// Registers the harness's agents (replacing earlier ones) on top of `base`, the anonymizer of
    /// the discovery trajectory (so configured agents keep the aliases every other path of that
    /// trajectory uses). Every non-primary agent gets an alias; harness-declared models, agent
    /// names and self-identification in the descriptions join the lexicon. Returns what to show.
    pub fn register(
        &self,
        defs: &[AgentDef],
        configured: &[(String, AgentIdentity)],
        base: &Anonymizer,
    ) -> Vec<Shown> {
        let subagents: Vec<&AgentDef> = defs.iter().filter(|d| d.mode != "primary").collect();
        let mut lexicon = base.lexicon().to_builder();
        for d in &subagents {
            lexicon.agent(&d.name, &true_identity(d, configured));
        }
        let mut aliases = base.aliases().clone();
        for d in &subagents {
            aliases.ensure(&d.name);
        }
        let mut anon = Anonymizer::new(lexicon.build(), aliases);
        for d in &subagents {
            anon.observe_text(&d.description);
        }
        let shown = defs
            .iter()
            .map(|d| Shown {
                name: d.name.clone(),
                alias: if d.mode == "primary" {
                    d.name.clone()
                } else {
                    anon.aliases().alias_of(&d.name).unwrap_or(&d.name).to_owned()
                },
                description: anon.rewrite_surface(&d.description).into_owned(),
            })
            .collect();
        match self.anon.write() {
            Ok(mut slot) => *slot = anon,
            Err(poisoned) => *poisoned.into_inner() = anon,
        }
        self.registered.store(true, std::sync::atomic::Ordering::SeqCst);
        shown
    }

    /// The anonymizer the agents were registered into (aliases and lexicon), once they were.
    pub fn anonymizer(&self) -> Option<Anonymizer> {
        if !self.registered.load(std::sync::atomic::Ordering::SeqCst) {
            return None;
        }
        self.read(Anonymizer::clone)
    }

    /// The real agent behind `shown` (an alias, or a name that was never aliased).
    pub fn real_name(&self, shown: &str) -> String {
        self.read(|a| a.aliases().agent_of(shown).map(str::to_owned))
            .flatten()
            .unwrap_or_else(|| shown.to_owned())
    }

    /// Free text written by an agent, rewritten (lexicon words, self-identification, names).
    pub fn scrub_text(&self, text: &str) -> String {
        self.read(|a| a.rewrite_text(text).into_owned()).unwrap_or_else(|| text.to_owned())
    }

    /// Learns self-identification from a sub-agent's answer, then rewrites it.
    pub fn observe_and_scrub(&self, text: &str) -> String {
        if let Ok(mut a) = self.anon.write() {
            a.observe_text(text);
        }
        self.scrub_text(text)
    }

    fn read<T>(&self, f: impl FnOnce(&Anonymizer) -> T) -> Option<T> {
        self.anon.read().ok().map(|a| f(&a))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, description: &str, model: &str, mode: &str) -> AgentDef {
        AgentDef {
            name: name.into(),
            description: description.into(),
            model: model.into(),
            mode: mode.into(),
        }
    }

    #[test]
    fn subagents_get_aliases_and_clean_descriptions() {
        let book = AgentBook::default();
        let configured = vec![(
            "planner".to_owned(),
            AgentIdentity {
                model: "gpt-5".into(),
                family: "gpt".into(),
                tier: "frontier".into(),
                provider: "OpenAI".into(),
            },
        )];
        let mut base = Lexicon::builder();
        base.agent("planner", &configured[0].1);
        let base = Anonymizer::new(base.build(), AliasMap::new(7, ["planner"]));
        let shown = book.register(
            &[
                def(
                    "planner",
                    "Frontier-tier gpt-5 planner from OpenAI that can propose cleanups",
                    "local/gpt-5",
                    "subagent",
                ),
                def("checker", "Reviews commands", "local/haiku-3", "subagent"),
                def("build", "the main agent", "", "primary"),
            ],
            &configured,
            &base,
        );
        assert_eq!(shown[0].alias, base.aliases().alias_of("planner").expect("configured alias"));
        assert_eq!(shown[2].alias, "build");
        for s in &shown[..2] {
            assert!(s.alias.starts_with("agent-"), "{s:?}");
            let lower = s.description.to_lowercase();
            for word in ["gpt-5", "openai", "frontier", "haiku-3"] {
                assert!(!lower.contains(word), "{word} left in {lower:?}");
            }
        }
        assert!(shown[0].description.contains("propose cleanups"));
        assert_eq!(book.real_name(&shown[1].alias), "checker");
        assert_eq!(book.real_name("general"), "general");
        let scrubbed = book.scrub_text("As gpt-5, planner says: run it");
        assert!(!scrubbed.contains("gpt-5") && !scrubbed.contains("planner"), "{scrubbed}");
    }
}
