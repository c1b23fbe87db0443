//! Answers observed off the relaying path: events deferred on a trajectory and applied by the
//! next step (or a task soon after), and answers forwarded then observed under one lock.

use super::{Recording, settle};
use crate::runtime::app::App;
use crate::runtime::trajectories::LiveTrajectory;
use blindfold_engine::{Input, StepContext, Trajectory};
use blindfold_schemas::Event;
use std::sync::{Arc, PoisonError};

/// Applies the events deferred on a trajectory when dropped: by the task
/// [`App::observe_soon`] spawns, whether the task runs or its runtime drops it unrun.
struct AppliedOnDrop {
    app: App,
    id: String,
    handle: Arc<LiveTrajectory>,
}

impl Drop for AppliedOnDrop {
    fn drop(&mut self) {
        let mut guard = self.handle.lock();
        self.app.apply_deferred(&self.handle, &mut guard, &self.id);
    }
}

impl App {
    /// Records the informational `event` of `trajectory_id` (an agent's answer: nothing waits
    /// for its step or its record) soon rather than now, so that observing an answer
    /// stays off the path relaying it. The event is queued on the trajectory and applied by a
    /// task spawned on the current runtime (here, without one) — or first by any step of the
    /// trajectory that comes before that task runs, since every step applies what is queued
    /// before its own event. A decision made after this returns therefore always sees it.
    pub fn observe_soon(&self, trajectory_id: &str, event: Event) {
        let handle = self.live_trajectory(trajectory_id, crate::unix_now_ms());
        handle.deferred.lock().unwrap_or_else(PoisonError::into_inner).push(event);
        let soon = AppliedOnDrop { app: self.clone(), id: trajectory_id.to_owned(), handle };
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            // A runtime shutting down drops the task unpolled, which applies the event too.
            drop(runtime.spawn(async move { drop(soon) }));
        }
    }

    /// Applies every event still deferred by [`App::observe_soon`] (for a process about to
    /// exit, before its trace is flushed).
    pub fn apply_all_deferred(&self) {
        for (id, handle) in self.trajectories.with_deferred() {
            drop(AppliedOnDrop { app: self.clone(), id, handle });
        }
    }

    /// Applies (in order, under the trajectory's lock held in `guard`) the events queued on
    /// `handle` by [`App::observe_soon`], and queues their records. Their records are
    /// informational; only a step that failed closed (a poisoned state, the event limit) makes
    /// one durable, and that one is waited for here like any other.
    pub(super) fn apply_deferred(
        &self,
        handle: &LiveTrajectory,
        guard: &mut std::sync::LockResult<std::sync::MutexGuard<'_, Trajectory>>,
        trajectory_id: &str,
    ) {
        let events = {
            let mut deferred = handle.deferred.lock().unwrap_or_else(PoisonError::into_inner);
            if deferred.is_empty() {
                return;
            }
            std::mem::take(&mut *deferred)
        };
        let modes = self.modes_of(trajectory_id, handle);
        for event in &events {
            let ctx = StepContext { now_ms: crate::unix_now_ms(), modes, consume: false };
            let started = std::time::Instant::now();
            let (step, queued) =
                self.step_locked(guard, trajectory_id, Input::event(event), ctx, started, Recording::ALL);
            if let Some(q) = queued {
                let durable = q.durable;
                settle(trajectory_id, step, q.written_blocking(), durable);
            }
        }
    }

    /// Runs `forward` (answers' bytes going out) and then records the informational `events`
    /// in order (the `tool_result`s of those answers), holding the trajectory's lock from before
    /// `forward` until every event is applied and its record queued. The bytes go out first —
    /// the observation is off the answers' path — yet every decision of this trajectory takes
    /// the same lock, so none can run between the forward and the observation: a decision made
    /// after an answer was seen always sees what the answer said.
    pub fn observe_around<R>(&self, trajectory_id: &str, events: &[Event], forward: impl FnOnce() -> R) -> R {
        let handle = self.live_trajectory(trajectory_id, crate::unix_now_ms());
        let mut guard = handle.lock();
        self.apply_deferred(&handle, &mut guard, trajectory_id);
        let out = forward();
        let modes = self.modes_of(trajectory_id, &handle);
        let mut settled = Vec::with_capacity(events.len());
        for event in events {
            let ctx = StepContext { now_ms: crate::unix_now_ms(), modes, consume: false };
            let started = std::time::Instant::now();
            settled.push(self.step_locked(
                &mut guard,
                trajectory_id,
                Input::event(event),
                ctx,
                started,
                Recording::ALL,
            ));
        }
        drop(guard);
        for (step, queued) in settled {
            if let Some(q) = queued {
                let durable = q.durable;
                settle(trajectory_id, step, q.written_blocking(), durable);
            }
        }
        out
    }
}
