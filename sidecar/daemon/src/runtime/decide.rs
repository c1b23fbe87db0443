//! The one path every message takes for a decision, in order: the engine's step (frame checks,
//! the event limit, the event kind's cascade — [`blindfold_engine::Engine::step_with`]), the
//! review hold of what it left to a human, the trace record, and settlement (no decision without
//! its durable record) — all failing closed. A transport gets back what it may forward
//! ([`Authorized`]) or the refusal to answer with ([`Refused`]).

use crate::runtime::app::App;
use crate::runtime::permit::{Authorized, Decided, Refused, RemoteDecider};
use crate::runtime::trace::{Queued, StepMeta, TraceWriteError};
use crate::runtime::trajectories::{Leftovers, LiveTrajectory};
use blindfold_engine::{Input, Step, StepContext, Trajectory};
use blindfold_schemas::{Event, ModeSet};
use std::sync::Arc;

impl App {
    /// The modes in force now for `trajectory`: its override (`set_modes {trajectory}`, an
    /// operator's choice for that one trajectory), else the global modes with the `anonymize` and
    /// `attest` it started with ([`LiveTrajectory::identity_pinned`]).
    ///
    /// Asking starts the trajectory when it is not live: it starts when any path first sees it,
    /// at its first engine step or earlier on a path that scrubs before any step (the model
    /// proxy's first request, an A2A answer, an MCP frame), so the first message is scrubbed
    /// under the modes the rest of the trajectory keeps. The pin goes with the live state: a
    /// trajectory ended, or evicted (idle for `limits.trajectory_idle_s`, or past
    /// `limits.max_trajectories`), starts afresh under the global modes of that moment.
    pub fn modes_for(&self, trajectory: &str) -> ModeSet {
        let live = self.live_trajectory(trajectory, crate::unix_now_ms());
        self.modes_of(trajectory, &live)
    }

    /// [`App::modes_for`] of the live trajectory `trajectory`, whose state `live` the caller holds.
    pub(crate) fn modes_of(&self, trajectory: &str, live: &LiveTrajectory) -> ModeSet {
        match self.trajectory_modes.get(trajectory) {
            Some(m) => *m,
            None => live.identity_pinned(self.modes()),
        }
    }

    /// Decides one event of trajectory `trajectory_id` with the modes in force now, and traces it.
    ///
    /// `consume` is true at the moment of forwarding (a grant's use is taken), false for a dry run.
    /// A poisoned trajectory lock (a panic elsewhere) yields a denial, never a pass. A deny and an
    /// effectful allow block the calling thread until their trace record is written (a `write` on
    /// the trace thread; never the runtime's work; a multi-threaded runtime's worker is handed
    /// over for the wait, see [`Queued::written_blocking`]); when it cannot be written the
    /// decision becomes an enforced `deny{internal_error}`. Async callers may use
    /// [`App::decide_traced`] instead, which awaits rather than blocks.
    pub fn decide(&self, trajectory_id: &str, event: &Event, consume: bool) -> Step {
        self.decide_input(trajectory_id, Input::event(event), consume)
    }

    /// [`App::decide`] for async callers: the same decision and record, awaiting the write.
    pub async fn decide_traced(&self, trajectory_id: &str, event: &Event, consume: bool) -> Step {
        self.decide_input_traced(trajectory_id, Input::event(event), consume).await
    }

    /// [`App::decide`] of a message with the facts its transport saw (or of one that never
    /// became an event).
    ///
    /// An action held as unverified, with `[preverify] verifiers` configured, is held while
    /// Blindfold asks a verifier and decided again on its answer ([`crate::runtime::verifiers`]).
    pub fn decide_input(&self, trajectory_id: &str, input: Input<'_>, consume: bool) -> Step {
        let step = self.decide_input_with(trajectory_id, input, consume, Recording::FIRST);
        self.preverified(trajectory_id, input, step, || {
            self.decide_input_plain(trajectory_id, input, consume)
        })
    }

