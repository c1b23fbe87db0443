//! The counts behind the trace-supported evidence metrics, their sums over trajectories and the
//! rates reported from them (`null` where nothing counts, never 0).

use serde::Serialize;

/// A delay from a revocation to a dependent claim's re-evaluation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub struct Delay {
    /// Steps of the trajectory (events and revocations) in between.
    pub steps: u64,
    /// Milliseconds on the trajectory's clock (the scenario clock in a replay).
    pub ms: u64,
}

/// Numerators and denominators of the trace-supported metrics, for one trajectory or summed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct TraceCounts {
    /// Affectable agents some step downstream of a wrong step went ahead for.
    pub error_affected: u64,
    /// Affectable agents of trajectories with a wrong step.
    pub error_affectable: u64,
    /// Affectable agents some step downstream of an injected step went ahead for.
    pub injection_affected: u64,
    /// Affectable agents of trajectories with an injected step.
    pub injection_affectable: u64,
    /// Wrong claims whose agreement gave them authority.
    pub false_consensus: u64,
    /// Wrong claims two or more agents asserted.
    pub consensus: u64,
    /// Supports by agents other than the proposer that Blindfold counted as independent.
    pub corroborations_counted: u64,
    /// Supports by agents other than the proposer.
    pub corroborations: u64,
    /// Unauthorized reads that went ahead.
    pub unauthorized_retrieved: u64,
    /// Reads of a store the reader is not entitled to.
    pub unauthorized_attempts: u64,
    /// Decisions resting on stale or revoked evidence that went ahead.
    pub stale_used: u64,
    /// Decisions resting on stale or revoked evidence.
    pub stale_uses: u64,
    /// Revocations.
    pub revocations: u64,
    /// The longest delay from a revocation to a dependent claim's re-evaluation.
    pub delay: Option<Delay>,
    /// Dependent claims a revocation never had re-evaluated.
    pub unrevalidated: u64,
}

impl TraceCounts {
    /// Adds `other`'s counts (the delay is the longer one).
    pub fn add(&mut self, other: &TraceCounts) {
        self.error_affected += other.error_affected;
        self.error_affectable += other.error_affectable;
        self.injection_affected += other.injection_affected;
        self.injection_affectable += other.injection_affectable;
        self.false_consensus += other.false_consensus;
        self.consensus += other.consensus;
        self.corroborations_counted += other.corroborations_counted;
        self.corroborations += other.corroborations;
        self.unauthorized_retrieved += other.unauthorized_retrieved;
        self.unauthorized_attempts += other.unauthorized_attempts;
        self.stale_used += other.stale_used;
        self.stale_uses += other.stale_uses;
        self.revocations += other.revocations;
        self.delay = self.delay.max(other.delay);
        self.unrevalidated += other.unrevalidated;
    }

    /// The rates these counts give.
    pub fn rates(&self) -> TraceRates {
        TraceRates {
            independent_corroboration_rate: rate(self.corroborations_counted, self.corroborations),
            false_consensus_rate: rate(self.false_consensus, self.consensus),
            error_propagation_rate: rate(self.error_affected, self.error_affectable),
            injection_propagation_rate: rate(self.injection_affected, self.injection_affectable),
            revocation_propagation_delay: (self.revocations > 0).then(|| DelayReport {
                steps: self.delay.map(|d| d.steps),
                seconds: self.delay.map(|d| d.ms as f64 / 1000.0),
                revocations: self.revocations,
                unrevalidated: self.unrevalidated,
            }),
            stale_evidence_use_rate: rate(self.stale_used, self.stale_uses),
            unauthorized_retrieval_rate: rate(self.unauthorized_retrieved, self.unauthorized_attempts),
        }
    }
}

/// `n / d`, `None` when nothing counts.
pub fn rate(n: u64, d: u64) -> Option<f64> {
    // Counts stay far below 2^52, so the conversion is exact.
    #[allow(clippy::cast_precision_loss)]
    (d > 0).then(|| n as f64 / d as f64)
}

/// The revocation propagation delay as reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DelayReport {
    /// Steps from a revocation to the last dependent claim re-evaluated (`null` when none was).
    pub steps: Option<u64>,
    /// The same on the trajectory's clock, seconds.
    pub seconds: Option<f64>,
    /// Revocations counted.
    pub revocations: u64,
    /// Dependent claims never re-evaluated (a later decision went ahead on them first, or
    /// nothing re-checked them): the revocation did not reach them at all.
    pub unrevalidated: u64,
}

/// The trace-supported rates.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TraceRates {
    /// Counted independent supports / supports by agents other than the proposer.
    pub independent_corroboration_rate: Option<f64>,
    /// Wrong claims whose agreement gave them authority / wrong claims two or more agents asserted.
    pub false_consensus_rate: Option<f64>,
    /// Affected / affectable agents downstream of wrong steps.
    pub error_propagation_rate: Option<f64>,
    /// Affected / affectable agents downstream of injected steps.
    pub injection_propagation_rate: Option<f64>,
    /// From a revocation to the last dependent claim re-evaluated.
    pub revocation_propagation_delay: Option<DelayReport>,
    /// Decisions on stale or revoked evidence that went ahead / such decisions.
    pub stale_evidence_use_rate: Option<f64>,
    /// Unauthorized reads that went ahead / unauthorized reads.
    pub unauthorized_retrieval_rate: Option<f64>,
}
