//! Raw → validated configuration. Every problem names the field it is about.

use super::error::ConfigError;
use super::raw::RawConfig;
use blindfold_engine::grants::{GrantPolicy, TrustedKeys};
use blindfold_schemas::ModeSet;
use std::net::SocketAddr;
use std::path::PathBuf;

/// `[server]`, validated.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// A loopback address.
    pub listen: SocketAddr,
    /// Host names besides loopback that every listener answers to (lower-case).
    pub allowed_hosts: Vec<String>,
    /// Browser origins besides loopback ones served by every listener, and the only ones that may
    /// open the control API (lower-case, no trailing slash).
    pub allowed_origins: Vec<String>,
    /// The control API's Unix socket (absolute path), when configured.
    pub control_socket: Option<PathBuf>,
    /// Worker threads of the runtime that serves every listener (at least 1).
    pub workers: usize,
}

/// `[model_proxy]`, validated.
#[derive(Debug, Clone)]
pub struct ModelProxyConfig {
    /// Base URL of the model API (`http://…`, no trailing slash); `None` when not configured.
    pub upstream: Option<String>,
    /// A loopback address.
    pub listen: SocketAddr,
    /// Pinned trajectory id.
    pub task: Option<String>,
    /// Body size limit, bytes.
    pub max_body_bytes: usize,
    /// Whether an allowed call takes its grant's use at the proxy (else a dry run: a plugin at the
    /// harness consumes it when the tool runs).
    pub consume_grants: bool,
    /// True when every request must carry a registered harness session's tag (`sessions =
    /// "required"`): the tool calls of any other request are refused.
    pub require_session: bool,
}

/// `[grants]`, validated: keys loaded and the time policy set.
#[derive(Clone)]
pub struct GrantsConfig {
    /// Trusted issuer keys (revoked ones already marked).
    pub keys: TrustedKeys,
    /// Leeway and lifetime bound.
    pub policy: GrantPolicy,
}

/// The validated configuration the daemon runs on.
#[derive(Clone)]
pub struct Config {
    /// Listening and origins.
    pub server: ServerConfig,
    /// Blindfold's private directory.
    pub state_dir: PathBuf,
    /// Where the state a fleet shares lives (`[state] backend`).
    pub state_backend: super::StateBackend,
    /// Mechanisms on.
    pub modes: ModeSet,
    /// Grant verification.
    pub grants: GrantsConfig,
    /// Where the task's files are.
    pub workspace: super::WorkspaceConfig,
    /// Transport limits, MCP policy and proxy upstreams.
    pub transports: super::transports::TransportsConfig,
    /// The authority trace.
    pub trace: super::trace::TraceConfig,
    /// The model-API proxy.
    pub model_proxy: ModelProxyConfig,
    /// Agents known by name and extra words.
    pub identity: super::identity::IdentityConfig,
    /// The OpenCode mode.
    pub opencode: crate::config::OpenCodeConfig,
    /// The review queue's bounds.
    pub review: super::engine::ReviewConfig,
    /// Bounds on untrusted input.
    pub limits: super::limits::Limits,
    /// The engine's configuration (registry, true identities, roles, stores, rules, windows,
    /// patterns); the grant policy is set from `[grants]`.
    pub engine: blindfold_engine::EngineConfig,
    /// The judge quorum, when `[judge] enabled`.
    pub judge: Option<super::judge::JudgeConfig>,
    /// The verifiers Blindfold may ask itself (`[preverify] verifiers`; none by default).
    pub verifiers: super::verifiers::VerifiersConfig,
    /// Keys still read under an older name, each with the warning that names its replacement.
    pub deprecations: Vec<String>,
    /// The operator's web console.
    pub console: super::console::ConsoleConfig,
    /// Prometheus metrics.
    pub metrics: super::console::MetricsConfig,
    /// The raw form, for `--print-config`.
    pub raw: RawConfig,
    /// The file it was read from (`--config`), absolute; `None` for the embedded default. The
    /// commands Blindfold prints for a person name it, so they reach this daemon.
    pub file: Option<PathBuf>,
}

