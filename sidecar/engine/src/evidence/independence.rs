//! Independence (SPEC §5): two judgements are independent only if their agents differ in TRUE
//! family and, where both rest on sources, those sources differ in observed provenance ancestry.
//! Corroboration counts distinct groups, never agreeing agents.

use std::collections::BTreeSet;

/// What one judgement's independence rests on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Independence {
    /// The agent's true family; empty when Blindfold does not know it.
    pub family: String,
    /// Root source keys of what the judgement rests on (observed ancestry); empty for a
    /// reasoning-only answer.
    pub sources: BTreeSet<String>,
}

impl Independence {
    /// The group a corroboration counts under: its sources when it has any (three agents
    /// quoting one page are one source), else its family.
    pub fn group(&self) -> String {
        if self.sources.is_empty() {
            format!("family:{}", self.family)
        } else {
            format!("src:{}", self.sources.iter().cloned().collect::<Vec<_>>().join("+"))
        }
    }
}

/// True when `a` and `b` are independent: both families known and different, and, when both
/// rest on sources, no shared root source. An unknown family is independent of nobody.
pub fn independent(a: &Independence, b: &Independence) -> bool {
    if a.family.is_empty() || b.family.is_empty() || a.family.eq_ignore_ascii_case(&b.family) {
        return false;
    }
    if !a.sources.is_empty() && !b.sources.is_empty() && a.sources.intersection(&b.sources).next().is_some() {
        return false;
    }
    true
}
