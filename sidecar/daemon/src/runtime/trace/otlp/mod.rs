//! OpenTelemetry export (OTLP/HTTP, JSON encoding) for users with a collector, so a fleet's
//! traces meet in one backend: one span per decision ([`spans::decision_span`]), a child of its
//! trajectory's span (trace and span id from the trajectory's W3C context, so spans of the
//! harness and tools carrying that `traceparent` join it), and the trajectory's span with its
//! authority verdict (`V(τ)`, execute captured, first-called agent) and the other records as
//! events. The durable JSONL stays the record of truth.
//!
//! Off by default (`[trace] otlp_endpoint`). It runs on its own thread, fed by the trace sink's
//! live channel, never on the decision path: a collector that is down costs nothing but the
//! export. Decision spans go out in batches within [`BATCH_LINGER`]; a trajectory's span once it
//! has been idle for `idle` (or holds [`MAX_EVENTS`] events). Requests are posted with hyper's
//! HTTP/1.1 client, bounded by [`HTTP_TIMEOUT`].

mod http;
pub mod spans;

use blindfold_engine::authority::{AuthorityTracker, facts};
use blindfold_schemas::TraceRecord;
use serde_json::Value;
use spans::OpenTrajectory;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::broadcast;

/// Events per trajectory span before it is sent even if the trajectory is still active.
const MAX_EVENTS: usize = 1000;
/// Decision spans per request at most.
const MAX_BATCH: usize = 512;
/// How long a decision span may wait for others to share its request.
const BATCH_LINGER: Duration = Duration::from_millis(200);
/// Bound on one export request (connect, send, answer).
const HTTP_TIMEOUT: Duration = Duration::from_secs(5);

/// Starts the exporter thread posting to `<endpoint>/v1/traces`; `instance` names this Blindfold
/// (`service.instance.id`).
pub fn start(
    endpoint: &str,
    records: broadcast::Receiver<Arc<TraceRecord>>,
    idle: Duration,
    instance: String,
) -> std::io::Result<()> {
    let target = http::Target::parse(&format!("{}/v1/traces", endpoint.trim_end_matches('/')))?;
    std::thread::Builder::new().name("blindfold-otlp".into()).spawn(move || {
        let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(r) => r,
            Err(e) => return tracing::error!(error = %e, "OTLP exporter could not start"),
        };
        runtime.block_on(Exporter::new(target, instance, idle).run(records));
    })?;
    Ok(())
}

/// The exporter's state between records.
struct Exporter {
    target: http::Target,
    instance: String,
    idle: Duration,
    open: HashMap<String, (OpenTrajectory, Instant)>,
    batch: Vec<Value>,
    batch_since: Option<Instant>,
}

impl Exporter {
    fn new(target: http::Target, instance: String, idle: Duration) -> Self {
        Self { target, instance, idle, open: HashMap::new(), batch: Vec::new(), batch_since: None }
    }

    async fn run(mut self, mut records: broadcast::Receiver<Arc<TraceRecord>>) {
        let tick = (self.idle / 4).clamp(Duration::from_millis(20), BATCH_LINGER);
        loop {
            match tokio::time::timeout(tick, records.recv()).await {
                Ok(Ok(r)) => self.add(&r).await,
                Ok(Err(broadcast::error::RecvError::Lagged(n))) => {
                    tracing::warn!(
                        missed = n,
                        "OTLP export fell behind; records skipped (the JSONL has them)"
                    );
                }
                Ok(Err(broadcast::error::RecvError::Closed)) => {
                    self.flush_trajectories(|_, _| true).await;
                    self.flush_batch().await;
                    return;
                }
                Err(_) => {}
            }
            if self.batch_since.is_some_and(|t| t.elapsed() >= BATCH_LINGER) {
                self.flush_batch().await;
            }
            let idle = self.idle;
            self.flush_trajectories(|_, seen| seen.elapsed() >= idle).await;
        }
    }

    /// Adds a record: a decision becomes a span of the batch, anything else an event of its
    /// trajectory's span; both feed the trajectory's authority tracker.
    async fn add(&mut self, r: &TraceRecord) {
        let (o, seen) = self.open.entry(r.trajectory.clone()).or_insert_with(|| {
            let open = OpenTrajectory {
                first_ts: r.ts,
                last_ts: r.ts,
                mode: super::summary::mode_name(&r.mode),
                events: Vec::new(),
                tracker: AuthorityTracker::new(),
                decisions: 0,
                blocked: 0,
            };
            (open, Instant::now())
        });
        o.last_ts = o.last_ts.max(r.ts);
        *seen = Instant::now();
        o.tracker.observe(&facts::from_record(r), Some(r.reference()));
        let full = match spans::decision_span(r) {
            Some(span) => {
                o.decisions += 1;
                o.blocked += u64::from(!r.passed());
                self.batch.push(span);
                self.batch_since.get_or_insert_with(Instant::now);
                false
            }
            None => {
                o.events.push(spans::event(r));
                o.events.len() >= MAX_EVENTS
            }
        };
        if self.batch.len() >= MAX_BATCH {
            self.flush_batch().await;
        }
        if full {
            let t = r.trajectory.clone();
            self.flush_trajectories(|id, _| id == t).await;
        }
    }

    async fn flush_batch(&mut self) {
        self.batch_since = None;
        if self.batch.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.batch);
        self.post(spans).await;
    }

    async fn flush_trajectories(&mut self, due: impl Fn(&str, &Instant) -> bool) {
        let ready: Vec<String> =
            self.open.iter().filter(|(t, (_, s))| due(t, s)).map(|(t, _)| t.clone()).collect();
        if ready.is_empty() {
            return;
        }
        // Decisions first: a backend then has every child before its parent closes.
        self.flush_batch().await;
        let spans = ready
            .iter()
            .filter_map(|t| self.open.remove(t).map(|(o, _)| spans::trajectory_span(t, &o)))
            .collect();
        self.post(spans).await;
    }

    async fn post(&self, spans: Vec<Value>) {
        let body = spans::request(spans, &self.instance).to_string();
        if let Err(e) = self.target.post(body, HTTP_TIMEOUT).await {
            tracing::warn!(error = %e, "OTLP export failed; spans dropped (the JSONL has them)");
        }
    }
}
