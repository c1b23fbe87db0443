//! The evidence metrics of a replayed run (`docs/metrics-evidence.md`): the trace-supported ones
//! measured by the trace summarizer's own code over the run's records, annotated with the
//! scenario's ground truth as labels are; plus what only the run's evidence graph shows —
//! provenance completeness, conflict detection, support accuracy.

use crate::runtime::trace::evidence_metrics::{TraceCounts, TraceRates, rate};
use blindfold_engine::evidence::EvidenceGraph;
use blindfold_schemas::{
    ClaimState, Event, EvidenceArtifact, OperatorStep, RecordTruth, Relation, Scenario, StepBody, Truth,
};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet, HashSet};

/// Counts only the run's evidence graph holds.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct GraphCounts {
    /// Claims of known source whose provenance is complete and reaches that source.
    pub provenance_complete: u64,
    /// Artifacts of steps whose underlying source the truth names.
    pub provenance_claims: u64,
    /// Planted conflicts the engine detected (a refutation stands, the claim is not `SUPPORTED`).
    pub conflicts_detected: u64,
    /// Claims the truth says some step refutes and another supports.
    pub conflicts: u64,
    /// (step, claim) pairs whose detected relation is the true one.
    pub support_correct: u64,
    /// (step, claim) pairs the truth judges.
    pub support_judged: u64,
}

impl GraphCounts {
    fn add(&mut self, o: &GraphCounts) {
        self.provenance_complete += o.provenance_complete;
        self.provenance_claims += o.provenance_claims;
        self.conflicts_detected += o.conflicts_detected;
        self.conflicts += o.conflicts;
        self.support_correct += o.support_correct;
        self.support_judged += o.support_judged;
    }
}

/// Every count behind the evidence metrics of a run (or of many, summed).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct EvidenceCounts {
    /// From the run's records.
    pub trace: TraceCounts,
    /// From the run's evidence graph.
    pub graph: GraphCounts,
}

/// The evidence metrics as reported, per scenario and per mode: a rate is `null` where nothing
/// counts.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EvidenceRates {
    /// Claims of known source complete and traceable to it / such claims.
    pub provenance_completeness: Option<f64>,
    /// Planted conflicts detected / planted conflicts.
    pub conflict_detection_rate: Option<f64>,
    /// The trace-supported metrics.
    #[serde(flatten)]
    pub trace: TraceRates,
    /// Judged (step, claim) pairs whose detected relation is the true one / judged pairs.
    pub support_accuracy: Option<f64>,
    /// The counts they come from.
    pub counts: EvidenceCounts,
}

impl EvidenceCounts {
    /// The rates of these counts.
    pub fn rates(&self) -> EvidenceRates {
        let g = &self.graph;
        EvidenceRates {
            provenance_completeness: rate(g.provenance_complete, g.provenance_claims),
            conflict_detection_rate: rate(g.conflicts_detected, g.conflicts),
            trace: self.trace.rates(),
            support_accuracy: rate(g.support_correct, g.support_judged),
            counts: self.clone(),
        }
    }
}

/// The rates of many runs' counts summed.
pub fn score_evidence<'a>(runs: impl IntoIterator<Item = &'a EvidenceRates>) -> EvidenceRates {
    let mut sum = EvidenceCounts::default();
    for r in runs {
        sum.trace.add(&r.counts.trace);
        sum.graph.add(&r.counts.graph);
    }
    sum.rates()
}

/// True when `reader` may not read `store`: the store is restricted and the reader is not among
/// its readers, or the truth puts the reader in another tenant than the store's.
fn unauthorized_read(scenario: &Scenario, reader: &str, store: &str) -> bool {
    let Some(acl) = scenario.policy.as_ref().and_then(|p| p.stores.get(store)) else { return false };
    let tenant = scenario.truth.as_ref().and_then(|t| t.tenant.get(reader));
    let other_tenant = matches!((tenant, &acl.tenant), (Some(r), Some(s)) if r != s);
    other_tenant || !acl.readers.iter().any(|r| r == reader)
}

/// The ground truth of step `index` as its record carries it, with agents named by `key` (their
/// alias in the run); `first` puts the affectable agents on it. Memory reads always carry it (an
/// entitled read says so), other steps only when there is something to say.
pub fn step_truth(
    scenario: &Scenario,
    index: usize,
    first: bool,
    key: &dyn Fn(&str) -> String,
) -> Option<RecordTruth> {
    let empty = Truth::default();
    let truth = scenario.truth.as_ref().unwrap_or(&empty);
    let step = &scenario.steps[index];
    let source_step = match &step.body {
        StepBody::Operator(OperatorStep::RevokeEvidence { step, .. }) => *step,
        StepBody::Event(_) => index,
    };
    let mut out = RecordTruth {
        wrong: truth.wrong.contains(&index),
        injected: truth.injected.contains(&index),
        stale: truth.stale.contains(&index),
        unauthorized: false,
        source: truth.source_of(source_step).map(str::to_owned),
        affectable: if first { truth.affectable.iter().map(|a| key(a)).collect() } else { Vec::new() },
    };
    let read = match step.event() {
        Some(Event::MemoryRead { actor, store, .. }) => {
            out.unauthorized = unauthorized_read(scenario, actor, store);
            true
        }
        _ => false,
    };
    (read || !out.is_empty()).then_some(out)
}

