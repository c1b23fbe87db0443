//! The one path every transport takes for a decision: trajectory state, engine step, and the
//! durable trace record — all failing closed.

use crate::app::App;
use crate::trace::{Queued, StepMeta, TraceWriteError};
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
        if let Some(t) = self.map.get(id) {
            return t.clone();
        }
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
    /// Decides one event of trajectory `trajectory_id` with the modes in force now, and traces it.
    ///
    /// `consume` is true at the moment of forwarding (a grant's use is taken), false for a dry run.
    /// A poisoned trajectory lock (a panic elsewhere) yields a denial, never a pass. A deny and an
    /// effectful allow block the calling thread until their trace record is written (a `write` on
    /// the trace thread; never the runtime's work); when it cannot be written the decision becomes
    /// an enforced `deny{internal_error}`. Async callers may use [`App::decide_traced`] instead,
    /// which awaits rather than blocks.
    pub fn decide(&self, trajectory_id: &str, event: &Event, consume: bool) -> Step {
        let (step, queued) = self.step_and_queue(trajectory_id, event, consume, true);
        match queued {
            None => step,
            Some(q) => {
                let durable = q.durable;
                settle(trajectory_id, step, q.written_blocking(), durable)
            }
        }
    }

    /// [`App::decide`] for async callers: the same decision and record, awaiting the write.
    pub async fn decide_traced(&self, trajectory_id: &str, event: &Event, consume: bool) -> Step {
        let (step, queued) = self.step_and_queue(trajectory_id, event, consume, false);
        match queued {
            None => step,
            Some(q) => {
                let durable = q.durable;
                settle(trajectory_id, step, q.written().await, durable)
            }
        }
    }

    /// Steps the engine and queues the trace record under the trajectory's lock, so a
    /// trajectory's records are in step order. `None` when tracing is off.
    fn step_and_queue(
        &self,
        trajectory_id: &str,
        event: &Event,
        consume: bool,
        blocking: bool,
    ) -> (Step, Option<Queued>) {
        let handle = self.trajectories.get_or_create(trajectory_id);
        let ctx = StepContext { now_ms: crate::unix_now_ms(), modes: self.modes_for(trajectory_id), consume };
        let started = std::time::Instant::now();
        let mut guard = handle.lock();
        self.step_locked(&mut guard, trajectory_id, event, ctx, started, blocking)
    }

    /// Runs `forward` (answers' bytes going out) and then records the informational `events`
    /// in order (the `tool_result`s of those answers), holding the trajectory's lock from before
    /// `forward` until every event is applied and its record queued. The bytes go out first —
    /// the observation is off the answers' path — yet every decision of this trajectory takes
    /// the same lock, so none can run between the forward and the observation: a decision made
    /// after an answer was seen always sees what the answer said.
    pub fn observe_around<R>(&self, trajectory_id: &str, events: &[Event], forward: impl FnOnce() -> R) -> R {
        let handle = self.trajectories.get_or_create(trajectory_id);
        let mut guard = handle.lock();
        let out = forward();
        let modes = self.modes_for(trajectory_id);
        let mut settled = Vec::with_capacity(events.len());
        for event in events {
            let ctx = StepContext { now_ms: crate::unix_now_ms(), modes, consume: false };
            let started = std::time::Instant::now();
            settled.push(self.step_locked(&mut guard, trajectory_id, event, ctx, started, true));
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

    /// [`App::step_and_queue`] once the trajectory's lock is held.
    fn step_locked(
        &self,
        guard: &mut std::sync::LockResult<std::sync::MutexGuard<'_, Trajectory>>,
        trajectory_id: &str,
        event: &Event,
        ctx: StepContext,
        started: std::time::Instant,
        blocking: bool,
    ) -> (Step, Option<Queued>) {
        let max_events = self.config.limits.max_events_per_trajectory;
        let step = match guard.as_mut() {
            Ok(trajectory) if trajectory.events >= max_events => over_event_limit(trajectory_id, max_events),
            Ok(trajectory) => self.engine.step(trajectory, event, ctx),
            Err(_) => Step::fail_closed("trajectory state unavailable", ctx.modes.enforce),
        };
        // An effectful action left to a human is held in the durable review queue.
        let step = match (guard.as_ref(), event) {
            (Ok(trajectory), Event::ToolCall { actor, tool, .. }) => {
                self.reviews.hold(trajectory, actor, tool, step, ctx.now_ms)
            }
            _ => step,
        };
        let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let meta = StepMeta { mode: ctx.modes, ts: ctx.now_ms, latency_us };
        let queued =
            self.trace.as_ref().map(|trace| trace.record_step(trajectory_id, event, &step, meta, blocking));
        (step, queued)
    }
}

/// The enforced denial of an event past `limits.max_events_per_trajectory` (in every mode: the
/// trajectory's state would otherwise grow without bound).
fn over_event_limit(trajectory_id: &str, max: u64) -> Step {
    use blindfold_schemas::{Decision, Layer, Reason};
    tracing::warn!(trajectory = trajectory_id, max, "event refused: limits.max_events_per_trajectory");
    let detail = format!(
        "the trajectory reached {max} events (limits.max_events_per_trajectory); end it and start a new one"
    );
    Step {
        decision: Some(
            Decision::deny(Reason::LimitExceeded, "P0.limit", Layer::ContentFree).with_detail(detail),
        ),
        enforced: true,
        ..Step::default()
    }
}

/// The decision once its record is (or is not) written: a durable record that could not be
/// written turns the decision into an enforced denial — in every mode, `observe` included, since a
/// decision without its record is exactly what must not happen.
fn settle(trajectory_id: &str, step: Step, written: Result<(), TraceWriteError>, durable: bool) -> Step {
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

#[cfg(test)]
mod tests {
    use blindfold_schemas::Event;
    use serde_json::json;
    use std::sync::mpsc;
    use std::time::Duration;

    fn check(step: &blindfold_engine::Step) -> String {
        step.decision.as_ref().map(|d| d.check.clone()).unwrap_or_default()
    }

    #[test]
    fn a_decision_once_an_answer_is_out_sees_its_tool_result() {
        let dir = tempfile::tempdir().expect("dir");
        let app = crate::trace::tests::app_in(dir.path(), u64::MAX, None);
        app.decide("t", &Event::Task { text: "tidy up the service configuration".into() }, true);
        let args = json!({"path": "/srv/app/settings.yml", "content": "x"});
        let write = Event::ToolCall {
            actor: "coordinator".into(),
            tool: "write_file".into(),
            args: args.as_object().cloned().expect("object"),
            proposal: None,
            call_id: Some("2".into()),
        };
        // Named nowhere yet: refused for want of evidence.
        assert_eq!(check(&app.decide("t", &write, false)), "P2.target_in_evidence");
        let answer = Event::ToolResult {
            tool: "read_file".into(),
            content: "the settings live in /srv/app/settings.yml".into(),
            call_id: Some("1".into()),
        };
        // The client reads the answer while it is being forwarded and decides at once; the
        // forward lingers to give that decision every chance to run before the observation.
        let (out_tx, out_rx) = mpsc::channel();
        let (asking_tx, asking_rx) = mpsc::channel();
        let after = std::thread::scope(|s| {
            let (app, write) = (&app, &write);
            let client = s.spawn(move || {
                out_rx.recv().expect("answer forwarded");
                asking_tx.send(()).expect("forwarder waits");
                app.decide("t", write, false)
            });
            app.observe_around("t", std::slice::from_ref(&answer), || {
                out_tx.send(()).expect("client waits");
                asking_rx.recv().expect("client decides");
                std::thread::sleep(Duration::from_millis(50));
            });
            client.join().expect("client thread")
        });
        assert_ne!(check(&after), "P2.target_in_evidence", "the decision missed the tool result: {after:?}");
    }
}
