//! The per-trajectory tracker: feeds on facts in order, answers what each call transferred.

use super::facts::{COORDINATOR, CallFact, Fact};
use super::report::{AuthorityReport, AuthorityVector, Blocker, ProposalReport};
use blindfold_schemas::{AuthorityStage, Intent, Reason, Relation, Verdict};
use std::collections::{BTreeMap, HashMap};

/// Who refutes a proposal when only the engine's decision says so and it names no agent whose
/// answer the contradicting evidence is (a record from before calls named their refuters).
const ENGINE: &str = "engine";

#[derive(Debug, Clone)]
struct ProposalState {
    report: ProposalReport,
    /// Indexes into `refs` of the facts that made, refuted or supported it.
    evidence: Vec<usize>,
}

/// The authority stage a delegation with `intent` transfers: `verify` for a verify request,
/// `scope` (concrete work) for `scope` and `execute` alike, since an agent given work may run
/// its own proposals (SPEC §7 intent chain) and an `execute` delegation is work as well.
pub fn delegated_stage(intent: Intent) -> AuthorityStage {
    match intent {
        Intent::Verify => AuthorityStage::Verify,
        Intent::Scope | Intent::Execute => AuthorityStage::Scope,
    }
}

/// What a fact transferred, for the record that states it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallTransfer {
    /// The authority stage transferred (scope / verify for delegations; adopt / execute for calls).
    pub stage: Option<AuthorityStage>,
    /// The proposal a call adopted.
    pub proposal: Option<String>,
    /// Its proposer.
    pub proposer: Option<String>,
    /// References of the records the call's proposal rests on (proposal, refutations, support).
    pub evidence_refs: Vec<String>,
}

/// Authority state of one trajectory.
#[derive(Debug, Clone, Default)]
pub struct AuthorityTracker {
    vectors: BTreeMap<String, AuthorityVector>,
    first_called: Option<String>,
    proposals: Vec<ProposalState>,
    by_id: HashMap<String, usize>,
    by_fingerprint: HashMap<String, usize>,
    /// Relations about proposal ids not seen yet: `(by, relation, fact index)`.
    pending: HashMap<String, Vec<(String, Relation, usize)>>,
    blockers: Vec<Blocker>,
    /// Fact index of each blocker (its reference is resolved when reporting).
    blocker_at: Vec<usize>,
    /// Reference of each fact that evidence, a pending relation or a blocker points at, by fact
    /// index: only those are ever read back, so facts that move nothing cost no memory.
    refs: HashMap<usize, String>,
    /// Facts observed so far (the next fact's index).
    facts: usize,
    /// True when the last fact observed is pointed at (its reference is kept).
    last_kept: bool,
}

impl AuthorityTracker {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// Feeds one fact; `reference` names the record that states it (`<trajectory>#<seq>`), or
    /// `None` when it is not known yet (see [`Self::name_last`]).
    pub fn observe(&mut self, fact: &Fact, reference: Option<String>) -> CallTransfer {
        let index = self.facts;
        self.facts += 1;
        self.last_kept = false;
        if let Some(r) = reference.filter(|r| !r.is_empty()) {
            self.refs.insert(index, r);
        }
        let transfer = self.apply(fact, index);
        if !self.last_kept {
            self.refs.remove(&index);
        }
        transfer
    }

    fn apply(&mut self, fact: &Fact, index: usize) -> CallTransfer {
        match fact {
            Fact::Delegate { to, intent } => {
                self.first_called.get_or_insert_with(|| to.clone());
                let v = self.vectors.entry(to.clone()).or_default();
                let stage = delegated_stage(*intent);
                match stage {
                    AuthorityStage::Verify => v.verify = true,
                    _ => v.scope = true,
                }
                CallTransfer { stage: Some(stage), ..CallTransfer::default() }
            }
            Fact::Response { from, proposals, relations } => {
                self.vectors.entry(from.clone()).or_default();
                for (id, fingerprint) in proposals {
                    self.add_proposal(id, from, Some(fingerprint.clone()), index);
                }
                for (id, relation) in relations {
                    match self.by_id.get(id) {
                        Some(&p) => self.relate(p, from, *relation, index),
                        None => {
                            self.last_kept = true;
                            self.pending.entry(id.clone()).or_default().push((from.clone(), *relation, index))
                        }
                    }
                }
                CallTransfer::default()
            }
            Fact::Call(call) => self.call(call, index),
            Fact::Other => CallTransfer::default(),
        }
    }

    /// Names the last observed fact once its record's reference is known (the live writer
    /// assigns sequence numbers after the tracker has looked at the fact).
    pub fn name_last(&mut self, reference: String) {
        self.name_last_with(|| reference);
    }

    /// [`Self::name_last`] with the reference made only when the tracker keeps it (most facts
    /// are never pointed at, so their reference is never formatted).
    pub fn name_last_with(&mut self, reference: impl FnOnce() -> String) {
        if self.last_kept && self.facts > 0 {
            let reference = reference();
            if !reference.is_empty() {
                self.refs.insert(self.facts - 1, reference);
            }
        }
    }

