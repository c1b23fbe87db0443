//! MCP (both eras: the `initialize` handshake of 2025-06-18/2025-11-25 and the stateless
//! 2026-07-28) ⇄ canonical events: which methods exist, `tools/call` → `Event::ToolCall`, the
//! refusal a model sees, `tools/list` filtering, trusted annotations, mirrored HTTP headers.

use crate::refusal::Refusal;
use blindfold_schemas::{Effect, Event, ToolSpec};
use serde_json::{Map, Value, json};

/// Requests a client may send to a server (both eras).
pub const CLIENT_REQUESTS: &[&str] = &[
    "initialize",
    "ping",
    "server/discover",
    "subscriptions/listen",
    "tools/list",
    "tools/call",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/list",
    "prompts/get",
    "completion/complete",
    "logging/setLevel",
    "tasks/get",
    "tasks/list",
    "tasks/cancel",
    "tasks/result",
];

/// Requests a server may send to a client (legacy era).
pub const SERVER_REQUESTS: &[&str] =
    &["ping", "sampling/createMessage", "elicitation/create", "roots/list", "tasks/get", "tasks/result"];

/// True for a method name that is a notification (never carries an id).
pub fn is_notification(method: &str) -> bool {
    method.starts_with("notifications/")
}

/// True when a client→server request method is one Blindfold knows (unknown ones on this
/// effectful path are refused, not forwarded).
pub fn is_known_client_request(method: &str) -> bool {
    CLIENT_REQUESTS.contains(&method)
}

/// A `tools/call` request's params as a canonical event (actor `coordinator`).
pub fn tool_call_event(params: &Value, call_id: &Value) -> Result<Event, String> {
    tool_call_event_owned(params.clone(), call_id)
}

/// [`tool_call_event`] of params the caller hands over: the arguments move into the event
/// instead of being copied.
pub fn tool_call_event_owned(mut params: Value, call_id: &Value) -> Result<Event, String> {
    let name = params.get("name").and_then(Value::as_str).ok_or("tools/call needs params.name (a string)")?;
    let name = name.to_owned();
    let args = match params.get_mut("arguments").map(Value::take) {
        None | Some(Value::Null) => Map::new(),
        Some(Value::Object(m)) => m,
        Some(_) => return Err("tools/call params.arguments must be an object".into()),
    };
    Ok(call_event(name, args, call_id))
}

/// The `tool_call` event of tool `name` called with `args` under the transport's `call_id`.
fn call_event(name: String, args: Map<String, Value>, call_id: &Value) -> Event {
    let call_id = match call_id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Event::ToolCall { actor: "coordinator".into(), tool: name, args, proposal: None, call_id: Some(call_id) }
}

/// A `tools/call` answer as the canonical `tool_result` event: the text of its `content` items
/// (else its `structuredContent` as JSON); an error answer's message when the call failed.
pub fn tool_result_event(tool: &str, call_id: &Value, answer: &Value) -> Event {
    let content = match answer.get("result") {
        Some(result) => {
            let texts: Vec<&str> = result
                .get("content")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|c| c.get("text").and_then(Value::as_str))
                .collect();
            if texts.is_empty() {
                result.get("structuredContent").map(Value::to_string).unwrap_or_default()
            } else {
                texts.join("\n")
            }
        }
        None => answer.pointer("/error/message").and_then(Value::as_str).unwrap_or_default().to_owned(),
    };
    let call_id = match call_id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    Event::ToolResult { tool: tool.to_owned(), content, call_id: Some(call_id) }
}

