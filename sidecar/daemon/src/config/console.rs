//! The operator's sections: `[console]` (the web console at `/console`, its approval key and
//! its webhook) and `[metrics]` (Prometheus metrics at `/metrics`). Every bad value names its
//! field.

use super::error::ConfigError;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// File name of the generated console approval key inside the state directory (PKCS#8, 0600).
pub const APPROVAL_KEY_FILE: &str = "console-approval.key.pem";

/// Longest console session accepted (7 days).
const MAX_SESSION_S: u64 = 7 * 24 * 3600;
/// Longest approval grant lifetime the console signs (30 days; `[grants] max_ttl_s` bounds it
/// further when the grant is checked).
const MAX_APPROVAL_TTL_S: u64 = 30 * 24 * 3600;
/// Longest webhook delivery time accepted (60 s).
const MAX_WEBHOOK_TIMEOUT_MS: u64 = 60_000;

/// `[console]` as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConsole {
    /// Serve the console at `/console` on the loopback listener.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Seconds a login lasts.
    #[serde(default = "default_session_secs")]
    pub session_secs: u64,
    /// The Ed25519 key (PKCS#8 PEM, 0600) the console signs review approvals with; empty: the
    /// state dir's `console-approval.key.pem`, generated at first start.
    #[serde(default)]
    pub approval_key: String,
    /// Lifetime of an approval grant signed from the console, seconds.
    #[serde(default = "default_approval_ttl_secs")]
    pub approval_ttl_secs: u64,
    /// `http://` URL a held item is announced to (a fixed JSON body); empty: none.
    #[serde(default)]
    pub webhook_url: String,
    /// Milliseconds a webhook delivery may take.
    #[serde(default = "default_webhook_timeout_ms")]
    pub webhook_timeout_ms: u64,
    /// The console's address as the webhook's link should name it (`http://host:port`); empty:
    /// `http://<server.listen>`.
    #[serde(default)]
    pub public_url: String,
}

impl Default for RawConsole {
    fn default() -> Self {
        Self {
            enabled: true,
            session_secs: default_session_secs(),
            approval_key: String::new(),
            approval_ttl_secs: default_approval_ttl_secs(),
            webhook_url: String::new(),
            webhook_timeout_ms: default_webhook_timeout_ms(),
            public_url: String::new(),
        }
    }
}

/// `[metrics]` as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMetrics {
    /// Serve `/metrics` on the loopback listener.
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Name of an environment variable holding a bearer token `/metrics` then requires; empty:
    /// no authentication (the Prometheus convention on loopback).
    #[serde(default)]
    pub bearer_token_env: String,
}

impl Default for RawMetrics {
    fn default() -> Self {
        Self { enabled: true, bearer_token_env: String::new() }
    }
}

fn yes() -> bool {
    true
}

fn default_session_secs() -> u64 {
    12 * 3600
}

fn default_approval_ttl_secs() -> u64 {
    3600
}

fn default_webhook_timeout_ms() -> u64 {
    5000
}

/// `[console]`, validated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsoleConfig {
    /// Serve `/console`.
    pub enabled: bool,
    /// How long a login lasts.
    pub session: std::time::Duration,
    /// Where the approval key is (generated there at first start when it is the default).
    pub approval_key: PathBuf,
    /// True when `approval_key` is the state dir's default (generated when missing).
    pub approval_key_generated: bool,
    /// Lifetime of an approval grant, seconds.
    pub approval_ttl_secs: u64,
    /// Where held items are announced, if anywhere.
    pub webhook_url: Option<String>,
    /// How long a delivery may take.
    pub webhook_timeout: std::time::Duration,
    /// The console's base address for links (`http://host:port`, no trailing slash).
    pub public_url: String,
}

/// `[metrics]`, validated.
#[derive(Clone, PartialEq, Eq)]
pub struct MetricsConfig {
    /// Serve `/metrics`.
    pub enabled: bool,
    /// The bearer token `/metrics` requires, when one is configured (read at start).
    pub bearer_token: Option<String>,
}

impl std::fmt::Debug for MetricsConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsConfig")
            .field("enabled", &self.enabled)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "[redacted]"))
            .finish()
    }
}

impl RawConsole {
    /// Checks `[console]`: bounded lifetimes, an `http://` webhook and public URL.
    pub fn validate(
        &self,
        state_dir: &Path,
        listen: std::net::SocketAddr,
    ) -> Result<ConsoleConfig, ConfigError> {
        if self.session_secs == 0 || self.session_secs > MAX_SESSION_S {
            return Err(ConfigError::field("console.session_secs", format!("between 1 and {MAX_SESSION_S}")));
        }
        if self.approval_ttl_secs == 0 || self.approval_ttl_secs > MAX_APPROVAL_TTL_S {
            return Err(ConfigError::field(
                "console.approval_ttl_secs",
                format!("between 1 and {MAX_APPROVAL_TTL_S}"),
            ));
        }
        if self.webhook_timeout_ms == 0 || self.webhook_timeout_ms > MAX_WEBHOOK_TIMEOUT_MS {
            return Err(ConfigError::field(
                "console.webhook_timeout_ms",
                format!("between 1 and {MAX_WEBHOOK_TIMEOUT_MS}"),
            ));
        }
        let webhook_url = match self.webhook_url.trim() {
            "" => None,
            url => Some(http_url("console.webhook_url", url)?),
        };
        let public_url = match self.public_url.trim() {
            "" => format!("http://{listen}"),
            url => http_url("console.public_url", url)?,
        };
        let (approval_key, approval_key_generated) = match self.approval_key.trim() {
            "" => (state_dir.join(APPROVAL_KEY_FILE), true),
            path => (PathBuf::from(path), false),
        };
        Ok(ConsoleConfig {
            enabled: self.enabled,
            session: std::time::Duration::from_secs(self.session_secs),
            approval_key,
            approval_key_generated,
            approval_ttl_secs: self.approval_ttl_secs,
            webhook_url,
            webhook_timeout: std::time::Duration::from_millis(self.webhook_timeout_ms),
            public_url,
        })
    }
}

