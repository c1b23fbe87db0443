//! The A2A **HTTP+JSON** (REST) binding ⇄ the JSON-RPC methods the rest of the adapter speaks:
//! a request's verb and path (below the agent's base URL, an optional `/{tenant}` first) decoded
//! into the v1.0 method it stands for and that method's `params`; errors in the binding's own
//! shape (the `google.rpc.Status` JSON the spec's §11.6 gives, with a `google.rpc.ErrorInfo`
//! naming the A2A error), converted both ways from the JSON-RPC error objects the shared gated path builds.
//!
//! Where the spec and the proto differ, both are accepted: `:subscribe` is `POST` in the spec's
//! table and `GET` in the proto's HTTP annotation.

use serde_json::{Map, Value, json};

/// What a REST request stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Route {
    /// The v1.0 JSON-RPC method (`SendMessage`, `GetTask`, …).
    pub method: &'static str,
    /// The `/{tenant}` prefix, when the path had one.
    pub tenant: Option<String>,
    /// The task the path names (`/tasks/{id}…`).
    pub task_id: Option<String>,
    /// The push-notification config the path names (`…/pushNotificationConfigs/{id}`).
    pub config_id: Option<String>,
}

/// Why a REST request names no operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RouteError {
    /// No operation has this path.
    NotFound,
    /// The path is an operation's, but not with this verb; the verbs it has.
    MethodNotAllowed(&'static [&'static str]),
}

/// The first path segments of the operations (a first segment that is none of them is a tenant).
const OPERATION_ROOTS: [&str; 4] = ["message:send", "message:stream", "tasks", "extendedAgentCard"];

/// The operation a request of `verb` (`GET`, `POST`, `DELETE`) to the path `segments` (decoded,
/// below the agent's base URL, empty segments dropped) stands for. The path is forwarded to the
/// agent as it came, so a dot segment or an encoded `/` is no operation.
pub fn route(verb: &str, segments: &[&str]) -> Result<Route, RouteError> {
    // A dot segment, or one whose decoding holds a `/`, would name another path at the agent.
    if segments.iter().any(|s| matches!(*s, "." | "..") || s.contains('/')) {
        return Err(RouteError::NotFound);
    }
    let (tenant, rest) = match segments.split_first() {
        Some((first, rest)) if !OPERATION_ROOTS.contains(first) && !rest.is_empty() => {
            (Some((*first).to_owned()), rest)
        }
        _ => (None, segments),
    };
    let (allowed, method, task_id, config_id) = operation(verb, rest)?;
    if !allowed.contains(&verb) {
        return Err(RouteError::MethodNotAllowed(allowed));
    }
    Ok(Route { method, tenant, task_id, config_id })
}

type Operation = (&'static [&'static str], &'static str, Option<String>, Option<String>);

/// The verbs a path has, the method `verb` calls there, and the ids it names.
fn operation(verb: &str, segments: &[&str]) -> Result<Operation, RouteError> {
    const POST: &[&str] = &["POST"];
    const GET: &[&str] = &["GET"];
    let id = |s: &str| (!s.is_empty()).then(|| s.to_owned()).ok_or(RouteError::NotFound);
    Ok(match segments {
        ["message:send"] => (POST, "SendMessage", None, None),
        ["message:stream"] => (POST, "SendStreamingMessage", None, None),
        ["extendedAgentCard"] => (GET, "GetExtendedAgentCard", None, None),
        ["tasks"] => (GET, "ListTasks", None, None),
        ["tasks", task] => match task.rsplit_once(':') {
            Some((t, "cancel")) => (POST, "CancelTask", Some(id(t)?), None),
            Some((t, "subscribe")) => (&["GET", "POST"], "SubscribeToTask", Some(id(t)?), None),
            _ => (GET, "GetTask", Some(id(task)?), None),
        },
        ["tasks", task, "pushNotificationConfigs"] => {
            let method = if verb == "POST" {
                "CreateTaskPushNotificationConfig"
            } else {
                "ListTaskPushNotificationConfigs"
            };
            (&["GET", "POST"], method, Some(id(task)?), None)
        }
        ["tasks", task, "pushNotificationConfigs", config] => {
            let method = if verb == "DELETE" {
                "DeleteTaskPushNotificationConfig"
            } else {
                "GetTaskPushNotificationConfig"
            };
            (&["GET", "DELETE"], method, Some(id(task)?), Some(id(config)?))
        }
        _ => return Err(RouteError::NotFound),
    })
}

