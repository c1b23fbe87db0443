//! Client→server messages of one MCP connection, each through the decision path: a frame that
//! is not strict JSON-RPC (`P0.frame`, in every mode), a method MCP does not define (`P1.method`),
//! and each `tools/call` with what this connection saw of it — its bytes (`P1.exact_numbers`),
//! the allowlist (`P1.allowlist`), the tool's pin (`P1.tool_pin`) — as facts the cascade checks.
//! What is forwarded is what the decision path authorized; what is answered is its refusal.

use super::{FromClient, McpConnection};
use crate::runtime::permit::Refused;
use crate::runtime::trace::traceparent::{TraceContext, splice_mcp_meta};
use blindfold_adapters::jsonrpc::{self, FrameError, Kind, code};
use blindfold_adapters::mcp;
use blindfold_engine::Input;
use blindfold_schemas::{Event, Facts, ToolPin};
use serde_json::Value;

impl McpConnection {
    /// Checks one client→server message.
    pub fn from_client(&mut self, bytes: &[u8]) -> FromClient {
        let mut frame = match jsonrpc::parse(bytes, self.policy.max_frame, mcp::is_notification) {
            Ok(f) => f,
            Err(e) => return self.unreadable_request(bytes, &e),
        };
        if frame.kind != Kind::Request {
            if let Some(root) = self.roots.answered_by_client(&frame) {
                self.app.workspaces.declare(&self.task, &root);
            }
            return self.pass(bytes.to_vec());
        }
        let id = frame.id();
        let method = frame.method().unwrap_or_default().to_owned();
        if !mcp::is_known_client_request(&method) {
            return self.unknown_method(&id, method, bytes);
        }
        // The tool as the client named it (an alias, when its real name carries identity).
        let shown =
            frame.value.pointer("/params/name").and_then(Value::as_str).unwrap_or_default().to_owned();
        // A name or value shown under an alias goes to the server as it really is.
        let mapped = self.map_back(&mut frame.value, &method);
        let bytes: &[u8] = mapped.as_deref().unwrap_or(bytes);
        if method != "tools/call" {
            self.pending.insert(id.to_string(), (method, None));
            return self.pass(bytes.to_vec());
        }
        // The params move into the decision's event; the bytes forwarded are the client's (names
        // mapped back), with the trajectory's trace context spliced in unless it is `off`.
        let params = frame.value.get_mut("params").map(Value::take).unwrap_or(Value::Null);
        let forward = if self.transparent() { None } else { self.with_trace_context(bytes) };
        match self.tools_call(&id, params, bytes, forward.unwrap_or_else(|| bytes.to_vec()), &shown) {
            FromClient::Answer(answer) => FromClient::Answer(self.own_answer(answer)),
            forward => forward,
        }
    }

    /// The request with the real tool or prompt name and argument values in place of the aliases
    /// the client was shown (re-encoded), or `None` when it names none.
    fn map_back(&self, value: &mut Value, method: &str) -> Option<Vec<u8>> {
        if self.aliases.is_empty() {
            return None;
        }
        let params = value.get_mut("params")?;
        let changed = match method {
            "tools/call" => self.aliases.map_call(params),
            "prompts/get" => self.aliases.map_prompt(params),
            _ => false,
        };
        changed.then(|| value.to_string().into_bytes())
    }

    /// Blindfold's own answer to the client, in the names the client saw (identity on).
    fn own_answer(&self, mut answer: Value) -> Value {
        let modes = self.app.modes_for(&self.task);
        if modes.anonymize || modes.attest {
            crate::transports::mcp::identity::scrub_own_answer(&self.anon, &self.aliases, &mut answer);
        }
        answer
    }

    /// A message that needs no decision of its own (a response, a notification, a request other
    /// than `tools/call`): authorized as it is.
    fn pass(&self, bytes: Vec<u8>) -> FromClient {
        match self.app.permit(&self.task, Input::frame(&Facts::default()), false, bytes) {
            Ok(authorized) => FromClient::Forward(authorized),
            Err(refused) => FromClient::Answer(jsonrpc::error(
                &Value::Null,
                code::INTERNAL_ERROR,
                &refused.refusal.text("the message"),
                None,
            )),
        }
    }

    /// A client line of `size` bytes, over the frame limit, that the relay did not keep: refused
    /// in every mode (`P0.frame`), answered with the protocol's error for it.
    pub fn oversized_request(&self, size: usize) -> FromClient {
        let e = FrameError::TooLarge { size, limit: self.policy.max_frame };
        self.unreadable_request(&[], &e)
    }

    /// A frame that is not strict JSON-RPC: refused in every mode (`P0.frame`), answered with the
    /// protocol's error for it.
    fn unreadable_request(&self, bytes: &[u8], e: &FrameError) -> FromClient {
        self.refuse_frame(format!("client frame: {e}"));
        FromClient::Answer(jsonrpc::refusal_frame(bytes, e))
    }

    /// Decides and traces a client message its transport found faulty for `why` (`P0.frame`:
    /// refused in every mode); the transport answers it in the protocol's own error.
    pub fn refuse_frame(&self, why: impl Into<String>) -> Refused {
        self.app.refuse(&self.task, &Facts::malformed(why))
    }

