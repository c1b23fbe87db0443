//! `[transports]`, `[mcp]`, `[mcp_http]` and `[a2a]`: limits, MCP trust and allowlist, and the
//! upstreams the reverse proxies serve.

use super::error::ConfigError;
use blindfold_schemas::AgentIdentity;
use serde::{Deserialize, Serialize};

/// `[transports]` as written.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawTransports {
    /// Largest message accepted on any relayed stream, bytes.
    pub max_frame_bytes: usize,
    /// Seconds an upstream may take to answer (or between stream events) before the client gets an error.
    pub upstream_timeout_s: u64,
}

/// `[mcp]` as written: how MCP servers are treated.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMcp {
    /// Trust the servers' tool annotations (`readOnlyHint`).
    #[serde(default)]
    pub trusted: bool,
    /// The stage's tool allowlist; empty = every tool.
    #[serde(default)]
    pub allow_tools: Vec<String>,
}

/// `[mcp_http]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawMcpHttp {
    /// Upstream MCP endpoint URL (`http://host:port/path`); empty = the proxy is off.
    #[serde(default)]
    pub upstream: String,
    /// Trajectory id for every session of this proxy; empty = one trajectory per session.
    #[serde(default)]
    pub task: String,
}

/// `[ws_relay]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawWsRelay {
    /// Upstream JSON-RPC-over-WebSocket endpoint (`ws://host:port/path`); empty = off.
    #[serde(default)]
    pub upstream: String,
    /// Trajectory id for every connection; empty = one per connection.
    #[serde(default)]
    pub task: String,
}

/// `[a2a]` as written.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawA2a {
    /// Trajectory id for every conversation; empty = one trajectory per `contextId`.
    #[serde(default)]
    pub task: String,
    /// The upstream (by id) whose card is served at the host root
    /// (`/.well-known/agent-card.json`); empty = the only upstream, when there is one.
    #[serde(default)]
    pub root: String,
    /// The sub-agents behind this Blindfold.
    #[serde(default)]
    pub upstreams: Vec<RawA2aUpstream>,
}

/// One `[[a2a.upstreams]]`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RawA2aUpstream {
    /// The agent's configured id (never shown to the coordinator in `anonymize`).
    pub id: String,
    /// Base URL of the agent (its card is at `/.well-known/agent-card.json` below it).
    pub url: String,
    /// True identity: model.
    #[serde(default)]
    pub model: String,
    /// True identity: family.
    #[serde(default)]
    pub family: String,
    /// True identity: tier.
    #[serde(default)]
    pub tier: String,
    /// True identity: provider.
    #[serde(default)]
    pub provider: String,
}

/// Transport settings, validated.
#[derive(Debug, Clone)]
pub struct TransportsConfig {
    /// Largest message accepted, bytes.
    pub max_frame_bytes: usize,
    /// Upstream answer timeout.
    pub upstream_timeout: std::time::Duration,
    /// Trust MCP tool annotations.
    pub mcp_trusted: bool,
    /// The stage's MCP tool allowlist (empty = all).
    pub mcp_allow_tools: Vec<String>,
    /// Streamable HTTP upstream, when the proxy is on.
    pub mcp_http_upstream: Option<String>,
    /// Pinned trajectory id for the MCP HTTP proxy.
    pub mcp_http_task: Option<String>,
    /// Pinned trajectory id for the A2A proxy.
    pub a2a_task: Option<String>,
    /// A2A upstream agents, in config order.
    pub a2a_upstreams: Vec<A2aUpstream>,
    /// The id of the upstream whose card the host root serves, if any.
    pub a2a_root: Option<String>,
    /// JSON-RPC-over-WebSocket upstream, when the relay is on.
    pub ws_relay_upstream: Option<String>,
    /// Pinned trajectory id for the WebSocket relay.
    pub ws_relay_task: Option<String>,
}

/// One A2A upstream agent, validated.
#[derive(Debug, Clone)]
pub struct A2aUpstream {
    /// Configured id.
    pub id: String,
    /// Base URL without a trailing slash.
    pub url: String,
    /// True identity from config.
    pub identity: AgentIdentity,
}

const MIN_FRAME: usize = 1024;
const MAX_FRAME: usize = 256 << 20;

fn http_url(field: &str, url: &str) -> Result<String, ConfigError> {
    let ok = url.strip_prefix("http://").is_some_and(|rest| !rest.is_empty() && !rest.starts_with('/'));
    if !ok {
        return Err(ConfigError::field(field, format!("not an http:// URL: {url:?}")));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_owned())
}

/// Validates the transport sections.
pub fn validate(
    t: &RawTransports,
    mcp: &RawMcp,
    http: &RawMcpHttp,
    a2a: &RawA2a,
    ws: &RawWsRelay,
) -> Result<TransportsConfig, ConfigError> {
    let ws_ok = ws.upstream.is_empty()
        || ws.upstream.strip_prefix("ws://").is_some_and(|r| !r.is_empty() && !r.starts_with('/'));
    if !ws_ok {
        return Err(ConfigError::field("ws_relay.upstream", format!("not a ws:// URL: {:?}", ws.upstream)));
    }
    if !(MIN_FRAME..=MAX_FRAME).contains(&t.max_frame_bytes) {
        return Err(ConfigError::field(
            "transports.max_frame_bytes",
            format!("between {MIN_FRAME} and {MAX_FRAME} bytes"),
        ));
    }
    if t.upstream_timeout_s == 0 || t.upstream_timeout_s > 3600 {
        return Err(ConfigError::field("transports.upstream_timeout_s", "between 1 and 3600 seconds"));
    }
    let mcp_http_upstream =
        if http.upstream.is_empty() { None } else { Some(http_url("mcp_http.upstream", &http.upstream)?) };
    let mut upstreams = Vec::new();
    for (i, u) in a2a.upstreams.iter().enumerate() {
        let field = format!("a2a.upstreams[{i}]");
        let id_ok = !u.id.is_empty() && u.id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c));
        if !id_ok {
            return Err(ConfigError::field(format!("{field}.id"), "non-empty, letters, digits, - _ . only"));
        }
        if upstreams.iter().any(|x: &A2aUpstream| x.id == u.id) {
            return Err(ConfigError::field(format!("{field}.id"), format!("duplicate id {:?}", u.id)));
        }
        upstreams.push(A2aUpstream {
            id: u.id.clone(),
            url: http_url(&format!("{field}.url"), &u.url)?,
            identity: AgentIdentity {
                model: u.model.clone(),
                family: u.family.clone(),
                tier: u.tier.clone(),
                provider: u.provider.clone(),
            },
        });
    }
    let a2a_root = match a2a.root.as_str() {
        "" if upstreams.len() == 1 => Some(upstreams[0].id.clone()),
        "" => None,
        id if upstreams.iter().any(|u| u.id == id) => Some(id.to_owned()),
        id => return Err(ConfigError::field("a2a.root", format!("no [[a2a.upstreams]] has id {id:?}"))),
    };
    Ok(TransportsConfig {
        max_frame_bytes: t.max_frame_bytes,
        upstream_timeout: std::time::Duration::from_secs(t.upstream_timeout_s),
        mcp_trusted: mcp.trusted,
        mcp_allow_tools: mcp.allow_tools.clone(),
        mcp_http_upstream,
        mcp_http_task: non_empty(&http.task),
        a2a_task: non_empty(&a2a.task),
        a2a_upstreams: upstreams,
        a2a_root,
        ws_relay_upstream: non_empty(&ws.upstream),
        ws_relay_task: non_empty(&ws.task),
    })
}
