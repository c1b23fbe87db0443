//! One MCP connection's gate, transport-agnostic: every client→server message is checked
//! (strict framing, known methods, `tools/call` through [`App::decide`]) and every
//! server→client message is filtered (`tools/list` to the allowlist, trusted annotations fed to
//! the registry) and every `tools/call` answer is reported to the engine as a `tool_result`. The
//! stdio relay and the HTTP proxy only move bytes around it.

use super::grant_files::GrantFiles;
use super::pins::{PINNED_FIELDS, Seen, ToolPins};
use super::remote::{RemoteAnswer, RemoteControl};
use super::stream_ids::StreamIds;
use crate::runtime::app::App;
use crate::runtime::trace::traceparent::{TraceContext, splice_mcp_meta};
use blindfold_adapters::jsonrpc::{self, FrameError, Kind, code};
use blindfold_adapters::mcp;
use blindfold_adapters::refusal::Refusal;
use blindfold_adapters::sse::SseEvent;
use blindfold_engine::{Engine, EngineConfig};
use blindfold_schemas::{Decision, Event, Layer, Reason};
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
        }
    }

    fn allows(&self, tool: &str) -> bool {
        self.allow_tools.is_empty() || self.allow_tools.iter().any(|t| t == tool)
    }
}

/// What to do with a client→server message.
#[derive(Debug, Clone, PartialEq)]
pub enum FromClient {
    /// Forward these bytes to the server.
    Forward(Vec<u8>),
    /// Do not forward; answer the client with this message (a refusal or protocol error).
    Answer(Value),
}

/// What to do with a server→client message.
#[derive(Debug, Clone, PartialEq)]
pub enum FromServer {
    /// Relay these bytes to the client.
    Forward(Vec<u8>),
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
    /// A running daemon that decides instead of this process (`mcp-stdio --daemon`).
    remote: Option<RemoteControl>,
    /// Tool-definition pins.
    pins: Arc<ToolPins>,
    /// The server's SSE event ids the client saw in another form.
    stream_ids: StreamIds,
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
            remote: None,
            pins,
            stream_ids: StreamIds::default(),
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
    /// and a `Last-Event-ID` the client was given in Blindfold's form turned back into the
    /// server's (see [`McpConnection::scrub_stream_fields`]).
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

    /// Checks one client→server message.
    pub fn from_client(&mut self, bytes: &[u8]) -> FromClient {
        let transparent = self.transparent();
        let mut frame = match jsonrpc::parse(bytes, self.policy.max_frame, mcp::is_notification) {
            Ok(f) => f,
            Err(_) if transparent => return FromClient::Forward(bytes.to_vec()),
            Err(e) => return FromClient::Answer(jsonrpc::refusal_frame(bytes, &e)),
        };
        if frame.kind != Kind::Request {
            return FromClient::Forward(bytes.to_vec());
        }
        let id = frame.id();
        let method = frame.method().unwrap_or_default().to_owned();
        if !mcp::is_known_client_request(&method) && !transparent {
            let msg = format!("method `{method}` is not relayed by Blindfold (unknown methods are refused)");
            return FromClient::Answer(jsonrpc::error(&id, code::METHOD_NOT_FOUND, &msg, None));
        }
        let mut forward = None;
        let tool = if method == "tools/call" {
            if !transparent {
                if let Some(answer) = inexact_number_refusal(&id, bytes) {
                    return FromClient::Answer(answer);
                }
                forward = self.with_trace_context(bytes);
            }
            // The params move into the decision's event (the bytes forwarded are the client's,
            // or theirs with the trajectory's trace context added).
            let params = frame.value.get_mut("params").map(Value::take).unwrap_or(Value::Null);
            let tool = params.get("name").and_then(Value::as_str).map(str::to_owned);
            if let Some(answer) = self.gate_tool_call(&id, params, transparent) {
                return FromClient::Answer(answer);
            }
            tool
        } else {
            None
        };
        self.pending.insert(id.to_string(), (method, tool));
        FromClient::Forward(forward.unwrap_or_else(|| bytes.to_vec()))
    }

