//! The graph itself: artifacts by id, derivation edges, claim relations, pending decisions.

use super::store::{ArtifactStore, id_of};
use blindfold_schemas::{
    Channel, ClaimRelation, ClaimState, EvidenceArtifact, EvidenceScope, Lifecycle, Provenance, Relation,
    Transition,
};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Everything a revocation touched: derived artifacts, claims and pending decisions that now
/// need revalidation (`NEEDS_REVALIDATION`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Revalidation {
    /// Artifacts derived (transitively) from the revoked one.
    pub artifacts: Vec<String>,
    /// Claims or proposals one of those artifacts related to.
    pub claims: Vec<String>,
    /// The state each of `claims` was in before the revocation, in the same order.
    pub claims_before: Vec<ClaimState>,
    /// Pending decisions that depended on any of them.
    pub decisions: Vec<String>,
}

/// One trajectory's evidence graph.
#[derive(Debug, Clone, Default)]
pub struct EvidenceGraph {
    /// The artifacts, found by the number in their id (`ev-<n>`).
    artifacts: ArtifactStore,
    children: HashMap<String, Vec<String>>,
    /// claim id → (evidence id, relation, independence group)
    claims: HashMap<String, Vec<(String, Relation, String)>>,
    stale_claims: HashSet<String>,
    /// pending decision id → evidence ids it rests on
    pending: HashMap<String, Vec<String>>,
    stale_decisions: HashSet<String>,
}

/// What a new artifact is made of.
#[derive(Debug, Clone)]
pub struct NewArtifact {
    /// Producer (agent id, `user`, `tool:<name>`, `store:<name>`).
    pub producer: String,
    /// The producer's true family, for agents.
    pub producer_family: Option<String>,
    /// Channel.
    pub channel: Channel,
    /// Observed provenance (its `derived_from` become derivation edges).
    pub provenance: Provenance,
    /// Independence group.
    pub independence_group: String,
    /// Tenant / ACL.
    pub scope: EvidenceScope,
}

impl EvidenceGraph {
    /// Adds an artifact as `CANDIDATE`; returns its id.
    pub fn add(&mut self, new: NewArtifact) -> String {
        let id = id_of(self.artifacts.len() + 1);
        for parent in &new.provenance.derived_from {
            self.children.entry(parent.clone()).or_default().push(id.clone());
        }
        self.artifacts.push(EvidenceArtifact {
            evidence_id: id.clone(),
            producer: new.producer,
            producer_family: new.producer_family,
            channel: new.channel,
            provenance: new.provenance,
            lifecycle_state: Lifecycle::Candidate,
            needs_revalidation: false,
            claim_relations: Vec::new(),
            independence_group: new.independence_group,
            scope: new.scope,
            transitions: Vec::new(),
        });
        id
    }

    /// The artifact `id`.
    pub fn get(&self, id: &str) -> Option<&EvidenceArtifact> {
        self.artifacts.get(id)
    }

    /// Every artifact, oldest first.
    pub fn artifacts(&self) -> impl Iterator<Item = &EvidenceArtifact> {
        self.artifacts.iter()
    }

    /// Moves `id` to `to`, recording `{from, to, reason, actor, at}`. A move out of `REVOKED`
    /// is refused (revocation is final); returns whether the state changed.
    pub fn transition(&mut self, id: &str, to: Lifecycle, reason: &str, actor: &str, at: u64) -> bool {
        let Some(a) = self.artifacts.get_mut(id) else { return false };
        if a.lifecycle_state == to || a.lifecycle_state == Lifecycle::Revoked {
            return false;
        }
        a.transitions.push(Transition {
            from: a.lifecycle_state,
            to,
            reason: reason.into(),
            actor: actor.into(),
            at,
        });
        a.lifecycle_state = to;
        true
    }

    /// Marks `id` `DISPUTED` (credible conflicting evidence stands against it) through
    /// [`Self::transition`]. Only an artifact in use — `CANDIDATE` or `VALIDATED` — moves: a
    /// quarantined or revoked one is never made retrievable again this way, and a superseded one
    /// stays superseded. Returns whether the state changed.
    pub fn dispute(&mut self, id: &str, reason: &str, actor: &str, at: u64) -> bool {
        self.transition_from(
            id,
            &[Lifecycle::Candidate, Lifecycle::Validated],
            Lifecycle::Disputed,
            reason,
            actor,
            at,
        )
    }

    /// Marks `id` `SUPERSEDED` (a newer version replaced it) through [`Self::transition`], from
    /// `CANDIDATE`, `VALIDATED` or `DISPUTED` only: a quarantined or revoked artifact is never
    /// made retrievable again this way. Returns whether the state changed.
    pub fn supersede(&mut self, id: &str, reason: &str, actor: &str, at: u64) -> bool {
        let from = [Lifecycle::Candidate, Lifecycle::Validated, Lifecycle::Disputed];
        self.transition_from(id, &from, Lifecycle::Superseded, reason, actor, at)
    }

    fn transition_from(
        &mut self,
        id: &str,
        from: &[Lifecycle],
        to: Lifecycle,
        reason: &str,
        actor: &str,
        at: u64,
    ) -> bool {
        self.get(id).is_some_and(|a| from.contains(&a.lifecycle_state))
            && self.transition(id, to, reason, actor, at)
    }