    /// [`App::decide_input`] without asking a verifier.
    pub(crate) fn decide_input_plain(&self, trajectory_id: &str, input: Input<'_>, consume: bool) -> Step {
        self.decide_input_with(trajectory_id, input, consume, Recording::ALL)
    }

    fn decide_input_with(
        &self,
        trajectory_id: &str,
        input: Input<'_>,
        consume: bool,
        rec: Recording,
    ) -> Step {
        let (step, queued) = self.step_and_queue(trajectory_id, input, consume, rec);
        match queued {
            None => step,
            Some(q) => {
                let durable = q.durable;
                settle(trajectory_id, step, q.written_blocking(), durable)
            }
        }
    }

    /// [`App::decide_input`] for async callers.
    pub async fn decide_input_traced(&self, trajectory_id: &str, input: Input<'_>, consume: bool) -> Step {
        let step = self.decide_input_traced_with(trajectory_id, input, consume, Recording::FIRST).await;
        self.preverified_traced(trajectory_id, input, consume, step).await
    }

    /// [`App::decide_input_traced`] without asking a verifier.
    pub(crate) async fn decide_input_traced_plain(
        &self,
        trajectory_id: &str,
        input: Input<'_>,
        consume: bool,
    ) -> Step {
        self.decide_input_traced_with(trajectory_id, input, consume, Recording::ALL).await
    }

    async fn decide_input_traced_with(
        &self,
        trajectory_id: &str,
        input: Input<'_>,
        consume: bool,
        rec: Recording,
    ) -> Step {
        let rec = Recording { blocking: false, ..rec };
        let (step, queued) = self.step_and_queue(trajectory_id, input, consume, rec);
        match queued {
            None => step,
            Some(q) => {
                let durable = q.durable;
                settle(trajectory_id, step, q.written().await, durable)
            }
        }
    }

    /// Decides `input` of `trajectory_id` ([`App::decide_input`]) and hands back `value` — what
    /// the transport would forward — as [`Authorized`] when it may go, or the [`Refused`] to
    /// answer with. A message that never became an event and that its transport found no fault
    /// in needs no decision: it passes untraced (a response, a notification).
    pub fn permit<T>(&self, trajectory_id: &str, input: Input<'_>, consume: bool, value: T) -> Decided<T> {
        if input.event.is_none() && input.facts.is_empty() {
            return Ok(Authorized::new(value, None));
        }
        let step = self.decide_input(trajectory_id, input, consume);
        self.settled(trajectory_id, step, value)
    }

    /// [`App::permit`] for async callers.
    pub async fn permit_traced<T>(
        &self,
        trajectory_id: &str,
        input: Input<'_>,
        consume: bool,
        value: T,
    ) -> Decided<T> {
        if input.event.is_none() && input.facts.is_empty() {
            return Ok(Authorized::new(value, None));
        }
        let step = self.decide_input_traced(trajectory_id, input, consume).await;
        self.settled(trajectory_id, step, value)
    }

    /// [`App::permit`] of an event decided by `remote` (a relay deciding through a running
    /// daemon, which traces it); a message that is no event is decided here, as by
    /// [`App::permit`] (framing is this relay's).
    pub fn permit_via<T>(
        &self,
        remote: &mut dyn RemoteDecider,
        trajectory_id: &str,
        input: Input<'_>,
        value: T,
    ) -> Decided<T> {
        let Some(event) = input.event else { return self.permit(trajectory_id, input, true, value) };
        match remote.decide(trajectory_id, event, input.facts) {
            Ok(()) => Ok(Authorized::new(value, None)),
            Err(refusal) => Err(Refused::remote(refusal)),
        }
    }

