//! Neutral per-trajectory aliases (`agent-a`, `agent-b`, …) in a seeded random order (SPEC §4).

use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The neutral alias at position `index`: `agent-a` … `agent-z`, then `agent-aa`, `agent-ab`, ….
pub fn alias_at(index: usize) -> String {
    let mut letters = Vec::new();
    let mut n = index;
    loop {
        letters.push(b'a' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    letters.reverse();
    format!("agent-{}", String::from_utf8_lossy(&letters))
}

/// A two-way map between agent ids and neutral aliases for one trajectory.
///
/// The order is a seeded shuffle of the sorted agent ids, so the same seed and the same agents
/// always give the same aliases, whatever order the agents were listed in. The seed is kept so the
/// trace can record it. The map lives only inside Blindfold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AliasMap {
    seed: u64,
    by_agent: BTreeMap<String, String>,
    by_alias: BTreeMap<String, String>,
}

impl AliasMap {
    /// Aliases for `agents` (duplicates ignored), shuffled with a `StdRng` seeded from `seed`.
    pub fn new<I, S>(seed: u64, agents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut ids: Vec<String> = agents.into_iter().map(Into::into).collect();
        ids.sort();
        ids.dedup();
        ids.shuffle(&mut StdRng::seed_from_u64(seed));
        let mut map = Self { seed, by_agent: BTreeMap::new(), by_alias: BTreeMap::new() };
        for id in ids {
            map.push(id);
        }
        map
    }

    /// The seed the order was drawn from (record it in the trace).
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The alias of `agent`, if it has one.
    pub fn alias_of(&self, agent: &str) -> Option<&str> {
        self.by_agent.get(agent).map(String::as_str)
    }

    /// The agent behind `alias` (case-insensitive), for routing on the way out.
    pub fn agent_of(&self, alias: &str) -> Option<&str> {
        self.by_alias.get(&alias.to_ascii_lowercase()).map(String::as_str)
    }

    /// The alias of `agent`, giving it the next free alias if it arrived after the shuffle.
    pub fn ensure(&mut self, agent: &str) -> &str {
        if !self.by_agent.contains_key(agent) {
            self.push(agent.to_owned());
        }
        self.by_agent.get(agent).map(String::as_str).unwrap_or_default()
    }

    /// The map a [`AliasRecord`] states (a trajectory kept across a restart): the same seed and
    /// the same agent → alias pairs; an alias named twice keeps its first agent.
    pub fn from_record(record: &AliasRecord) -> Self {
        let mut map = Self { seed: record.seed, by_agent: BTreeMap::new(), by_alias: BTreeMap::new() };
        for (agent, alias) in &record.aliases {
            let alias = alias.to_ascii_lowercase();
            if map.by_alias.contains_key(&alias) {
                continue;
            }
            map.by_alias.insert(alias.clone(), agent.clone());
            map.by_agent.insert(agent.clone(), alias);
        }
        map
    }

    /// What the trace records: the seed and the agent → alias map (kept inside Blindfold).
    pub fn record(&self) -> AliasRecord {
        AliasRecord { seed: self.seed, aliases: self.by_agent.clone() }
    }

    /// `(agent, alias)` pairs in alias order.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str)> {
        self.by_alias.iter().map(|(alias, agent)| (agent.as_str(), alias.as_str()))
    }

    /// Number of agents mapped.
    pub fn len(&self) -> usize {
        self.by_agent.len()
    }

    /// True when no agent is mapped.
    pub fn is_empty(&self) -> bool {
        self.by_agent.is_empty()
    }

    fn push(&mut self, agent: String) {
        let mut i = self.by_agent.len();
        while self.by_alias.contains_key(&alias_at(i)) {
            i += 1;
        }
        let alias = alias_at(i);
        self.by_alias.insert(alias.clone(), agent.clone());
        self.by_agent.insert(agent, alias);
    }
}

/// The trace's record of a trajectory's aliases.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AliasRecord {
    /// The shuffle seed.
    pub seed: u64,
    /// Agent id → alias.
    pub aliases: BTreeMap<String, String>,
}