impl RawMetrics {
    /// Checks `[metrics]`: a configured token variable must be set and non-empty.
    pub fn validate(&self) -> Result<MetricsConfig, ConfigError> {
        let bearer_token = match self.bearer_token_env.trim() {
            "" => None,
            var => match std::env::var(var) {
                Ok(v) if !v.trim().is_empty() => Some(v.trim().to_owned()),
                _ => {
                    return Err(ConfigError::field(
                        "metrics.bearer_token_env",
                        format!("the variable {var} is not set (or empty)"),
                    ));
                }
            },
        };
        Ok(MetricsConfig { enabled: self.enabled, bearer_token })
    }
}

/// An `http://host[:port][/path]` URL without credentials, query or fragment (no trailing
/// slash). TLS is a loopback forwarder's job, as for every other outgoing connection.
fn http_url(field: &str, url: &str) -> Result<String, ConfigError> {
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(ConfigError::field(
            field,
            format!("not an http:// URL (https: put a TLS-originating forwarder on loopback): {url:?}"),
        ));
    };
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() || authority.contains('@') || url.contains(['?', '#', ' ']) {
        return Err(ConfigError::field(field, format!("not an http://host[:port][/path] URL: {url:?}")));
    }
    if url.parse::<hyper::Uri>().is_err() {
        return Err(ConfigError::field(field, format!("not a valid URL: {url:?}")));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listen() -> std::net::SocketAddr {
        "127.0.0.1:7700".parse().expect("addr")
    }

    #[test]
    fn defaults_serve_the_console_with_a_generated_key_and_no_webhook() {
        let c = RawConsole::default().validate(Path::new("/s"), listen()).expect("valid");
        assert!(c.enabled && c.approval_key_generated);
        assert_eq!(c.approval_key, Path::new("/s").join(APPROVAL_KEY_FILE));
        assert_eq!(c.public_url, "http://127.0.0.1:7700");
        assert_eq!(c.webhook_url, None);
    }

    #[test]
    fn bad_values_name_their_field() {
        let bad = |f: fn(&mut RawConsole)| {
            let mut raw = RawConsole::default();
            f(&mut raw);
            raw.validate(Path::new("/s"), listen()).expect_err("invalid").field
        };
        assert_eq!(bad(|c| c.session_secs = 0), "console.session_secs");
        assert_eq!(bad(|c| c.approval_ttl_secs = 0), "console.approval_ttl_secs");
        assert_eq!(bad(|c| c.webhook_url = "https://hooks.example/x".into()), "console.webhook_url");
        assert_eq!(bad(|c| c.webhook_url = "http://u:p@h/x".into()), "console.webhook_url");
        assert_eq!(bad(|c| c.public_url = "ftp://h".into()), "console.public_url");
        assert_eq!(bad(|c| c.webhook_timeout_ms = 0), "console.webhook_timeout_ms");
    }

    #[test]
    fn a_metrics_token_variable_must_be_set() {
        let raw = RawMetrics { enabled: true, bearer_token_env: "BLINDFOLD_TEST_UNSET_METRICS_TOKEN".into() };
        assert_eq!(raw.validate().expect_err("unset").field, "metrics.bearer_token_env");
        assert_eq!(RawMetrics::default().validate().expect("valid").bearer_token, None);
    }

    #[test]
    fn a_moved_state_dir_takes_the_generated_key_and_the_default_trace_dir_along() {
        let mut cfg = crate::config::load(None).expect("default config");
        let old = cfg.state_dir.clone();
        assert_eq!(cfg.trace.dir, old.join("traces"));
        cfg.set_state_dir(PathBuf::from("/elsewhere/state"));
        assert_eq!(cfg.console.approval_key, Path::new("/elsewhere/state").join(APPROVAL_KEY_FILE));
        assert_eq!(cfg.trace.dir, Path::new("/elsewhere/state/traces"));
        // A key the user placed stays where they put it.
        cfg.console.approval_key = PathBuf::from("/etc/blindfold/approver.pem");
        cfg.console.approval_key_generated = false;
        cfg.set_state_dir(PathBuf::from("/third"));
        assert_eq!(cfg.console.approval_key, Path::new("/etc/blindfold/approver.pem"));
    }
}
