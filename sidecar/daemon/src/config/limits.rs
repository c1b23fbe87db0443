//! `[limits]`: resource bounds for untrusted input, each with a safe default and a clear error
//! when exceeded (frame and body sizes are in `[transports]` and `[model_proxy]`).

use super::error::ConfigError;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// `[limits]` as written; a missing key takes its default.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RawLimits {
    /// Deepest nesting of JSON arrays and objects accepted in any message.
    pub max_json_depth: usize,
    /// Largest request header block (request line and every header), bytes.
    pub max_header_bytes: usize,
    /// Open connections per listener; more are answered `503` and closed.
    pub max_connections: usize,
    /// Seconds a client may take to send a request body (and to read what it is sent) before
    /// its connection is closed.
    pub client_timeout_s: u64,
    /// Seconds a client may take to send a request's headers before its connection is closed.
    pub header_timeout_s: u64,
    /// Events one trajectory may carry; later ones are denied `limit_exceeded`.
    pub max_events_per_trajectory: u64,
    /// Live trajectories kept at most; creating one past it evicts the least recently used.
    pub max_trajectories: usize,
    /// Seconds without an event after which a trajectory's live state is evicted.
    pub trajectory_idle_s: u64,
}

impl Default for RawLimits {
    fn default() -> Self {
        Self {
            max_json_depth: blindfold_schemas::strict_json::DEFAULT_MAX_DEPTH,
            max_header_bytes: 16 << 10,
            max_connections: 512,
            client_timeout_s: 30,
            header_timeout_s: 10,
            max_events_per_trajectory: 100_000,
            max_trajectories: 4096,
            trajectory_idle_s: 3600,
        }
    }
}

/// `[limits]`, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// See [`RawLimits::max_json_depth`].
    pub max_json_depth: usize,
    /// See [`RawLimits::max_header_bytes`].
    pub max_header_bytes: usize,
    /// See [`RawLimits::max_connections`].
    pub max_connections: usize,
    /// See [`RawLimits::client_timeout_s`].
    pub client_timeout: Duration,
    /// See [`RawLimits::header_timeout_s`].
    pub header_timeout: Duration,
    /// See [`RawLimits::max_events_per_trajectory`].
    pub max_events_per_trajectory: u64,
    /// See [`RawLimits::max_trajectories`].
    pub max_trajectories: usize,
    /// See [`RawLimits::trajectory_idle_s`].
    pub trajectory_idle: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        RawLimits::default().validate().expect("the default limits are valid")
    }
}

impl RawLimits {
    /// Checks every bound is within its sane range.
    pub fn validate(&self) -> Result<Limits, ConfigError> {
        let ceiling = blindfold_schemas::strict_json::MAX_DEPTH_CEILING;
        if !(2..=ceiling).contains(&self.max_json_depth) {
            return Err(ConfigError::field("limits.max_json_depth", format!("between 2 and {ceiling}")));
        }
        if !(1024..=1 << 20).contains(&self.max_header_bytes) {
            return Err(ConfigError::field("limits.max_header_bytes", "between 1024 and 1048576 bytes"));
        }
        if !(1..=65_536).contains(&self.max_connections) {
            return Err(ConfigError::field("limits.max_connections", "between 1 and 65536"));
        }
        if !(1..=3600).contains(&self.client_timeout_s) {
            return Err(ConfigError::field("limits.client_timeout_s", "between 1 and 3600 seconds"));
        }
        if !(1..=3600).contains(&self.header_timeout_s) {
            return Err(ConfigError::field("limits.header_timeout_s", "between 1 and 3600 seconds"));
        }
        if self.max_events_per_trajectory == 0 {
            return Err(ConfigError::field("limits.max_events_per_trajectory", "at least 1"));
        }
        if !(1..=10_000_000).contains(&self.max_trajectories) {
            return Err(ConfigError::field("limits.max_trajectories", "between 1 and 10000000"));
        }
        if !(1..=30 * 86_400).contains(&self.trajectory_idle_s) {
            return Err(ConfigError::field(
                "limits.trajectory_idle_s",
                "between 1 and 2592000 seconds (30 days)",
            ));
        }
        Ok(Limits {
            max_json_depth: self.max_json_depth,
            max_header_bytes: self.max_header_bytes,
            max_connections: self.max_connections,
            client_timeout: Duration::from_secs(self.client_timeout_s),
            header_timeout: Duration::from_secs(self.header_timeout_s),
            max_events_per_trajectory: self.max_events_per_trajectory,
            max_trajectories: self.max_trajectories,
            trajectory_idle: Duration::from_secs(self.trajectory_idle_s),
        })
    }
}
