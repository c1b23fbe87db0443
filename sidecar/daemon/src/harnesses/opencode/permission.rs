//! OpenCode permission requests (`permission.asked` of `opencode serve`, `PermissionRequest` in
//! its OpenAPI document) → the proposal Blindfold decides, and the reply it posts to
//! `POST /permission/{id}/reply` (`once` or `reject` with the reason; never `always`).

use super::map::{self, Mapped};
use blindfold_schemas::{Decision, Event, Intent};
use serde_json::{Map, Value, json};

/// One permission request as OpenCode sends it.
#[derive(Debug, Clone, PartialEq, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequest {
    /// `per_…`: the id the reply goes to.
    pub id: String,
    /// The session whose tool asks.
    #[serde(rename = "sessionID")]
    pub session_id: String,
    /// The permission key (`bash`, `edit`, `task`, `webfetch`, `external_directory`, …).
    pub permission: String,
    /// What the rule patterns were matched against (parsed commands, paths, agent names).
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Tool-specific details (`command`, `filepath`/`diff`, `subagent_type`, …).
    #[serde(default)]
    pub metadata: Map<String, Value>,
    /// The tool call that asks, when a tool asks.
    #[serde(default)]
    pub tool: Option<ToolRef>,
}

/// The tool call behind a permission request.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct ToolRef {
    /// The assistant message holding the tool part.
    #[serde(rename = "messageID")]
    pub message_id: String,
    /// The model's call id.
    #[serde(rename = "callID")]
    pub call_id: String,
}

/// The tool call as it will run: the tool part's `tool` and `state.input` read back from the
/// session (the bytes OpenCode executes once the permission is granted).
#[derive(Debug, Clone, PartialEq)]
pub struct RunningCall {
    /// OpenCode tool name.
    pub tool: String,
    /// Its input arguments.
    pub input: Map<String, Value>,
}

/// Finds the tool part with `call_id` in a `GET /session/{id}/message/{messageID}` answer.
pub fn running_call(message: &Value, call_id: &str) -> Option<RunningCall> {
    let parts = message.get("parts")?.as_array()?;
    let part = parts.iter().find(|p| p["type"] == "tool" && p["callID"] == call_id)?;
    Some(RunningCall {
        tool: part.get("tool")?.as_str()?.to_owned(),
        input: part.pointer("/state/input")?.as_object()?.clone(),
    })
}

/// Which OpenCode tools a permission key covers (the call read back must be one of them).
fn covers(permission: &str, tool: &str) -> bool {
    match permission {
        "edit" => matches!(tool, "edit" | "write" | "patch" | "multiedit" | "apply_patch"),
        "bash" | "task" | "webfetch" | "websearch" | "codesearch" | "read" | "glob" | "grep" | "list" => {
            permission == tool
        }
        _ => false,
    }
}

/// The proposal to decide for `req` made by `actor`, from the running call when one was read
/// back and is what the permission covers. Anything else — `external_directory`, `doom_loop`,
/// unknown keys, a request without its call — is decided as the unknown tool
/// `opencode.<permission>` with the request's patterns and metadata as arguments (an unknown
/// tool is mutating: it needs a grant naming exactly that).
pub fn proposal(
    req: &PermissionRequest,
    call: Option<&RunningCall>,
    actor: &str,
) -> (Event, Map<String, Value>) {
    let call_id = req.tool.as_ref().map(|t| t.call_id.clone());
    if let Some(call) = call.filter(|c| covers(&req.permission, &c.tool)) {
        if let Mapped::Tool { tool, args } = map::map_tool(&call.tool, &call.input) {
            let event = Event::ToolCall { actor: actor.to_owned(), tool, args, proposal: None, call_id };
            return (event, call.input.clone());
        }
        if let Mapped::Delegate { to, text } = map::map_tool(&call.tool, &call.input) {
            return (
                Event::Delegate { to, intent: Intent::Scope, text, proposal: None, call_id: None },
                call.input.clone(),
            );
        }
    }
    if req.permission == "task" && call.is_none() {
        let to = req.metadata.get("subagent_type").and_then(Value::as_str);
        let to = to.or(req.patterns.first().map(String::as_str)).unwrap_or_default().to_owned();
        return (
            Event::Delegate { to, intent: Intent::Scope, text: String::new(), proposal: None, call_id: None },
            Map::new(),
        );
    }
    let mut args = Map::new();
    args.insert("patterns".into(), json!(req.patterns));
    args.insert("metadata".into(), Value::Object(req.metadata.clone()));
    let tool = format!("opencode.{}", req.permission);
    (Event::ToolCall { actor: actor.to_owned(), tool, args: args.clone(), proposal: None, call_id }, args)
}

