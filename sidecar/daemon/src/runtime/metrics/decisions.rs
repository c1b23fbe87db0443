//! The decision series: decisions by transport, mode and verdict, by check, by reason, and their
//! latency — registered at start for every transport, the named modes, the cascade's catalogue
//! of checks and every reason code, and resolved to plain counters so that counting a decision
//! hashes no label and allocates nothing.

use super::labels::{
    CheckLabels, DecisionLabels, ReasonLabels, Transport, TransportLabel, VERDICTS, mode_bits,
    registered_modes, verdict_index, verdict_str,
};
use blindfold_schemas::{CheckId, Decision, ModeSet, Reason};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;
use std::collections::HashMap;
use std::sync::OnceLock;

/// One counter per verdict.
type ByVerdict = [Counter; 3];

/// Decision-latency buckets, seconds: 5 µs doubling to ≈ 82 ms.
fn latency_histogram() -> Histogram {
    Histogram::new(exponential_buckets(5e-6, 2.0, 15))
}

/// The registered decision families and the counters the decision path adds to.
pub(super) struct DecisionSeries {
    decisions: Family<DecisionLabels, Counter>,
    checks: Family<CheckLabels, Counter>,
    /// transport × mode bits → the three verdict counters (filled at start for the registered
    /// modes, on first use for any other mode set).
    by_mode: Vec<[OnceLock<ByVerdict>; 32]>,
    /// Check id → the three verdict counters (the catalogue, resolved at start).
    by_check: HashMap<&'static str, ByVerdict>,
    /// Reason (declaration order) → the three verdict counters.
    by_reason: Vec<ByVerdict>,
    /// Per transport.
    latency: Vec<Histogram>,
}

impl DecisionSeries {
    /// Registers the families in `registry` with every known series at zero.
    pub(super) fn register(registry: &mut Registry) -> Self {
        let decisions = Family::<DecisionLabels, Counter>::default();
        registry.register(
            "decisions",
            "Decisions (allow, deny, review) by transport and mode, one per decision record in the trace",
            decisions.clone(),
        );
        let checks = Family::<CheckLabels, Counter>::default();
        registry.register("decision_checks", "Decisions by the check that made them", checks.clone());
        let reasons = Family::<ReasonLabels, Counter>::default();
        registry.register("decision_reasons", "Decisions by reason code", reasons.clone());
        let latency_family = Family::<TransportLabel, Histogram, fn() -> Histogram>::new_with_constructor(
            latency_histogram as fn() -> Histogram,
        );
        registry.register(
            "decision_latency_seconds",
            "Time the decision path spent deciding (engine step and review hold), by transport",
            latency_family.clone(),
        );
        let by_mode = Transport::ALL
            .iter()
            .map(|t| {
                let slots: [OnceLock<ByVerdict>; 32] = std::array::from_fn(|_| OnceLock::new());
                for m in registered_modes() {
                    let _ = slots[mode_bits(m)].set(verdict_counters(&decisions, *t, m));
                }
                slots
            })
            .collect();
        // Every check id is declared once (schemas' CheckId), so every series exists from the start.
        let by_check =
            CheckId::ALL.iter().map(|id| (id.as_str(), check_counters(&checks, id.as_str()))).collect();
        let by_reason = Reason::ALL
            .iter()
            .map(|r| {
                VERDICTS.map(|v| {
                    reasons
                        .get_or_create(&ReasonLabels { reason: r.as_str(), verdict: verdict_str(v) })
                        .clone()
                })
            })
            .collect();
        let latency = Transport::ALL
            .iter()
            .map(|t| latency_family.get_or_create(&TransportLabel { transport: t.as_str() }).clone())
            .collect();
        Self { decisions, checks, by_mode, by_check, by_reason, latency }
    }

    /// Counts `decision` of `transport` under `modes`, decided in `latency_us`.
    pub(super) fn count(&self, transport: Transport, modes: ModeSet, decision: &Decision, latency_us: u64) {
        let v = verdict_index(decision.decision);
        let t = transport.index();
        let slot = &self.by_mode[t][mode_bits(modes)];
        slot.get_or_init(|| verdict_counters(&self.decisions, transport, modes))[v].inc();
        match self.by_check.get(decision.check.as_str()) {
            Some(c) => {
                c[v].inc();
            }
            None => {
                let labels = CheckLabels {
                    check: decision.check.as_str().to_owned(),
                    verdict: verdict_str(decision.decision),
                };
                self.checks.get_or_create(&labels).inc();
            }
        }
        if let Some(c) = self.by_reason.get(decision.reason as usize) {
            c[v].inc();
        }
        #[allow(clippy::cast_precision_loss)]
        self.latency[t].observe(latency_us as f64 / 1e6);
    }
}

fn verdict_counters(f: &Family<DecisionLabels, Counter>, t: Transport, m: ModeSet) -> ByVerdict {
    let mode = crate::runtime::trace::summary::mode_name(&m);
    VERDICTS.map(|v| {
        f.get_or_create(&DecisionLabels {
            transport: t.as_str(),
            mode: mode.clone(),
            verdict: verdict_str(v),
        })
        .clone()
    })
}

fn check_counters(f: &Family<CheckLabels, Counter>, id: &str) -> ByVerdict {
    VERDICTS.map(|v| f.get_or_create(&CheckLabels { check: id.to_owned(), verdict: verdict_str(v) }).clone())
}