/// Aliases used before any trajectory exists (agent-card discovery). The first trajectory
/// inherits them, so the names the coordinator saw on the cards stay valid for its first task;
/// every later trajectory gets a fresh shuffle.
#[derive(Debug, Clone)]
pub struct DiscoverySession {
    aliases: AliasMap,
    inherited: bool,
}

impl DiscoverySession {
    /// A discovery session over `agents` shuffled with `seed`.
    pub fn new<I, S>(seed: u64, agents: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self { aliases: AliasMap::new(seed, agents), inherited: false }
    }

    /// The aliases cards are shown with during discovery.
    pub fn aliases(&self) -> &AliasMap {
        &self.aliases
    }

    /// Mutable access (an agent discovered late gets the next free alias).
    pub fn aliases_mut(&mut self) -> &mut AliasMap {
        &mut self.aliases
    }

    /// True once a trajectory has taken over the discovery aliases.
    pub fn is_inherited(&self) -> bool {
        self.inherited
    }

    /// The aliases for a new trajectory: the discovery map itself for the first one, a fresh
    /// shuffle of the same agents drawn from `seed` for every later one.
    pub fn open_trajectory(&mut self, seed: u64) -> AliasMap {
        if !self.inherited {
            self.inherited = true;
            return self.aliases.clone();
        }
        AliasMap::new(seed, self.aliases.by_agent.keys().cloned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recorded_map_comes_back_as_it_was_and_grows_after_it() {
        let mut drawn = AliasMap::new(9, ["planner", "critic", "scout"]);
        drawn.ensure("late");
        let mut back = AliasMap::from_record(&drawn.record());
        assert_eq!(back, drawn);
        assert_eq!(back.ensure("later"), drawn.clone().ensure("later"));
    }

    #[test]
    fn alias_names_continue_past_z() {
        assert_eq!(alias_at(0), "agent-a");
        assert_eq!(alias_at(25), "agent-z");
        assert_eq!(alias_at(26), "agent-aa");
        assert_eq!(alias_at(27), "agent-ab");
        assert_eq!(alias_at(26 + 26 * 26), "agent-aaa");
    }

    #[test]
    fn same_seed_same_aliases_whatever_the_input_order() {
        let a = AliasMap::new(7, ["x", "y", "z", "w"]);
        let b = AliasMap::new(7, ["w", "z", "y", "x", "x"]);
        assert_eq!(a, b);
        assert_eq!(a.len(), 4);
        for (agent, alias) in a.entries() {
            assert_eq!(a.agent_of(alias), Some(agent));
            assert_eq!(a.alias_of(agent), Some(alias));
        }
    }

    #[test]
    fn seeds_change_the_order() {
        let agents: Vec<String> = (0..8).map(|i| format!("agent{i}")).collect();
        let first = AliasMap::new(1, agents.clone());
        let differs = (2..20).any(|seed| AliasMap::new(seed, agents.clone()) != first);
        assert!(differs, "some seed must give a different order");
    }

    #[test]
    fn late_agents_get_the_next_free_alias() {
        let mut m = AliasMap::new(3, ["p", "q"]);
        assert_eq!(m.ensure("r"), "agent-c");
        assert_eq!(m.ensure("r"), "agent-c");
        assert_eq!(m.agent_of("AGENT-C"), Some("r"));
        let rec = serde_json::to_value(m.record()).expect("record");
        assert_eq!(rec["seed"], 3);
        assert_eq!(rec["aliases"]["r"], "agent-c");
    }

    #[test]
    fn first_trajectory_inherits_discovery_aliases() {
        let mut d = DiscoverySession::new(11, ["p", "q", "r"]);
        let seen = d.aliases().clone();
        assert_eq!(d.open_trajectory(99), seen);
        assert!(d.is_inherited());
        let next = d.open_trajectory(12);
        assert_eq!(next.seed(), 12);
        assert_eq!(next.len(), 3);
    }
}
