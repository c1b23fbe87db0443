//! A2A (v1.0 and the legacy v0.3 wire format) ⇄ canonical events: protocol version from the
//! `A2A-Version` service parameter, the methods of each version, the delegation a message
//! amounts to, and refusals as native answers (a task in `TASK_STATE_REJECTED` or
//! `TASK_STATE_AUTH_REQUIRED`, in the version's own shape).

use crate::refusal::Refusal;
use blindfold_schemas::RelationClaim;
use blindfold_schemas::event::ProposedAction;
use serde_json::{Map, Value, json};

/// `VersionNotSupportedError`.
pub const VERSION_NOT_SUPPORTED: i64 = -32009;
/// `UnsupportedOperationError`.
pub const UNSUPPORTED_OPERATION: i64 = -32004;
/// `PushNotificationNotSupportedError`.
pub const PUSH_NOTIFICATION_NOT_SUPPORTED: i64 = -32003;
/// The message of `PushNotificationNotSupportedError` (the v0.3 schema's default, the SDK's text).
pub const PUSH_NOTIFICATION_NOT_SUPPORTED_MESSAGE: &str = "Push Notification is not supported";

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

    /// The version as `A2A-Version` names it.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1_0 => "1.0",
            Version::V0_3 => "0.3",
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

/// True for methods whose `result` is a bare task (v1.0 `GetTask`/`CancelTask` carry no `kind`
/// tag; v0.3 tags it `kind: task`): polled answers arrive this way.
pub fn answers_with_task(method: &str) -> bool {
    matches!(method, "GetTask" | "CancelTask" | "tasks/get" | "tasks/cancel")
}

/// True for the methods that answer with the agent's extended card.
pub fn is_extended_card(method: &str) -> bool {
    matches!(method, "GetExtendedAgentCard" | "agent/getAuthenticatedExtendedCard")
}

/// True for the methods that create, read, list or delete a task's push-notification configs.
pub fn is_push_config(method: &str) -> bool {
    matches!(
        method,
        "CreateTaskPushNotificationConfig"
            | "GetTaskPushNotificationConfig"
            | "ListTaskPushNotificationConfigs"
            | "DeleteTaskPushNotificationConfig"
            | "tasks/pushNotificationConfig/set"
            | "tasks/pushNotificationConfig/get"
            | "tasks/pushNotificationConfig/list"
            | "tasks/pushNotificationConfig/delete"
    )
}

/// True when a send's `configuration` carries a push-notification config under any spelling a
/// peer's parser accepts (v1.0 `taskPushNotificationConfig`, v0.3 `pushNotificationConfig`, and
/// their proto field names): a present, non-null member whose name, case and underscores aside,
/// contains `pushnotification`.
pub fn asks_for_push(params: &Value) -> bool {
    let Some(config) = params.get("configuration").and_then(Value::as_object) else { return false };
    config.iter().any(|(key, v)| {
        !v.is_null() && key.replace('_', "").to_ascii_lowercase().contains("pushnotification")
    })
}

/// `TaskNotFoundError`.
pub const TASK_NOT_FOUND: i64 = -32001;
/// `TaskNotCancelableError`.
pub const TASK_NOT_CANCELABLE: i64 = -32002;

/// A task error (`code` with its `google.rpc.ErrorInfo` `reason` in v1.0) in the version's shape.
fn task_error(version: Version, id: &Value, code: i64, reason: &str, message: &str) -> Value {
    let data = match version {
        Version::V1_0 => Some(json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": reason,
            "domain": "a2a-protocol.org",
            "metadata": {},
        }])),
        Version::V0_3 => None,
    };
    crate::jsonrpc::error(id, code, message, data)
}

/// The JSON-RPC answer `TaskNotFoundError` for request `id`, saying `message`.
pub fn task_not_found(version: Version, id: &Value, message: &str) -> Value {
    task_error(version, id, TASK_NOT_FOUND, "TASK_NOT_FOUND", message)
}

/// The JSON-RPC answer `TaskNotCancelableError` for request `id`, saying `message`.
pub fn task_not_cancelable(version: Version, id: &Value, message: &str) -> Value {
    task_error(version, id, TASK_NOT_CANCELABLE, "TASK_NOT_CANCELABLE", message)
}

/// True for the methods that name an existing task by `params.id` (poll, cancel, resubscribe).
pub fn names_task(method: &str) -> bool {
    answers_with_task(method) || matches!(method, "SubscribeToTask" | "tasks/resubscribe")
}

/// True for the methods that cancel a task.
pub fn is_cancel(method: &str) -> bool {
    matches!(method, "CancelTask" | "tasks/cancel")
}

/// The task id a poll, cancel or resubscribe request names (`params.id`).
pub fn task_id_param(params: &Value) -> Option<&str> {
    params.get("id").and_then(Value::as_str)
}

