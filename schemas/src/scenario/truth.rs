//! A scenario's `truth` block (SPEC §11): scoring ground truth for the evidence metrics, stripped
//! like labels before the engine sees anything. Where the engine cannot know what a claim really
//! is — planted wrong evidence, injected content, the source a copy came from, tenants, stale
//! evidence, the agents that could be affected — the scenario says so here, and the replay scores
//! from it (`docs/metrics-evidence.md`).
//!
//! Unknown fields are ignored rather than refused: the block is for scoring only, and a scenario
//! written for another implementation's documented additions still replays.

use crate::event::Relation;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Scoring ground truth of one scenario. Step indices are 0-based positions in `steps`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Truth {
    /// Steps whose claims are false (planted wrong evidence, a wrong guess).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub wrong: Vec<usize>,
    /// Steps carrying injected instructions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub injected: Vec<usize>,
    /// Step index (as a string) → the id of the underlying source its content comes from: steps
    /// sharing an id are copies of (or derive from) one source, whoever produced them. `none`
    /// (no source at all) and `unobserved:<ref>` (a source named but never observed) link a step
    /// to no other.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub source: BTreeMap<String, String>,
    /// Agent id → its tenant (a read of a store owned by another tenant is unauthorized).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tenant: BTreeMap<String, String>,
    /// Evidence steps that no longer apply (an old version, superseded content).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stale: Vec<usize>,
    /// Agents downstream of a wrong or injected step (the denominators of the propagation rates).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub affectable: Vec<String>,
    /// Addition: response step index (as a string) → claim (proposal) id → the relation that
    /// response really bears to the claim (support accuracy, conflict detection).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub support: BTreeMap<String, BTreeMap<String, Relation>>,
}

impl Truth {
    /// The underlying source step `index` shares with the steps naming the same one: `None` when
    /// the truth names none, or names `none` or an `unobserved:` source (nothing to share).
    pub fn source_of(&self, index: usize) -> Option<&str> {
        self.source
            .get(&index.to_string())
            .map(String::as_str)
            .filter(|s| *s != "none" && !s.starts_with("unobserved:"))
    }

    /// Every step index the block names, with the JSON path naming it (for range checks).
    pub(crate) fn step_refs(&self) -> Vec<(String, String)> {
        let lists = [("wrong", &self.wrong), ("injected", &self.injected), ("stale", &self.stale)];
        let mut out: Vec<(String, String)> = lists
            .iter()
            .flat_map(|(name, list)| {
                list.iter().enumerate().map(move |(i, s)| (format!("truth.{name}[{i}]"), s.to_string()))
            })
            .collect();
        out.extend(self.source.keys().map(|k| (format!("truth.source.{k}"), k.clone())));
        out.extend(self.support.keys().map(|k| (format!("truth.support.{k}"), k.clone())));
        out
    }
}
