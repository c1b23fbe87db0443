//! Scenario replay (SPEC §11): each scenario runs once per mode through the daemon's engine and
//! is scored — attack success, legitimate rejection, captured authority, identity leaks, review.

mod evidence_metrics;
mod evidence_report;
mod load;
mod operator_steps;
mod peers;
mod proxy;
mod report;
mod runner;
mod score;
mod trace;
mod view;

pub use evidence_metrics::{EvidenceCounts, EvidenceRates, GraphCounts, score_evidence};
pub use evidence_report::{evidence_by_scenario, evidence_table};
pub use load::{LoadError, load_paths};
pub use proxy::run_via_proxy;
pub use report::{json_report, steps_table, table};
pub use runner::{ModeRun, SignedGrants, StepOutcome, run_scenario};
pub use score::{ModeScore, score_mode};
pub use trace::{ScenarioDirectory, write_trace};

/// The modes `replay` knows, in the order tables show them.
pub const MODES: [&str; 5] = ["off", "anonymize", "attest", "preverify", "all"];

#[cfg(test)]
mod evidence_tests;
#[cfg(test)]
mod tests;
