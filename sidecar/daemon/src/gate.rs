//! The one path every transport takes for a decision: trajectory state, engine step, and (as the
//! trace work lands) the durable trace record — all failing closed.

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
