//! Prometheus metrics (`/metrics`): one registry, every series registered at start (at zero, so
//! a scrape before any traffic already shows them), every name prefixed `blindfold_`, labels of
//! low cardinality only ([`labels`]).
//!
//! The decision path updates them in one place, where the decision is traced
//! ([`Metrics::decided`]: a few relaxed atomic adds and one histogram observation, through
//! counters resolved at start — no label hashing, no allocation). What is a level rather than an
//! event (reviews pending and their age, the trace writer's queue, open connections, identity
//! rewrites) is read when Prometheus scrapes ([`Metrics::refresh`]), costing the decision path
//! nothing.

mod decisions;
pub mod labels;
#[cfg(test)]
mod tests;

use blindfold_engine::Step;
use blindfold_schemas::{ModeSet, Reason, Verdict};
use decisions::DecisionSeries;
use labels::{ListenerLabel, OutcomeLabel, REVIEW_OUTCOMES, ReasonOnly, Transport, TransportLabel};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;
use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, PoisonError};

/// Every metric of the daemon and the handles the decision path updates.
pub struct Metrics {
    registry: Registry,
    decisions: DecisionSeries,
    grants_consumed: Counter,
    /// Reason (declaration order) → its counter, for the grant check's reasons.
    grants_refused: Vec<Option<Counter>>,
    grants_revoked: Counter,
    reviews: Vec<Counter>,
    reviews_pending: Gauge,
    review_oldest_age: Gauge<f64, AtomicU64>,
    identity_rewrites: Counter,
    /// The engine's rewrite count at the last scrape (the counter adds the difference).
    rewrites_seen: Mutex<u64>,
    trace_queue: Gauge,
    trace_failures: Counter,
    upstream_errors: Vec<Counter>,
    connections: Family<ListenerLabel, Gauge>,
    /// Each listener's open-connection count, read at scrape time.
    listeners: Mutex<Vec<(&'static str, OpenCount)>>,
    webhooks: Family<OutcomeLabel, Counter>,
    verifier_requests: Family<OutcomeLabel, Counter>,
}

/// What can come of asking a verifier: an approving verdict, a refusing or unsure one or none
/// (prose only), no answer in time, or nobody asked (cached, rate spent, no verifier of another
/// family).
pub const VERIFIER_OUTCOMES: [&str; 4] = ["approved", "not_approved", "silent", "not_asked"];

/// How many connections a listener holds open now.
pub type OpenCount = Box<dyn Fn() -> usize + Send + Sync>;

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A registry with every family registered and every known series at zero.
    pub fn new() -> Self {
        let mut registry = Registry::with_prefix("blindfold");
        let decisions = DecisionSeries::register(&mut registry);
        let grants_consumed = Counter::default();
        registry.register(
            "grants_consumed",
            "Grant uses taken when an action was forwarded",
            grants_consumed.clone(),
        );
        let refused = Family::<ReasonOnly, Counter>::default();
        registry.register("grants_refused", "Actions refused by the grant check, by reason", refused.clone());
        let grants_refused = Reason::ALL
            .iter()
            .map(|r| {
                labels::is_grant_reason(*r)
                    .then(|| refused.get_or_create(&ReasonOnly { reason: r.as_str() }).clone())
            })
            .collect();
        let grants_revoked = Counter::default();
        registry.register("grants_revoked", "Grants revoked on the control API", grants_revoked.clone());

        let review_family = Family::<OutcomeLabel, Counter>::default();
        registry.register(
            "reviews",
            "Review items submitted and answered (approved, rejected, expired, withdrawn)",
            review_family.clone(),
        );
        let reviews = REVIEW_OUTCOMES
            .iter()
            .map(|o| review_family.get_or_create(&OutcomeLabel { outcome: o }).clone())
            .collect();
        let reviews_pending = Gauge::default();
        registry.register("reviews_pending", "Review items waiting for a human", reviews_pending.clone());
        let review_oldest_age = Gauge::<f64, AtomicU64>::default();
        registry.register(
            "review_oldest_pending_age_seconds",
            "Age of the oldest pending review item (0 when none is pending)",
            review_oldest_age.clone(),
        );
        let identity_rewrites = Counter::default();
        registry.register(
            "identity_rewrites",
            "Text fields in which identity words were replaced before the coordinator saw them",
            identity_rewrites.clone(),
        );
        let trace_queue = Gauge::default();
        registry.register(
            "trace_queue_records",
            "Trace records submitted but not yet written (the writer's lag)",
            trace_queue.clone(),
        );
        let trace_failures = Counter::default();
        registry.register(
            "trace_write_failures",
            "Trace batches the writer failed to write (their durable decisions were denied)",
            trace_failures.clone(),
        );
        let upstream_family = Family::<TransportLabel, Counter>::default();
        registry.register(
            "upstream_errors",
            "Upstream requests that failed (unreachable, timed out, broken answer), by transport",
            upstream_family.clone(),
        );
        let upstream_errors = Transport::ALL
            .iter()
            .map(|t| upstream_family.get_or_create(&TransportLabel { transport: t.as_str() }).clone())
            .collect();
        let connections = Family::<ListenerLabel, Gauge>::default();
        registry.register("open_connections", "Connections open per listener", connections.clone());
        let webhooks = Family::<OutcomeLabel, Counter>::default();
        registry.register(
            "webhook_deliveries",
            "Review announcements to the configured webhook, delivered or failed",
            webhooks.clone(),
        );
        for outcome in ["delivered", "failed"] {
            let _ = webhooks.get_or_create(&OutcomeLabel { outcome });
        }
        let verifier_requests = Family::<OutcomeLabel, Counter>::default();
        registry.register(
            "verifier_requests",
            "Actions Blindfold asked a configured verifier about, by what came of it",
            verifier_requests.clone(),
        );
        for outcome in VERIFIER_OUTCOMES {
            let _ = verifier_requests.get_or_create(&OutcomeLabel { outcome });
        }
        Self {
            registry,
            decisions,
            grants_consumed,
            grants_refused,
            grants_revoked,
            reviews,
            reviews_pending,
            review_oldest_age,
            identity_rewrites,
            rewrites_seen: Mutex::new(0),
            trace_queue,
            trace_failures,
            upstream_errors,
            connections,
            listeners: Mutex::new(Vec::new()),
            webhooks,
            verifier_requests,
        }
    }