/// Longest clock leeway accepted (5 minutes); more would make expiry meaningless.
const MAX_LEEWAY_S: u64 = 300;
/// Longest grant lifetime accepted in config (30 days).
const MAX_MAX_TTL_S: u64 = 30 * 24 * 3600;

impl RawConfig {
    /// Checks every field; the first problem is returned with its field name.
    pub fn validate(self) -> Result<Config, ConfigError> {
        let listen: SocketAddr = self.server.listen.parse().map_err(|_| {
            ConfigError::field("server.listen", format!("not a host:port address: {:?}", self.server.listen))
        })?;
        if !listen.ip().is_loopback() {
            return Err(ConfigError::field(
                "server.listen",
                format!("{listen} is not a loopback address; the control API listens on loopback only"),
            ));
        }
        let allowed_hosts = super::listeners::allowed_hosts(&self.server.allowed_hosts)?;
        let allowed_origins = super::listeners::allowed_origins(&self.server.allowed_origins)?;
        let state_dir = resolve_state_dir(&self.state.dir)?;
        let state_backend = super::state::validate_backend(&self.state.backend, &self.state.redis)?;
        let control_socket = control_socket(&self.server.control_socket, &state_dir)?;
        let workers = workers(self.server.workers)?;
        if self.grants.leeway_s > MAX_LEEWAY_S {
            return Err(ConfigError::field("grants.leeway_s", format!("at most {MAX_LEEWAY_S} seconds")));
        }
        if self.grants.max_ttl_s == 0 || self.grants.max_ttl_s > MAX_MAX_TTL_S {
            return Err(ConfigError::field(
                "grants.max_ttl_s",
                format!("between 1 and {MAX_MAX_TTL_S} seconds"),
            ));
        }
        let mut keys = TrustedKeys::new();
        for (i, path) in self.grants.trusted_keys.iter().enumerate() {
            let field = format!("grants.trusted_keys[{i}]");
            let pem = std::fs::read_to_string(path)
                .map_err(|e| ConfigError::field(&field, format!("cannot read {path}: {e}")))?;
            keys.add_pem(&pem).map_err(|e| ConfigError::field(&field, format!("{path}: {e}")))?;
        }
        for kid in &self.grants.revoked_kids {
            keys.revoke(kid);
        }
        let transports = super::transports::validate(
            &self.transports,
            &self.mcp,
            &self.mcp_http,
            &self.a2a,
            &self.ws_relay,
        )?;
        let trace = validate_trace(&self.trace, &state_dir)?;
        let model_proxy = self.model_proxy.validate()?;
        let identity = self.identity.validate()?;
        let opencode = self.opencode.validate()?;
        let review = self.review.validate()?;
        let limits = self.limits.validate()?;
        let console = self.console.validate(&state_dir, listen)?;
        let metrics = self.metrics.validate()?;
        let mut agents = identity.agents.clone();
        agents.extend(transports.a2a_upstreams.iter().map(|u| (u.id.clone(), u.identity.clone())));
        let p = &self.preverify;
        let verifiers =
            super::verifiers::validate(&p.verifiers, p.verify_timeout_s, p.verifier_calls_per_minute)?;
        agents.extend(verifiers.identities(&agents)?);
        let sections = super::cascade::CascadeSections {
            roles: &self.roles,
            stores: &self.stores,
            rules: &self.rules,
            tools: &self.tools,
            cascade: &self.cascade,
            preverify: &self.preverify,
            judge: &self.judge,
        };
        let (mut engine, judge) = sections.validate(agents)?;
        let mut deprecations = Vec::new();
        engine.max_events = limits.max_events_per_trajectory;
        if let Some(old) = self.cascade.max_events {
            engine.max_events = engine.max_events.min(old);
            deprecations.push(format!(
                "cascade.max_events is deprecated: it is the rule of limits.max_events_per_trajectory, \
                 which replaces it (set that instead; until then the smaller, {}, applies)",
                engine.max_events
            ));
        }
        if !self.preverify.approve_patterns.is_empty() {
            deprecations.push(
                "[preverify] approve_patterns is no longer read: prose never approves an action; a \
                 verifier approves with its verdict line for Blindfold's handle (docs/verification.md). \
                 Remove the setting; refuse_patterns and warn_patterns still add refusal language"
                    .to_owned(),
            );
        }
        engine.grant_policy =
            GrantPolicy { leeway_s: self.grants.leeway_s, max_ttl_s: self.grants.max_ttl_s };
        engine.reconciliation = self.grants.reconciliation.clone();
        let workspace = self.workspace.validate()?;
        let m = &self.modes;
        Ok(Config {
            server: ServerConfig { listen, allowed_hosts, allowed_origins, control_socket, workers },
            state_dir,
            workspace,
            state_backend,
            modes: ModeSet {
                anonymize: m.anonymize,
                attest: m.attest,
                preverify: m.preverify,
                grants: m.grants,
                enforce: m.enforce,
            },
            grants: GrantsConfig {
                keys,
                policy: GrantPolicy { leeway_s: self.grants.leeway_s, max_ttl_s: self.grants.max_ttl_s },
            },
            transports,
            trace,
            model_proxy,
            identity,
            opencode,
            review,
            limits,
            engine,
            judge,
            verifiers,
            deprecations,
            console,
            metrics,
            raw: self,
            file: None,
        })
    }
}

