//! `[trace]`, validated: where the authority trace goes, how durably, and its span export.

/// `[trace]`, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceConfig {
    /// Write traces at all (off only for measurements of Blindfold without its trace).
    pub enabled: bool,
    /// Directory of the trace files (default: `<state dir>/traces`).
    pub dir: std::path::PathBuf,
    /// A file is rotated once it would grow past this many bytes.
    pub max_file_bytes: u64,
    /// `os` (survives a killed process) or `fsync` (survives power loss).
    pub durability: Durability,
    /// OTLP/HTTP endpoint (`http://host:4318`) for span export; none = off.
    pub otlp_endpoint: Option<String>,
    /// A trajectory's span is exported once it has been idle this long.
    pub otlp_idle: std::time::Duration,
}

/// How hard an append tries before it returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Handed to the OS (one `write` per batch): survives a killed process.
    #[default]
    Os,
    /// Also `fdatasync` per batch (group commit): survives power loss.
    Fsync,
}