/// The task a send's `result` amounts to, as a `GetTask` answers it (a bare task, tagged
/// `kind: task` in v0.3): the task itself, or, when the agent answered with a message, task
/// `task_id` of `context_id` completed with that message as its status message. `None` when the
/// result is neither.
pub fn as_polled_task(version: Version, result: &Value, task_id: &str, context_id: &str) -> Option<Value> {
    match version {
        Version::V1_0 => {
            if let Some(task) = result.get("task") {
                return Some(task.clone());
            }
            let message = result.get("message")?;
            Some(json!({"id": task_id, "contextId": context_id,
                "status": {"state": "TASK_STATE_COMPLETED", "message": message}}))
        }
        Version::V0_3 => match result.get("kind").and_then(Value::as_str) {
            Some("task") => Some(result.clone()),
            Some("message") => Some(json!({"kind": "task", "id": task_id, "contextId": context_id,
                "status": {"state": "completed", "message": result}})),
            _ => None,
        },
    }
}

/// Task `task_id` of `context_id`, canceled, in the shape of `version` (a bare task).
pub fn canceled_task(version: Version, task_id: &str, context_id: &str) -> Value {
    match version {
        Version::V1_0 => {
            json!({"id": task_id, "contextId": context_id, "status": {"state": "TASK_STATE_CANCELED"}})
        }
        Version::V0_3 => {
            json!({"kind": "task", "id": task_id, "contextId": context_id, "status": {"state": "canceled"}})
        }
    }
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

/// The key of a data part in an agent's answer by which it proposes an action:
/// `{"blindfold/proposal": {"id": ID, "tool": NAME, "args": {…}}}` (or a list of them).
pub const PROPOSAL_KEY: &str = "blindfold/proposal";

/// The key of a data part by which an agent states a relation to a proposal:
/// `{"blindfold/relation": {"proposal": ID, "relation": "REFUTES"}}` (or a list of them).
pub const RELATION_KEY: &str = "blindfold/relation";

/// The key of a data part by which a verifier gives its verdict for a handle Blindfold issued:
/// `{"blindfold/verdict": {"handle": "bf-…", "verdict": "approve|refuse|unsure", "reason": "…"}}`
/// (or a list of them).
pub const VERDICT_KEY: &str = "blindfold/verdict";

/// The key of the data part Blindfold adds to a relayed verification request:
/// `{"blindfold/verify": {"instruction": "…", "actions": [{"handle", "proposal", "tool", "action"}]}}`.
pub const VERIFY_KEY: &str = "blindfold/verify";

/// `body` (a JSON-RPC send) with Blindfold's verification instruction added to its message: a
/// text part and a [`VERIFY_KEY`] data part (v1.0 and v0.3 part shapes alike). `None` when the
/// body has no message to add to.
pub fn with_verification(body: &[u8], instruction: &str, actions: &Value) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(body).ok()?;
    add_verification(v.get_mut("params")?.get_mut("message")?, instruction, actions)?;
    serde_json::to_vec(&v).ok()
}

/// Adds Blindfold's verification instruction to message `msg` (see [`with_verification`]).
pub(crate) fn add_verification(msg: &mut Value, instruction: &str, actions: &Value) -> Option<()> {
    let v03 =
        msg.get("kind").is_some() || msg.get("parts")?.as_array()?.iter().any(|p| p.get("kind").is_some());
    let parts = msg.get_mut("parts")?.as_array_mut()?;
    let data = serde_json::json!({ VERIFY_KEY: {"instruction": instruction, "actions": actions} });
    if v03 {
        parts.push(serde_json::json!({"kind": "text", "text": instruction}));
        parts.push(serde_json::json!({"kind": "data", "data": data}));
    } else {
        parts.push(serde_json::json!({"text": instruction}));
        parts.push(serde_json::json!({"data": data}));
    }
    Some(())
}

/// What an agent wrote in one answer: its text, and the proposals and relations its data parts
/// state in Blindfold's evidence schema.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Answer {
    /// Text parts of the agent's messages and artifacts, joined by newlines.
    pub text: String,
    /// Actions it proposes.
    pub proposals: Vec<ProposedAction>,
    /// Relations it states.
    pub relations: Vec<RelationClaim>,
}