    fn add_proposal(&mut self, id: &str, owner: &str, fingerprint: Option<String>, index: usize) -> usize {
        let p = self.proposals.len();
        self.proposals.push(ProposalState {
            report: ProposalReport {
                id: id.to_owned(),
                owner: owner.to_owned(),
                refuted_by: Vec::new(),
                supported_by: Vec::new(),
                adopted: false,
                executed: false,
            },
            evidence: vec![index],
        });
        self.last_kept = true;
        self.by_id.insert(id.to_owned(), p);
        if let Some(fp) = fingerprint {
            self.by_fingerprint.insert(fp, p);
        }
        for (by, relation, at) in self.pending.remove(id).unwrap_or_default() {
            self.relate(p, &by, relation, at);
        }
        p
    }

    fn relate(&mut self, p: usize, by: &str, relation: Relation, index: usize) {
        let state = &mut self.proposals[p];
        let list = match relation {
            Relation::Refutes => &mut state.report.refuted_by,
            Relation::FullSupport => &mut state.report.supported_by,
            _ => return,
        };
        if !list.iter().any(|b| b == by) {
            list.push(by.to_owned());
        }
        state.evidence.push(index);
        self.last_kept = true;
    }

    fn matched(&mut self, call: &CallFact, index: usize) -> Option<usize> {
        if let Some(id) = &call.proposal {
            if let Some(&p) = self.by_id.get(id) {
                return Some(p);
            }
            if let Some(owner) = &call.proposer {
                return Some(self.add_proposal(id, owner, call.fingerprint.clone(), index));
            }
        }
        let fp = call.fingerprint.as_ref()?;
        if let Some(&p) = self.by_fingerprint.get(fp) {
            return Some(p);
        }
        // The engine found contradicting evidence against an action no recorded proposal names
        // (an agent's own, or one the coordinator takes from an answer's prose): it stands as a
        // proposal of its proposer, else of its caller, so the trajectory counts as contradicted
        // — a block by contradiction is a contradicted trajectory — and a capture is counted.
        (call.reason == Reason::Contradicted).then(|| {
            let id = format!("call:{}", &fp[..fp.len().min(12)]);
            let owner = call.proposer.clone().unwrap_or_else(|| call.actor.clone());
            self.add_proposal(&id, &owner, Some(fp.clone()), index)
        })
    }

    fn call(&mut self, call: &CallFact, index: usize) -> CallTransfer {
        if call.actor != COORDINATOR {
            self.vectors.entry(call.actor.clone()).or_default();
        }
        if call.verdict != Verdict::Allow {
            self.blockers.push(Blocker {
                reference: None,
                actor: call.actor.clone(),
                verdict: call.verdict,
                reason: call.reason,
                check: call.check.clone(),
                layer: call.layer,
                enforced: call.enforced,
            });
            self.blocker_at.push(index);
            self.last_kept = true;
        }
        let matched = if call.effectful { self.matched(call, index) } else { None };
        let mut transfer = CallTransfer::default();
        let executes = call.effectful && call.passed();
        match matched {
            Some(p) => {
                if call.reason == Reason::Contradicted {
                    if call.refuted_by.is_empty() {
                        self.relate(p, ENGINE, Relation::Refutes, index);
                    }
                    for by in &call.refuted_by {
                        self.relate(p, by, Relation::Refutes, index);
                    }
                }
                let state = &mut self.proposals[p];
                let owner = state.report.owner.clone();
                // The coordinator has no lane of its own among the agents' vectors.
                let mut scratch = AuthorityVector::default();
                let v = if owner == COORDINATOR {
                    &mut scratch
                } else {
                    self.vectors.entry(owner.clone()).or_default()
                };
                if owner != call.actor {
                    state.report.adopted = true;
                    v.adopt = true;
                    transfer.stage = Some(AuthorityStage::Adopt);
                }
                if executes {
                    state.report.executed = true;
                    v.execute = true;
                    transfer.stage = Some(AuthorityStage::Execute);
                }
                transfer.proposal = Some(state.report.id.clone());
                transfer.proposer = Some(owner);
                transfer.evidence_refs =
                    state.evidence.iter().filter_map(|&i| self.refs.get(&i)).cloned().collect();
                transfer.evidence_refs.dedup();
            }
            None if executes && call.actor != COORDINATOR => {
                self.vectors.entry(call.actor.clone()).or_default().execute = true;
                transfer.stage = Some(AuthorityStage::Execute);
            }
            None => {}
        }
        transfer
    }

    /// The authority picture so far.
    pub fn report(&self) -> AuthorityReport {
        let proposals: Vec<ProposalReport> = self.proposals.iter().map(|p| p.report.clone()).collect();
        let mut captured_by: Vec<String> =
            proposals.iter().filter(|p| p.captured()).map(|p| p.owner.clone()).collect();
        captured_by.dedup();
        AuthorityReport {
            vectors: self.vectors.clone(),
            first_called: self.first_called.clone(),
            contradicted: proposals.iter().any(|p| !p.refuted_by.is_empty()),
            captured: !captured_by.is_empty(),
            execute_captured: proposals.iter().any(|p| !p.refuted_by.is_empty() && p.executed),
            captured_by,
            blockers: self
                .blockers
                .iter()
                .zip(&self.blocker_at)
                .map(|(b, &i)| Blocker { reference: self.refs.get(&i).cloned(), ..b.clone() })
                .collect(),
            proposals,
        }
    }
}