/// True for the methods whose REST request carries a JSON body (the others carry their
/// parameters in the path and query).
pub fn has_body(method: &str) -> bool {
    matches!(
        method,
        "SendMessage"
            | "SendStreamingMessage"
            | "CancelTask"
            | "SubscribeToTask"
            | "CreateTaskPushNotificationConfig"
    )
}

/// The `params` the JSON-RPC request of `route` would carry: the body (an object, or nothing),
/// the query's pairs (`query`, decoded, as strings) and the ids of the path, which win over the
/// body's (the agent reads them from the path too).
pub fn params(route: &Route, query: &[(String, String)], body: Option<Value>) -> Result<Value, String> {
    let mut params = match body {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(map)) => map,
        Some(_) => return Err("the request body must be a JSON object".into()),
    };
    for (k, v) in query {
        params.entry(k.clone()).or_insert_with(|| Value::String(v.clone()));
    }
    let is_push = route.method.contains("PushNotificationConfig");
    if let Some(task) = &route.task_id {
        params.insert(if is_push { "taskId" } else { "id" }.into(), json!(task));
    }
    if let Some(config) = &route.config_id {
        params.insert("id".into(), json!(config));
    }
    if let Some(tenant) = &route.tenant {
        params.insert("tenant".into(), json!(tenant));
    }
    Ok(Value::Object(params))
}

/// One A2A error: its JSON-RPC code, HTTP status, `google.rpc` status and `ErrorInfo` reason.
struct ErrorKind {
    code: i64,
    http: u16,
    status: &'static str,
    reason: &'static str,
}

