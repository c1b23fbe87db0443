//! Who a verification of a proposal must be independent of: its proposer and every agent whose
//! answers the proposal derives from (SPEC §5), as the evidence graph recorded them. Blindfold
//! reads it to pick a verifier of another true family when it asks one itself.

use crate::engine::Trajectory;
use std::collections::{BTreeMap, HashSet};

/// The agents behind one proposal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lineage {
    /// The proposal's tool.
    pub tool: String,
    /// The agent that proposed it.
    pub proposer: String,
    /// Every agent (configured id) whose answer the proposal's evidence derives from, or that
    /// the proposer was handed, with its true family as recorded (empty when unknown); the
    /// proposer included.
    pub agents: BTreeMap<String, String>,
}

impl Trajectory {
    /// True when proposal `id` is recorded in this trajectory.
    pub fn has_proposal(&self, id: &str) -> bool {
        self.state.proposal(id).is_some()
    }

    /// True while a verdict handle issued for proposal `id` waits for its verifier's answer on
    /// its delegation's channel (a verification request is out for it and not yet answered).
    pub fn awaits_verdict(&self, id: &str) -> bool {
        let st = &self.state;
        st.handles
            .iter()
            .filter(|h| h.proposal == id)
            .any(|h| !st.answered_channels.contains(&(h.to.clone(), h.call_id.clone())))
    }

    /// The channel of the verification request last relayed to `agent` (`None` without one,
    /// or when it was relayed without a channel id).
    pub fn request_channel(&self, agent: &str) -> Option<String> {
        self.state.request_to(agent).and_then(|r| r.call_id.clone())
    }

    /// The [`Lineage`] of proposal `id`; `None` when no such proposal is recorded.
    pub fn lineage(&self, id: &str) -> Option<Lineage> {
        let st = &self.state;
        let p = st.proposal(id)?;
        let mut stack = vec![p.evidence.clone()];
        stack.extend(st.agent_relayed.get(&p.proposer).into_iter().flatten().cloned());
        let mut seen = HashSet::new();
        let mut agents = BTreeMap::new();
        while let Some(cur) = stack.pop() {
            if !seen.insert(cur.clone()) {
                continue;
            }
            let Some(a) = st.graph.get(&cur) else { continue };
            if let Some(family) = &a.producer_family {
                agents.insert(a.producer.clone(), family.clone());
            }
            stack.extend(a.provenance.derived_from.iter().cloned());
        }
        agents.entry(p.proposer.clone()).or_default();
        Some(Lineage { tool: p.tool.clone(), proposer: p.proposer.clone(), agents })
    }
}

#[cfg(test)]
mod tests {
    use crate::testkit::{Kit, delegate, response};
    use blindfold_schemas::Intent;
    use serde_json::json;

    #[test]
    fn a_proposal_rests_on_its_proposer_and_on_the_answers_it_was_handed() {
        let mut k = Kit::with_agents(&[("a1", "m"), ("a2", "q"), ("a3", "r")]);
        k.step(delegate("a2", Intent::Scope, "Find where the notes go.", None));
        k.step(response("a2", "The notes go to /w/notes.md, written fresh.", &[], &[]));
        k.step(delegate(
            "a1",
            Intent::Scope,
            "The notes go to /w/notes.md, written fresh. Write them.",
            None,
        ));
        let args = json!({"path": "/w/notes.md", "content": "x"});
        k.step(response("a1", "I will write it.", &[("p1", "write_file", args)], &[]));
        let l = k.traj.lineage("p1").expect("recorded");
        assert_eq!(l.proposer, "a1");
        assert_eq!(l.tool, "write_file");
        let agents: Vec<(&str, &str)> = l.agents.iter().map(|(a, f)| (a.as_str(), f.as_str())).collect();
        assert_eq!(agents, [("a1", "m"), ("a2", "q")], "a3 answered nothing the proposal rests on");
        assert!(k.traj.has_proposal("p1") && !k.traj.has_proposal("p2"));
        assert!(!k.traj.awaits_verdict("p1"), "nobody was asked");
        let asked = k.step(delegate("a3", Intent::Verify, "Check `p1` before it runs.", Some("p1")));
        assert!(asked.verification.is_some(), "a handle was issued");
        assert!(k.traj.awaits_verdict("p1"), "asked, not answered");
        k.step(response("a2", "Unrelated note.", &[], &[]));
        assert!(k.traj.awaits_verdict("p1"), "another agent's answer is not the verdict");
        k.step(response("a3", "Still looking.", &[], &[]));
        assert!(!k.traj.awaits_verdict("p1"), "its verifier answered on its channel");
        assert!(k.traj.lineage("p2").is_none());
    }
}
