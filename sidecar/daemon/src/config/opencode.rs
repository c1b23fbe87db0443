//! `[opencode]`: the OpenCode mode's configuration (the pinned task id, the `opencode serve` whose
//! permission requests Blindfold answers, how long a held request waits for a review). The
//! sub-agents' true identities are `[identity] agents`, shared with every other path. The
//! server password of `opencode serve` (`OPENCODE_SERVER_PASSWORD`, HTTP basic auth) is read from
//! `[opencode] password` or, when that is empty, from the daemon's own `OPENCODE_SERVER_PASSWORD`
//! (user `OPENCODE_SERVER_USERNAME`, default `opencode`, as OpenCode does); it is never printed.

use super::error::ConfigError;
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
    /// Password of `opencode serve` (its `OPENCODE_SERVER_PASSWORD`); empty: the daemon's
    /// `OPENCODE_SERVER_PASSWORD`, if set. Never printed.
    #[serde(default, skip_serializing_if = "Secret::is_empty")]
    pub password: Secret,
    /// Basic-auth user of `opencode serve`; empty: `OPENCODE_SERVER_USERNAME`, else `opencode`.
    #[serde(default)]
    pub username: String,
}

/// A password: deserialized as a string, shown and serialized as `<redacted>`.
#[derive(Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// The secret itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when no secret is set.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl From<String> for Secret {
    fn from(s: String) -> Self {
        Self(s)
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_empty() { "<unset>" } else { "<redacted>" })
    }
}

impl Serialize for Secret {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("<redacted>")
    }
}

/// HTTP basic auth for `opencode serve`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasicAuth {
    /// The user (`opencode` unless configured).
    pub username: String,
    /// The password.
    pub password: Secret,
}

fn default_review_wait() -> u64 {
    900
}

impl Default for RawOpenCode {
    fn default() -> Self {
        Self {
            task: String::new(),
            serve_url: String::new(),
            review_wait_s: default_review_wait(),
            password: Secret::default(),
            username: String::new(),
        }
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
    /// Basic auth for `opencode serve`, when it has a password.
    pub auth: Option<BasicAuth>,
}

impl RawOpenCode {
    /// Checks the section; errors name the field.
    pub fn validate(&self) -> Result<OpenCodeConfig, ConfigError> {
        self.validate_with(|k| std::env::var(k).ok())
    }

    /// [`RawOpenCode::validate`] reading the `OPENCODE_SERVER_*` fallbacks through `env`.
    pub fn validate_with(&self, env: impl Fn(&str) -> Option<String>) -> Result<OpenCodeConfig, ConfigError> {
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
        let password = if self.password.is_empty() {
            Secret(env("OPENCODE_SERVER_PASSWORD").unwrap_or_default())
        } else {
            self.password.clone()
        };
        let username = Some(self.username.clone())
            .filter(|u| !u.is_empty())
            .or_else(|| env("OPENCODE_SERVER_USERNAME").filter(|u| !u.is_empty()))
            .unwrap_or_else(|| "opencode".to_owned());
        if username.contains(':') {
            return Err(ConfigError::field("opencode.username", "a user name without ':'"));
        }
        let auth = (!password.is_empty()).then_some(BasicAuth { username, password });
        Ok(OpenCodeConfig { task, serve_url, review_wait, auth })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> RawOpenCode {
        RawOpenCode::default()
    }

    #[test]
    fn the_server_password_comes_from_the_config_or_opencodes_variable_and_is_never_shown() {
        let none = |_: &str| None;
        assert_eq!(base().validate_with(none).expect("valid").auth, None);
        let env = |k: &str| (k == "OPENCODE_SERVER_PASSWORD").then(|| "from-env".to_owned());
        let auth = base().validate_with(env).expect("valid").auth.expect("auth");
        assert_eq!((auth.username.as_str(), auth.password.expose()), ("opencode", "from-env"));
        let raw = RawOpenCode { password: "s3cret-pw".to_owned().into(), username: "ops".into(), ..base() };
        let cfg = raw.validate_with(env).expect("valid");
        let auth = cfg.auth.clone().expect("auth");
        assert_eq!((auth.username.as_str(), auth.password.expose()), ("ops", "s3cret-pw"));
        let shown = format!("{raw:?} {cfg:?} {}", serde_json::to_string(&raw).expect("json"));
        assert!(!shown.contains("s3cret-pw"), "{shown}");
        let raw = RawOpenCode { password: "x".to_owned().into(), username: "a:b".into(), ..base() };
        assert!(raw.validate_with(none).expect_err("colon").to_string().contains("opencode.username"));
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
