//! One MCP connection's gate, transport-agnostic: every client→server message is checked
//! (strict framing, known methods, `tools/call` through [`App::decide`]) and every
//! server→client message is filtered (`tools/list` to the allowlist, trusted annotations fed to
//! the registry) and every `tools/call` answer is reported to the engine as a `tool_result`. The
//! stdio relay and the HTTP proxy only move bytes around it.

mod client;
mod listing;
mod server;

use super::grant_files::GrantFiles;
use super::pins::ToolPins;
use super::remote::RemoteControl;
use super::stream_ids::StreamIds;
use crate::runtime::app::App;
use crate::runtime::permit::Authorized;
use blindfold_adapters::sse::SseEvent;
use blindfold_schemas::{Event, Reason};
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;

/// How this connection's MCP server is treated.
#[derive(Debug, Clone, Default)]
pub struct McpPolicy {
    /// Trust the server's tool annotations.
    pub trusted: bool,
    /// The stage's tool allowlist (empty = all).
    pub allow_tools: Vec<String>,
    /// Largest message accepted, bytes.
    pub max_frame: usize,
    /// The server's id for tool-definition pins (`stdio:CMD ARGS…`, `http:URL`).
    pub server: String,
    /// The agent whose calls this relay carries (`mcp-stdio --agent`); `None`: the coordinator.
    /// A sub-agent's effectful call needs an independent verification like any of its actions.
    pub actor: Option<String>,
}

impl McpPolicy {
    /// The policy `[mcp]` and `[transports]` configure.
    pub fn from_config(app: &App) -> Self {
        let t = &app.config.transports;
        let server = t.mcp_http_upstream.as_ref().map_or_else(|| "mcp".to_owned(), |u| format!("http:{u}"));
        Self {
            trusted: t.mcp_trusted,
            allow_tools: t.mcp_allow_tools.clone(),
            max_frame: t.max_frame_bytes,
            server,
            actor: None,
        }
    }

    fn allows(&self, tool: &str) -> bool {
        self.allow_tools.is_empty() || self.allow_tools.iter().any(|t| t == tool)
    }
}

/// What to do with a client→server message.
#[derive(Debug)]
pub enum FromClient {
    /// Forward these bytes to the server (the decision path authorized them).
    Forward(Authorized<Vec<u8>>),
    /// Do not forward; answer the client with this message (a refusal or protocol error).
    Answer(Value),
}

/// What to do with a server→client message.
#[derive(Debug)]
pub enum FromServer {
    /// Relay these bytes to the client (the decision path authorized them).
    Forward(Authorized<Vec<u8>>),
    /// Drop it; when the client waits for an answer, send it this error instead.
    Drop(Option<Value>),
}

/// The `tool_result`s of forwarded `tools/call` answers, to record around the forward.
#[must_use = "a tool result must be recorded"]
pub struct Observation {
    app: App,
    task: String,
    events: Vec<Event>,
}

impl Observation {
    /// Adds the tool results of `later` (answers of the same connection forwarded after these,
    /// in the same write).
    pub fn merge(&mut self, later: Observation) {
        self.events.extend(later.events);
    }

    /// Runs `forward` (the answers' bytes going out), then records the tool results in order,
    /// holding the trajectory's lock across both ([`App::observe_around`]): a decision of this
    /// trajectory made once an answer is out waits for the results and sees them.
    pub fn around<R>(self, forward: impl FnOnce() -> R) -> R {
        self.app.observe_around(&self.task, &self.events, forward)
    }
}

/// One MCP connection: its trajectory, policy, in-flight requests and registry view.
pub struct McpConnection {
    app: App,
    task: String,
    policy: McpPolicy,
    /// In-flight requests by id: method, and the tool of a `tools/call`.
    pending: HashMap<String, (String, Option<String>)>,
    grants: Option<GrantFiles>,
    anon: blindfold_engine::identity::Anonymizer,
    /// Tool, prompt and schema-value aliases the client was shown.
    aliases: blindfold_engine::identity::McpAliases,
    /// Progress messages by progress token, rewritten as one text each; log messages.
    notes: blindfold_engine::identity::NotificationTexts,
    /// A running daemon that decides instead of this process (`mcp-stdio --daemon`).
    remote: Option<RemoteControl>,
    /// Tool-definition pins.
    pins: Arc<ToolPins>,
    /// The server's SSE event ids the client saw in another form.
    stream_ids: StreamIds,
    /// The client's declared roots (the workspace root when none is configured).
    roots: super::roots::RootsWatch,
    /// The relay's own `tools/list` of a trusted server.
    listing: listing::Listing,
    /// Tools a trusted server annotated read-only in its latest listing of them.
    read_only: std::collections::HashSet<String>,
}

/// The one SSE event name MCP clients read (the default); any other is the server's own.
const MCP_EVENT_NAME: &str = "message";
/// What the client sees in place of another event name.
const NEUTRAL_EVENT_NAME: &str = "server-event";

