//! JSON-RPC 2.0 framing for the control API: requests, results and error codes.

use serde::Deserialize;
use serde_json::{Value, json};

/// A request frame.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RpcRequest {
    /// Must be "2.0".
    pub jsonrpc: String,
    /// Request id (absent for notifications, which the control API refuses).
    #[serde(default)]
    pub id: Option<Value>,
    /// Method name.
    pub method: String,
    /// Parameters object.
    #[serde(default)]
    pub params: Value,
}

/// A JSON-RPC error with a code the client can act on.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    /// JSON-RPC error code.
    pub code: i64,
    /// Human-readable message (never internals).
    pub message: String,
    /// Optional structured data.
    pub data: Option<Value>,
}

impl RpcError {
    /// -32700: the frame is not JSON (or has duplicate keys).
    pub fn parse(message: impl Into<String>) -> Self {
        Self { code: -32700, message: message.into(), data: None }
    }
    /// -32600: not a valid request object.
    pub fn invalid_request(message: impl Into<String>) -> Self {
        Self { code: -32600, message: message.into(), data: None }
    }
    /// -32601: unknown method.
    pub fn method_not_found(method: &str) -> Self {
        Self { code: -32601, message: format!("unknown method `{method}`"), data: None }
    }
    /// -32602: parameters do not fit the method.
    pub fn invalid_params(message: impl Into<String>) -> Self {
        Self { code: -32602, message: message.into(), data: None }
    }
    /// -32003: the token's scope does not allow the method.
    pub fn forbidden(method: &str) -> Self {
        Self { code: -32003, message: format!("`{method}` needs the operator token"), data: None }
    }
    /// -32603: Blindfold failed; the action is not taken.
    pub fn internal(message: impl Into<String>) -> Self {
        Self { code: -32603, message: message.into(), data: None }
    }
    /// Attaches structured data (e.g. a decision).
    pub fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

/// Serialises a success response.
pub fn result_frame(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// Serialises an error response.
pub fn error_frame(id: &Value, e: &RpcError) -> String {
    let mut error = json!({"code": e.code, "message": e.message});
    if let Some(data) = &e.data {
        error["data"] = data.clone();
    }
    json!({"jsonrpc": "2.0", "id": id, "error": error}).to_string()
}
