//! The evidence graph (SPEC §5, seed `evidence-state`): artifacts with a lifecycle and recorded
//! transitions, claim relations, independence groups from observed provenance and true family,
//! and revocation that propagates through derivations to claims and pending decisions.

mod context;
mod derivation;
mod graph;
mod independence;
pub(crate) mod relay;
mod store;

pub use context::CoordinatorContext;
pub use derivation::{ContentIndex, shingles};
pub use graph::{EvidenceGraph, NewArtifact, Revalidation};
pub use independence::{Independence, independent};

#[cfg(test)]
mod relay_tests;
#[cfg(test)]
mod tests;
