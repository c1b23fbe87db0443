//! The cascade (SPEC §7): small named checks with ids and layers, in one ordered list per event
//! kind, cheapest and most certain first. The first check that does not pass decides; if every
//! check passes the action is allowed by the last one.

mod glob;
mod memory;
mod tool;
mod tool_grants;

pub use memory::{MEMORY_READ, MEMORY_WRITE, MemCheck, MemCtx, deliver, write_key};
pub use tool::{CallCtx, TOOL_CALL, ToolCheck, disputes_against, replay_key};

use blindfold_schemas::{Decision, Layer, Reason, Verdict};

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

/// One check: an id (`P2.target_in_evidence`), its layer and its one job (`F`, a function of
/// the event kind's context: `None` passes, `Some` stops the action).
pub struct Check<F> {
    /// Stable id, reported in decisions and traces.
    pub id: &'static str,
    /// What the check trusts (SPEC §2 layers).
    pub layer: Layer,
    /// The check itself.
    pub run: F,
}

/// Runs `checks` in order through `call`; the first stop becomes the decision (with that
/// check's id and layer). When all pass, the decision is `allow` by the last check.
pub fn run<F>(checks: &[Check<F>], mut call: impl FnMut(&F) -> Option<Stop>) -> Decision {
    for check in checks {
        if let Some(stop) = call(&check.run) {
            return Decision {
                decision: stop.verdict,
                reason: stop.reason,
                check: check.id.to_owned(),
                layer: check.layer,
                detail: Some(stop.detail),
            };
        }
    }
    match checks.last() {
        Some(last) => Decision::allow(last.id, last.layer),
        None => Decision::deny(Reason::InternalError, "P0.cascade", Layer::ContentFree),
    }
}

#[cfg(test)]
mod order_tests;
#[cfg(test)]
mod tests;
