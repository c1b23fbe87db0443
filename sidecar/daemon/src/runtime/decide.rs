//! The one path every transport takes for a decision: trajectory state, engine step, and the
//! durable trace record — all failing closed.

use crate::runtime::app::App;
use crate::runtime::trace::{Queued, StepMeta, TraceWriteError};
use blindfold_engine::{Step, StepContext, Trajectory};
use blindfold_schemas::{Event, ModeSet};
use dashmap::DashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// One live trajectory: its engine state and when an event last touched it.
pub struct LiveTrajectory {
    state: Mutex<Trajectory>,
    /// Informational events reported with [`App::observe_soon`] and not applied yet; whoever
    /// next locks `state` applies them first, in order.
    deferred: Mutex<Vec<Event>>,
    /// Milliseconds since the Unix epoch of the last event (idle eviction).
    last_used_ms: AtomicU64,
    /// The daemon-wide use count at the last event (least-recently-used eviction: unlike a
    /// clock reading, two uses never tie).
    last_use: AtomicU64,
    /// The global modes when the trajectory started: its `anonymize` and `attest` for life.
    started_with: ModeSet,
}

impl LiveTrajectory {
    /// Locks the engine state.
    pub fn lock(&self) -> std::sync::LockResult<std::sync::MutexGuard<'_, Trajectory>> {
        self.state.lock()
    }

    /// `now` (the global modes in force) with the `anonymize` and `attest` this trajectory
    /// started with ([`crate::runtime::app::identity_kept`]).
    pub fn identity_pinned(&self, now: ModeSet) -> ModeSet {
        crate::runtime::app::identity_kept(self.started_with, now)
    }
}

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

/// Live trajectories of this daemon, by Blindfold-assigned id. Bounded: a trajectory idle for
/// `limits.trajectory_idle_s` is evicted by [`App::sweep_trajectories`], and creating one past
/// `limits.max_trajectories` evicts the least recently used first.
#[derive(Default)]
pub struct Trajectories {
    map: DashMap<String, Arc<LiveTrajectory>>,
    uses: AtomicU64,
}

impl Trajectories {
    /// The trajectory `id`, created on first use (started under the global modes `modes_now()`
    /// gives), marked used at `now_ms`; true when created.
    pub fn get_or_create(
        &self,
        id: &str,
        now_ms: u64,
        modes_now: impl FnOnce() -> ModeSet,
    ) -> (Arc<LiveTrajectory>, bool) {
        let use_no = self.uses.fetch_add(1, Ordering::Relaxed);
        if let Some(t) = self.map.get(id) {
            t.last_used_ms.fetch_max(now_ms, Ordering::Relaxed);
            t.last_use.fetch_max(use_no, Ordering::Relaxed);
            return (t.clone(), false);
        }
        let mut created = false;
        let t = self
            .map
            .entry(id.to_owned())
            .or_insert_with(|| {
                created = true;
                Arc::new(LiveTrajectory {
                    state: Mutex::new(Trajectory::new(id)),
                    deferred: Mutex::new(Vec::new()),
                    last_used_ms: AtomicU64::new(now_ms),
                    last_use: AtomicU64::new(use_no),
                    started_with: modes_now(),
                })
            })
            .clone();
        (t, created)
    }

    /// The live trajectory `id`, if there is one (never creates it, never marks it used).
    pub fn get(&self, id: &str) -> Option<Arc<LiveTrajectory>> {
        self.map.get(id).map(|t| t.clone())
    }

    /// Ends a trajectory: its state is taken out of the live map and returned (the trace keeps
    /// the record).
    pub fn end(&self, id: &str) -> Option<Arc<LiveTrajectory>> {
        self.map.remove(id).map(|(_, t)| t)
    }

    /// Removes the trajectories idle since before `idle_before_ms`, then, while more than
    /// `keep` remain, the least recently used; never `spare`. Returns what it removed (ids and
    /// states), so the caller can free the states off its path.
    pub fn evict(
        &self,
        idle_before_ms: u64,
        keep: usize,
        spare: Option<&str>,
    ) -> Vec<(String, Arc<LiveTrajectory>)> {
        let mut removed = Vec::new();
        self.map.retain(|id, t| {
            let idle = t.last_used_ms.load(Ordering::Relaxed) < idle_before_ms && spare != Some(id.as_str());
            if idle {
                removed.push((id.clone(), t.clone()));
            }
            !idle
        });
        let excess = self.map.len().saturating_sub(keep);
        if excess > 0 {
            let mut by_age: Vec<(u64, String)> = self
                .map
                .iter()
                .filter(|e| spare != Some(e.key().as_str()))
                .map(|e| (e.value().last_use.load(Ordering::Relaxed), e.key().clone()))
                .collect();
            let excess = excess.min(by_age.len());
            if excess == 0 {
                return removed;
            }
            by_age.select_nth_unstable(excess - 1);
            removed.extend(by_age.into_iter().take(excess).filter_map(|(_, id)| self.map.remove(&id)));
        }
        removed
    }