    /// Decides and traces a message with a hygiene fault (`P0.frame`: refused in every mode)
    /// and returns its refusal, for the transport to answer in its protocol's own error.
    pub fn refuse(&self, trajectory_id: &str, facts: &blindfold_schemas::Facts) -> Refused {
        let step = self.decide_input(trajectory_id, Input::frame(facts), false);
        let step = if step.blocks() { step } else { Step::fail_closed("a faulty frame was not refused") };
        Refused::of(self, trajectory_id, step)
    }

    /// The last step of the path: a blocking step becomes the refusal, any other authorizes
    /// `value`.
    fn settled<T>(&self, trajectory_id: &str, step: Step, value: T) -> Decided<T> {
        if step.blocks() {
            Err(Refused::of(self, trajectory_id, step))
        } else {
            Ok(Authorized::new(value, Some(step)))
        }
    }

    /// Records a refusal made before any engine step (a request that belongs to no registered
    /// session): the record of `event` with `decision`, enforced, waited for.
    pub fn record_refusal(&self, trajectory_id: &str, event: &Event, decision: &blindfold_schemas::Decision) {
        let step = Step { decision: Some(decision.clone()), enforced: true, ..Step::default() };
        let Some(trace) = &self.trace else { return };
        let handle = self.live_trajectory(trajectory_id, crate::unix_now_ms());
        let modes = self.modes_of(trajectory_id, &handle);
        let meta = StepMeta { mode: modes, ts: crate::unix_now_ms(), latency_us: 0 };
        let guard = handle.lock();
        let queued = trace.record_step(trajectory_id, event, &step, meta, true);
        drop(guard);
        if let Err(e) = queued.written_blocking() {
            tracing::error!(trajectory = trajectory_id, error = %e, "refusal not traced");
        }
    }

    /// Steps the engine and queues the trace record under the trajectory's lock, so a
    /// trajectory's records are in step order. `None` when tracing is off, or when `quiet` and
    /// the step lets the event through. A message that never became an event is decided without
    /// the trajectory's state (it starts no trajectory).
    fn step_and_queue(
        &self,
        trajectory_id: &str,
        input: Input<'_>,
        consume: bool,
        rec: Recording,
    ) -> (Step, Option<Queued>) {
        let Some(event) = input.event else {
            return self.frame_and_queue(trajectory_id, input, rec.blocking);
        };
        let input = Input::with_facts(event, input.facts);
        let now_ms = crate::unix_now_ms();
        let handle = self.live_trajectory(trajectory_id, now_ms);
        let ctx = StepContext { now_ms, modes: self.modes_of(trajectory_id, &handle), consume };
        let started = std::time::Instant::now();
        let mut guard = handle.lock();
        self.apply_deferred(&handle, &mut guard, trajectory_id);
        self.step_locked(&mut guard, trajectory_id, input, ctx, started, rec)
    }

    /// [`App::step_and_queue`] of a message that never became an event: the engine's frame
    /// checks under the trajectory's modes (the global ones when it is not live), traced.
    fn frame_and_queue(
        &self,
        trajectory_id: &str,
        input: Input<'_>,
        blocking: bool,
    ) -> (Step, Option<Queued>) {
        let now_ms = crate::unix_now_ms();
        let started = std::time::Instant::now();
        let modes = match (self.trajectory_modes.get(trajectory_id), self.trajectories.get(trajectory_id)) {
            (Some(m), _) => *m,
            (None, Some(live)) => live.identity_pinned(self.modes()),
            (None, None) => self.modes(),
        };
        let step = self.engine.frame(input.facts, modes);
        let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let meta = StepMeta { mode: modes, ts: now_ms, latency_us };
        let queued =
            self.trace.as_ref().map(|t| t.record_frame(trajectory_id, input.facts, &step, meta, blocking));
        (step, queued)
    }

