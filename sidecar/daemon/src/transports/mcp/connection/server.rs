//! Server→client messages of one MCP connection: answers matched to their requests, `tools/list`
//! filtered to the allowlist and pinned, trusted annotations learned, identity scrubbed, and each
//! `tools/call` answer reported as a `tool_result`.

use super::{FromServer, McpConnection, Observation};
use crate::transports::mcp::pins::{PINNED_FIELDS, Seen};
use blindfold_adapters::jsonrpc::{self, FrameError, Kind, code};
use blindfold_adapters::mcp;
use blindfold_engine::Input;
use blindfold_schemas::{Facts, Reason};
use serde_json::Value;

impl McpConnection {
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
        let frame = match jsonrpc::parse(bytes, self.policy.max_frame, mcp::is_notification) {
            Ok(f) => f,
            // `off` relays what the server answers as it came (it is no listener's input: the
            // client reads it as it would without Blindfold).
            Err(_) if modes.transparent() => return (self.relay(bytes.to_vec()), None),
            Err(e) => return (FromServer::Drop(self.unreadable_answer(bytes, &e)), None),
        };
        self.roots.seen_from_server(&frame);
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

    /// A server line of `size` bytes, over the frame limit, that the relay did not keep: refused
    /// in every mode (`P0.frame`), traced, and dropped.
    pub fn oversized_answer(&mut self, size: usize) -> FromServer {
        let e = FrameError::TooLarge { size, limit: self.policy.max_frame };
        FromServer::Drop(self.unreadable_answer(&[], &e))
    }

    /// The error for the pending request a server message Blindfold cannot relay claims to
    /// answer (its id read leniently, only to find that request, which is then no longer
    /// pending); `None`, logged, when it names no pending request. The refusal is traced
    /// (`P0.frame`).
    fn unreadable_answer(&mut self, bytes: &[u8], e: &FrameError) -> Option<Value> {
        self.app.refuse(&self.task, &Facts::malformed(format!("server frame: {e}")));
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
            return self.relay(bytes.to_vec());
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
            changed |= crate::transports::mcp::identity::rewrite_server_message(
                &mut self.anon,
                &mut self.aliases,
                &mut frame.value,
            );
            // Progress and log messages: server-written text, the progress of one token as one text.
            changed |= self.notes.rewrite(&self.anon, &mut frame.value) > 0;
        }
        if changed { self.relay(frame.value.to_string().into_bytes()) } else { self.relay(bytes.to_vec()) }
    }

    /// A well-formed server message, authorized as it is to go to the client (its identity
    /// already scrubbed, its `tool_result` observed around the forward).
    fn relay(&self, bytes: Vec<u8>) -> FromServer {
        match self.app.permit(&self.task, Input::frame(&Facts::default()), false, bytes) {
            Ok(authorized) => FromServer::Forward(authorized),
            Err(_) => FromServer::Drop(None),
        }
    }

    /// Pins the listed tools seen for the first time, records changed definitions in the
    /// trace (once each) and, unless `transparent`, lists a changed tool with its accepted
    /// definition so the client never reads an unaccepted one. Returns whether it rewrote.
    fn pin_tools(
        &mut self,
        result: &mut Value,
        transparent: bool,
    ) -> Result<bool, crate::transports::mcp::pins::PinError> {
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

    /// Reads a trusted server's read-only annotations from a `tools/list` result: each listed
    /// tool is, from now on, annotated read-only or not as this listing says (a call of one the
    /// registry does not know is then decided as a read: the `trusted_read_only` fact; tools the
    /// operator's registry knows keep their registered effect).
    pub(super) fn learn_annotations(&mut self, result: &Value) {
        for (name, spec) in mcp::annotated_specs(result) {
            if spec.effect == blindfold_schemas::Effect::Read
                && self.app.engine.registry().get(&name).is_none()
            {
                self.read_only.insert(name);
            } else {
                self.read_only.remove(&name);
            }
        }
    }
}
