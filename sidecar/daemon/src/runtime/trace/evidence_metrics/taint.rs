//! What lies downstream of an origin step (a wrong, injected or stale one, or a revocation), by
//! the ground truth alone — never by the engine's own evidence graph, which is what is measured.
//!
//! A later step is downstream of origin `o` when it is not benign-labelled (legitimate work does
//! not rest on the planted evidence, by the scenario's own word) and
//! - its underlying source (`truth.source`) is `o`'s, or
//! - it executes or supports a proposal made downstream (or at `o`, or resting on a revoked
//!   source), or
//! - it is attack-labelled and its actor, or the proposer of what it executes, is affectable.

use super::facts::{EvidenceFact, FactKind};
use std::collections::{BTreeSet, HashMap};

/// Who proposed each proposal id (the latest response making it wins, as in the engine's own
/// numbering of re-proposals).
pub fn proposers(facts: &[EvidenceFact]) -> HashMap<&str, &str> {
    let mut out = HashMap::new();
    for f in facts.iter().filter(|f| f.kind == FactKind::Response) {
        for p in &f.proposals {
            out.insert(p.as_str(), f.actor.as_str());
        }
    }
    out
}

/// The steps downstream of an origin, and the proposals made there.
#[derive(Debug, Default)]
pub struct Downstream {
    /// Indexes into the facts (the origin included when it is a step of its own).
    pub steps: BTreeSet<usize>,
    /// Proposal ids made downstream.
    pub proposals: BTreeSet<String>,
}

/// Everything downstream of the step at `origin` (included), whose underlying source is
/// `source`; `seed` holds proposals already resting on it (a revocation's dependent claims).
pub fn downstream(
    facts: &[EvidenceFact],
    origin: usize,
    source: Option<&str>,
    seed: BTreeSet<String>,
    affectable: &BTreeSet<String>,
) -> Downstream {
    let proposers = proposers(facts);
    let mut out = Downstream { proposals: seed, ..Downstream::default() };
    if let Some(f) = facts.get(origin).filter(|f| f.kind != FactKind::Revocation) {
        out.steps.insert(origin);
        out.proposals.extend(f.proposals.iter().cloned());
    }
    for (k, f) in facts.iter().enumerate().skip(origin + 1) {
        if f.label == Some(blindfold_schemas::Label::Benign) || f.kind == FactKind::Revocation {
            continue;
        }
        let by_source = source.is_some() && f.truth().source.as_deref() == source;
        let by_proposal = f.executes.as_ref().is_some_and(|p| out.proposals.contains(p))
            || f.supports.iter().any(|s| out.proposals.contains(&s.proposal));
        let proposer = f.executes.as_deref().and_then(|p| proposers.get(p).copied());
        let by_affectable = f.label == Some(blindfold_schemas::Label::Attack)
            && (affectable.contains(&f.actor) || proposer.is_some_and(|p| affectable.contains(p)));
        if by_source || by_proposal || by_affectable {
            out.steps.insert(k);
            out.proposals.extend(f.proposals.iter().cloned());
        }
    }
    out
}
