//! The evidence metrics a trace supports (seed `evidence-state` §35–38, issue of the evidence
//! falsifiers): error and injection propagation, false consensus, independent corroboration,
//! stale evidence use, unauthorized retrieval and revocation propagation delay, counted from a
//! trajectory's records and the ground truth `blindfold replay` writes beside its labels.
//!
//! `trace summarize` and the replay both go through [`facts_of`] and [`measure`]: the replay builds
//! the same records the daemon writes and measures those, so the two agree on a recorded run.
//! Definitions, one line each: `docs/metrics-evidence.md`.

mod counts;
mod facts;
mod meter;
mod taint;

pub use counts::{Delay, DelayReport, TraceCounts, TraceRates, rate};
pub use facts::{EvidenceFact, FactKind, Support, facts_of};
pub use meter::measure;

#[cfg(test)]
mod tests;
