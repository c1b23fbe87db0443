//! Explicit, action-bound verdicts (SPEC §5): when Blindfold relays a request to verify, it
//! issues a handle per action under review — unguessable, bound to the action's fingerprint,
//! the trajectory, the delegate and its true identity, and the delegation's channel — and adds
//! a short fixed instruction asking for one final verdict per handle. A verification counts
//! only as a verdict for its own handle, from the agent the request went to, on that channel,
//! for exactly that action. Prose never approves.
//!
//! What the coordinator sees back has the instruction and the handles removed ([`strip`]).

mod handle;
mod instruction;
mod verdict;

pub use handle::{HandleRec, IssuedHandle, VerificationRequest, issue_handle};
pub use instruction::{BEGIN, END, instruction, render_action, strip};
pub use verdict::{VerdictLine, verdict_lines};

/// The prefix of every handle.
pub const HANDLE_PREFIX: &str = "bf-";
/// How many base-32 characters follow the prefix (60 bits).
pub const HANDLE_LEN: usize = 12;

#[cfg(test)]
mod tests;
