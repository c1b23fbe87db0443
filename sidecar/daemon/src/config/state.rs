//! `[state] backend` and `[state.redis]`: where the state a fleet of Blindfolds must share lives
//! (grant uses, revocations, the review queue) — embedded in the state directory (the default)
//! or on a Redis server that many Blindfolds share.

use super::ConfigError;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;
use std::time::Duration;

/// `[state.redis]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawRedis {
    /// `redis://host:port/db` or `rediss://…` (TLS); no password in it (use `password_file`).
    #[serde(default)]
    pub url: String,
    /// Prefix of every key Blindfold writes (several fleets may share one server).
    #[serde(default = "default_prefix")]
    pub key_prefix: String,
    /// ACL user name; empty for the default user.
    #[serde(default)]
    pub username: String,
    /// File holding the password (mode 0600); empty for none.
    #[serde(default)]
    pub password_file: String,
    /// PEM file of the CA that signed the server's certificate (`rediss://`); empty: the
    /// system's roots.
    #[serde(default)]
    pub tls_ca_file: String,
    /// Bound on one round trip, ms: a slower answer is a refusal, never a wait.
    #[serde(default = "default_timeout_ms")]
    pub timeout_ms: u64,
    /// `always` (default): a use counts only once Redis has it on disk (`appendonly yes`,
    /// `appendfsync always`, checked at start). `everysec`: the documented weaker mode — Redis
    /// fsyncs once a second, so a crash of the Redis host can forget the uses of the last second.
    #[serde(default = "default_durability")]
    pub durability: String,
    /// Replicas that must acknowledge each use (`WAIT`), 0 for none.
    #[serde(default)]
    pub replicas: u32,
}

fn default_prefix() -> String {
    "blindfold:".into()
}

fn default_timeout_ms() -> u64 {
    250
}

fn default_durability() -> String {
    "always".into()
}

/// How durable a use must be before Redis's answer counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedisDurability {
    /// `appendonly yes` and `appendfsync always`: acknowledged means on disk.
    Always,
    /// `appendonly yes` and `appendfsync everysec` (or `always`): up to a second of uses may be
    /// forgotten by a crash of the Redis host; chosen explicitly.
    EverySec,
}

/// `[state.redis]`, validated.
#[derive(Debug, Clone)]
pub struct RedisConfig {
    /// The server URL (no credentials in it).
    pub url: String,
    /// Key prefix.
    pub key_prefix: String,
    /// ACL user, if any.
    pub username: Option<String>,
    /// The file holding the password (read, and its mode checked, when the client opens).
    pub password_file: Option<PathBuf>,
    /// The CA certificate (PEM) for TLS, if one was configured.
    pub tls_ca: Option<Vec<u8>>,
    /// Bound on one round trip.
    pub timeout: Duration,
    /// What Redis must keep before a use counts.
    pub durability: RedisDurability,
    /// Replicas that must acknowledge each use.
    pub replicas: u32,
}

impl RedisConfig {
    /// The server as named in messages: `redis at HOST:PORT` (never credentials).
    pub fn name(&self) -> String {
        let rest = self.url.split_once("://").map_or(self.url.as_str(), |(_, r)| r);
        let authority = rest.split('/').next().unwrap_or(rest);
        format!("redis at {authority}")
    }
}

/// Where shared state lives.
#[derive(Debug, Clone, Default)]
pub enum StateBackend {
    /// In the state directory (redb), for one Blindfold.
    #[default]
    Embedded,
    /// On a Redis server shared by a fleet.
    Redis(RedisConfig),
}

/// Longest round-trip bound accepted: a bound is there to refuse, not to wait.
const MAX_TIMEOUT_MS: u64 = 10_000;

/// Validates `[state] backend` with `[state.redis]`.
pub fn validate_backend(backend: &str, raw: &RawRedis) -> Result<StateBackend, ConfigError> {
    match backend {
        "" | "embedded" => Ok(StateBackend::Embedded),
        "redis" => validate_redis(raw).map(StateBackend::Redis),
        other => Err(ConfigError::field("state.backend", format!("`embedded` or `redis`, not {other:?}"))),
    }
}