/// The body of a `POST /permission/{id}/reply`: `once` when allowed, else `reject` with the
/// reason as the message the model reads. Blindfold never answers `always`.
pub fn reply_body(allow: bool, message: &str) -> Value {
    if allow { json!({"reply": "once"}) } else { json!({"reply": "reject", "message": message}) }
}

/// The message of a rejection decided by the engine.
pub fn rejection(permission: &str, decision: &Decision) -> String {
    let mut text = format!(
        "Blindfold rejected this {permission} request ({}, check {})",
        decision.reason, decision.check
    );
    if let Some(detail) = &decision.detail {
        text.push_str(": ");
        text.push_str(detail);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(v: Value) -> PermissionRequest {
        serde_json::from_value(v).expect("permission request")
    }

    /// A bash request exactly as `opencode serve` 1.18.33 sent it (offline run).
    fn bash_request() -> PermissionRequest {
        req(json!({"id": "per_1", "sessionID": "ses_1", "permission": "bash",
            "patterns": ["rm -rf data", "touch destroyed.marker"],
            "metadata": {"command": "rm -rf data && touch destroyed.marker"},
            "always": ["rm *", "touch *"], "tool": {"messageID": "msg_1", "callID": "call_3_bash"}}))
    }

    #[test]
    fn the_running_call_is_read_back_from_the_message() {
        let message = json!({"info": {}, "parts": [
            {"type": "text", "text": "x"},
            {"type": "tool", "callID": "call_3_bash", "tool": "bash", "state": {"status": "running",
                "input": {"command": "rm -rf data && touch destroyed.marker", "description": "clean"}}}]});
        let call = running_call(&message, "call_3_bash").expect("found");
        assert_eq!(call.tool, "bash");
        assert_eq!(call.input["command"], "rm -rf data && touch destroyed.marker");
        assert_eq!(running_call(&message, "other"), None);
    }

    #[test]
    fn a_bash_request_is_decided_as_the_full_command_that_will_run() {
        let r = bash_request();
        let call = RunningCall {
            tool: "bash".into(),
            input: json!({"command": "rm -rf data && touch destroyed.marker", "description": "clean"})
                .as_object()
                .cloned()
                .expect("object"),
        };
        let (event, _) = proposal(&r, Some(&call), "coordinator");
        match event {
            Event::ToolCall { tool, args, call_id, actor, .. } => {
                assert_eq!(tool, "bash");
                assert_eq!(actor, "coordinator");
                assert_eq!(args["command"], "rm -rf data && touch destroyed.marker");
                assert_eq!(call_id.as_deref(), Some("call_3_bash"));
            }
            other => panic!("not a tool call: {other:?}"),
        }
    }

    #[test]
    fn a_call_the_permission_does_not_cover_is_decided_as_the_permission_itself() {
        let mut r = bash_request();
        r.permission = "external_directory".into();
        let call = RunningCall { tool: "read".into(), input: Map::new() };
        let (event, args) = proposal(&r, Some(&call), "agent-a");
        match event {
            Event::ToolCall { tool, .. } => assert_eq!(tool, "opencode.external_directory"),
            other => panic!("not a tool call: {other:?}"),
        }
        assert_eq!(args["patterns"], json!(["rm -rf data", "touch destroyed.marker"]));
    }

    #[test]
    fn task_requests_are_delegations_and_replies_are_once_or_reject() {
        let r =
            req(json!({"id": "per_2", "sessionID": "ses_1", "permission": "task", "patterns": ["cleaner"],
            "metadata": {"description": "d", "subagent_type": "cleaner"}, "always": ["*"]}));
        let (event, _) = proposal(&r, None, "coordinator");
        assert!(matches!(event, Event::Delegate { ref to, .. } if to == "cleaner"), "{event:?}");
        assert_eq!(reply_body(true, "ignored"), json!({"reply": "once"}));
        assert_eq!(reply_body(false, "no grant"), json!({"reply": "reject", "message": "no grant"}));
    }
}
