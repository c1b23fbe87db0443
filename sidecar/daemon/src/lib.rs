//! The `blindfold` daemon and CLI, in tiers that depend downward: `operator` (CLI, control API,
//! replay) → `harnesses` → `transports` → `runtime` → `config`.
#![forbid(unsafe_code)]

pub mod config;
pub mod harnesses;
pub mod operator;
pub mod runtime;
pub mod transports;

/// Seconds since the Unix epoch (the daemon's one clock; the engine is handed time).
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Milliseconds since the Unix epoch.
pub fn unix_now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
