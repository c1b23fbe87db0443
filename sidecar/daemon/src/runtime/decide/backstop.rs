//! The backstop's dry run: a decision ahead of the gate that decides the same message again when
//! it runs (the model-API proxy in a harness session whose plugin gates and records every call).

use super::{Recording, settle};
use crate::runtime::app::App;
use crate::runtime::permit::{Authorized, Decided};
use blindfold_engine::{Input, Step};

impl App {
    /// A backstop's dry run of `input` ahead of the gate that will decide it again when it runs
    /// (the model-API proxy in a harness session whose plugin gates and records every call): the
    /// same decision as [`App::decide_input`] without a grant's use, recorded only when it blocks
    /// — what it lets through is recorded once, by the gate that runs it.
    ///
    /// An unverified action is verified here as on the gate ([`App::decide_input`]): the gate
    /// that runs it later finds the verification recorded.
    pub fn decide_backstop(&self, trajectory_id: &str, input: Input<'_>) -> Step {
        let first = Recording { quiet: true, ..Recording::FIRST };
        let step = self.decide_backstop_with(trajectory_id, input, first);
        let again = Recording { quiet: true, ..Recording::ALL };
        self.preverified(trajectory_id, input, step, || {
            self.decide_backstop_with(trajectory_id, input, again)
        })
    }

    fn decide_backstop_with(&self, trajectory_id: &str, input: Input<'_>, rec: Recording) -> Step {
        let (step, queued) = self.step_and_queue(trajectory_id, input, false, rec);
        match queued {
            None => step,
            Some(q) => {
                let durable = q.durable;
                settle(trajectory_id, step, q.written_blocking(), durable)
            }
        }
    }

    /// [`App::permit`] of a backstop's dry run ([`App::decide_backstop`]).
    pub fn permit_backstop<T>(&self, trajectory_id: &str, input: Input<'_>, value: T) -> Decided<T> {
        if input.event.is_none() && input.facts.is_empty() {
            return Ok(Authorized::new(value, None));
        }
        let step = self.decide_backstop(trajectory_id, input);
        self.settled(trajectory_id, step, value)
    }
}