    /// The live trajectories with events deferred by [`App::observe_soon`] not applied yet.
    fn with_deferred(&self) -> Vec<(String, Arc<LiveTrajectory>)> {
        let pending =
            |t: &LiveTrajectory| !t.deferred.lock().unwrap_or_else(PoisonError::into_inner).is_empty();
        self.map.iter().filter(|e| pending(e.value())).map(|e| (e.key().clone(), e.value().clone())).collect()
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
    /// the trace thread; never the runtime's work; a multi-threaded runtime's worker is handed
    /// over for the wait, see [`Queued::written_blocking`]); when it cannot be written the
    /// decision becomes an enforced `deny{internal_error}`. Async callers may use
    /// [`App::decide_traced`] instead, which awaits rather than blocks.
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
        let now_ms = crate::unix_now_ms();
        let handle = self.live_trajectory(trajectory_id, now_ms);
        let ctx = StepContext { now_ms, modes: self.modes_of(trajectory_id, &handle), consume };
        let started = std::time::Instant::now();
        let mut guard = handle.lock();
        self.apply_deferred(&handle, &mut guard, trajectory_id);
        self.step_locked(&mut guard, trajectory_id, event, ctx, started, blocking)
    }

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
    fn apply_deferred(
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
            let (step, queued) = self.step_locked(guard, trajectory_id, event, ctx, started, true);
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

    /// The live trajectory `id`, marked used at `now_ms`. Creating one past
    /// `limits.max_trajectories` first evicts the least recently used (down to 15/16 of the
    /// limit, so the sort is paid once per sixteenth of it, not per trajectory).
    pub(crate) fn live_trajectory(&self, id: &str, now_ms: u64) -> Arc<LiveTrajectory> {
        let (handle, created) = self.trajectories.get_or_create(id, now_ms, || self.modes());
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
        let step = match (guard.as_mut(), event) {
            (Ok(trajectory), Event::ToolCall { actor, tool, .. }) => {
                self.reviews.hold(trajectory, actor, tool, step, ctx.now_ms)
            }
            _ => step,
        };
        let latency_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        let meta = StepMeta { mode: ctx.modes, ts: ctx.now_ms, latency_us };
        let queued = self.trace.as_ref().map(|trace| {
            let queued = trace.record_step(trajectory_id, event, &step, meta, blocking);
            trace.record_sightings(trajectory_id, event, meta, blocking);
            queued
        });
        (step, queued)
    }
}

/// Per-trajectory state already out of every map, to be freed. A long trajectory is many small
/// allocations; freeing hundreds of them is milliseconds of work that no request should wait on.
#[derive(Default)]
struct Leftovers(Vec<Box<dyn Send>>);

impl Leftovers {
    fn keep(&mut self, item: Option<impl Send + 'static>) {
        if let Some(item) = item {
            self.0.push(Box::new(item));
        }
    }

    /// Frees everything on the runtime's blocking pool when there is a runtime, else here.
    fn free_off_path(self) {
        if self.0.is_empty() {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || drop(self))),
            Err(_) => drop(self),
        }
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

    #[test]
    fn eviction_takes_the_idle_then_the_least_recently_used_never_the_spared() {
        let live = super::Trajectories::default();
        let all = || blindfold_schemas::ModeSet::ALL;
        for (id, at) in [("a", 1), ("b", 2), ("c", 3), ("d", 5)] {
            assert!(live.get_or_create(id, at, all).1, "{id} is new");
        }
        assert!(!live.get_or_create("a", 4, all).1, "a exists: only marked used");
        let ids = |v: Vec<(String, std::sync::Arc<super::LiveTrajectory>)>| -> Vec<String> {
            v.into_iter().map(|(id, _)| id).collect()
        };
        assert_eq!(ids(live.evict(0, 3, None)), vec!["b".to_owned()], "b is the least recently used");
        let mut idle = ids(live.evict(5, 10, Some("a")));
        idle.sort();
        assert_eq!(idle, vec!["c".to_owned()], "c idle since 3; a idle since 4 but spared");
        assert_eq!(ids(live.evict(0, 0, Some("d"))), vec!["a".to_owned()]);
        assert_eq!(live.len(), 1);
        assert!(!live.get_or_create("d", 6, all).1 && live.get_or_create("b", 7, all).1, "b starts afresh");
    }

