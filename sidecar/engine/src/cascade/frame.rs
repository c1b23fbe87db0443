//! The checks before any event kind's own: a message that never became an event is decided by
//! [`FRAME`] alone (listener hygiene, then the methods Blindfold relays), and every event first
//! passes [`EVERY_EVENT`] (the trajectory's bound), before it touches any state.

use super::{Check, Stop};
use crate::engine::{Engine, Trajectory};
use blindfold_schemas::{CheckId, Facts, Reason};

/// A frame check function.
pub type FrameCheck = fn(&Facts) -> Option<Stop>;

/// A check every event passes first (it reads the trajectory, never changes it).
pub type EventCheck = fn(&Engine, &Trajectory) -> Option<Stop>;

/// A message that is no event: framing first (hygiene, refused in every mode), then the method
/// (policy). One with no fault passes.
pub const FRAME: &[Check<FrameCheck>] = &[
    Check { id: CheckId::Frame, run: malformed_frame },
    Check { id: CheckId::Method, run: unrelayed_method },
];

/// Every event, of any kind, before its own cascade.
pub const EVERY_EVENT: &[Check<EventCheck>] = &[Check { id: CheckId::EventLimit, run: event_limit }];

fn malformed_frame(facts: &Facts) -> Option<Stop> {
    let why = facts.malformed_frame.as_ref()?;
    Some(Stop::deny(Reason::MalformedInput, why.clone()))
}

fn unrelayed_method(facts: &Facts) -> Option<Stop> {
    let m = facts.unrelayed_method.as_ref()?;
    Some(Stop::deny(
        Reason::MalformedInput,
        format!("method `{}` is not relayed by Blindfold: {}", m.method, m.why),
    ))
}

fn event_limit(engine: &Engine, trajectory: &Trajectory) -> Option<Stop> {
    let max = engine.config.max_events;
    (trajectory.events >= max).then(|| {
        Stop::deny(
            Reason::LimitExceeded,
            format!(
                "the trajectory reached {max} events (limits.max_events_per_trajectory); end it and start a new one"
            ),
        )
    })
}
