//! Authority traces (SPEC §8): the durable JSONL record of every event and decision, its hash
//! chain and verification, summaries (CAR, attack success, first blocker), pictures, and live
//! fan-out. Usable as a library (`blindfold_daemon::runtime::trace`) by the replay runner.

pub mod evidence_metrics;
pub mod head;
mod hub;
mod line;
pub mod otlp;
pub mod record;
pub mod render;
pub mod revocation;
pub mod secrets;
pub mod sighting;
pub mod sink;
pub mod summary;
pub mod traceparent;
pub mod verify;
pub mod writer;

/// The trajectory id under which operator actions are traced (mode toggles, grants submitted,
/// revocations): the daemon's own audit lane, not an agents' trajectory.
pub const CONTROL_TRAJECTORY: &str = "blindfold-control";

pub use hub::{Queued, StepMeta, TraceConfig, TraceHub};
pub use record::{ActorDirectory, ConfiguredIds, RecordContext};
pub use sink::{Submitted, TraceSink, TraceWriteError};
pub use summary::{Summary, summarize};
pub use verify::{TraceFileError, VerifyReport, read_records, verify};
pub use writer::{Durability, TraceWriter, line_hash, trace_files};

#[cfg(test)]
pub(crate) mod tests;
