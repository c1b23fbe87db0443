//! A2A (v1.0 and the legacy v0.3 wire format) ⇄ canonical events: protocol version from the
//! `A2A-Version` service parameter, the methods of each version, the delegation a message
//! amounts to, and refusals as native answers (a task in `TASK_STATE_REJECTED` or
//! `TASK_STATE_AUTH_REQUIRED`, in the version's own shape).

use crate::refusal::Refusal;
use serde_json::{Map, Value, json};

/// `VersionNotSupportedError`.
pub const VERSION_NOT_SUPPORTED: i64 = -32009;
/// `UnsupportedOperationError`.
pub const UNSUPPORTED_OPERATION: i64 = -32004;

/// The wire format a request speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// A2A 1.0 (PascalCase methods, `TASK_STATE_*`, flattened parts).
    V1_0,
    /// A2A 0.3 (slash methods, `kind` discriminators).
    V0_3,
}

const V1_METHODS: &[&str] = &[
    "SendMessage",
    "SendStreamingMessage",
    "GetTask",
    "ListTasks",
    "CancelTask",
    "SubscribeToTask",
    "CreateTaskPushNotificationConfig",
    "GetTaskPushNotificationConfig",
    "ListTaskPushNotificationConfigs",
    "DeleteTaskPushNotificationConfig",
    "GetExtendedAgentCard",
];

const V03_METHODS: &[&str] = &[
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
];

impl Version {
    /// The version a request asks for: missing or empty means 0.3 (spec §3.6); `Err` names an
    /// unsupported one.
    pub fn from_param(value: Option<&str>) -> Result<Version, String> {
        match value.map(str::trim).unwrap_or("") {
            "" | "0.3" | "0.3.0" => Ok(Version::V0_3),
            "1.0" | "1.0.0" | "1" => Ok(Version::V1_0),
            other => Err(format!("A2A version {other:?} is not supported (1.0, 0.3)")),
        }
    }

    /// True when `method` exists in this version.
    pub fn knows(self, method: &str) -> bool {
        match self {
            Version::V1_0 => V1_METHODS.contains(&method),
            Version::V0_3 => V03_METHODS.contains(&method),
        }
    }
}

/// True for the methods that deliver a message to the agent (a delegation).
pub fn is_send(method: &str) -> bool {
    matches!(method, "SendMessage" | "SendStreamingMessage" | "message/send" | "message/stream")
}

/// True for methods answered with an SSE stream.
pub fn is_streaming(method: &str) -> bool {
    matches!(method, "SendStreamingMessage" | "message/stream" | "SubscribeToTask" | "tasks/resubscribe")
}

/// The `message` of a send request.
pub fn message(params: &Value) -> Option<&Value> {
    params.get("message")
}

/// The text parts of a message joined by newlines (both part shapes).
pub fn message_text(msg: &Value) -> String {
    parts(msg).filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
}

fn parts(msg: &Value) -> impl Iterator<Item = &Value> {
    msg.get("parts").and_then(Value::as_array).into_iter().flatten()
}

/// The conversation key of a request (`message.contextId`, else `params.contextId`).
pub fn context_id(params: &Value) -> Option<String> {
    message(params)
        .and_then(|m| m.get("contextId"))
        .or_else(|| params.get("contextId"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The key of a data part by which a delegation asks the agent to run an effectful action.
pub const ACTION_KEY: &str = "blindfold/action";

/// An action a delegation asks for: tool name and arguments.
pub type RequestedAction = (String, Map<String, Value>);

/// The action a message asks the agent to run, from a data part `{"blindfold/action":
/// {"tool": NAME, "args": {…}}}` (a malformed one is `Err`: fail closed).
pub fn requested_action(msg: &Value) -> Result<Option<RequestedAction>, String> {
    for part in parts(msg) {
        let Some(action) = part.get("data").and_then(|d| d.get(ACTION_KEY)) else { continue };
        let tool = action.get("tool").and_then(Value::as_str).ok_or("blindfold/action needs a tool name")?;
        let args = match action.get("args") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err("blindfold/action args must be an object".into()),
        };
        return Ok(Some((tool.to_owned(), args)));
    }
    Ok(None)
}

/// A task that answers a blocked delegation: `TASK_STATE_AUTH_REQUIRED` when a grant could
/// unblock it (the grant it needs is in a data part), else `TASK_STATE_REJECTED`; in the shape
/// of `version`. Returned as the `result` of the JSON-RPC answer (and of each stream event).
pub fn refusal_result(
    version: Version,
    refusal: &Refusal,
    task_id: &str,
    context_id: &str,
    msg_id: &str,
) -> Value {
    let auth = refusal.needed_grant.is_some();
    let text = refusal.text("this delegation");
    let data = refusal.to_json();
    match version {
        Version::V1_0 => {
            let state = if auth { "TASK_STATE_AUTH_REQUIRED" } else { "TASK_STATE_REJECTED" };
            let task = json!({
                "id": task_id,
                "contextId": context_id,
                "status": {"state": state, "message": {
                    "messageId": msg_id, "contextId": context_id, "taskId": task_id, "role": "ROLE_AGENT",
                    "parts": [{"text": text}, {"data": data}],
                }},
            });
            json!({"task": task})
        }
        Version::V0_3 => {
            let state = if auth { "auth-required" } else { "rejected" };
            json!({
                "kind": "task",
                "id": task_id,
                "contextId": context_id,
                "status": {"state": state, "message": {
                    "kind": "message", "messageId": msg_id, "contextId": context_id, "taskId": task_id,
                    "role": "agent",
                    "parts": [{"kind": "text", "text": text}, {"kind": "data", "data": data}],
                }},
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_schemas::{Decision, Layer, Reason};

    #[test]
    fn version_defaults_to_0_3_and_refuses_unknown() {
        assert_eq!(Version::from_param(None), Ok(Version::V0_3));
        assert_eq!(Version::from_param(Some("1.0")), Ok(Version::V1_0));
        assert!(Version::from_param(Some("2.0")).is_err());
        assert!(Version::V1_0.knows("SendMessage") && !Version::V1_0.knows("message/send"));
        assert!(Version::V0_3.knows("message/stream") && !Version::V0_3.knows("ListTasks"));
    }

    #[test]
    fn messages_yield_text_context_and_actions() {
        let params = json!({"message": {"contextId": "c1", "parts": [
            {"text": "please"}, {"kind": "text", "text": "write"},
            {"data": {"blindfold/action": {"tool": "write_file", "args": {"path": "/a"}}}}
        ]}});
        let msg = message(&params).expect("message");
        assert_eq!(message_text(msg), "please\nwrite");
        assert_eq!(context_id(&params).as_deref(), Some("c1"));
        let (tool, args) = requested_action(msg).expect("ok").expect("action");
        assert_eq!((tool.as_str(), &args["path"]), ("write_file", &json!("/a")));
        assert!(requested_action(&json!({"parts": [{"data": {"blindfold/action": {}}}]})).is_err());
    }

    #[test]
    fn refusals_are_native_tasks() {
        let d = Decision::deny(Reason::Contradicted, "P3.contradiction", Layer::ContentFree);
        let r = Refusal::new(d, "t", None);
        let v1 = refusal_result(Version::V1_0, &r, "task-1", "ctx", "m");
        assert_eq!(v1["task"]["status"]["state"], "TASK_STATE_REJECTED");
        let v03 = refusal_result(Version::V0_3, &r, "task-1", "ctx", "m");
        assert_eq!(v03["status"]["state"], "rejected");
        assert_eq!(v03["kind"], "task");
    }
}
