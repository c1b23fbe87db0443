//! `[opencode]`: the OpenCode mode's configuration (the pinned task id, the `opencode serve` whose
//! permission requests Blindfold answers, how long a held request waits for a review). The
//! sub-agents' true identities are `[identity] agents`, shared with every other path.

use crate::config::ConfigError;
use serde::{Deserialize, Serialize};

/// `[opencode]` as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawOpenCode {
    /// Trajectory id pinned by the operator for this harness's sessions (grants name it); empty:
    /// Blindfold assigns a fresh id to every root session.
    #[serde(default)]
    pub task: String,
    /// Base URL of `opencode serve` (`http://127.0.0.1:4096`) whose `GET /event` Blindfold follows
    /// to answer `permission.asked`; empty: no permission answering.
    #[serde(default)]
    pub serve_url: String,
    /// Seconds a permission request held for human review waits for the answer before it is
    /// rejected.
    #[serde(default = "default_review_wait")]
    pub review_wait_s: u64,
}

fn default_review_wait() -> u64 {
    900
}

impl Default for RawOpenCode {
    fn default() -> Self {
        Self { task: String::new(), serve_url: String::new(), review_wait_s: default_review_wait() }
    }
}

/// `[opencode]`, validated.
#[derive(Debug, Clone, Default)]
pub struct OpenCodeConfig {
    /// Pinned trajectory id, if any.
    pub task: Option<String>,
    /// `opencode serve` to follow, if any (`http://host:port`, no trailing slash).
    pub serve_url: Option<String>,
    /// Longest wait of a held permission request for its review.
    pub review_wait: std::time::Duration,
}

impl RawOpenCode {
    /// Checks the section; errors name the field.
    pub fn validate(&self) -> Result<OpenCodeConfig, ConfigError> {
        let task = (!self.task.is_empty()).then(|| self.task.clone());
        if let Some(t) = &task
            && (t.len() > 128 || !t.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c)))
        {
            return Err(ConfigError::field("opencode.task", "1-128 characters of [A-Za-z0-9-_.:]"));
        }
        let serve_url = (!self.serve_url.is_empty()).then(|| self.serve_url.trim_end_matches('/').to_owned());
        if let Some(url) = &serve_url
            && (!url.starts_with("http://") || url.parse::<hyper::Uri>().is_err())
        {
            return Err(ConfigError::field(
                "opencode.serve_url",
                "an http:// URL such as http://127.0.0.1:4096",
            ));
        }
        if self.review_wait_s == 0 || self.review_wait_s > 86_400 {
            return Err(ConfigError::field("opencode.review_wait_s", "1 to 86400 seconds"));
        }
        let review_wait = std::time::Duration::from_secs(self.review_wait_s);
        Ok(OpenCodeConfig { task, serve_url, review_wait })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> RawOpenCode {
        RawOpenCode::default()
    }

    #[test]
    fn the_task_id_is_checked() {
        let raw = RawOpenCode { task: "bad id!".into(), ..base() };
        assert!(raw.validate().expect_err("bad task").to_string().contains("opencode.task"));
        let raw = RawOpenCode { task: "task-7".into(), ..base() };
        assert_eq!(raw.validate().expect("valid").task.as_deref(), Some("task-7"));
        assert_eq!(base().validate().expect("empty").task, None);
    }

    #[test]
    fn the_serve_url_and_review_wait_are_checked() {
        let raw = RawOpenCode { serve_url: "ftp://x".into(), ..base() };
        assert!(raw.validate().expect_err("bad url").to_string().contains("opencode.serve_url"));
        let raw = RawOpenCode { serve_url: "http://127.0.0.1:4096/".into(), ..base() };
        assert_eq!(raw.validate().expect("valid").serve_url.as_deref(), Some("http://127.0.0.1:4096"));
        let raw = RawOpenCode { review_wait_s: 0, ..base() };
        assert!(raw.validate().expect_err("zero").to_string().contains("opencode.review_wait_s"));
    }
}
