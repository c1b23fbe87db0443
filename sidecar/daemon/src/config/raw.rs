//! The configuration as written: every section and key, nothing checked yet.

use serde::{Deserialize, Serialize};

/// The whole configuration file as parsed; `validate` turns it into a [`super::Config`].
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawConfig {
    /// `[server]`.
    pub server: RawServer,
    /// `[state]`.
    pub state: RawState,
    /// `[modes]`.
    pub modes: RawModes,
    /// `[grants]`.
    pub grants: RawGrants,
    /// `[workspace]`: where the task's files are.
    #[serde(default)]
    pub workspace: super::RawWorkspace,
    /// `[transports]`: limits on relayed streams.
    pub transports: super::transports::RawTransports,
    /// `[mcp]`: MCP server trust and the stage's tool allowlist.
    #[serde(default)]
    pub mcp: super::transports::RawMcp,
    /// `[mcp_http]`: the Streamable HTTP reverse proxy.
    #[serde(default)]
    pub mcp_http: super::transports::RawMcpHttp,
    /// `[a2a]`: the A2A reverse proxy and its upstream agents.
    #[serde(default)]
    pub a2a: super::transports::RawA2a,
    /// `[ws_relay]`: the JSON-RPC-over-WebSocket relay.
    #[serde(default)]
    pub ws_relay: super::transports::RawWsRelay,
    /// `[trace]`.
    pub trace: RawTrace,
    /// `[model_proxy]`.
    #[serde(default)]
    pub model_proxy: RawModelProxy,
    /// `[identity]`: agents known by name and extra words.
    #[serde(default)]
    pub identity: super::identity::RawIdentity,
    /// `[opencode]`: the OpenCode mode.
    #[serde(default)]
    pub opencode: crate::config::RawOpenCode,
    /// `[review]`: the durable review queue.
    #[serde(default)]
    pub review: super::engine::RawReview,
    /// `[limits]`: bounds on untrusted input.
    #[serde(default)]
    pub limits: super::limits::RawLimits,
    /// `[roles.<agent>]`: each agent's stage (tool allowlist, stores, action cap).
    #[serde(default)]
    pub roles: std::collections::BTreeMap<String, blindfold_schemas::Role>,
    /// `[stores.<name>]`: restricted memory stores.
    #[serde(default)]
    pub stores: std::collections::BTreeMap<String, blindfold_schemas::StoreAcl>,
    /// `[[rules]]`: argument rules (denied patterns, critical assets).
    #[serde(default)]
    pub rules: Vec<super::cascade::RawRule>,
    /// `[tools.<name>]`: trusted registry additions and overrides.
    #[serde(default)]
    pub tools: std::collections::BTreeMap<String, blindfold_schemas::ToolSpec>,
    /// `[cascade]`: windows, expiries and limits.
    #[serde(default)]
    pub cascade: super::cascade::RawCascade,
    /// `[preverify]`: extra language patterns.
    #[serde(default)]
    pub preverify: super::cascade::RawPreverify,
    /// `[judge]`: the optional judge quorum.
    #[serde(default)]
    pub judge: super::cascade::RawJudge,
    /// `[console]`: the operator's web console and its webhook.
    #[serde(default)]
    pub console: super::console::RawConsole,
    /// `[metrics]`: Prometheus metrics at `/metrics`.
    #[serde(default)]
    pub metrics: super::console::RawMetrics,
}

/// `[server]`: where the health endpoint and the control API listen.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawServer {
    /// `host:port`, loopback only.
    pub listen: String,
    /// Host names besides loopback that every listener answers to (`Host` header).
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Browser origins besides loopback ones that every listener serves (CORS), and the only
    /// origins that may open the control API.
    #[serde(default)]
    pub allowed_origins: Vec<String>,
    /// Unix socket serving the control API too (mode 0600); empty: none; relative: under the
    /// state directory.
    #[serde(default)]
    pub control_socket: String,
    /// Runtime worker threads; 0 means one per CPU.
    #[serde(default = "one_worker")]
    pub workers: usize,
}