    /// A request for a method MCP does not define (`P1.method`): answered `METHOD_NOT_FOUND`
    /// where refusals are enforced, else forwarded as it came (and the decision recorded).
    fn unknown_method(&mut self, id: &Value, method: String, bytes: &[u8]) -> FromClient {
        let facts = Facts::unrelayed(method.clone(), "MCP defines no such client request");
        match self.app.permit(&self.task, Input::frame(&facts), false, bytes.to_vec()) {
            Ok(authorized) => {
                self.pending.insert(id.to_string(), (method, None));
                FromClient::Forward(authorized)
            }
            Err(refused) => {
                let msg =
                    format!("method `{method}` is not relayed by Blindfold (unknown methods are refused)");
                let data = serde_json::json!({"blindfold/decision": refused.refusal.to_json()});
                FromClient::Answer(jsonrpc::error(id, code::METHOD_NOT_FOUND, &msg, Some(data)))
            }
        }
    }

    /// A `tools/call` request carrying no `params._meta.traceparent` of its own, with this
    /// trajectory's spliced in (SPEC §8: the trace context whose span the OTLP export names, so
    /// the server's span of the call joins the trajectory's); every other byte is the client's,
    /// so the server gets the arguments that were decided. `None` when it carries one, or when
    /// its params or `_meta` are not objects (the client's bytes go as they are).
    fn with_trace_context(&self, request: &[u8]) -> Option<Vec<u8>> {
        splice_mcp_meta(request, &TraceContext::for_trajectory(&self.task))
    }

    /// Decides a `tools/call` of `params` (the request's `bytes`, names mapped back) and
    /// authorizes `forward`, or answers the refusal as the tool's error result, naming the tool
    /// as the client saw it (`shown`).
    fn tools_call(
        &mut self,
        id: &Value,
        params: Value,
        bytes: &[u8],
        forward: Vec<u8>,
        shown: &str,
    ) -> FromClient {
        let modern = mcp::is_modern(&params);
        let event = match mcp::tool_call_event_owned(params, id) {
            Ok(Event::ToolCall { tool, args, proposal, call_id, .. }) if self.policy.actor.is_some() => {
                let actor = self.policy.actor.clone().unwrap_or_default();
                Event::ToolCall { actor, tool, args, proposal, call_id }
            }
            Ok(e) => e,
            Err(msg) => {
                // Not the request `tools/call` needs: a frame fault, refused in every mode.
                self.refuse_frame(format!("tools/call: {msg}"));
                return FromClient::Answer(jsonrpc::error(id, code::INVALID_PARAMS, &msg, None));
            }
        };
        let tool = match &event {
            Event::ToolCall { tool, .. } => tool.clone(),
            _ => String::new(),
        };
        let facts = self.call_facts(&tool, bytes);
        let input = Input::with_facts(&event, &facts);
        // Grant files are read before every call that may be effectful. A call of a registered
        // read tool consults no grant (grants only authorise effectful actions; one not yet read
        // could only ever turn a denial into an allow), so its `stat`s are skipped: the next
        // effectful call reads whatever arrived meanwhile before it is decided.
        let may_mutate = !self.app.engine.registry().always_reads(&tool) && !facts.trusted_read_only;
        let decided = match self.remote.as_mut() {
            Some(remote) => {
                if let Some(g) = self.grants.as_mut().filter(|_| may_mutate) {
                    g.refresh_remote(remote);
                }
                self.app.permit_via(remote, &self.task, input, forward)
            }
            None => {
                if let Some(g) = self.grants.as_mut().filter(|_| may_mutate) {
                    g.refresh(&self.app);
                }
                self.app.permit(&self.task, input, true, forward)
            }
        };
        match decided {
            Ok(authorized) => {
                self.pending.insert(id.to_string(), ("tools/call".to_owned(), Some(tool)));
                FromClient::Forward(authorized)
            }
            Err(refused) => {
                let shown = if shown.is_empty() { tool.as_str() } else { shown };
                FromClient::Answer(jsonrpc::result(
                    id,
                    mcp::refusal_result(&refused.refusal, shown, refused.person_id(), modern),
                ))
            }
        }
    }

    /// What this connection saw of a call of `tool` in `bytes`: a number literal no double holds
    /// exactly, whether the tool is on the allowlist (when there is one), its pin when the
    /// definition listed now is not the accepted one, and a trusted server's read-only annotation.
    fn call_facts(&self, tool: &str, bytes: &[u8]) -> Facts {
        let inexact_number = std::str::from_utf8(bytes)
            .ok()
            .and_then(blindfold_schemas::exact_numbers::first_inexact_number)
            .map(str::to_owned);
        let allowlisted = (!self.policy.allow_tools.is_empty()).then(|| self.policy.allows(tool));
        let server = &self.policy.server;
        let tool_pin = match self.pins.changed(server, tool) {
            Ok(None) => None,
            Ok(Some(_)) => Some(ToolPin::Changed { server: server.clone() }),
            Err(e) => Some(ToolPin::Unavailable { error: e.to_string() }),
        };
        let trusted_read_only = self.policy.trusted && self.read_only.contains(tool);
        Facts { inexact_number, allowlisted, tool_pin, trusted_read_only, ..Facts::default() }
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
}