    /// A `tools/call` request carrying no `params._meta.traceparent` of its own, with this
    /// trajectory's spliced in (SPEC §8: the trace context whose span the OTLP export names, so
    /// the server's span of the call joins the trajectory's); every other byte is the client's,
    /// so the server gets the arguments that were decided. `None` when it carries one, or when
    /// its params or `_meta` are not objects (the client's bytes go as they are).
    fn with_trace_context(&self, request: &[u8]) -> Option<Vec<u8>> {
        splice_mcp_meta(request, &TraceContext::for_trajectory(&self.task))
    }

    /// Decides a `tools/call`; `Some(answer)` when it must not be forwarded.
    fn gate_tool_call(&mut self, id: &Value, params: Value, transparent: bool) -> Option<Value> {
        let modern = mcp::is_modern(&params);
        let event = match mcp::tool_call_event_owned(params, id) {
            Ok(e) => e,
            Err(msg) if !transparent => return Some(jsonrpc::error(id, code::INVALID_PARAMS, &msg, None)),
            Err(_) => return None,
        };
        let Event::ToolCall { tool, .. } = &event else { return None };
        let tool = tool.clone();
        if !self.policy.allows(&tool) && !transparent {
            let d = Decision::deny(Reason::ToolNotAllowed, "P1.allowlist", Layer::ContentFree)
                .with_detail("the tool is not in this stage's allowlist");
            let refusal = Refusal::new(d, &self.task, None);
            return Some(jsonrpc::result(id, mcp::refusal_result(&refusal, &tool, modern)));
        }
        if !transparent && let Some(d) = self.pin_decision(&tool) {
            self.trace_control("P1.tool_pin", &tool, d.reason, d.detail.clone().unwrap_or_default());
            let refusal = Refusal::new(d, &self.task, None);
            return Some(jsonrpc::result(id, mcp::refusal_result(&refusal, &tool, modern)));
        }
        if let Some(remote) = self.remote.as_mut() {
            for (file, token) in self.grants.as_mut().map(GrantFiles::fresh_tokens).unwrap_or_default() {
                match remote.submit_grant(&token) {
                    Ok(r) if r["accepted"] == true => {}
                    Ok(r) => eprintln!("blindfold: grant in {} refused: {}", file.display(), r["reason"]),
                    Err(e) => eprintln!("blindfold: grant in {} not submitted: {e}", file.display()),
                }
            }
            return match remote.check(&self.task, &event) {
                RemoteAnswer::Allow => None,
                RemoteAnswer::Refuse(r) => Some(jsonrpc::result(id, mcp::refusal_result(&r, &tool, modern))),
            };
        }
        // Grant files are read before every call that may be effectful. A call of a registered
        // read tool consults no grant (grants only authorise effectful actions; one not yet read
        // could only ever turn a denial into an allow), so its `stat`s are skipped: the next
        // effectful call reads whatever arrived meanwhile before it is decided.
        if let Some(g) = self.grants.as_mut()
            && !self.app.engine.registry().always_reads(&tool)
        {
            g.refresh(&self.app);
        }
        let step = self.app.decide(&self.task, &event, true);
        if !step.blocks() {
            return None;
        }
        let decision = step
            .decision
            .clone()
            .unwrap_or_else(|| Decision::deny(Reason::InternalError, "P0.internal", Layer::ContentFree));
        let refusal = Refusal::new(decision, &self.task, step.action.as_ref());
        Some(jsonrpc::result(id, mcp::refusal_result(&refusal, &tool, modern)))
    }

    /// The server went away: an error answer for every request it left unanswered (the client
    /// gets an error, not a hang). A `tools/call` among them may or may not have run.
    pub fn abandon_pending(&mut self) -> Vec<Value> {
        let mut ids: Vec<String> = self.pending.drain().map(|(id, _)| id).collect();
        ids.sort();
        ids.iter()
            .filter_map(|id| serde_json::from_str::<Value>(id).ok())
            .map(|id| {
                let msg = "the MCP server ended before answering this request (a tool call may or may not have run)";
                jsonrpc::error(&id, code::INTERNAL_ERROR, msg, None)
            })
            .collect()
    }

    /// Filters one server→client message; a `tools/call` answer's `tool_result` is recorded
    /// before it returns (see [`McpConnection::from_server_deferred`] to record it after forwarding).
    pub fn from_server(&mut self, bytes: &[u8]) -> FromServer {
        let (verdict, observation) = self.from_server_deferred(bytes);
        if let Some(o) = observation {
            o.around(|| ());
        }
        verdict
    }