fn validate_redis(raw: &RawRedis) -> Result<RedisConfig, ConfigError> {
    let field = |name: &str, msg: String| ConfigError::field(format!("state.redis.{name}"), msg);
    let url = raw.url.trim();
    if !(url.starts_with("redis://") || url.starts_with("rediss://")) {
        return Err(field("url", format!("a redis:// or rediss:// URL, not {url:?}")));
    }
    let authority = url.split_once("://").map_or("", |(_, r)| r).split('/').next().unwrap_or("");
    if authority.contains('@') {
        return Err(field("url", "put no credentials in the URL: use username and password_file".into()));
    }
    redis::Client::open(url).map_err(|e| field("url", e.to_string()))?;
    if raw.key_prefix.is_empty() || raw.key_prefix.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(field(
            "key_prefix",
            format!("a non-empty prefix without spaces, not {:?}", raw.key_prefix),
        ));
    }
    if raw.timeout_ms == 0 || raw.timeout_ms > MAX_TIMEOUT_MS {
        return Err(field("timeout_ms", format!("between 1 and {MAX_TIMEOUT_MS}, not {}", raw.timeout_ms)));
    }
    let durability = match raw.durability.as_str() {
        "always" => RedisDurability::Always,
        "everysec" => RedisDurability::EverySec,
        other => return Err(field("durability", format!("`always` or `everysec`, not {other:?}"))),
    };
    let password_file = Some(PathBuf::from(&raw.password_file)).filter(|_| !raw.password_file.is_empty());
    let tls_ca = match raw.tls_ca_file.as_str() {
        "" => None,
        path => Some(
            std::fs::read(PathBuf::from(path)).map_err(|e| field("tls_ca_file", format!("{path}: {e}")))?,
        ),
    };
    if tls_ca.is_some() && !url.starts_with("rediss://") {
        return Err(field("tls_ca_file", "a CA file needs a rediss:// URL".into()));
    }
    Ok(RedisConfig {
        url: url.to_owned(),
        key_prefix: raw.key_prefix.clone(),
        username: Some(raw.username.clone()).filter(|u| !u.is_empty()),
        password_file,
        tls_ca,
        timeout: Duration::from_millis(raw.timeout_ms),
        durability,
        replicas: raw.replicas,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(url: &str) -> RawRedis {
        RawRedis {
            url: url.into(),
            key_prefix: default_prefix(),
            timeout_ms: default_timeout_ms(),
            durability: default_durability(),
            ..RawRedis::default()
        }
    }

    #[test]
    fn the_embedded_store_is_the_default_and_unknown_backends_are_named() {
        assert!(matches!(validate_backend("", &RawRedis::default()), Ok(StateBackend::Embedded)));
        let e = validate_backend("etcd", &RawRedis::default()).expect_err("unknown");
        assert_eq!(e.field, "state.backend");
    }

    #[test]
    fn a_redis_url_is_checked_and_never_carries_credentials() {
        let ok = validate_backend("redis", &raw("redis://127.0.0.1:6379/0")).expect("valid");
        let StateBackend::Redis(c) = ok else { panic!("redis") };
        assert_eq!(c.name(), "redis at 127.0.0.1:6379");
        assert_eq!(c.durability, RedisDurability::Always);
        for bad in ["http://127.0.0.1", "", "redis://user:secret@127.0.0.1:6379"] {
            let e = validate_backend("redis", &raw(bad)).expect_err(bad);
            assert_eq!(e.field, "state.redis.url", "{bad}");
            assert!(!e.message.contains("secret"), "{e}");
        }
    }

    #[test]
    fn bounds_and_durability_are_checked() {
        let mut r = raw("redis://127.0.0.1:6379");
        r.timeout_ms = 0;
        assert_eq!(validate_backend("redis", &r).expect_err("zero").field, "state.redis.timeout_ms");
        let mut r = raw("redis://127.0.0.1:6379");
        r.durability = "never".into();
        assert_eq!(validate_backend("redis", &r).expect_err("never").field, "state.redis.durability");
        let mut r = raw("redis://127.0.0.1:6379");
        r.durability = "everysec".into();
        let Ok(StateBackend::Redis(c)) = validate_backend("redis", &r) else { panic!("everysec") };
        assert_eq!(c.durability, RedisDurability::EverySec);
    }
}
