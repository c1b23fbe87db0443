//! Configuration: an embedded default, a file, and `BLINDFOLD_…` variables, validated in full
//! before anything binds. A bad config names the field and exits 64.

mod cascade;
mod console;
mod engine;
mod error;
mod identity;
mod judge;
mod limits;
mod listeners;
mod opencode;
mod raw;
mod state;
mod trace;
mod transports;
mod validate;
mod verifiers;
mod workspace;

pub use cascade::{CascadeSections, RawCascade, RawJudge, RawJudgeEndpoint, RawPreverify, RawRule};
pub use console::{APPROVAL_KEY_FILE, ConsoleConfig, MetricsConfig, RawConsole, RawMetrics};
pub use engine::{DEFAULT_KEEP_ANSWERED_SECS, RawReview, ReviewConfig};
pub use error::ConfigError;
pub use identity::{IdentityConfig, RawAgent, RawIdentity};
pub use judge::{JudgeConfig, JudgeEndpoint};
pub use limits::{Limits, RawLimits};
pub use opencode::{BasicAuth, OpenCodeConfig, RawOpenCode, Secret};
pub use raw::RawConfig;
pub use state::{RawRedis, RedisConfig, RedisDurability, StateBackend};
pub use trace::{Durability, TraceConfig};
pub use transports::{A2aUpstream, TransportsConfig};
pub use validate::{Config, GrantsConfig, ModelProxyConfig, ServerConfig, valid_task_id};
pub use verifiers::{RawVerifier, Verifier, VerifierEndpoint, VerifiersConfig};
pub use workspace::{RawWorkspace, WorkspaceConfig};

use std::path::Path;

/// The embedded default configuration (TOML).
pub const DEFAULT_TOML: &str = include_str!("default.toml");

/// Loads the default, then `file` (if any), then `BLINDFOLD_…` environment variables, and
/// validates the result.
pub fn load(file: Option<&Path>) -> Result<Config, ConfigError> {
    let mut builder =
        config::Config::builder().add_source(config::File::from_str(DEFAULT_TOML, config::FileFormat::Toml));
    if let Some(path) = file {
        if !path.is_file() {
            return Err(ConfigError::field("--config", format!("no such file: {}", path.display())));
        }
        builder = builder.add_source(config::File::from(path).format(config::FileFormat::Toml));
    }
    builder = builder.add_source(
        config::Environment::with_prefix("BLINDFOLD")
            .prefix_separator("_")
            .separator("__")
            .list_separator(",")
            .with_list_parse_key("server.allowed_hosts")
            .with_list_parse_key("server.allowed_origins")
            .with_list_parse_key("grants.trusted_keys")
            .with_list_parse_key("grants.revoked_kids")
            .with_list_parse_key("grants.reconciliation")
            .with_list_parse_key("mcp.allow_tools")
            .with_list_parse_key("identity.card_keys")
            .try_parsing(true)
            .source(Some(config_variables())),
    );
    let merged = builder.build().map_err(ConfigError::from_source)?;
    let raw: RawConfig = merged.try_deserialize().map_err(ConfigError::from_source)?;
    let mut config = raw.validate()?;
    config.file = file.map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf()));
    // Every command reads its configuration here, so each warns of settings that changed.
    for warning in &config.deprecations {
        eprintln!("blindfold: warning: {warning}");
    }
    Ok(config)
}

/// `BLINDFOLD_<SECTION>__<KEY>` variables only: other `BLINDFOLD_…` variables (tokens for
/// adapters, test knobs) are not configuration and must not fail validation.
fn config_variables() -> config::Map<String, String> {
    std::env::vars()
        .filter(|(k, _)| k.strip_prefix("BLINDFOLD_").is_some_and(|rest| rest.contains("__")))
        .collect()
}
