//! The cascade (SPEC §7): small named checks with ids and layers, in one ordered list per event
//! kind, cheapest and most certain first. The first check that does not pass decides; if every
//! check passes the action is allowed by the last one.

mod frame;
mod glob;
mod memory;
mod memory_sources;
mod memory_text;
pub mod reference;
mod tool;
mod tool_evidence;
mod tool_grants;
mod tool_wire;

pub use frame::{EVERY_EVENT, EventCheck, FRAME, FrameCheck};
pub use memory::{
    MEMORY_READ, MEMORY_WRITE, MemCheck, MemCtx, carries_instruction, deliver, delivered_evidence, write_key,
};
pub use tool::{CallCtx, TOOL_CALL, ToolCheck, disputes_against, replay_key};

use blindfold_schemas::{CheckId, Decision, Reason, Verdict};

/// Why a proposal whose evidence was revoked or replaced since is refused (`P3.verification`).
pub const STALE_PROPOSAL: &str = "the evidence this proposal came with was revoked or replaced by a newer observation; it must be proposed and verified again";

/// What a check says when it does not pass: a verdict, a reason and an actionable detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    /// `deny` or `review`.
    pub verdict: Verdict,
    /// Reason code.
    pub reason: Reason,
    /// Explanation for the user (never a way around the boundary).
    pub detail: String,
}

impl Stop {
    /// A denial.
    pub fn deny(reason: Reason, detail: impl Into<String>) -> Self {
        Self { verdict: Verdict::Deny, reason, detail: detail.into() }
    }

    /// A referral to a human.
    pub fn review(reason: Reason, detail: impl Into<String>) -> Self {
        Self { verdict: Verdict::Review, reason, detail: detail.into() }
    }
}

/// One check: an id (`P2.target_in_evidence`, which also names its layer and class) and its one
/// job (`F`, a function of the event kind's context: `None` passes, `Some` stops the action).
pub struct Check<F> {
    /// Stable id, reported in decisions and traces.
    pub id: CheckId,
    /// The check itself.
    pub run: F,
}

/// Runs `checks` in order through `call`; the first stop becomes the decision (with that
/// check's id and layer). When all pass, the decision is `allow` by the last check.
pub fn run<F>(checks: &[Check<F>], call: impl FnMut(&F) -> Option<Stop>) -> Decision {
    match run_stops(checks, call) {
        Some(decision) => decision,
        None => match checks.last() {
            Some(last) => Decision::allow(last.id),
            None => Decision::deny(Reason::InternalError, CheckId::Internal),
        },
    }
}

/// Runs `checks` in order through `call`: the first stop as a decision, `None` when all pass.
pub fn run_stops<F>(checks: &[Check<F>], mut call: impl FnMut(&F) -> Option<Stop>) -> Option<Decision> {
    checks.iter().find_map(|check| {
        call(&check.run).map(|stop| Decision {
            decision: stop.verdict,
            reason: stop.reason,
            check: check.id,
            layer: check.id.layer(),
            detail: Some(stop.detail),
            grant: None,
        })
    })
}

#[cfg(test)]
mod contradiction_tests;
#[cfg(test)]
mod facts_tests;
#[cfg(test)]
mod memory_tests;
#[cfg(test)]
mod order_tests;
#[cfg(test)]
mod tests;
