//! The `blindfold` daemon and CLI: config, state, transports and the control API around the engine.
#![forbid(unsafe_code)]

pub mod a2a;
pub mod app;
pub mod cli;
pub mod config;
pub mod control;
pub mod gate;
pub mod identity;
pub mod judge;
pub mod limits;
pub mod mcp;
pub mod model_proxy;
pub mod openclaw;
pub mod opencode;
pub mod pi;
pub mod proxy;
pub mod replay;
pub mod review;
pub mod server;
pub mod state;
pub mod trace;
pub mod ws_relay;

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
