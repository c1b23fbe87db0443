//! What the coordinator holds: every answer, and every tool result or memory record not bound to
//! a sub-agent's own call, in the order observed (append only).
//!
//! An answer whose author observed nothing itself derives from everything the coordinator held
//! when it delegated (`evidence::relay::response_parents`). Copying that prefix into each answer
//! made a conversation's lineage quadratic: every answer listed every earlier answer. Instead
//! each entry remembers how much of the context its own ancestry already contains (its *cover*),
//! and a new answer derives from the fewest entries whose ancestry, with themselves, contains the
//! prefix. Derivation is only ever read transitively (revocation, sources, roots), so what
//! derives from what is unchanged; only the edges that repeat a longer path are left out.

/// The coordinator's append-only context with, per entry, the prefix its ancestry contains.
#[derive(Debug, Clone, Default)]
pub struct CoordinatorContext {
    ids: Vec<String>,
    /// `covers[i]`: a length `n <= i` such that the ancestry of `ids[i]` contains `ids[..n]`
    /// (0 when nothing is known).
    covers: Vec<usize>,
}

impl CoordinatorContext {
    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether it holds nothing.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Whether `id` is one of its entries.
    pub fn contains(&self, id: &str) -> bool {
        self.ids.iter().any(|held| held == id)
    }

    /// Appends `id`, whose ancestry is not known to contain any of the context.
    pub fn push(&mut self, id: String) {
        self.push_covering(id, 0);
    }

    /// Appends `id`, whose ancestry contains the first `cover` entries (clamped to the entries
    /// before it).
    pub fn push_covering(&mut self, id: String, cover: usize) {
        self.covers.push(cover.min(self.ids.len()));
        self.ids.push(id);
    }

    /// The fewest entries, newest first, whose ancestry together with themselves contains the
    /// first `held` entries (all of them, for `held` past the end).
    pub fn prefix_parents(&self, held: usize) -> Vec<&String> {
        let mut out = Vec::new();
        let mut floor = 0;
        let mut next = held.min(self.ids.len());
        while next > floor {
            next -= 1;
            out.push(&self.ids[next]);
            floor = floor.max(self.covers[next]);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::CoordinatorContext;

    fn context(entries: &[(&str, usize)]) -> CoordinatorContext {
        let mut c = CoordinatorContext::default();
        for (id, cover) in entries {
            c.push_covering((*id).to_owned(), *cover);
        }
        c
    }

    fn parents(c: &CoordinatorContext, held: usize) -> Vec<String> {
        c.prefix_parents(held).into_iter().cloned().collect()
    }

    #[test]
    fn entries_of_unknown_ancestry_are_each_a_parent() {
        let c = context(&[("r1", 0), ("r2", 0), ("r3", 0)]);
        assert_eq!(parents(&c, 3), ["r3", "r2", "r1"]);
        assert_eq!(parents(&c, 2), ["r2", "r1"]);
        assert!(parents(&c, 0).is_empty());
    }

    #[test]
    fn an_entry_covering_the_prefix_before_it_stands_for_that_prefix() {
        // a1 answered from r1 and r2; a2 from everything up to a1; r3 came in after a2.
        let c = context(&[("r1", 0), ("r2", 0), ("a1", 2), ("a2", 3), ("r3", 0)]);
        assert_eq!(parents(&c, 5), ["r3", "a2"]);
        assert_eq!(parents(&c, 4), ["a2"]);
        assert_eq!(parents(&c, 3), ["a1"]);
    }

    #[test]
    fn entries_between_a_cover_and_its_owner_stay_parents() {
        // a1 was delegated after r1, answered after r2 and r3 came in: it covers r1 only.
        let c = context(&[("r1", 0), ("r2", 0), ("r3", 0), ("a1", 1)]);
        assert_eq!(parents(&c, 4), ["a1", "r3", "r2"]);
    }

    #[test]
    fn a_cover_is_never_past_its_own_entry_and_a_prefix_never_past_the_end() {
        let c = context(&[("r1", 0), ("a1", 9)]);
        assert_eq!(parents(&c, 2), ["a1"], "a1's cover is clamped to r1");
        assert_eq!(parents(&c, 7), ["a1"]);
        let c = context(&[("a1", 5)]);
        assert_eq!(parents(&c, 1), ["a1"]);
    }

    #[test]
    fn a_long_conversation_derives_each_answer_from_one_entry() {
        let mut c = CoordinatorContext::default();
        c.push("task-result".to_owned());
        for turn in 0..1_000 {
            let held = c.len();
            let derived = c.prefix_parents(held).len();
            assert!(derived == 1, "turn {turn} derives from {derived} entries");
            c.push_covering(format!("answer-{turn}"), held);
        }
    }
}