impl Answer {
    /// True when the answer carries nothing for the engine.
    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty() && self.proposals.is_empty() && self.relations.is_empty()
    }

    /// Appends `other` (the next event of the same streamed answer).
    pub fn extend(&mut self, other: Answer) {
        if !other.text.is_empty() {
            if !self.text.is_empty() {
                self.text.push('\n');
            }
            self.text.push_str(&other.text);
        }
        self.proposals.extend(other.proposals);
        self.relations.extend(other.relations);
    }

    fn add_parts(&mut self, parts: Option<&Value>) {
        for part in parts.and_then(Value::as_array).into_iter().flatten() {
            if let Some(t) = part.get("text").and_then(Value::as_str) {
                if !self.text.is_empty() {
                    self.text.push('\n');
                }
                self.text.push_str(t);
            }
            let Some(data) = part.get("data") else { continue };
            for v in one_or_many(data.get(PROPOSAL_KEY)) {
                if let Ok(p) = serde_json::from_value::<ProposedAction>(v.clone()) {
                    self.proposals.push(p);
                }
            }
            for v in one_or_many(data.get(RELATION_KEY)) {
                if let Ok(r) = serde_json::from_value::<RelationClaim>(v.clone()) {
                    self.relations.push(r);
                }
            }
            // A verdict data part reads as the verdict line it stands for.
            for v in one_or_many(data.get(VERDICT_KEY)) {
                let field = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or_default();
                if !field("handle").is_empty() {
                    if !self.text.is_empty() {
                        self.text.push('\n');
                    }
                    self.text.push_str(&format!(
                        "VERDICT {}: {} - {}",
                        field("handle"),
                        field("verdict"),
                        field("reason")
                    ));
                }
            }
        }
    }

    fn add_message(&mut self, msg: Option<&Value>) {
        let Some(msg) = msg else { return };
        let role = msg.get("role").and_then(Value::as_str).unwrap_or_default();
        if matches!(role, "ROLE_USER" | "user") {
            return; // the coordinator's own words, not the agent's
        }
        self.add_parts(msg.get("parts"));
    }
}

fn one_or_many(v: Option<&Value>) -> Vec<&Value> {
    match v {
        Some(Value::Array(items)) => items.iter().collect(),
        Some(v @ Value::Object(_)) => vec![v],
        _ => Vec::new(),
    }
}

/// `v[outer][inner]` (what `pointer("/outer/inner")` finds, without parsing a pointer).
fn member<'a>(v: &'a Value, outer: &str, inner: &str) -> Option<&'a Value> {
    v.get(outer)?.get(inner)
}

/// The agent-written content of one JSON-RPC `result` (an answer or one stream event), in both
/// versions: a task's status message and artifacts (not its history, which holds the
/// coordinator's messages too), a message, a status update's message, an artifact update.
pub fn answer(result: &Value) -> Answer {
    let mut a = Answer::default();
    let kind = result.get("kind").and_then(Value::as_str).unwrap_or_default();
    let task = result.get("task").or_else(|| (kind == "task").then_some(result));
    if let Some(task) = task {
        a.add_message(member(task, "status", "message"));
        for artifact in task.get("artifacts").and_then(Value::as_array).into_iter().flatten() {
            a.add_parts(artifact.get("parts"));
        }
    }
    a.add_message(result.get("message").or_else(|| (kind == "message").then_some(result)));
    let status = result.get("statusUpdate").or_else(|| (kind == "status-update").then_some(result));
    a.add_message(status.and_then(|s| member(s, "status", "message")));
    let artifact = result.get("artifactUpdate").or_else(|| (kind == "artifact-update").then_some(result));
    a.add_parts(artifact.and_then(|u| member(u, "artifact", "parts")));
    a
}

const FINAL_STATES: &[&str] = &[
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_AUTH_REQUIRED",
    "completed",
    "failed",
    "canceled",
    "rejected",
    "input-required",
    "auth-required",
];

/// True when a stream event's `result` ends the agent's turn: a message, a task or status update
/// in a final or interrupted state, or a v0.3 status update marked `final`.
pub fn ends_turn(result: &Value) -> bool {
    let kind = result.get("kind").and_then(Value::as_str).unwrap_or_default();
    if result.get("message").is_some() || kind == "message" {
        return true;
    }
    if result.get("final").and_then(Value::as_bool) == Some(true) {
        return true;
    }
    let status = member(result, "task", "status")
        .or_else(|| member(result, "statusUpdate", "status"))
        .or_else(|| matches!(kind, "task" | "status-update").then(|| result.get("status")).flatten());
    status.and_then(|s| s.get("state")).and_then(Value::as_str).is_some_and(|st| FINAL_STATES.contains(&st))
}

/// A task that answers a blocked delegation: `TASK_STATE_AUTH_REQUIRED` when a grant could
/// unblock it (the grant it needs is in a data part), else `TASK_STATE_REJECTED`; in the shape
/// of `version`, the `result` of the answer (and of each stream event). Its text is for the
/// model: what is missing and `person_id` (review or refusal id), never digests or a command.
pub fn refusal_result(
    version: Version,
    refusal: &Refusal,
    person_id: Option<&str>,
    task_id: &str,
    context_id: &str,
    msg_id: &str,
) -> Value {
    let auth = refusal.needed_grant.is_some();
    let text = refusal.model_text("this delegation", person_id);
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

mod errors;
pub mod rest;

pub use errors::{content_type_not_supported, push_not_supported};
#[cfg(test)]
mod tests;
