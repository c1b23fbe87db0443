//! JSON-RPC 2.0 framing: strict parsing (size limit, duplicate keys, shape) and response frames.

use blindfold_schemas::strict_json;
use serde_json::{Map, Value, json};

/// JSON-RPC's standard error codes.
pub mod code {
    /// The frame is not JSON (or has duplicate keys).
    pub const PARSE_ERROR: i64 = -32700;
    /// Not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// Unknown method.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Parameters do not fit the method.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Blindfold (or the upstream) failed; nothing was done.
    pub const INTERNAL_ERROR: i64 = -32603;
}

/// What a well-formed frame is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A request: `method` and `id`.
    Request,
    /// A notification: `method`, no `id`.
    Notification,
    /// A response: `id` and exactly one of `result` / `error`.
    Response,
}

/// One parsed frame: the JSON object and its kind.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// The frame as parsed (an object).
    pub value: Value,
    /// Request, notification or response.
    pub kind: Kind,
}

impl Frame {
    /// The `id` (`Null` when absent).
    pub fn id(&self) -> Value {
        self.value.get("id").cloned().unwrap_or(Value::Null)
    }

    /// The `method`, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        self.value.get("method").and_then(Value::as_str)
    }

    /// The `params` (`Null` when absent).
    pub fn params(&self) -> &Value {
        self.value.get("params").unwrap_or(&Value::Null)
    }

    /// The `result` of a success response.
    pub fn result_mut(&mut self) -> Option<&mut Value> {
        self.value.get_mut("result")
    }
}

/// Why a frame was refused; each maps to a JSON-RPC error code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    /// Larger than the configured limit.
    #[error("frame of {size} bytes exceeds the limit of {limit} bytes")]
    TooLarge {
        /// Bytes received.
        size: usize,
        /// The configured limit.
        limit: usize,
    },
    /// Not JSON, or JSON with duplicate keys.
    #[error("not JSON: {0}")]
    NotJson(String),
    /// JSON, but not a JSON-RPC 2.0 message.
    #[error("invalid JSON-RPC message: {0}")]
    Invalid(String),
}

impl FrameError {
    /// The JSON-RPC error code for this refusal.
    pub fn code(&self) -> i64 {
        match self {
            FrameError::NotJson(_) => code::PARSE_ERROR,
            FrameError::TooLarge { .. } | FrameError::Invalid(_) => code::INVALID_REQUEST,
        }
    }
}

/// Parses one frame: at most `max` bytes, strict JSON (duplicate keys refused), a JSON-RPC 2.0
/// object (batches are refused: MCP removed them and A2A never had them). A request must carry
/// an `id` unless `is_notification(method)` says the method is a notification.
pub fn parse(bytes: &[u8], max: usize, is_notification: impl Fn(&str) -> bool) -> Result<Frame, FrameError> {
    if bytes.len() > max {
        return Err(FrameError::TooLarge { size: bytes.len(), limit: max });
    }
    let value = strict_json::value_from_slice(bytes).map_err(|e| FrameError::NotJson(e.to_string()))?;
    classify(value, is_notification)
}

/// Classifies an already parsed value (see [`parse`]).
pub fn classify(value: Value, is_notification: impl Fn(&str) -> bool) -> Result<Frame, FrameError> {
    let Some(obj) = value.as_object() else {
        return Err(FrameError::Invalid("a message must be a JSON object".into()));
    };
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(FrameError::Invalid("\"jsonrpc\" must be \"2.0\"".into()));
    }
    let id = obj.get("id");
    if let Some(id) = id
        && !(id.is_string() || id.is_number() || (id.is_null() && obj.contains_key("error")))
    {
        return Err(FrameError::Invalid("\"id\" must be a string or a number".into()));
    }
    let kind = match obj.get("method") {
        Some(Value::String(method)) => {
            if obj.contains_key("result") || obj.contains_key("error") {
                return Err(FrameError::Invalid("a request cannot carry result or error".into()));
            }
            if let Some(p) = obj.get("params")
                && !(p.is_object() || p.is_array())
            {
                return Err(FrameError::Invalid("\"params\" must be an object or an array".into()));
            }
            match id {
                Some(_) => Kind::Request,
                None if is_notification(method) => Kind::Notification,
                None => return Err(FrameError::Invalid(format!("request `{method}` has no id"))),
            }
        }
        Some(_) => return Err(FrameError::Invalid("\"method\" must be a string".into())),
        None => {
            if id.is_none() {
                return Err(FrameError::Invalid("a response needs an id".into()));
            }
            if obj.contains_key("result") == obj.contains_key("error") {
                return Err(FrameError::Invalid("a response carries exactly one of result, error".into()));
            }
            Kind::Response
        }
    };
    Ok(Frame { value, kind })
}

