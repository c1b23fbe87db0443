//! The one path every transport takes for a decision: trajectory state, engine step, and the
//! durable trace record — all failing closed.

use crate::app::App;
use blindfold_engine::{Step, StepContext, Trajectory};
use blindfold_schemas::Event;
use dashmap::DashMap;
use std::sync::{Arc, Mutex};

/// Live trajectories of this daemon, by Blindfold-assigned id.
#[derive(Default)]
pub struct Trajectories {
    map: DashMap<String, Arc<Mutex<Trajectory>>>,
}

impl Trajectories {
    /// The trajectory `id`, created on first use.
    pub fn get_or_create(&self, id: &str) -> Arc<Mutex<Trajectory>> {
        self.map.entry(id.to_owned()).or_insert_with(|| Arc::new(Mutex::new(Trajectory::new(id)))).clone()
    }

    /// Ends a trajectory: its state is evicted (the trace keeps the record).
    pub fn end(&self, id: &str) {
        self.map.remove(id);
    }

    /// Number of live trajectories.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True when none is live.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

impl App {
    /// Decides one event of trajectory `trajectory_id` with the modes in force now.
    ///
    /// `consume` is true at the moment of forwarding (a grant's use is taken), false for a dry run.
    /// A poisoned trajectory lock (a panic elsewhere) yields a denial, never a pass.
    pub fn decide(&self, trajectory_id: &str, event: &Event, consume: bool) -> Step {
        let handle = self.trajectories.get_or_create(trajectory_id);
        let ctx = StepContext { now_ms: crate::unix_now_ms(), modes: self.modes(), consume };
        match handle.lock() {
            Ok(mut trajectory) => self.engine.step(&mut trajectory, event, ctx),
            Err(_) => Step::fail_closed("trajectory state unavailable", ctx.modes.enforce),
        }
    }
}

impl App {
    /// Decides one event and traces it: the decision every transport should take.
    ///
    /// The engine steps under the trajectory's lock, the authority tracker sees the step and the
    /// record is queued in the same critical section (so a trajectory's records are in step
    /// order). A deny and an effectful allow then *wait* until their record is written to the OS
    /// (fsynced with `durability = "fsync"`), batched with whatever else is pending. When the record
    /// cannot be written, the decision becomes an enforced `deny{internal_error}` — in every mode,
    /// `observe` included, since a decision without its record is exactly what must not happen.
    /// Without a trace (`[trace] enabled = false`) this is [`App::decide`].
    pub async fn decide_traced(&self, trajectory_id: &str, event: &Event, consume: bool) -> Step {
        let Some(trace) = self.trace.clone() else {
            return self.decide(trajectory_id, event, consume);
        };
        let handle = self.trajectories.get_or_create(trajectory_id);
        let ctx = StepContext { now_ms: crate::unix_now_ms(), modes: self.modes(), consume };
        let (step, (submitted, durable)) = {
            let started = std::time::Instant::now();
            let mut guard = handle.lock();
            let step = match guard.as_mut() {
                Ok(trajectory) => self.engine.step(trajectory, event, ctx),
                Err(_) => Step::fail_closed("trajectory state unavailable", ctx.modes.enforce),
            };
            let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
            let queued = trace.record_step(trajectory_id, event, &step, ctx.modes, ctx.now_ms, latency_us);
            drop(guard);
            (step, queued)
        };
        let written = match submitted {
            Ok(s) if durable => s.written().await,
            Ok(_) => Ok(()),
            Err(e) => Err(e),
        };
        match written {
            Ok(()) => step,
            Err(e) if durable => {
                tracing::error!(trajectory = trajectory_id, error = %e, "decision denied: trace not written");
                Step::fail_closed(&e.to_string(), true)
            }
            Err(e) => {
                tracing::warn!(trajectory = trajectory_id, error = %e, "informational trace record lost");
                step
            }
        }
    }
}
