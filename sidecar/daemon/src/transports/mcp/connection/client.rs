//! Client→server messages of one MCP connection: strict framing, known methods, and each
//! `tools/call` through the allowlist, the tool pins, the exact-number rule and the decision path.

use super::{FromClient, McpConnection};
use crate::runtime::trace::traceparent::{TraceContext, splice_mcp_meta};
use crate::transports::mcp::grant_files::GrantFiles;
use crate::transports::mcp::remote::RemoteAnswer;
use blindfold_adapters::jsonrpc::{self, Kind, code};
use blindfold_adapters::mcp;
use blindfold_adapters::refusal::Refusal;
use blindfold_schemas::{CheckId, Decision, Event, Reason};
use serde_json::Value;

impl McpConnection {
    /// Checks one client→server message.
    pub fn from_client(&mut self, bytes: &[u8]) -> FromClient {
        let transparent = self.transparent();
        let mut frame = match jsonrpc::parse(bytes, self.policy.max_frame, mcp::is_notification) {
            Ok(f) => f,
            Err(_) if transparent => return FromClient::Forward(bytes.to_vec()),
            Err(e) => return FromClient::Answer(jsonrpc::refusal_frame(bytes, &e)),
        };
        if frame.kind != Kind::Request {
            if let Some(root) = self.roots.answered_by_client(&frame) {
                self.app.workspaces.declare(&self.task, &root);
            }
            return FromClient::Forward(bytes.to_vec());
        }
        let id = frame.id();
        let method = frame.method().unwrap_or_default().to_owned();
        if !mcp::is_known_client_request(&method) && !transparent {
            let msg = format!("method `{method}` is not relayed by Blindfold (unknown methods are refused)");
            return FromClient::Answer(jsonrpc::error(&id, code::METHOD_NOT_FOUND, &msg, None));
        }
        let mut forward = None;
        // A name or value shown under an alias goes to the server as it really is.
        let mapped = self.map_back(&mut frame.value, &method);
        let bytes: &[u8] = match &mapped {
            Some(b) => b,
            None => bytes,
        };
        if mapped.is_some() {
            forward = Some(bytes.to_vec());
        }
        let tool = if method == "tools/call" {
            if !transparent {
                if let Some(answer) = inexact_number_refusal(&id, bytes) {
                    return FromClient::Answer(self.own_answer(answer));
                }
                forward = self.with_trace_context(bytes).or(forward);
            }
            // The params move into the decision's event (the bytes forwarded are the client's,
            // or theirs with the trajectory's trace context added).
            let params = frame.value.get_mut("params").map(Value::take).unwrap_or(Value::Null);
            let tool = params.get("name").and_then(Value::as_str).map(str::to_owned);
            if let Some(answer) = self.gate_tool_call(&id, params, transparent) {
                return FromClient::Answer(self.own_answer(answer));
            }
            tool
        } else {
            None
        };
        self.pending.insert(id.to_string(), (method, tool));
        FromClient::Forward(forward.unwrap_or_else(|| bytes.to_vec()))
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
            let d = Decision::deny(Reason::ToolNotAllowed, CheckId::Allowlist)
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
        let decision =
            step.decision.clone().unwrap_or_else(|| Decision::deny(Reason::InternalError, CheckId::Internal));
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

    /// A `tools/call` of a tool whose definition changed since it was pinned goes to review
    /// (`tool_definition_changed`) until an operator accepts the new definition; a pin store
    /// failure denies (fail closed).
    fn pin_decision(&self, tool: &str) -> Option<Decision> {
        let server = &self.policy.server;
        match self.pins.changed(server, tool) {
            Ok(None) => None,
            Ok(Some(_)) => {
                Some(Decision::review(Reason::ToolDefinitionChanged, CheckId::ToolPin).with_detail(format!(
                    "the definition of `{tool}` changed since it was pinned; an operator must accept it \
                         (`blindfold mcp accept-tool --server '{server}' --tool '{tool}'`)"
                )))
            }
            Err(e) => Some(
                Decision::deny(Reason::InternalError, CheckId::ToolPin)
                    .with_detail(format!("tool pins unavailable: {e}")),
            ),
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
