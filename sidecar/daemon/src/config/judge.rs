//! `[judge]`, validated: the quorum's endpoints, how many must pass and the time each has.

use std::time::Duration;

/// One judge endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeEndpoint {
    /// Chat completions URL (`http://host:port/v1/chat/completions`).
    pub url: String,
    /// Model name sent in the request.
    pub model: String,
    /// The model's true family (judges of one family count once; config refuses repeats).
    pub family: String,
    /// API key read from this environment variable at start (none: no `Authorization`).
    pub api_key: Option<String>,
}

/// `[judge]`, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JudgeConfig {
    /// The endpoints, of pairwise different families.
    pub endpoints: Vec<JudgeEndpoint>,
    /// How many must PASS for the action to reach a human (k of n).
    pub required: usize,
    /// Time allowed per endpoint.
    pub timeout: Duration,
}
