//! The runtime tier: the shared application state, the decision path every transport takes,
//! trajectories, identity state, the review queue, the judge, durable stores and the trace.
pub mod app;
pub mod decide;
#[cfg(test)]
pub(crate) mod fixtures;
pub mod grant_standing;
pub mod harness_state;
pub mod identity;
pub mod intent;
pub mod judge;
pub mod metrics;
pub mod notify;
pub mod pairing;
pub mod permit;
pub mod refusals;
pub mod review;
pub mod state;
pub mod trace;
pub mod trajectories;
pub mod verifiers;
pub mod workspace;
