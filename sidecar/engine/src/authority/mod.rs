//! The authority tracker (SPEC §2, TrustFork): who got scope, verify, adopt and execute in a
//! trajectory, and whether a contradicted proposal still captured authority (`V(τ)`).
//!
//! Sans-IO like the rest of the engine. The tracker consumes neutral [`Fact`]s, built either from
//! the engine's `(Event, Step)` pairs as they happen ([`facts::from_step`]) or from trace records
//! read back from a file ([`facts::from_record`]), so the live daemon and `trace summarize` compute
//! the same vectors by the same code.

pub mod facts;
pub mod fingerprint;
mod report;
mod tracker;

pub use facts::{COORDINATOR, CallFact, Fact};
pub use fingerprint::action_fingerprint;
pub use report::{AuthorityReport, AuthorityVector, Blocker, ProposalReport, capture_rates};
pub use tracker::{AuthorityTracker, CallTransfer, delegated_stage};

#[cfg(test)]
mod tests;