/// A success response frame.
pub fn result(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// An error response frame; `data` is attached when given.
pub fn error(id: &Value, code: i64, message: &str, data: Option<Value>) -> Value {
    let mut err = Map::new();
    err.insert("code".into(), json!(code));
    err.insert("message".into(), json!(message));
    if let Some(d) = data {
        err.insert("data".into(), d);
    }
    json!({"jsonrpc": "2.0", "id": id, "error": err})
}

/// The error frame for a refused frame (the id is recovered when the JSON was readable).
pub fn refusal_frame(bytes: &[u8], e: &FrameError) -> Value {
    let id = match e {
        FrameError::Invalid(_) => strict_json::value_from_slice(bytes)
            .ok()
            .and_then(|v| v.get("id").cloned())
            .filter(|id| id.is_string() || id.is_number())
            .unwrap_or(Value::Null),
        _ => Value::Null,
    };
    error(&id, e.code(), &e.to_string(), None)
}

/// The `id` of a message [`parse`] refused as not (strict) JSON or not JSON-RPC, read leniently
/// (duplicate keys tolerated, the last one wins), for one purpose only: to find the request the
/// message claims to answer, so that request gets an error instead of no answer. Nothing read
/// this way may be relayed. `None` for a message with a `method` (not an answer) or without a
/// string or number `id`.
pub fn lenient_answer_id(bytes: &[u8]) -> Option<Value> {
    let value: Value = serde_json::from_slice(bytes).ok()?;
    if value.get("method").is_some() {
        return None;
    }
    value.get("id").filter(|id| id.is_string() || id.is_number()).cloned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notif(m: &str) -> bool {
        m.starts_with("notifications/")
    }

    #[test]
    fn kinds_are_told_apart() {
        let req = parse(br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, 1000, notif).expect("req");
        assert_eq!(req.kind, Kind::Request);
        let n = parse(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, 1000, notif).expect("n");
        assert_eq!(n.kind, Kind::Notification);
        let r = parse(br#"{"jsonrpc":"2.0","id":"a","result":{}}"#, 1000, notif).expect("resp");
        assert_eq!(r.kind, Kind::Response);
    }

    #[test]
    fn bad_frames_get_their_codes() {
        let dup = parse(br#"{"jsonrpc":"2.0","id":1,"id":2,"method":"x"}"#, 1000, notif).expect_err("dup");
        assert_eq!(dup.code(), code::PARSE_ERROR);
        let no_id = parse(br#"{"jsonrpc":"2.0","method":"tools/call"}"#, 1000, notif).expect_err("no id");
        assert_eq!(no_id.code(), code::INVALID_REQUEST);
        let big = parse(&[b' '; 20], 10, notif).expect_err("big");
        assert!(matches!(big, FrameError::TooLarge { size: 20, limit: 10 }));
        assert!(parse(b"[1]", 100, notif).is_err());
        assert!(parse(br#"{"jsonrpc":"1.0","id":1,"method":"x"}"#, 100, notif).is_err());
        assert!(parse(br#"{"jsonrpc":"2.0","id":1,"result":1,"error":{}}"#, 100, notif).is_err());
    }

    #[test]
    fn refusal_keeps_a_readable_id() {
        let bytes = br#"{"jsonrpc":"2.0","id":7,"method":3}"#;
        let e = parse(bytes, 100, notif).expect_err("bad method");
        assert_eq!(refusal_frame(bytes, &e)["id"], json!(7));
        assert_eq!(refusal_frame(b"{", &FrameError::NotJson("x".into()))["id"], Value::Null);
    }

    #[test]
    fn an_answer_with_duplicate_keys_still_names_its_request() {
        let dup = br#"{"jsonrpc":"2.0","id":"c3","result":{"a":1},"result":{"a":2}}"#;
        assert!(matches!(parse(dup, 1000, notif), Err(FrameError::NotJson(_))));
        assert_eq!(lenient_answer_id(dup), Some(json!("c3")));
        assert_eq!(lenient_answer_id(br#"{"jsonrpc":"2.0","id":4,"method":"x","method":"y"}"#), None);
        assert_eq!(lenient_answer_id(br#"{"jsonrpc":"2.0","id":[4],"result":1}"#), None);
        assert_eq!(lenient_answer_id(b"{\"id\":5,"), None);
    }
}