    /// Filters one server→client message; the `tool_result` of a `tools/call` answer comes back
    /// as an [`Observation`] the caller must run around the forward ([`Observation::around`]),
    /// so the answer goes out before the engine reads it, and no decision of this trajectory
    /// runs in between. The answer is scrubbed here, before it is handed back.
    pub fn from_server_deferred(&mut self, bytes: &[u8]) -> (FromServer, Option<Observation>) {
        let modes = self.app.modes_for(&self.task);
        let transparent = modes.transparent();
        let frame = match jsonrpc::parse(bytes, self.policy.max_frame, mcp::is_notification) {
            Ok(f) => f,
            Err(_) if transparent => return (FromServer::Forward(bytes.to_vec()), None),
            Err(e) => return (FromServer::Drop(self.unreadable_answer(bytes, &e)), None),
        };
        let (method, tool) = match frame.kind {
            Kind::Response => self.pending.remove(&frame.id().to_string()).unwrap_or_default(),
            _ => (String::new(), None),
        };
        // Informational (never blocks); read from the answer as the server sent it.
        let mut observation = None;
        if let Some(tool) = tool {
            let event = mcp::tool_result_event(&tool, &frame.id(), &frame.value);
            match self.remote.as_mut() {
                // The daemon behind `remote` hears of it before the client sees the answer.
                Some(remote) => remote.report(&self.task, &event),
                None => {
                    observation = Some(Observation {
                        app: self.app.clone(),
                        task: self.task.clone(),
                        events: vec![event],
                    })
                }
            }
        }
        let verdict = self.filter_server(frame, bytes, &method, modes);
        (verdict, observation)
    }

    /// The error for the pending request a server message Blindfold cannot relay claims to
    /// answer (its id read leniently, only to find that request, which is then no longer
    /// pending); `None`, logged, when it names no pending request.
    fn unreadable_answer(&mut self, bytes: &[u8], e: &FrameError) -> Option<Value> {
        let id = match e {
            FrameError::TooLarge { .. } => None,
            FrameError::NotJson(_) | FrameError::Invalid(_) => jsonrpc::lenient_answer_id(bytes),
        };
        let Some(id) = id.filter(|id| self.pending.remove(&id.to_string()).is_some()) else {
            tracing::warn!(task = %self.task, error = %e, "dropped a server message Blindfold cannot relay");
            return None;
        };
        let msg = format!("the MCP server answered this request with a message Blindfold cannot relay: {e}");
        Some(jsonrpc::error(&id, code::INTERNAL_ERROR, &msg, None))
    }

    /// Request `id` will get no answer through this gate (the exchange carrying it failed):
    /// it is no longer pending.
    pub fn forget(&mut self, id: &Value) {
        self.pending.remove(&id.to_string());
    }

    /// The rest of [`McpConnection::from_server_deferred`]: pins and allowlist of a `tools/list`,
    /// trusted annotations, and the identity scrub.
    fn filter_server(
        &mut self,
        mut frame: jsonrpc::Frame,
        bytes: &[u8],
        method: &str,
        modes: blindfold_schemas::ModeSet,
    ) -> FromServer {
        let transparent = modes.transparent();
        let mut changed = false;
        if method == "tools/list"
            && let Some(result) = frame.result_mut()
        {
            match self.pin_tools(result, transparent) {
                Ok(rewrote) => changed |= rewrote,
                Err(e) if !transparent => {
                    let msg = format!("Blindfold could not check the tool definitions: {e}");
                    return FromServer::Drop(Some(jsonrpc::error(
                        &frame.id(),
                        code::INTERNAL_ERROR,
                        &msg,
                        None,
                    )));
                }
                Err(_) => {}
            }
        }
        if transparent {
            return FromServer::Forward(bytes.to_vec());
        }
        if method == "tools/list"
            && let Some(result) = frame.result_mut()
        {
            if self.policy.trusted {
                self.learn_annotations(result);
            }
            if !self.policy.allow_tools.is_empty() {
                mcp::filter_tool_list(result, |t| self.policy.allows(t));
                changed = true;
            }
        }
        if modes.anonymize || modes.attest {
            changed |= super::identity::rewrite_server_message(&mut self.anon, &mut frame.value);
        }
        if changed {
            FromServer::Forward(frame.value.to_string().into_bytes())
        } else {
            FromServer::Forward(bytes.to_vec())
        }
    }