/// The graph-only counts of a run: `produced[i]` are the artifacts step `i` created.
pub fn graph_counts(scenario: &Scenario, graph: &EvidenceGraph, produced: &[Vec<String>]) -> GraphCounts {
    let mut c = GraphCounts::default();
    let Some(truth) = &scenario.truth else { return c };
    provenance(truth, graph, produced, &mut c);
    support(truth, graph, produced, &mut c);
    c
}

/// Artifact `id` and everything it derives from (observed ancestry), by id.
fn closure<'g>(graph: &'g EvidenceGraph, id: &str) -> Vec<&'g EvidenceArtifact> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![id.to_owned()];
    while let Some(cur) = stack.pop() {
        if !seen.insert(cur.clone()) {
            continue;
        }
        if let Some(a) = graph.get(&cur) {
            stack.extend(a.provenance.derived_from.iter().cloned());
            out.push(a);
        }
    }
    out
}

/// The observed source keys an artifact and its ancestry rest on (`url:…`, `path:…`).
fn source_keys(graph: &EvidenceGraph, id: &str) -> BTreeSet<String> {
    closure(graph, id)
        .iter()
        .filter_map(|a| a.independence_group.strip_prefix("src:"))
        .flat_map(|g| g.split('+').map(str::to_owned))
        .collect()
}

fn fields_complete(graph: &EvidenceGraph, a: &EvidenceArtifact) -> bool {
    let p = &a.provenance;
    !p.source_type.is_empty()
        && !p.source_ref.is_empty()
        && p.hash.is_some()
        && p.observed_at > 0
        && p.derived_from.iter().all(|d| graph.get(d).is_some())
}

/// Provenance completeness: each artifact of a step of known source has its provenance fields
/// and, when an earlier step holds the same source, observed ancestry reaching that step's
/// artifact (derivation, or a shared observed source).
fn provenance(truth: &Truth, graph: &EvidenceGraph, produced: &[Vec<String>], c: &mut GraphCounts) {
    let mut first: BTreeMap<&str, &[String]> = BTreeMap::new();
    for (i, ids) in produced.iter().enumerate() {
        let Some(source) = truth.source_of(i) else { continue };
        if ids.is_empty() {
            continue;
        }
        let origin = *first.entry(source).or_insert(ids.as_slice());
        for id in ids {
            let Some(a) = graph.get(id) else { continue };
            c.provenance_claims += 1;
            let traced = origin.iter().any(|o| {
                o == id
                    || closure(graph, id).iter().any(|x| &x.evidence_id == o)
                    || !source_keys(graph, id).is_disjoint(&source_keys(graph, o))
            });
            c.provenance_complete += u64::from(fields_complete(graph, a) && traced);
        }
    }
}

/// The relations the engine recorded from step `i`'s artifacts toward `claim`.
fn detected(graph: &EvidenceGraph, ids: &[String], claim: &str) -> HashSet<Relation> {
    ids.iter()
        .filter_map(|id| graph.get(id))
        .flat_map(|a| a.claim_relations.iter())
        .filter(|r| r.claim_or_proposal_id == claim)
        .map(|r| r.relation)
        .collect()
}

/// Support accuracy and conflict detection from the truth's `support` judgements.
fn support(truth: &Truth, graph: &EvidenceGraph, produced: &[Vec<String>], c: &mut GraphCounts) {
    let mut by_claim: BTreeMap<&str, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
    for (step, judged) in &truth.support {
        let Ok(i) = step.parse::<usize>() else { continue };
        let ids = produced.get(i).map(Vec::as_slice).unwrap_or_default();
        for (claim, relation) in judged {
            let found = detected(graph, ids, claim);
            let refutes = found.contains(&Relation::Refutes);
            let supports = found.contains(&Relation::FullSupport);
            let correct = match relation {
                Relation::Refutes => refutes,
                Relation::FullSupport => supports && !refutes,
                _ => !supports && !refutes,
            };
            c.support_judged += 1;
            c.support_correct += u64::from(correct);
            let entry = by_claim.entry(claim).or_default();
            match relation {
                Relation::Refutes => entry.0.push(i),
                Relation::FullSupport | Relation::PartialSupport => entry.1.push(i),
                _ => {}
            }
        }
    }
    for (claim, (refuters, supporters)) in by_claim {
        if refuters.is_empty() || supporters.is_empty() {
            continue;
        }
        c.conflicts += 1;
        let refuted = refuters.iter().any(|&i| {
            detected(graph, produced.get(i).map(Vec::as_slice).unwrap_or_default(), claim)
                .contains(&Relation::Refutes)
        });
        c.conflicts_detected += u64::from(refuted && graph.claim_state(claim) != ClaimState::Supported);
    }
}