impl super::raw::RawModelProxy {
    /// Checks `[model_proxy]`: an `http://` upstream, a loopback listen address, a sane task id.
    pub fn validate(&self) -> Result<ModelProxyConfig, ConfigError> {
        let upstream = match self.upstream.trim() {
            "" => None,
            url => Some(validate_upstream(url)?),
        };
        let listen_text = if self.listen.is_empty() { "127.0.0.1:7701" } else { self.listen.as_str() };
        let listen: SocketAddr = listen_text.parse().map_err(|_| {
            ConfigError::field("model_proxy.listen", format!("not a host:port address: {listen_text:?}"))
        })?;
        if !listen.ip().is_loopback() {
            return Err(ConfigError::field(
                "model_proxy.listen",
                format!("{listen} is not a loopback address"),
            ));
        }
        let task = match self.task.as_str() {
            "" => None,
            t if valid_task_id(t) => Some(t.to_owned()),
            t => {
                return Err(ConfigError::field(
                    "model_proxy.task",
                    format!("not a task id (1-128 of A-Z a-z 0-9 . _ : -): {t:?}"),
                ));
            }
        };
        let max = if self.max_body_bytes == 0 { 32 << 20 } else { self.max_body_bytes };
        let max_body_bytes = usize::try_from(max)
            .map_err(|_| ConfigError::field("model_proxy.max_body_bytes", "too large for this platform"))?;
        let require_session = match self.sessions.as_str() {
            "" | "optional" => false,
            "required" => true,
            other => {
                return Err(ConfigError::field(
                    "model_proxy.sessions",
                    format!("\"required\" or \"optional\", not {other:?}"),
                ));
            }
        };
        Ok(ModelProxyConfig {
            upstream,
            listen,
            task,
            max_body_bytes,
            consume_grants: self.consume_grants,
            require_session,
        })
    }
}

/// True for a trajectory id an operator may pin: 1–128 of `A-Z a-z 0-9 . _ : -`.
pub fn valid_task_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"._:-".contains(&b))
}

/// An `http://host[:port][/prefix]` base URL, without a trailing slash, query or fragment.
fn validate_upstream(url: &str) -> Result<String, ConfigError> {
    let field = "model_proxy.upstream";
    if url.starts_with("https://") {
        return Err(ConfigError::field(
            field,
            "https upstreams are not built in: put a TLS-originating forwarder on loopback and point upstream at it",
        ));
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(ConfigError::field(field, format!("not an http:// URL: {url:?}")));
    };
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.is_empty() || authority.contains('@') || url.contains(['?', '#', ' ']) {
        return Err(ConfigError::field(
            field,
            format!("not a base URL (http://host[:port][/prefix]): {url:?}"),
        ));
    }
    if url.parse::<hyper::Uri>().is_err() {
        return Err(ConfigError::field(field, format!("not a valid URL: {url:?}")));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// The state directory: the configured one, else `$XDG_STATE_HOME/blindfold`, else
/// `~/.local/state/blindfold`.
fn resolve_state_dir(configured: &str) -> Result<PathBuf, ConfigError> {
    if !configured.is_empty() {
        return Ok(PathBuf::from(configured));
    }
    if let Some(xdg) = std::env::var_os("XDG_STATE_HOME").filter(|d| !d.is_empty()) {
        return Ok(PathBuf::from(xdg).join("blindfold"));
    }
    match std::env::var_os("HOME").filter(|d| !d.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".local/state/blindfold")),
        None => Err(ConfigError::field("state.dir", "empty and neither XDG_STATE_HOME nor HOME is set")),
    }
}