/// The tool name of a `tools/call` (or the resource URI / prompt name other methods address).
pub fn addressed_name(method: &str, params: &Value) -> Option<String> {
    let key = match method {
        "tools/call" | "prompts/get" => "name",
        "resources/read" => "uri",
        _ => return None,
    };
    params.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// A `CallToolResult{isError: true}` whose text the model reads: in neutral words what is
/// missing and the id a person acts on (`id`: the review holding the call or the refusal's id for
/// `blindfold why`), never a command or the digests a grant needs ([`Refusal::model_text`]); the
/// decision, for the client program, under `_meta["blindfold/decision"]`. `modern` adds
/// 2026-07-28's `resultType`.
pub fn refusal_result(refusal: &Refusal, tool: &str, id: Option<&str>, modern: bool) -> Value {
    let mut result = json!({
        "content": [{"type": "text", "text": refusal.model_text(&format!("the call to `{tool}`"), id)}],
        "isError": true,
        "_meta": {"blindfold/decision": refusal.to_json()},
    });
    if modern {
        result["resultType"] = json!("complete");
    }
    result
}

/// True when a request's params declare the 2026-07-28 era (`_meta` protocol version).
pub fn is_modern(params: &Value) -> bool {
    params
        .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
        .and_then(Value::as_str)
        .is_some_and(|v| v >= "2026-07-28")
}

/// Keeps only the tools `allowed` accepts in a `tools/list` result.
pub fn filter_tool_list(result: &mut Value, allowed: impl Fn(&str) -> bool) {
    if let Some(tools) = result.get_mut("tools").and_then(Value::as_array_mut) {
        tools.retain(|t| t.get("name").and_then(Value::as_str).is_some_and(&allowed));
    }
}

/// The effect a tool's annotations claim: `Read` for `readOnlyHint: true`, else `Mutate` (the
/// spec's defaults are non-read-only and destructive). Only for servers the operator trusts.
pub fn annotated_spec(tool: &Value) -> Option<(String, ToolSpec)> {
    let name = tool.get("name")?.as_str()?.to_owned();
    let read_only = tool.pointer("/annotations/readOnlyHint").and_then(Value::as_bool) == Some(true);
    let effect = if read_only { Effect::Read } else { Effect::Mutate };
    Some((
        name,
        ToolSpec {
            effect,
            target_arg: None,
            artifact_arg: None,
            args: None,
            target_in_evidence: None,
            critical: None,
        },
    ))
}

/// The tool specs a trusted server's `tools/list` result announces.
pub fn annotated_specs(result: &Value) -> Vec<(String, ToolSpec)> {
    result
        .get("tools")
        .and_then(Value::as_array)
        .map_or_else(Vec::new, |t| t.iter().filter_map(annotated_spec).collect())
}

/// The 2026-07-28 mirrored headers a body implies: `Mcp-Method` and, for the methods that
/// address a name, `Mcp-Name`.
pub fn mirrored_headers(frame: &Value) -> (Option<String>, Option<String>) {
    let method = frame.get("method").and_then(Value::as_str);
    let name = method.and_then(|m| addressed_name(m, frame.get("params").unwrap_or(&Value::Null)));
    (method.map(str::to_owned), name)
}

/// Decodes a header value that may be `=?base64?…?=` encoded (non-ASCII names).
pub fn decode_header_value(raw: &str) -> Option<String> {
    use base64::Engine as _;
    match raw.strip_prefix("=?base64?").and_then(|r| r.strip_suffix("?=")) {
        Some(b64) => {
            base64::engine::general_purpose::STANDARD.decode(b64).ok().and_then(|b| String::from_utf8(b).ok())
        }
        None => Some(raw.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use blindfold_schemas::{CheckId, Decision, Reason};

    #[test]
    fn tools_call_becomes_a_tool_call_event() {
        let e = tool_call_event(&json!({"name": "write_file", "arguments": {"path": "/a"}}), &json!(3))
            .expect("event");
        match e {
            Event::ToolCall { tool, args, call_id, .. } => {
                assert_eq!(tool, "write_file");
                assert_eq!(args["path"], "/a");
                assert_eq!(call_id.as_deref(), Some("3"));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(tool_call_event(&json!({"arguments": {}}), &json!(1)).is_err());
        for params in [
            json!({"name": "write_file", "arguments": {"path": "/a", "n": [1, {"k": null}]}}),
            json!({"name": "x"}),
            json!({"name": "x", "arguments": null}),
            json!({"name": "x", "arguments": [1]}),
            json!({"arguments": {}}),
            json!({"arguments": 3}),
            json!({"name": 7, "arguments": "s"}),
            json!([1]),
            Value::Null,
        ] {
            let id = json!("c-1");
            assert_eq!(tool_call_event_owned(params.clone(), &id), tool_call_event(&params, &id), "{params}");
        }
        assert!(tool_call_event(&json!({"name": "x", "arguments": [1]}), &json!(1)).is_err());
    }

    #[test]
    fn refusal_is_an_error_result_with_the_reason() {
        let d = Decision::deny(Reason::NoGrant, CheckId::Grant);
        let r = refusal_result(&Refusal::new(d, "t", None), "write_file", Some("rf-7"), true);
        assert_eq!(r["isError"], true);
        assert_eq!(r["resultType"], "complete");
        let text = r["content"][0]["text"].as_str().expect("text");
        assert!(text.contains("no_grant") && text.contains("rf-7"), "{text}");
        // What the model reads never tells it how to grant itself.
        assert!(!text.contains("blindfold grant") && !text.contains("sha256"), "{text}");
    }

    #[test]
    fn list_filter_and_annotations() {
        let mut res = json!({"tools": [
            {"name": "read", "annotations": {"readOnlyHint": true}},
            {"name": "write"},
            {"name": "hidden", "annotations": {"readOnlyHint": true}}
        ]});
        filter_tool_list(&mut res, |n| n != "hidden");
        assert_eq!(res["tools"].as_array().expect("tools").len(), 2);
        let specs = annotated_specs(&res);
        assert_eq!(specs[0].1.effect, Effect::Read);
        assert_eq!(specs[1].1.effect, Effect::Mutate);
    }

    #[test]
    fn headers_mirror_the_body() {
        let f = json!({"method": "tools/call", "params": {"name": "echo"}});
        assert_eq!(mirrored_headers(&f), (Some("tools/call".into()), Some("echo".into())));
        assert_eq!(decode_header_value("=?base64?w6k=?=").as_deref(), Some("é"));
        assert!(is_modern(&json!({"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}})));
    }
}