fn one_worker() -> usize {
    1
}

/// `[state]`: Blindfold's private directory.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawState {
    /// Directory; empty means the platform default.
    #[serde(default)]
    pub dir: String,
    /// Where the state a fleet shares lives: `embedded` (default) or `redis`.
    #[serde(default)]
    pub backend: String,
    /// `[state.redis]`, read when `backend = "redis"`.
    #[serde(default)]
    pub redis: super::RawRedis,
}

/// `[modes]`: which mechanisms are on.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawModes {
    /// Strip displayed identity.
    pub anonymize: bool,
    /// Show only verified identity.
    pub attest: bool,
    /// Contradiction blocks execute; effectful proposals need verification.
    pub preverify: bool,
    /// Mutations need a signed grant.
    pub grants: bool,
    /// Block (true) or only record (false).
    pub enforce: bool,
}

/// `[grants]`: trusted issuers and time bounds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawGrants {
    /// SPKI PEM files of trusted issuer keys.
    #[serde(default)]
    pub trusted_keys: Vec<String>,
    /// Revoked key ids.
    #[serde(default)]
    pub revoked_kids: Vec<String>,
    /// Clock leeway, seconds.
    pub leeway_s: u64,
    /// Maximum grant lifetime, seconds.
    pub max_ttl_s: u64,
    /// Operations that stay allowed under a revoked grant covering them (reads the registry
    /// counts effectful that reconcile what already happened).
    #[serde(default)]
    pub reconciliation: Vec<String>,
}

/// `[trace]`: the durable authority trace.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTrace {
    /// Write the trace (every decision fails closed when it cannot be written).
    pub enabled: bool,
    /// Directory; empty means `<state dir>/traces`.
    #[serde(default)]
    pub dir: String,
    /// Rotate a file once it would grow past this many bytes.
    pub max_file_bytes: u64,
    /// `os` (written to the OS before the decision takes effect) or `fsync` (also synced).
    pub durability: String,
    /// OTLP/HTTP collector endpoint (`http://127.0.0.1:4318`); empty = no export.
    #[serde(default)]
    pub otlp_endpoint: String,
    /// Export a trajectory's span once it has been idle this many milliseconds.
    #[serde(default = "default_otlp_idle_ms")]
    pub otlp_idle_ms: u64,
}

/// `[model_proxy]`: the OpenAI/Anthropic-compatible proxy for the coordinator's own model traffic.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawModelProxy {
    /// Base URL of the real model API (`http://host:port[/prefix]`); empty: not served by `run`.
    #[serde(default)]
    pub upstream: String,
    /// `host:port`, loopback only.
    #[serde(default)]
    pub listen: String,
    /// Pinned trajectory id; empty: the `X-Blindfold-Task` header, else one per process.
    #[serde(default)]
    pub task: String,
    /// Largest request or non-streamed response body accepted, bytes.
    #[serde(default)]
    pub max_body_bytes: u64,
    /// Whether an allowed call takes its grant's use here (`false`: checked only, a harness plugin
    /// consumes it when the tool runs).
    #[serde(default = "default_consume_grants")]
    pub consume_grants: bool,
    /// `required`: a request must carry a session tag of a registered harness session (its tool
    /// calls are refused otherwise); `optional` (default): an untagged request is decided as the
    /// proxy's own trajectory.
    #[serde(default)]
    pub sessions: String,
}

fn default_consume_grants() -> bool {
    true
}

impl Default for RawModelProxy {
    fn default() -> Self {
        Self {
            upstream: String::new(),
            listen: String::new(),
            task: String::new(),
            max_body_bytes: 0,
            consume_grants: default_consume_grants(),
            sessions: String::new(),
        }
    }
}

fn default_otlp_idle_ms() -> u64 {
    2000
}
