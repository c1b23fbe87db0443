//! The daemon's trace hub: the sink, one authority tracker per live trajectory, the directory
//! of aliases and identities.

use super::record::{self, ActorDirectory, ConfiguredIds, RecordContext};
use super::sighting;
use super::sink::{Submitted, TraceSink, TraceWriteError};
use super::writer::TraceWriter;
pub use crate::config::TraceConfig;
use blindfold_engine::Step;
use blindfold_engine::authority::{AuthorityTracker, COORDINATOR, facts};
use blindfold_schemas::{Event, ModeSet, TraceRecord};
use dashmap::DashMap;
use std::sync::{Arc, Mutex, RwLock};

/// When and how a step was decided.
#[derive(Debug, Clone, Copy)]
pub struct StepMeta {
    /// Modes in force.
    pub mode: ModeSet,
    /// Decision time, ms since the epoch.
    pub ts: u64,
    /// Time spent deciding, µs.
    pub latency_us: u64,
}

/// A queued record: the submission, and whether the decision must wait for it.
pub struct Queued {
    /// The submission (its acknowledgement inside), or why it failed.
    pub submitted: Result<Submitted, TraceWriteError>,
    /// True for a deny, review or effectful allow.
    pub durable: bool,
}

impl Queued {
    /// Blocks until a durable record is written (handing a multi-threaded runtime's worker over
    /// meanwhile: [`Submitted::written_blocking`](super::sink::Submitted::written_blocking)).
    pub fn written_blocking(self) -> Result<(), TraceWriteError> {
        match self.submitted {
            Ok(s) if self.durable => s.written_blocking(),
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }

    /// Awaits until a durable record is written.
    pub async fn written(self) -> Result<(), TraceWriteError> {
        match self.submitted {
            Ok(s) if self.durable => s.written().await,
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// Trace state shared by every transport of the daemon.
pub struct TraceHub {
    sink: Arc<TraceSink>,
    trackers: DashMap<String, Arc<Mutex<AuthorityTracker>>>,
    directory: RwLock<Arc<dyn ActorDirectory>>,
}

impl TraceHub {
    /// Opens the trace directory (resuming its chain) and starts the writer thread.
    pub fn open(config: &TraceConfig) -> std::io::Result<Self> {
        let writer = TraceWriter::open(&config.dir, config.max_file_bytes, config.durability)?;
        let sink = TraceSink::start(writer)?;
        if let Some(endpoint) = &config.otlp_endpoint {
            let host = std::fs::read_to_string("/proc/sys/kernel/hostname").unwrap_or_default();
            let instance = format!("{}:{}", host.trim(), config.dir.display());
            super::otlp::start(endpoint, sink.subscribe(), config.otlp_idle, instance)?;
        }
        Ok(Self { sink, trackers: DashMap::new(), directory: RwLock::new(Arc::new(ConfiguredIds)) })
    }

    /// Installs the directory of aliases and true identities (the identity layer's).
    pub fn set_directory(&self, directory: Arc<dyn ActorDirectory>) {
        if let Ok(mut d) = self.directory.write() {
            *d = directory;
        }
    }

    fn directory(&self) -> Arc<dyn ActorDirectory> {
        match self.directory.read() {
            Ok(d) => d.clone(),
            Err(_) => Arc::new(ConfiguredIds),
        }
    }

    /// The writer's front door (live subscribers, other record producers).
    pub fn sink(&self) -> &Arc<TraceSink> {
        &self.sink
    }

    /// The authority picture of a live trajectory so far.
    pub fn report(&self, trajectory: &str) -> Option<blindfold_engine::authority::AuthorityReport> {
        let tracker = self.trackers.get(trajectory)?.clone();
        tracker.lock().ok().map(|t| t.report())
    }

    /// Forgets a trajectory's tracker (the trace keeps the record); returns it, for the caller
    /// to free where it costs nothing.
    pub fn end(&self, trajectory: &str) -> Option<impl Send + 'static> {
        self.trackers.remove(trajectory)
    }

    /// Traces one engine step of `trajectory`: the tracker sees it, the record is built and
    /// queued. Returns the submission and whether the decision must wait for it
    /// ([`TraceRecord::is_durable`]); `blocking` picks how the caller will wait. Call it while holding the trajectory's lock, so the file
    /// order of a trajectory is its step order.
    pub fn record_step(
        &self,
        trajectory: &str,
        event: &Event,
        step: &Step,
        meta: StepMeta,
        blocking: bool,
    ) -> Queued {
        let StepMeta { mode, ts, latency_us } = meta;
        let directory = self.directory();
        let tracker = match self.trackers.get(trajectory) {
            Some(t) => t.clone(),
            None => self.trackers.entry(trajectory.to_owned()).or_default().clone(),
        };
        let Ok(mut tracker) = tracker.lock() else {
            return Queued {
                submitted: Err(TraceWriteError("authority tracker unavailable".into())),
                durable: true,
            };
        };
        let key = |id: &str| directory.alias(trajectory, id);
        let transfer = tracker.observe(&facts::from_step(event, step, &key), None);
        let ctx = RecordContext { trajectory, ts, mode, latency_us, directory: directory.as_ref() };
        let record = record::build(&ctx, event, step, &transfer);
        let durable = record.is_durable();
        let submitted = if blocking {
            self.sink.submit_blocking(record, durable)
        } else {
            self.sink.submit(record, durable)
        };
        if let Ok(s) = &submitted {
            tracker.name_last_with(|| format!("{trajectory}#{}", s.seq));
        }
        Queued { submitted, durable }
    }

    /// Traces the decision of a message that never became an event (the engine's frame checks):
    /// a `frame` record with the decision and the fault the transport saw, under `trajectory`
    /// (no authority tracker sees it). Returns the submission as [`TraceHub::record_step`] does.
    pub fn record_frame(
        &self,
        trajectory: &str,
        facts: &blindfold_schemas::Facts,
        step: &Step,
        meta: StepMeta,
        blocking: bool,
    ) -> Queued {
        let record = record::frame(trajectory, facts, step, meta.ts, meta.mode, meta.latency_us);
        let durable = record.is_durable();
        let submitted = if blocking {
            self.sink.submit_blocking(record, durable)
        } else {
            self.sink.submit(record, durable)
        };
        Queued { submitted, durable }
    }

    /// Traces the grant tokens sighted in `event`'s model-written content (SPEC §6): one
    /// informational `control` record each ([`sighting::sighting_record`]: the token's `kid` and
    /// `jti`, never the token), queued after the step's own record. A sighted token authorises
    /// nothing: no decision reads it, and nothing waits for these records. `blocking` as for
    /// [`TraceHub::record_step`].
    pub fn record_sightings(&self, trajectory: &str, event: &Event, meta: StepMeta, blocking: bool) {
        let Some((actor, found)) = sighting::grant_sightings(event) else { return };
        let alias =
            if actor == COORDINATOR { actor.to_owned() } else { self.directory().alias(trajectory, actor) };
        for s in &found {
            tracing::warn!(
                trajectory,
                actor = %alias,
                kid = s.kid.as_deref().unwrap_or(""),
                jti = s.jti.as_deref().unwrap_or(""),
                "grant token in model-written content ignored"
            );
            let r = sighting::sighting_record(trajectory, alias.clone(), event.kind(), s, meta.ts, meta.mode);
            let submitted =
                if blocking { self.sink.submit_blocking(r, false) } else { self.sink.submit(r, false) };
            if let Err(e) = submitted {
                tracing::warn!(trajectory, error = %e, "grant sighting not traced");
            }
        }
    }

    /// Writes every record queued so far (informational records linger briefly in the queue):
    /// call before the process exits.
    pub fn flush(&self) -> Result<(), TraceWriteError> {
        self.sink.flush()
    }

    /// Traces a record that is not an engine step (an operator action on the trusted path).
    pub fn record(&self, record: TraceRecord) -> Result<Submitted, TraceWriteError> {
        let durable = record.is_durable();
        self.sink.submit(record, durable)
    }
}
