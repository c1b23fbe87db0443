//! The two A2A bindings Blindfold serves, and what differs between them once a request is
//! decoded: where it goes at the agent, how the agent's answers carry their result or error, and
//! how Blindfold's own answers (built once, as JSON-RPC answer objects, by the shared gated path)
//! are rendered. **JSON-RPC** answers are the objects themselves; **HTTP+JSON** (REST) answers
//! are the bare result (`application/a2a+json`, a stream's events bare `StreamResponse`s) or the
//! binding's `google.rpc.Status` error with the HTTP status of the A2A error.

use axum::body::{Body, Bytes};
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use blindfold_adapters::a2a::{self, rest};
use blindfold_adapters::jsonrpc;
use blindfold_adapters::sse::SseEvent;
use serde_json::{Value, json};
use std::borrow::Cow;

/// The binding a request arrived in.
#[derive(Debug, Clone)]
pub(super) enum Binding {
    /// JSON-RPC 2.0 at the agent's JSON-RPC interface.
    JsonRpc,
    /// HTTP+JSON at the agent's REST interface: this verb, path and query below its base URL.
    Rest(RestTarget),
}

/// Where a REST request goes below the agent's HTTP+JSON base URL (as the client sent it).
#[derive(Debug, Clone)]
pub(super) struct RestTarget {
    /// The HTTP verb.
    pub verb: Method,
    /// The path below the alias (from `/`, still percent-encoded as it came).
    pub path: String,
    /// The raw query, if any.
    pub query: Option<String>,
}

/// A JSON response of `status` with `content_type`.
fn json_with(status: StatusCode, content_type: &'static str, body: impl Into<Body>) -> Response {
    let mut r = Response::new(body.into());
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

/// A JSON-RPC (or REST error) JSON response.
pub(super) fn json_response(status: StatusCode, v: &Value) -> Response {
    json_with(status, "application/json", v.to_string())
}

/// `bytes` as a JSON response of `status`.
pub(super) fn json_bytes_response(status: StatusCode, bytes: Bytes) -> Response {
    json_with(status, "application/json", bytes)
}

/// An SSE stream of `events`.
pub(super) fn sse_response(events: Vec<SseEvent>) -> Response {
    let body: Vec<u8> = events.into_iter().flat_map(|ev| ev.to_bytes()).collect();
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r
}

fn data_event(v: &Value) -> SseEvent {
    SseEvent::new(None, v.to_string())
}

/// A REST error response: HTTP `status` and the binding's error body for JSON-RPC error `error`.
fn rest_error(error: &Value, status: Option<StatusCode>) -> Response {
    let (http, body) = rest::error_from_jsonrpc(error, status.map(|s| s.as_u16()));
    json_response(StatusCode::from_u16(http).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR), &body)
}

/// A refusal of Blindfold's own in the REST binding: HTTP `status`, saying `msg` (JSON-RPC `code`).
pub(super) fn rest_refusal(status: StatusCode, code: i64, msg: &str) -> Response {
    rest_error(&json!({"code": code, "message": msg}), Some(status))
}

impl Binding {
    /// True for HTTP+JSON.
    pub(super) fn is_rest(&self) -> bool {
        matches!(self, Binding::Rest(_))
    }

    /// Blindfold's own `answer` (a JSON-RPC answer object) to a request of `method`: for
    /// JSON-RPC the object (one SSE event for a streaming method, else JSON); for REST its
    /// result (one SSE event for a streaming method, else JSON) or its error, as JSON with the
    /// error's HTTP status (an error comes before any stream, as the SDK answers it).
    pub(super) fn answer(&self, method: &str, answer: Value) -> Response {
        match self {
            Binding::JsonRpc if a2a::is_streaming(method) => sse_response(vec![data_event(&answer)]),
            Binding::JsonRpc => json_response(StatusCode::OK, &answer),
            Binding::Rest(_) => match (answer.get("result"), answer.get("error")) {
                (Some(result), _) if a2a::is_streaming(method) => sse_response(vec![data_event(result)]),
                (Some(result), _) => json_with(StatusCode::OK, "application/a2a+json", result.to_string()),
                (None, Some(error)) => rest_error(error, None),
                (None, None) => rest_error(&json!({"code": jsonrpc::code::INTERNAL_ERROR}), None),
            },
        }
    }

    /// An error answer of HTTP `status` saying `msg` (JSON-RPC `code`, for request `id`).
    pub(super) fn error(&self, status: StatusCode, id: &Value, code: i64, msg: &str) -> Response {
        match self {
            Binding::JsonRpc => json_response(status, &jsonrpc::error(id, code, msg, None)),
            Binding::Rest(_) => rest_refusal(status, code, msg),
        }
    }

    /// The event ending a stream with an error saying `msg` (REST: an `error` event, as the SDK
    /// sends one; JSON-RPC: a data event with the error answer for request `id`).
    pub(super) fn stream_error(&self, id: &Value, code: i64, msg: &str) -> SseEvent {
        match self {
            Binding::JsonRpc => data_event(&jsonrpc::error(id, code, msg, None)),
            Binding::Rest(_) => {
                let (_, body) = rest::error_from_jsonrpc(&json!({"code": code, "message": msg}), None);
                SseEvent::new(Some("error"), body.to_string())
            }
        }
    }

