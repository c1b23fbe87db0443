//! `[opencode]`: the OpenCode mode's configuration (pinned task id, the server to follow). The
//! sub-agents' true identities are `[identity] agents`, shared with every other path.

use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// `[opencode]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOpenCode {
    /// Trajectory id pinned by the operator for this harness's sessions (grants name it); empty:
    /// Blindfold assigns a fresh id to every root session.
    #[serde(default)]
    pub task: String,
    /// Base URL of `opencode serve` whose `GET /event` Blindfold follows to answer permission
    /// requests (loopback only); empty: permission answering is off.
    #[serde(default)]
    pub server: String,
    /// How long a permission request that needs human review is held before it is rejected.
    #[serde(default = "default_review_timeout")]
    pub review_timeout_s: u64,
}

fn default_review_timeout() -> u64 {
    300
}

/// `[opencode]`, validated.
#[derive(Debug, Clone, Default)]
pub struct OpenCodeConfig {
    /// Pinned trajectory id, if any.
    pub task: Option<String>,
    /// `scheme://host:port` of `opencode serve` to follow, if any.
    pub server: Option<String>,
    /// Review hold, seconds (at least 1).
    pub review_timeout_s: u64,
}

/// Longest review hold accepted (one day).
const MAX_REVIEW_TIMEOUT_S: u64 = 24 * 3600;

impl RawOpenCode {
    /// Checks the section; errors name the field.
    pub fn validate(&self) -> Result<OpenCodeConfig, ConfigError> {
        let task = (!self.task.is_empty()).then(|| self.task.clone());
        if let Some(t) = &task
            && (t.len() > 128 || !t.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c)))
        {
            return Err(ConfigError::field("opencode.task", "1-128 characters of [A-Za-z0-9-_.:]"));
        }
        let server = if self.server.is_empty() { None } else { Some(loopback_http(&self.server)?) };
        if self.review_timeout_s == 0 || self.review_timeout_s > MAX_REVIEW_TIMEOUT_S {
            return Err(ConfigError::field(
                "opencode.review_timeout_s",
                format!("between 1 and {MAX_REVIEW_TIMEOUT_S} seconds"),
            ));
        }
        Ok(OpenCodeConfig { task, server, review_timeout_s: self.review_timeout_s })
    }
}

/// `http://<loopback>:<port>` without a trailing slash, or the field error.
fn loopback_http(url: &str) -> Result<String, ConfigError> {
    let bad =
        || ConfigError::field("opencode.server", format!("not an http://127.0.0.1:PORT address: {url:?}"));
    let rest = url.strip_prefix("http://").ok_or_else(bad)?.trim_end_matches('/');
    let addr: std::net::SocketAddr = rest.parse().map_err(|_| bad())?;
    if !addr.ip().is_loopback() {
        return Err(ConfigError::field("opencode.server", format!("{addr} is not a loopback address")));
    }
    Ok(format!("http://{addr}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn server_must_be_loopback_http() {
        let mut raw = RawOpenCode { review_timeout_s: 5, ..Default::default() };
        raw.server = "http://127.0.0.1:4096/".into();
        assert_eq!(raw.validate().expect("valid").server.as_deref(), Some("http://127.0.0.1:4096"));
        raw.server = "http://10.0.0.1:4096".into();
        assert!(raw.validate().expect_err("not loopback").to_string().contains("opencode.server"));
        raw.server = "https://127.0.0.1:4096".into();
        assert!(raw.validate().is_err());
    }

    #[test]
    fn task_and_timeout_are_checked() {
        let raw = RawOpenCode { task: "bad id!".into(), review_timeout_s: 5, ..Default::default() };
        assert!(raw.validate().expect_err("bad task").to_string().contains("opencode.task"));
        let raw = RawOpenCode { review_timeout_s: 0, ..Default::default() };
        assert!(raw.validate().expect_err("zero").to_string().contains("review_timeout_s"));
        let raw = RawOpenCode { task: "task-7".into(), review_timeout_s: 5, ..Default::default() };
        assert_eq!(raw.validate().expect("valid").task.as_deref(), Some("task-7"));
    }
}