    /// The live trajectory `id`, marked used at `now_ms`. Creating one past
    /// `limits.max_trajectories` first evicts the least recently used (down to 15/16 of the
    /// limit, so the sort is paid once per sixteenth of it, not per trajectory).
    pub(crate) fn live_trajectory(&self, id: &str, now_ms: u64) -> Arc<LiveTrajectory> {
        let (handle, created) =
            self.trajectories.get_or_create(id, now_ms, || self.kept_modes(id, self.modes()));
        let max = self.config.limits.max_trajectories;
        if created && self.trajectories.len() > max {
            let evicted = self.trajectories.evict(0, (max - max / 16).max(1), Some(id));
            self.forget_evicted(evicted, "limits.max_trajectories");
        }
        handle
    }

    /// Evicts the trajectories idle for `limits.trajectory_idle_s` (and any past
    /// `limits.max_trajectories`); returns how many went. Run periodically by `blindfold run`.
    pub fn sweep_trajectories(&self) -> usize {
        let limits = &self.config.limits;
        let idle_ms = u64::try_from(limits.trajectory_idle.as_millis()).unwrap_or(u64::MAX);
        let before = crate::unix_now_ms().saturating_sub(idle_ms);
        let evicted = self.trajectories.evict(before, limits.max_trajectories, None);
        let n = evicted.len();
        self.forget_evicted(evicted, "limits.trajectory_idle_s");
        n
    }

    /// Runs `change` on the engine state of the live trajectory `id`, under its lock and after
    /// the events deferred on it are applied (so it sees every answer already relayed). `None`
    /// when no such trajectory is live; `Some(Err(()))` when its state is unavailable (a
    /// poisoned lock).
    pub fn with_live_trajectory<R>(
        &self,
        id: &str,
        change: impl FnOnce(&mut Trajectory) -> R,
    ) -> Option<Result<R, ()>> {
        let handle = self.trajectories.get(id)?;
        let mut guard = handle.lock();
        self.apply_deferred(&handle, &mut guard, id);
        Some(guard.as_mut().map(|t| change(t)).map_err(|_| ()))
    }

    /// Ends trajectory `id`: its engine state, authority tracker, aliases and mode override go
    /// (its trace records stay). A later event under the same id starts a fresh trajectory.
    pub fn end_trajectory(&self, id: &str) {
        let mut leftovers = Leftovers::default();
        leftovers.keep(self.trajectories.end(id));
        self.forget_trajectory(id, &mut leftovers);
        self.trajectory_modes.remove(id);
        self.identities.forget(id);
        if let Some(v) = &self.verifiers {
            v.forget(id);
        }
        if let Err(e) = self.kept.remove(id) {
            tracing::warn!(trajectory = id, error = %e, "kept trajectory not removed");
        }
        leftovers.free_off_path();
    }

    /// Drops what other parts keep for trajectories the live map evicted under `limit`. An
    /// operator's mode override stays: it was set on the trusted path, may be stricter than the
    /// global modes, and goes only when the operator clears it or ends the trajectory.
    /// The evicted states (and the trackers and aliases forgotten with them) are freed off the
    /// caller's path: 257 conversations of 100 messages took 10–13 ms to free, inside the request
    /// whose new trajectory triggered the eviction.
    fn forget_evicted(&self, evicted: Vec<(String, Arc<LiveTrajectory>)>, limit: &str) {
        if evicted.is_empty() {
            return;
        }
        let n = evicted.len();
        let mut leftovers = Leftovers::default();
        for (id, state) in evicted {
            self.forget_trajectory(&id, &mut leftovers);
            leftovers.keep(Some(state));
        }
        leftovers.free_off_path();
        tracing::info!(evicted = n, live = self.trajectories.len(), limit, "trajectories evicted");
    }

    /// Takes the authority tracker and aliases of trajectory `id` out of their maps (it left the
    /// live map) into `leftovers`.
    fn forget_trajectory(&self, id: &str, leftovers: &mut Leftovers) {
        if let Some(trace) = &self.trace {
            leftovers.keep(trace.end(id));
        }
        leftovers.keep(self.identities.end(id));
    }

