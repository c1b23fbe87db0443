//! The evidence graph (SPEC §5, seed `evidence-state`): artifacts with a lifecycle and recorded
//! transitions, claim relations, independence groups from observed provenance and true family,
//! and revocation that propagates through derivations to claims and pending decisions.

mod graph;
mod independence;
mod store;

pub use graph::{EvidenceGraph, NewArtifact, Revalidation};
pub use independence::{Independence, independent};

#[cfg(test)]
mod tests;