    /// Sends the thread it is dropped on.
    struct DropWitness(mpsc::Sender<std::thread::ThreadId>);

    impl Drop for DropWitness {
        fn drop(&mut self) {
            let _ = self.0.send(std::thread::current().id());
        }
    }

    #[test]
    fn leftovers_are_freed_off_the_callers_thread_inside_a_runtime_and_here_outside_one() {
        let (tx, rx) = mpsc::channel();
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        runtime.block_on(async {
            let mut leftovers = super::Leftovers::default();
            leftovers.keep(Some(DropWitness(tx.clone())));
            leftovers.free_off_path();
        });
        let freed_on = rx.recv_timeout(Duration::from_secs(10)).expect("freed");
        assert_ne!(freed_on, std::thread::current().id(), "freed on the blocking pool");
        let mut leftovers = super::Leftovers::default();
        leftovers.keep(Some(DropWitness(tx)));
        leftovers.free_off_path();
        assert_eq!(rx.try_recv(), Ok(std::thread::current().id()), "no runtime: freed at once, here");
    }

    fn anonymizer() -> blindfold_engine::identity::Anonymizer {
        use blindfold_engine::identity::{AliasMap, Lexicon};
        blindfold_engine::identity::Anonymizer::new(Lexicon::default(), AliasMap::new(7, ["agent"]))
    }

    #[test]
    fn live_trajectories_stay_within_the_limit_and_take_their_tracker_and_aliases_along() {
        let dir = tempfile::tempdir().expect("dir");
        let app = crate::runtime::trace::tests::app_with(dir.path(), u64::MAX, None, |c| {
            c.limits.max_trajectories = 16
        });
        let task = |i: usize| Event::Task { text: format!("task number {i}") };
        let adopted = |app: &crate::runtime::app::App, id: &str| {
            let mut made = false;
            app.identities.adopt(id, || {
                made = true;
                anonymizer()
            });
            !made
        };
        for i in 0..100 {
            let id = format!("t{i}");
            app.identities.adopt(&id, anonymizer);
            app.trajectory_modes.insert(id.clone(), app.modes());
            app.decide(&id, &task(i), true);
            assert!(app.trajectories.len() <= 16, "{} live after {i}", app.trajectories.len());
            assert!(app.trace.as_ref().expect("trace").report(&id).is_some(), "the newest is live");
        }
        // t0 went long ago, with its tracker and aliases; the operator's mode override stays.
        assert!(app.trace.as_ref().expect("trace").report("t0").is_none());
        assert!(!adopted(&app, "t0"), "t0's aliases were forgotten");
        assert!(app.trajectory_modes.contains_key("t0"), "an eviction never relaxes an override");
        assert!(adopted(&app, "t99"));
        // Trajectories a path only asked the modes of (their start pinned) are bounded alike.
        for i in 0..100 {
            app.modes_for(&format!("seen{i}"));
            assert!(app.trajectories.len() <= 16, "{} live after seen{i}", app.trajectories.len());
        }
        // A trajectory ended on the control API goes whole, its override too.
        app.end_trajectory("t99");
        assert!(app.trace.as_ref().expect("trace").report("t99").is_none());
        assert!(!adopted(&app, "t99"));
        assert!(!app.trajectory_modes.contains_key("t99"));
    }