    /// Records that artifact `evidence` bears `relation` to claim (or proposal) `claim`.
    pub fn relate(&mut self, evidence: &str, claim: &str, relation: Relation) {
        let Some(a) = self.artifacts.get_mut(evidence) else { return };
        a.claim_relations.push(ClaimRelation { claim_or_proposal_id: claim.into(), relation });
        let group = a.independence_group.clone();
        self.claims.entry(claim.into()).or_default().push((evidence.into(), relation, group));
    }

    /// Distinct independence groups of usable artifacts bearing `relation` to `claim`.
    pub fn independent_groups(&self, claim: &str, relation: Relation) -> usize {
        self.claims
            .get(claim)
            .map(|rels| {
                rels.iter()
                    .filter(|(ev, r, _)| *r == relation && self.usable(ev))
                    .map(|(_, _, g)| g.as_str())
                    .collect::<BTreeSet<_>>()
                    .len()
            })
            .unwrap_or(0)
    }

    /// The claim's state from its usable evidence: never a majority vote.
    pub fn claim_state(&self, claim: &str) -> ClaimState {
        if self.stale_claims.contains(claim) {
            return ClaimState::NeedsRevalidation;
        }
        let support = self.independent_groups(claim, Relation::FullSupport);
        let refute = self.independent_groups(claim, Relation::Refutes);
        match (support > 0, refute > 0) {
            (true, true) => ClaimState::Mixed,
            (true, false) => ClaimState::Supported,
            (false, true) => ClaimState::Refuted,
            (false, false) => ClaimState::Insufficient,
        }
    }

    /// Usable: retrievable lifecycle and not awaiting revalidation.
    pub fn usable(&self, id: &str) -> bool {
        self.get(id).is_some_and(|a| a.lifecycle_state.retrievable() && !a.needs_revalidation)
    }

    /// Registers a pending decision resting on `evidence`.
    pub fn record_pending(&mut self, decision: &str, evidence: Vec<String>) {
        self.pending.insert(decision.into(), evidence);
    }

    /// True when a pending decision must be re-checked.
    pub fn decision_stale(&self, decision: &str) -> bool {
        self.stale_decisions.contains(decision)
    }

    /// Revokes `id` and marks everything derived from it — artifacts, the claims they relate
    /// to, pending decisions resting on any of them — as needing revalidation.
    pub fn revoke(&mut self, id: &str, reason: &str, actor: &str, at: u64) -> Revalidation {
        let mut out = Revalidation::default();
        if self.get(id).is_none() {
            return out;
        }
        let affected = self.derived_closure(id);
        let seen: HashSet<String> = affected.iter().cloned().collect();
        let claims_before: HashMap<String, ClaimState> = affected
            .iter()
            .filter_map(|ev| self.get(ev))
            .flat_map(|a| a.claim_relations.iter().map(|r| r.claim_or_proposal_id.clone()))
            .map(|claim| {
                let state = self.claim_state(&claim);
                (claim, state)
            })
            .collect();
        self.transition(id, Lifecycle::Revoked, reason, actor, at);
        for ev in &affected {
            if let Some(a) = self.artifacts.get_mut(ev) {
                if ev != id {
                    a.needs_revalidation = true;
                    out.artifacts.push(ev.clone());
                }
                for rel in &a.claim_relations {
                    if self.stale_claims.insert(rel.claim_or_proposal_id.clone()) {
                        out.claims.push(rel.claim_or_proposal_id.clone());
                        let before = claims_before.get(&rel.claim_or_proposal_id).copied();
                        out.claims_before.push(before.unwrap_or(ClaimState::Insufficient));
                    }
                }
            }
        }
        let mut decisions: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, deps)| deps.iter().any(|d| seen.contains(d)))
            .map(|(k, _)| k.clone())
            .collect();
        decisions.sort();
        for d in &decisions {
            self.stale_decisions.insert(d.clone());
        }
        out.decisions = decisions;
        out
    }

    /// `id` and every artifact derived from it, transitively, breadth first.
    fn derived_closure(&self, id: &str) -> Vec<String> {
        let mut affected: Vec<String> = vec![id.to_owned()];
        let mut seen: HashSet<String> = affected.iter().cloned().collect();
        let mut i = 0;
        while i < affected.len() {
            for c in self.children.get(&affected[i]).into_iter().flatten() {
                if seen.insert(c.clone()) {
                    affected.push(c.clone());
                }
            }
            i += 1;
        }
        affected
    }

    /// Root ancestors of `id` (artifacts with no observed parent), by id.
    pub fn roots(&self, id: &str) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        let mut stack = vec![id.to_owned()];
        let mut seen = HashSet::new();
        while let Some(cur) = stack.pop() {
            if !seen.insert(cur.clone()) {
                continue;
            }
            match self.get(&cur) {
                Some(a) if !a.provenance.derived_from.is_empty() => {
                    stack.extend(a.provenance.derived_from.iter().cloned());
                }
                _ => {
                    out.insert(cur);
                }
            }
        }
        out
    }
}