    /// [`App::step_and_queue`] of an event once the trajectory's lock is held: the engine's
    /// step, the review hold, the refusal's note, the trace record, as `rec` says.
    fn step_locked(
        &self,
        guard: &mut std::sync::LockResult<std::sync::MutexGuard<'_, Trajectory>>,
        trajectory_id: &str,
        input: Input<'_>,
        ctx: StepContext,
        started: std::time::Instant,
        rec: Recording,
    ) -> (Step, Option<Queued>) {
        let Recording { blocking, quiet, first } = rec;
        let Some(event) = input.event else {
            return (Step::fail_closed("a frame reached the event path"), None);
        };
        let step = match guard.as_mut() {
            Ok(trajectory) => self.engine.step_with(trajectory, input, ctx),
            Err(_) => Step::fail_closed("trajectory state unavailable"),
        };
        if let Some(d) = step.decision.as_ref().filter(|d| d.check == blindfold_schemas::CheckId::EventLimit)
        {
            tracing::warn!(trajectory = trajectory_id, detail = ?d.detail, "event refused: limits.max_events_per_trajectory");
        }
        // An unverified action is decided again once what can verify it was waited for (a
        // verification request out for it, a verifier Blindfold asks): that decision is the one
        // held, counted and recorded.
        if first && self.decided_again(event, &step) {
            return (step, None);
        }
        // An effectful action left to a human is held in the durable review queue.
        let step = match (guard.as_mut(), event) {
            (Ok(trajectory), Event::ToolCall { actor, tool, .. }) => {
                self.reviews.hold(trajectory, actor, tool, step, ctx.now_ms)
            }
            _ => step,
        };
        if let (true, Event::ToolCall { actor, tool, .. }) = (step.blocks(), event) {
            self.note_refusal(trajectory_id, actor, tool, &step, ctx.now_ms);
        }
        let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        // Counted where it is traced: the metrics' decisions are the trace's decision records.
        self.metrics.decided(self.transport, ctx.modes, ctx.consume, &step, latency_us);
        let meta = StepMeta { mode: ctx.modes, ts: ctx.now_ms, latency_us };
        if quiet && !step.blocks() {
            return (step, None);
        }
        let queued = self.trace.as_ref().map(|trace| {
            let queued = trace.record_step(trajectory_id, event, &step, meta, blocking);
            trace.record_sightings(trajectory_id, event, meta, blocking);
            queued
        });
        (step, queued)
    }
}

/// What a step of the decision path records.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Recording {
    /// Wait for a durable record on the calling thread (else the caller awaits it).
    pub blocking: bool,
    /// Record only what blocks (a backstop's dry run).
    pub quiet: bool,
    /// The first decision of a message: an unverified action is returned unheld and
    /// unrecorded, to be decided again after waiting for what can verify it.
    pub first: bool,
}

impl Recording {
    /// Everything, waited for.
    pub const ALL: Self = Self { blocking: true, quiet: false, first: false };
    /// [`Recording::ALL`] of a first decision.
    pub const FIRST: Self = Self { blocking: true, quiet: false, first: true };
}

/// The decision once its record is (or is not) written: a durable record that could not be
/// written turns the decision into an enforced denial — in every mode, `observe` included, since a
/// decision without its record is exactly what must not happen.
fn settle(trajectory_id: &str, step: Step, written: Result<(), TraceWriteError>, durable: bool) -> Step {
    match written {
        Ok(()) => step,
        Err(e) if durable => {
            tracing::error!(trajectory = trajectory_id, error = %e, "decision denied: trace not written");
            Step::fail_closed(&e.to_string())
        }
        Err(e) => {
            tracing::warn!(trajectory = trajectory_id, error = %e, "informational trace record lost");
            step
        }
    }
}

mod backstop;
mod deferred;
mod notes;
#[cfg(test)]
mod tests;
mod verified;