    #[test]
    fn a_trajectory_keeps_the_anonymize_and_attest_it_started_with_and_follows_the_rest() {
        use blindfold_schemas::ModeSet;
        let dir = tempfile::tempdir().expect("dir");
        let app = crate::runtime::trace::tests::app_in(dir.path(), u64::MAX, None);
        let attest = ModeSet { anonymize: false, attest: true, ..ModeSet::ALL };
        app.modes.send_replace(attest);
        assert_eq!(app.modes_for("started-attested"), attest, "first seen: started");
        app.modes.send_replace(ModeSet::ALL);
        assert_eq!(app.modes_for("started-scrubbed"), ModeSet::ALL);
        app.decide("decided-first", &Event::Task { text: "a task".into() }, true);

        app.modes.send_replace(ModeSet::OFF);
        let kept = ModeSet { anonymize: true, ..ModeSet::OFF };
        assert_eq!(app.modes_for("started-scrubbed"), kept, "enforce follows, anonymize stays");
        assert_eq!(app.modes_for("decided-first"), kept, "an engine step starts a trajectory too");
        assert_eq!(app.modes_for("started-attested"), ModeSet { attest: true, ..ModeSet::OFF });
        assert_eq!(app.modes_for("started-later"), ModeSet::OFF, "a new trajectory takes the new modes");
        app.modes.send_replace(ModeSet::ALL);
        assert_eq!(app.modes_for("started-later"), ModeSet { anonymize: false, ..ModeSet::ALL });

        // An operator's override for one trajectory beats what it started with; cleared, the
        // start holds again.
        app.trajectory_modes.insert("started-scrubbed".into(), ModeSet::OFF);
        assert_eq!(app.modes_for("started-scrubbed"), ModeSet::OFF);
        app.trajectory_modes.remove("started-scrubbed");
        assert_eq!(app.modes_for("started-scrubbed"), ModeSet::ALL);

        // The start goes with the live state: ended, the trajectory starts afresh.
        app.modes.send_replace(ModeSet::OFF);
        app.end_trajectory("started-scrubbed");
        assert_eq!(app.modes_for("started-scrubbed"), ModeSet::OFF);
    }

    #[test]
    fn the_sweep_evicts_trajectories_idle_past_the_limit() {
        let dir = tempfile::tempdir().expect("dir");
        let app = crate::runtime::trace::tests::app_with(dir.path(), u64::MAX, None, |c| {
            c.limits.trajectory_idle = Duration::from_secs(1);
        });
        app.decide("old", &Event::Task { text: "an old task".into() }, true);
        assert_eq!(app.sweep_trajectories(), 0, "not idle yet");
        std::thread::sleep(Duration::from_millis(1100));
        app.decide("new", &Event::Task { text: "a new task".into() }, true);
        assert_eq!(app.sweep_trajectories(), 1);
        assert!(app.trace.as_ref().expect("trace").report("old").is_none());
        assert!(app.trace.as_ref().expect("trace").report("new").is_some());
        assert_eq!(app.trajectories.len(), 1);
    }

    /// A write with no task, grant or evidence behind it: a denial, so its record is durable.
    fn unsupported_write() -> Event {
        let args = json!({"path": "/srv/app/settings.yml", "content": "x"});
        Event::ToolCall {
            actor: "coordinator".into(),
            tool: "write_file".into(),
            args: args.as_object().cloned().expect("object"),
            proposal: None,
            call_id: None,
        }
    }

    #[test]
    fn a_durable_wait_works_on_one_worker_on_a_current_thread_runtime_and_without_one() {
        let dir = tempfile::tempdir().expect("dir");
        let app = std::sync::Arc::new(crate::runtime::trace::tests::app_in(dir.path(), u64::MAX, None));
        let denied = |app: &crate::runtime::app::App, id: &str| {
            let step = app.decide(id, &unsupported_write(), false);
            assert!(step.blocks(), "{id}: {:?}", step.decision);
        };
        // One worker, inside a task: the wait runs in `block_in_place`, and the runtime goes on
        // (its other task completes afterwards).
        let one = tokio::runtime::Builder::new_multi_thread().worker_threads(1).build().expect("runtime");
        let a = app.clone();
        one.block_on(async move {
            let other = tokio::spawn(async { 7 });
            tokio::spawn(async move { denied(&a, "multi") }).await.expect("decided");
            assert_eq!(other.await.expect("ran"), 7);
        });
        // A current-thread runtime cannot hand its thread over (`block_in_place` would panic
        // there): the wait blocks in place.
        let current = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        current.block_on(async { denied(&app, "current") });
        denied(&app, "plain");
        let trace = app.trace.as_ref().expect("trace");
        trace.flush().expect("flushed");
        let files = std::fs::read_dir(dir.path().join("traces")).expect("trace dir");
        let written: String = files.filter_map(|f| std::fs::read_to_string(f.ok()?.path()).ok()).collect();
        for id in ["multi", "current", "plain"] {
            assert!(written.contains(&format!("\"trajectory\":\"{id}\"")), "{id}'s denial is on disk");
        }
    }

    fn check(step: &blindfold_engine::Step) -> String {
        step.decision.as_ref().map(|d| d.check.clone()).unwrap_or_default()
    }

    #[test]
    fn a_decision_once_an_answer_is_out_sees_its_tool_result() {
        let dir = tempfile::tempdir().expect("dir");
        let app = crate::runtime::trace::tests::app_in(dir.path(), u64::MAX, None);
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
