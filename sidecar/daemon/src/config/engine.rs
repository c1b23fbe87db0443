//! The engine's sections: `[review]` (the durable review queue), as written and validated. Every bad value names its field.

use super::error::ConfigError;
use serde::{Deserialize, Serialize};

/// `[review]`, validated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReviewConfig {
    /// Most pending items; beyond it new reviews are denied (`limit_exceeded`).
    pub max_pending: usize,
    /// Seconds a pending item waits for a human before it expires (a rejection).
    pub timeout_secs: u64,
    /// Seconds an answered (approved, rejected, expired, withdrawn) item is kept before it is
    /// purged; pending items are never purged.
    pub keep_answered_secs: u64,
}

/// Default `[review] keep_answered_secs`: seven days.
pub const DEFAULT_KEEP_ANSWERED_SECS: u64 = 7 * 24 * 3600;

impl Default for ReviewConfig {
    fn default() -> Self {
        Self { max_pending: 1000, timeout_secs: 3600, keep_answered_secs: DEFAULT_KEEP_ANSWERED_SECS }
    }
}

/// Largest `[review] max_pending` accepted.
const MAX_MAX_PENDING: u64 = 1_000_000;
/// Longest `[review] timeout_secs` accepted (30 days).
const MAX_REVIEW_TIMEOUT_S: u64 = 30 * 24 * 3600;
/// Longest `[review] keep_answered_secs` accepted (ten years).
const MAX_KEEP_ANSWERED_S: u64 = 10 * 365 * 24 * 3600;

/// `[review]` as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawReview {
    /// Most pending reviews; beyond it new reviews are denied.
    #[serde(default = "default_max_pending")]
    pub max_pending: u64,
    /// Seconds a pending review waits before it expires (treated as a rejection).
    #[serde(default = "default_timeout_secs")]
    pub timeout_secs: u64,
    /// Seconds an answered item is kept before it is purged (pending items never are).
    #[serde(default = "default_keep_answered_secs")]
    pub keep_answered_secs: u64,
}

impl Default for RawReview {
    fn default() -> Self {
        Self {
            max_pending: default_max_pending(),
            timeout_secs: default_timeout_secs(),
            keep_answered_secs: default_keep_answered_secs(),
        }
    }
}

fn default_keep_answered_secs() -> u64 {
    DEFAULT_KEEP_ANSWERED_SECS
}

fn default_max_pending() -> u64 {
    1000
}

fn default_timeout_secs() -> u64 {
    3600
}

impl RawReview {
    /// Checks the bounds: at least one pending review, a timeout between 1 s and 30 days.
    pub fn validate(&self) -> Result<ReviewConfig, ConfigError> {
        if self.max_pending == 0 || self.max_pending > MAX_MAX_PENDING {
            return Err(ConfigError::field("review.max_pending", format!("between 1 and {MAX_MAX_PENDING}")));
        }
        if self.timeout_secs == 0 || self.timeout_secs > MAX_REVIEW_TIMEOUT_S {
            return Err(ConfigError::field(
                "review.timeout_secs",
                format!("between 1 and {MAX_REVIEW_TIMEOUT_S} seconds"),
            ));
        }
        if self.keep_answered_secs == 0 || self.keep_answered_secs > MAX_KEEP_ANSWERED_S {
            return Err(ConfigError::field(
                "review.keep_answered_secs",
                format!("between 1 and {MAX_KEEP_ANSWERED_S} seconds"),
            ));
        }
        Ok(ReviewConfig {
            max_pending: usize::try_from(self.max_pending).unwrap_or(usize::MAX),
            timeout_secs: self.timeout_secs,
            keep_answered_secs: self.keep_answered_secs,
        })
    }
}