    /// A `tools/call` of a tool whose definition changed since it was pinned goes to review
    /// (`tool_definition_changed`) until an operator accepts the new definition; a pin store
    /// failure denies (fail closed).
    fn pin_decision(&self, tool: &str) -> Option<Decision> {
        let server = &self.policy.server;
        match self.pins.changed(server, tool) {
            Ok(None) => None,
            Ok(Some(_)) => Some(
                Decision::review(Reason::ToolDefinitionChanged, "P1.tool_pin", Layer::ContentFree)
                    .with_detail(format!(
                        "the definition of `{tool}` changed since it was pinned; an operator must accept it \
                         (`blindfold mcp accept-tool --server '{server}' --tool '{tool}'`)"
                    )),
            ),
            Err(e) => Some(
                Decision::deny(Reason::InternalError, "P1.tool_pin", Layer::ContentFree)
                    .with_detail(format!("tool pins unavailable: {e}")),
            ),
        }
    }

    /// Pins the listed tools seen for the first time, records changed definitions in the
    /// trace (once each) and, unless `transparent`, lists a changed tool with its accepted
    /// definition so the client never reads an unaccepted one. Returns whether it rewrote.
    fn pin_tools(&mut self, result: &mut Value, transparent: bool) -> Result<bool, super::pins::PinError> {
        let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) else { return Ok(false) };
        let seen = self.pins.observe(&self.policy.server, tools, crate::unix_now_ms())?;
        let mut rewrote = false;
        for (name, s) in seen {
            let Seen::Changed { accepted, pinned, listed, first } = s else { continue };
            if first {
                let detail = format!(
                    "server `{}`: the definition of `{name}` changed ({} → {}); its calls go to review until \
                     `blindfold mcp accept-tool --server '{}' --tool '{name}'`",
                    self.policy.server,
                    &pinned[..12],
                    &listed[..12],
                    self.policy.server
                );
                self.trace_control("mcp.tool_changed", &name, Reason::ToolDefinitionChanged, detail);
            }
            if transparent {
                continue;
            }
            for t in tools.iter_mut().filter(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str()))
            {
                let Some(obj) = t.as_object_mut() else { continue };
                for field in PINNED_FIELDS {
                    match accepted.get(field) {
                        Some(v) => obj.insert(field.to_owned(), v.clone()),
                        None => obj.remove(field),
                    };
                }
                rewrote = true;
            }
        }
        Ok(rewrote)
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

    /// Feeds a trusted server's read-only annotations to this connection's registry view
    /// (tools the operator's registry already knows keep their registered effect).
    fn learn_annotations(&mut self, result: &Value) {
        let mut registry = self.app.engine.registry().clone();
        let mut learned = false;
        for (name, spec) in mcp::annotated_specs(result) {
            if spec.effect == blindfold_schemas::Effect::Read && registry.get(&name).is_none() {
                registry.insert(name, spec);
                learned = true;
            }
        }
        if learned {
            let cfg = &self.app.config.grants;
            self.app.engine = Arc::new(Engine::new(
                EngineConfig { registry, ..self.app.engine.config().clone() },
                Arc::new(cfg.keys.clone()),
                self.app.grants.clone(),
                self.app.store.clone(),
            ));
        }
    }
}

/// The refusal of a `tools/call` holding a number a double does not hold exactly: the decision,
/// its fingerprint and a grant's binding see numbers as doubles (JCS), while the server reads the
/// bytes as written, so such a call could run with a value other than the one decided.
fn inexact_number_refusal(id: &Value, bytes: &[u8]) -> Option<Value> {
    let text = std::str::from_utf8(bytes).ok()?;
    let literal = blindfold_schemas::exact_numbers::first_inexact_number(text)?;
    let msg = format!(
        "the number {literal} cannot be decided exactly (Blindfold compares numbers as doubles); \
         send it as a string or in its shortest form"
    );
    Some(jsonrpc::error(id, code::INVALID_PARAMS, &msg, None))
}