/// Smallest rotation size accepted (a few records per file at least).
const MIN_TRACE_FILE_BYTES: u64 = 64 * 1024;

fn validate_trace(
    t: &super::raw::RawTrace,
    state_dir: &std::path::Path,
) -> Result<super::trace::TraceConfig, ConfigError> {
    use super::trace::Durability;
    let durability = match t.durability.as_str() {
        "os" => Durability::Os,
        "fsync" => Durability::Fsync,
        other => {
            return Err(ConfigError::field(
                "trace.durability",
                format!("\"os\" or \"fsync\", not {other:?}"),
            ));
        }
    };
    if t.max_file_bytes < MIN_TRACE_FILE_BYTES {
        return Err(ConfigError::field("trace.max_file_bytes", format!("at least {MIN_TRACE_FILE_BYTES}")));
    }
    let otlp_endpoint = match t.otlp_endpoint.trim() {
        "" => None,
        e if e.starts_with("http://") => Some(e.trim_end_matches('/').to_owned()),
        e => {
            return Err(ConfigError::field(
                "trace.otlp_endpoint",
                format!("not an http:// URL (OTLP/HTTP to a local collector): {e:?}"),
            ));
        }
    };
    let dir = if t.dir.is_empty() { state_dir.join("traces") } else { PathBuf::from(&t.dir) };
    Ok(super::trace::TraceConfig {
        enabled: t.enabled,
        dir,
        max_file_bytes: t.max_file_bytes,
        durability,
        otlp_endpoint,
        otlp_idle: std::time::Duration::from_millis(t.otlp_idle_ms.max(10)),
    })
}

impl Config {
    /// Moves Blindfold's private directory to `dir` (a scratch or test directory) with what the
    /// configuration derived from it: the console's generated approval key, and the trace
    /// directory and control socket where they were inside it. Paths the user gave elsewhere
    /// stay as they are.
    pub fn set_state_dir(&mut self, dir: PathBuf) {
        let old = std::mem::replace(&mut self.state_dir, dir);
        let follow = |p: &mut PathBuf| {
            if let Ok(rest) = p.strip_prefix(&old) {
                *p = self.state_dir.join(rest);
            }
        };
        if self.console.approval_key_generated {
            self.console.approval_key = self.state_dir.join(super::APPROVAL_KEY_FILE);
        }
        follow(&mut self.trace.dir);
        if let Some(socket) = self.server.control_socket.as_mut() {
            follow(socket);
        }
    }
}

/// Longest Unix socket path (the platform's `sun_path` holds 108 bytes with its terminator).
const MAX_SOCKET_PATH: usize = 100;

/// Most runtime worker threads accepted in `[server] workers`.
const MAX_WORKERS: usize = 256;

/// `[server] workers`: 0 is one per CPU (as the OS reports them), else the number itself.
fn workers(configured: usize) -> Result<usize, ConfigError> {
    if configured > MAX_WORKERS {
        return Err(ConfigError::field("server.workers", format!("at most {MAX_WORKERS} (0: one per CPU)")));
    }
    if configured > 0 {
        return Ok(configured);
    }
    Ok(std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get))
}

/// `[server] control_socket`: empty is none, a relative path is under the state directory.
fn control_socket(raw: &str, state_dir: &std::path::Path) -> Result<Option<PathBuf>, ConfigError> {
    if raw.is_empty() {
        return Ok(None);
    }
    let path = state_dir.join(raw);
    if path.as_os_str().len() > MAX_SOCKET_PATH || path.file_name().is_none() {
        return Err(ConfigError::field(
            "server.control_socket",
            format!("not a socket path of at most {MAX_SOCKET_PATH} bytes: {}", path.display()),
        ));
    }
    Ok(Some(path))
}