/// The mapping of spec §5.4 (and the SDK's), one row per error.
const ERRORS: [ErrorKind; 14] = [
    ErrorKind { code: -32001, http: 404, status: "NOT_FOUND", reason: "TASK_NOT_FOUND" },
    ErrorKind { code: -32002, http: 400, status: "FAILED_PRECONDITION", reason: "TASK_NOT_CANCELABLE" },
    ErrorKind {
        code: -32003,
        http: 400,
        status: "FAILED_PRECONDITION",
        reason: "PUSH_NOTIFICATION_NOT_SUPPORTED",
    },
    ErrorKind { code: -32004, http: 400, status: "FAILED_PRECONDITION", reason: "UNSUPPORTED_OPERATION" },
    ErrorKind { code: -32005, http: 400, status: "INVALID_ARGUMENT", reason: "CONTENT_TYPE_NOT_SUPPORTED" },
    ErrorKind { code: -32006, http: 500, status: "INTERNAL", reason: "INVALID_AGENT_RESPONSE" },
    ErrorKind {
        code: -32007,
        http: 400,
        status: "FAILED_PRECONDITION",
        reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
    },
    ErrorKind {
        code: -32008,
        http: 400,
        status: "FAILED_PRECONDITION",
        reason: "EXTENSION_SUPPORT_REQUIRED",
    },
    ErrorKind { code: -32009, http: 400, status: "FAILED_PRECONDITION", reason: "VERSION_NOT_SUPPORTED" },
    ErrorKind { code: -32602, http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_PARAMS" },
    ErrorKind { code: -32600, http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_REQUEST" },
    ErrorKind { code: -32601, http: 404, status: "NOT_FOUND", reason: "METHOD_NOT_FOUND" },
    ErrorKind { code: -32603, http: 500, status: "INTERNAL", reason: "INTERNAL_ERROR" },
    // A body that is not JSON is a bad request here (the SDK's answer to a parse error).
    ErrorKind { code: -32700, http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_REQUEST" },
];

const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";

fn kind_of_code(code: i64) -> &'static ErrorKind {
    ERRORS.iter().find(|k| k.code == code).unwrap_or(&ERRORS[12])
}

/// The `google.rpc` status name of an HTTP status Blindfold answers with itself.
fn status_name(http: u16) -> &'static str {
    match http {
        404 => "NOT_FOUND",
        405 => "UNIMPLEMENTED",
        403 => "PERMISSION_DENIED",
        400 | 413 | 415 => "INVALID_ARGUMENT",
        408 | 504 => "DEADLINE_EXCEEDED",
        502 | 503 => "UNAVAILABLE",
        _ => "INTERNAL",
    }
}

/// A REST error body: `{"error": {code, status, message, details}}` with HTTP status `http` and a
/// `google.rpc.ErrorInfo` of `reason` in the A2A domain.
pub fn error_body(http: u16, reason: &str, message: &str) -> Value {
    let info = json!({"@type": ERROR_INFO, "reason": reason, "domain": "a2a-protocol.org", "metadata": {}});
    json!({"error": {"code": http, "status": status_name(http), "message": message, "details": [info]}})
}

/// A JSON-RPC error object (`{code, message, data?}`) as the REST binding answers it: the HTTP
/// status and the body. The error's own `ErrorInfo` details (v1.0 `data`) are kept; one naming
/// its A2A reason is added when it has none. `http` overrides the status of the code's row (a
/// gateway failure is 502, not the internal error's 500).
pub fn error_from_jsonrpc(error: &Value, http: Option<u16>) -> (u16, Value) {
    let code = error.get("code").and_then(Value::as_i64).unwrap_or(-32603);
    let kind = kind_of_code(code);
    let http = http.unwrap_or(kind.http);
    let message = error.get("message").and_then(Value::as_str).unwrap_or(kind.reason);
    let mut details: Vec<Value> = match error.get("data") {
        Some(Value::Array(items)) => items.iter().filter(|d| d.get("@type").is_some()).cloned().collect(),
        _ => Vec::new(),
    };
    if !details.iter().any(|d| d.get("@type").and_then(Value::as_str) == Some(ERROR_INFO)) {
        details.insert(
            0,
            json!({"@type": ERROR_INFO, "reason": kind.reason, "domain": "a2a-protocol.org", "metadata": {}}),
        );
    }
    let status = if http == kind.http { kind.status } else { status_name(http) };
    (http, json!({"error": {"code": http, "status": status, "message": message, "details": details}}))
}

/// A REST error body (`{"error": {…}}`) as a JSON-RPC error object: the code its `ErrorInfo`
/// reason names (else the one of its HTTP status), its message, its details as `data`.
pub fn error_to_jsonrpc(body: &Value) -> Value {
    let error = body.get("error").unwrap_or(body);
    let details = error.get("details").and_then(Value::as_array);
    let reason = details
        .into_iter()
        .flatten()
        .find(|d| d.get("@type").and_then(Value::as_str) == Some(ERROR_INFO))
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str);
    let http = error.get("code").and_then(Value::as_u64).unwrap_or(500);
    let code = match reason.and_then(|r| ERRORS.iter().find(|k| k.reason == r)) {
        Some(kind) => kind.code,
        None if http == 404 => -32601,
        None if (400..500).contains(&http) => -32600,
        None => -32603,
    };
    let message = error.get("message").and_then(Value::as_str).unwrap_or("the agent answered an error");
    let mut out = json!({"code": code, "message": message});
    if let Some(details) = details {
        out["data"] = Value::Array(details.clone());
    }
    out
}

/// `body` (a REST send: a `SendMessageRequest`) with Blindfold's verification instruction added
/// to its message, as [`super::with_verification`] adds it to a JSON-RPC send.
pub fn with_verification(body: &[u8], instruction: &str, actions: &Value) -> Option<Vec<u8>> {
    let mut v: Value = serde_json::from_slice(body).ok()?;
    super::add_verification(v.get_mut("message")?, instruction, actions)?;
    serde_json::to_vec(&v).ok()
}

/// True when `path` (a request's, from the root) is a REST operation's under an A2A alias:
/// `/a2a/<alias>/<more>`, other than the alias's card.
pub fn is_alias_rest_path(path: &str) -> bool {
    let Some(rest) = path.strip_prefix("/a2a/") else { return false };
    let Some((alias, more)) = rest.split_once('/') else { return false };
    !alias.is_empty() && !more.is_empty() && !more.starts_with(".well-known/")
}

#[cfg(test)]
mod tests;