    /// Counts one decided step of the decision path (a step without a decision — an
    /// informational event — counts nothing): its verdict by transport and mode, by check and by
    /// reason, its latency, and a grant use or refusal. `consume` is the step's moment of
    /// forwarding (a grant's use is taken on an allowed effectful action).
    pub fn decided(&self, transport: Transport, modes: ModeSet, consume: bool, step: &Step, latency_us: u64) {
        let Some(decision) = &step.decision else { return };
        self.decisions.count(transport, modes, decision, latency_us);
        let r = decision.reason as usize;
        let effectful = step.action.as_ref().is_some_and(|a| a.effect.is_effectful());
        match decision.decision {
            Verdict::Allow if consume && modes.grants && effectful => {
                self.grants_consumed.inc();
            }
            Verdict::Deny => {
                if let Some(Some(c)) = self.grants_refused.get(r) {
                    c.inc();
                }
            }
            _ => {}
        }
    }

    /// A grant revoked.
    pub fn grant_revoked(&self) {
        self.grants_revoked.inc();
    }

    /// A review item submitted (`submitted`) or answered (`approved`, `rejected`, `expired`,
    /// `withdrawn`).
    pub fn review(&self, outcome: &str) {
        if let Some(i) = REVIEW_OUTCOMES.iter().position(|o| *o == outcome) {
            self.reviews[i].inc();
        }
    }

    /// An upstream request of `transport` that failed.
    pub fn upstream_error(&self, transport: Transport) {
        self.upstream_errors[transport.index()].inc();
    }

    /// A webhook delivery that succeeded or failed.
    pub fn webhook(&self, delivered: bool) {
        let outcome = if delivered { "delivered" } else { "failed" };
        self.webhooks.get_or_create(&OutcomeLabel { outcome }).inc();
    }

    /// An unverified action Blindfold asked a verifier about (or did not): one of
    /// [`VERIFIER_OUTCOMES`].
    pub fn verifier(&self, outcome: &'static str) {
        self.verifier_requests.get_or_create(&OutcomeLabel { outcome }).inc();
    }

    /// The levels read at scrape time.
    pub fn refresh(&self, levels: &Levels) {
        self.reviews_pending.set(i64::try_from(levels.reviews_pending).unwrap_or(i64::MAX));
        self.review_oldest_age.set(levels.oldest_review_age_s);
        self.trace_queue.set(i64::try_from(levels.trace_queue).unwrap_or(i64::MAX));
        let mut seen = self.rewrites_seen.lock().unwrap_or_else(PoisonError::into_inner);
        if levels.identity_rewrites > *seen {
            self.identity_rewrites.inc_by(levels.identity_rewrites - *seen);
            *seen = levels.identity_rewrites;
        }
        drop(seen);
        let failures = self.trace_failures.get();
        if levels.trace_failures > failures {
            self.trace_failures.inc_by(levels.trace_failures - failures);
        }
        let listeners = self.listeners.lock().unwrap_or_else(PoisonError::into_inner);
        for (listener, open) in listeners.iter() {
            self.connections
                .get_or_create(&ListenerLabel { listener })
                .set(i64::try_from(open()).unwrap_or(i64::MAX));
        }
    }

    /// Watches a listener's open connections (`open` is asked at each scrape); its gauge is
    /// registered at zero now.
    pub fn listener(&self, listener: &'static str, open: OpenCount) {
        let _ = self.connections.get_or_create(&ListenerLabel { listener });
        self.listeners.lock().unwrap_or_else(PoisonError::into_inner).push((listener, open));
    }

    /// The Prometheus text exposition format (version 0.0.4), or OpenMetrics text when
    /// `openmetrics`.
    pub fn encode(&self, openmetrics: bool) -> Result<String, std::fmt::Error> {
        let mut out = String::new();
        if openmetrics {
            prometheus_client::encoding::text::encode(&mut out, &self.registry)?;
        } else {
            prometheus_client::encoding::prometheus_text::encode(&mut out, &self.registry)?;
        }
        Ok(out)
    }
}

/// What [`Metrics::refresh`] reads at scrape time.
#[derive(Debug, Clone, Default)]
pub struct Levels {
    /// Pending review items.
    pub reviews_pending: usize,
    /// Age of the oldest pending one, seconds.
    pub oldest_review_age_s: f64,
    /// Trace records queued for the writer.
    pub trace_queue: usize,
    /// Trace batches that failed to be written since start.
    pub trace_failures: u64,
    /// Identity rewrites since start (the engine's count).
    pub identity_rewrites: u64,
}