    /// The `result` of one parsed answer (or stream event) of the agent to a request of `method`
    /// (`success`: its HTTP status was 2xx): JSON-RPC's `result` member; REST's whole body. A bare
    /// task (the answer of a `GetTask` poll) is wrapped as `{"task": …}` like a send's answer.
    pub(super) fn result_of<'a>(&self, v: &'a Value, success: bool, method: &str) -> Option<Cow<'a, Value>> {
        let result = match self {
            Binding::JsonRpc => v.get("result")?,
            Binding::Rest(_) if success && v.get("error").is_none() => v,
            Binding::Rest(_) => return None,
        };
        Some(if a2a::answers_with_task(method) {
            Cow::Owned(json!({ "task": result.clone() }))
        } else {
            Cow::Borrowed(result)
        })
    }

    /// The agent's whole answer `v` (HTTP `status`) as its result or its error (a JSON-RPC error
    /// object, whichever binding it came in).
    pub(super) fn outcome(&self, status: StatusCode, mut v: Value) -> Result<Value, Value> {
        let missing =
            || json!({"code": jsonrpc::code::INTERNAL_ERROR, "message": "the agent's answer has no result"});
        match self {
            Binding::JsonRpc => {
                match (v.get_mut("error").map(Value::take), v.get_mut("result").map(Value::take)) {
                    (Some(error), _) => Err(error),
                    (None, Some(result)) => Ok(result),
                    (None, None) => Err(missing()),
                }
            }
            Binding::Rest(_) if status.is_success() && v.get("error").is_none() => Ok(v),
            Binding::Rest(_) => Err(rest::error_to_jsonrpc(&v)),
        }
    }

    /// The send `body` with Blindfold's verification instruction added to its message.
    pub(super) fn with_verification(
        &self,
        body: &[u8],
        instruction: &str,
        actions: &Value,
    ) -> Option<Vec<u8>> {
        match self {
            Binding::JsonRpc => a2a::with_verification(body, instruction, actions),
            Binding::Rest(_) => rest::with_verification(body, instruction, actions),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn rest() -> Binding {
        Binding::Rest(RestTarget { verb: Method::POST, path: "/message:send".into(), query: None })
    }

    async fn text(r: Response) -> String {
        let bytes = r.into_body().collect().await.expect("body").to_bytes();
        String::from_utf8(bytes.to_vec()).expect("utf-8")
    }

    #[tokio::test]
    async fn blindfolds_own_answers_are_rendered_in_each_binding() {
        let task = json!({"task": {"id": "blocked-1", "status": {"state": "TASK_STATE_REJECTED"}}});
        let answer = jsonrpc::result(&json!(7), task.clone());
        let r = rest().answer("SendMessage", answer.clone());
        assert_eq!(
            (r.status(), r.headers()[header::CONTENT_TYPE].clone()),
            (StatusCode::OK, HeaderValue::from_static("application/a2a+json"))
        );
        assert_eq!(serde_json::from_str::<Value>(&text(r).await).expect("json"), task, "the bare result");
        let sse = text(rest().answer("SendStreamingMessage", answer.clone())).await;
        assert_eq!(sse.trim(), format!("data: {task}"), "one bare StreamResponse event");
        let rpc = text(Binding::JsonRpc.answer("SendMessage", answer.clone())).await;
        assert_eq!(serde_json::from_str::<Value>(&rpc).expect("json"), answer, "JSON-RPC as built");
        let push = a2a::push_not_supported(a2a::Version::V1_0, &Value::Null);
        let r = rest().answer("CreateTaskPushNotificationConfig", push);
        assert_eq!(r.status(), StatusCode::BAD_REQUEST);
        let v: Value = serde_json::from_str(&text(r).await).expect("json");
        assert_eq!(v["error"]["details"][0]["reason"], "PUSH_NOTIFICATION_NOT_SUPPORTED", "{v}");
        // An error ending a REST stream is an `error` event, as the SDK reads one.
        let ev = rest().stream_error(&Value::Null, jsonrpc::code::INTERNAL_ERROR, "broke off");
        assert_eq!(ev.event.as_deref(), Some("error"));
        assert!(Binding::JsonRpc.stream_error(&json!(7), -32603, "x").event.is_none());
    }

    #[test]
    fn the_agents_answers_are_read_in_each_binding() {
        let task = json!({"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}});
        let answer = json!({"result": task});
        let wrapped = Binding::JsonRpc.result_of(&answer, true, "GetTask").expect("result");
        assert_eq!(*wrapped, json!({"task": task}));
        assert_eq!(*rest().result_of(&task, true, "GetTask").expect("result"), json!({"task": task}));
        assert!(rest().result_of(&task, false, "GetTask").is_none(), "an error status is no result");
        let error = rest::error_body(404, "TASK_NOT_FOUND", "gone");
        assert!(rest().result_of(&error, true, "GetTask").is_none());
        assert_eq!(rest().outcome(StatusCode::NOT_FOUND, error).expect_err("error")["code"], -32001);
        assert_eq!(rest().outcome(StatusCode::OK, task.clone()), Ok(task.clone()));
        let rpc = json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32001, "message": "gone"}});
        assert_eq!(Binding::JsonRpc.outcome(StatusCode::OK, rpc).expect_err("error")["code"], -32001);
    }
}
