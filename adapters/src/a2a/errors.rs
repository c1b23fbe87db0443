//! A2A errors Blindfold answers itself, in the shape of their version.

use super::{PUSH_NOTIFICATION_NOT_SUPPORTED, PUSH_NOTIFICATION_NOT_SUPPORTED_MESSAGE, Version, task_error};
use serde_json::{Value, json};

/// The JSON-RPC answer refusing a push-notification request: `PushNotificationNotSupportedError`
/// in the version's shape (v1.0 adds the `google.rpc.ErrorInfo` detail its errors carry).
pub fn push_not_supported(version: Version, id: &Value) -> Value {
    let data = match version {
        Version::V1_0 => Some(json!([{
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "PUSH_NOTIFICATION_NOT_SUPPORTED",
            "domain": "a2a-protocol.org",
            "metadata": {},
        }])),
        Version::V0_3 => None,
    };
    crate::jsonrpc::error(id, PUSH_NOTIFICATION_NOT_SUPPORTED, PUSH_NOTIFICATION_NOT_SUPPORTED_MESSAGE, data)
}

/// `ContentTypeNotSupportedError` (v1.0 shape, with its `ErrorInfo`): a body that is not JSON.
pub fn content_type_not_supported(id: &Value, message: &str) -> Value {
    task_error(Version::V1_0, id, -32005, "CONTENT_TYPE_NOT_SUPPORTED", message)
}