impl McpConnection {
    /// A gate for trajectory `task` (Blindfold's id, never a client's field).
    pub fn new(app: &App, task: String, policy: McpPolicy, grants: Option<GrantFiles>) -> Self {
        let anon = super::identity::anonymizer(app);
        let pins = Arc::new(ToolPins::open(&app.config.state_dir));
        Self {
            app: app.clone(),
            task,
            policy,
            pending: HashMap::new(),
            grants,
            anon,
            aliases: Default::default(),
            notes: Default::default(),
            remote: None,
            pins,
            stream_ids: StreamIds::default(),
            roots: super::roots::RootsWatch::default(),
            listing: listing::Listing::default(),
            read_only: std::collections::HashSet::new(),
        }
    }

    /// Pins kept in another state directory (a relay deciding through a daemon keeps them
    /// with the daemon's state, not in its scratch directory).
    pub fn with_pins(mut self, pins: ToolPins) -> Self {
        self.pins = Arc::new(pins);
        self
    }

    /// Decisions (and reports) go to the daemon behind `remote`; its grants are the daemon's
    /// (grant files found by this gate are submitted to it).
    pub fn with_remote(mut self, remote: RemoteControl) -> Self {
        self.remote = Some(remote);
        self
    }

    /// The trajectory id.
    pub fn task(&self) -> &str {
        &self.task
    }

    /// The headers to forward to an HTTP server for this connection: `headers`, with the
    /// trajectory's `traceparent` unless they carry one or the trajectory is `off` (SPEC §8),
    /// a `Last-Event-ID` the client was given in Blindfold's form turned back into the
    /// server's (see [`McpConnection::scrub_stream_fields`]), and an `Mcp-Name` the client was
    /// shown as an alias turned back into the real name.
    pub fn forward_headers(&self, mut headers: axum::http::HeaderMap) -> axum::http::HeaderMap {
        if !self.transparent() {
            crate::runtime::trace::traceparent::inject_header_if_absent(&mut headers, &self.task);
        }
        let last_event_id = axum::http::HeaderName::from_static("last-event-id");
        let server_id = headers
            .get(&last_event_id)
            .and_then(|v| v.to_str().ok())
            .map(|id| self.stream_ids.upstream(id))
            .and_then(|id| axum::http::HeaderValue::from_str(id).ok());
        if let Some(id) = server_id {
            headers.insert(last_event_id, id);
        }
        // 2026-07-28's `Mcp-Name` names what the body names: the real tool or prompt, as the body
        // carries it once mapped back (see `map_back`).
        let name = axum::http::HeaderName::from_static("mcp-name");
        let method = headers.get("mcp-method").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
        let shown = headers.get(&name).and_then(|v| v.to_str().ok()).unwrap_or_default();
        let real = match method.as_str() {
            "tools/call" => Some(self.aliases.real_tool(shown)).filter(|r| *r != shown),
            "prompts/get" => self.aliases.real_prompt(shown),
            _ => None,
        };
        if let Some(real) = real.and_then(|r| axum::http::HeaderValue::from_str(r).ok()) {
            headers.insert(name, real);
        }
        headers
    }

    /// The `event:`, `id:` and `retry:` fields of a server's SSE event as the client may see
    /// them (SPEC §4: every byte relayed toward the client), unless the trajectory is `off`: an
    /// event name other than MCP's `message` becomes a neutral one (clients read only `message`
    /// events, so it keeps its meaning, not its text), the id an opaque one that
    /// [`McpConnection::forward_headers`] turns back when the client resumes with it, and a retry that
    /// is not a number of milliseconds is dropped. The data is the caller's to pass through
    /// [`McpConnection::from_server`].
    pub fn scrub_stream_fields(&mut self, ev: &mut SseEvent) {
        if self.transparent() {
            return;
        }
        ev.event = ev
            .event
            .take()
            .map(|name| if name == MCP_EVENT_NAME { name } else { NEUTRAL_EVENT_NAME.to_owned() });
        ev.id = ev.id.take().map(|id| self.stream_ids.relayed(&id));
        ev.retry = crate::transports::proxy::retry_millis(ev.retry.take());
    }

    /// `off`: nothing is blocked or rewritten, bytes pass unchanged (decisions are still made,
    /// unenforced, for the trace).
    fn transparent(&self) -> bool {
        self.app.modes_for(&self.task).transparent()
    }

    /// One `control` record in the authority trace (when the trace is on).
    fn trace_control(&self, check: &str, tool: &str, reason: Reason, detail: String) {
        let Some(trace) = &self.app.trace else { return };
        let mut r = blindfold_schemas::TraceRecord::new(
            &self.task,
            blindfold_schemas::TraceKind::Control,
            crate::unix_now_ms(),
            self.app.modes_for(&self.task),
        );
        r.tool = Some(tool.to_owned());
        r.check = Some(check.to_owned());
        r.reason = Some(reason);
        r.detail = Some(detail);
        if let Err(e) = trace.record(r) {
            tracing::warn!(tool, error = %e, "tool pin record not traced");
        }
    }
}
