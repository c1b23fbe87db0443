//! Live trajectories: each one's engine state, its deferred events and when it was last used,
//! in a bounded map with idle and least-recently-used eviction. Data only: the decision path
//! ([`super::decide`]) locks, steps and evicts them.

use blindfold_engine::Trajectory;
use blindfold_schemas::{Event, ModeSet};
use dashmap::DashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// One live trajectory: its engine state and when an event last touched it.
pub struct LiveTrajectory {
    state: Mutex<Trajectory>,
    /// Informational events reported with [`observe_soon`] and not applied yet; whoever
    /// next locks `state` applies them first, in order.
    ///
    /// [`observe_soon`]: crate::runtime::app::App::observe_soon
    pub(crate) deferred: Mutex<Vec<Event>>,
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
    /// started with ([`identity_kept`]).
    pub fn identity_pinned(&self, now: ModeSet) -> ModeSet {
        identity_kept(self.started_with, now)
    }
}

/// Live trajectories of this daemon, by Blindfold-assigned id. Bounded: a trajectory idle for
/// `limits.trajectory_idle_s` is evicted by [`sweep_trajectories`], and creating one past
/// `limits.max_trajectories` evicts the least recently used first.
///
/// [`sweep_trajectories`]: crate::runtime::app::App::sweep_trajectories
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

    /// The live trajectories with events deferred by [`observe_soon`] not applied yet.
    ///
    /// [`observe_soon`]: crate::runtime::app::App::observe_soon
    pub(crate) fn with_deferred(&self) -> Vec<(String, Arc<LiveTrajectory>)> {
        let pending =
            |t: &LiveTrajectory| !t.deferred.lock().unwrap_or_else(PoisonError::into_inner).is_empty();
        self.map.iter().filter(|e| pending(e.value())).map(|e| (e.key().clone(), e.value().clone())).collect()
    }

    /// The ids of the live trajectories (the console lists them).
    pub fn ids(&self) -> Vec<String> {
        self.map.iter().map(|e| e.key().clone()).collect()
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

/// Per-trajectory state already out of every map, to be freed. A long trajectory is many small
/// allocations; freeing hundreds of them is milliseconds of work that no request should wait on.
#[derive(Default)]
pub(crate) struct Leftovers(Vec<Box<dyn Send>>);

impl Leftovers {
    pub(crate) fn keep(&mut self, item: Option<impl Send + 'static>) {
        if let Some(item) = item {
            self.0.push(Box::new(item));
        }
    }

    /// Frees everything on the runtime's blocking pool when there is a runtime, else here.
    pub(crate) fn free_off_path(self) {
        if self.0.is_empty() {
            return;
        }
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(move || drop(self))),
            Err(_) => drop(self),
        }
    }
}

/// `now` with the `anonymize` and `attest` of `started`: what a session that started under
/// `started` runs under while the global modes are `now`. Turning either off mid-task would reveal
/// who is who, and turning either on would hide nothing the coordinator has not seen already
/// (SPEC §3), so both change for new sessions only; `preverify`, `grants` and `enforce` follow
/// `now`.
pub(crate) fn identity_kept(started: ModeSet, now: ModeSet) -> ModeSet {
    ModeSet { anonymize: started.anonymize, attest: started.attest, ..now }
}
