//! The graph itself: artifacts by id, derivation edges, claim relations, pending decisions.

use super::store::{ArtifactStore, id_of};
use blindfold_schemas::{
    Channel, ClaimRelation, ClaimState, EvidenceArtifact, EvidenceScope, Lifecycle, Provenance, Relation,
    Transition,
};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Everything a revocation (or supersession) touched: derived artifacts, claims and pending
/// decisions that now need revalidation (`NEEDS_REVALIDATION`).
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
    /// artifact id → the claims (proposals) it made: they rest on it as its relations do
    origins: HashMap<String, Vec<String>>,
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

    /// Records that artifact `evidence` made claim (or proposal) `claim`: the claim rests on it,
    /// so revoking or superseding the artifact (or what it derives from) marks the claim too.
    pub fn originate(&mut self, evidence: &str, claim: &str) {
        self.origins.entry(evidence.into()).or_default().push(claim.into());
    }

    /// The claims artifact `a` bears on: its relations and the claims it made.
    fn claims_of(&self, a: &EvidenceArtifact) -> Vec<String> {
        let made = self.origins.get(&a.evidence_id).into_iter().flatten().cloned();
        a.claim_relations.iter().map(|r| r.claim_or_proposal_id.clone()).chain(made).collect()
    }

    /// Revokes `id` and marks everything derived from it — artifacts, the claims they relate
    /// to or made, pending decisions resting on any of them — as needing revalidation.
    pub fn revoke(&mut self, id: &str, reason: &str, actor: &str, at: u64) -> Revalidation {
        if self.get(id).is_none() {
            return Revalidation::default();
        }
        let affected = self.derived_closure(id);
        let before = self.claim_states(&affected);
        self.transition(id, Lifecycle::Revoked, reason, actor, at);
        self.mark_dependents(id, &affected, &before)
    }

    /// Supersedes `id` (a newer observation of its source replaced it, [`Self::supersede`]) and
    /// marks everything derived from it as [`Self::revoke`] does: old evidence is not used for
    /// the new state of its source. Nothing is marked when `id` cannot move.
    pub fn supersede_derived(&mut self, id: &str, reason: &str, actor: &str, at: u64) -> Revalidation {
        let affected = self.derived_closure(id);
        let before = self.claim_states(&affected);
        if !self.supersede(id, reason, actor, at) {
            return Revalidation::default();
        }
        self.mark_dependents(id, &affected, &before)
    }

    /// The state of every claim the `affected` artifacts bear on.
    fn claim_states(&self, affected: &[String]) -> HashMap<String, ClaimState> {
        affected
            .iter()
            .filter_map(|ev| self.get(ev))
            .flat_map(|a| self.claims_of(a))
            .map(|claim| {
                let state = self.claim_state(&claim);
                (claim, state)
            })
            .collect()
    }

    /// Marks the `affected` artifacts other than `id`, their claims and the pending decisions
    /// resting on any of them as needing revalidation.
    fn mark_dependents(
        &mut self,
        id: &str,
        affected: &[String],
        claims_before: &HashMap<String, ClaimState>,
    ) -> Revalidation {
        let mut out = Revalidation::default();
        let seen: HashSet<&String> = affected.iter().collect();
        for ev in affected {
            let Some(a) = self.artifacts.get(ev) else { continue };
            let claims = self.claims_of(a);
            if ev != id {
                if let Some(a) = self.artifacts.get_mut(ev) {
                    a.needs_revalidation = true;
                }
                out.artifacts.push(ev.clone());
            }
            for claim in claims {
                if self.stale_claims.insert(claim.clone()) {
                    out.claims_before
                        .push(claims_before.get(&claim).copied().unwrap_or(ClaimState::Insufficient));
                    out.claims.push(claim);
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
