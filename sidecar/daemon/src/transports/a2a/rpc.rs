//! `POST /a2a/<alias>`: the JSON-RPC binding. One JSON-RPC request, checked (size, strict JSON,
//! id, version, known method), then gated and relayed by the path every binding shares
//! ([`super::relay`]). Unless the trajectory is `off`, an extended card is answered redacted and
//! signed like the public card, and push notifications are refused (an agent posting tasks to a
//! webhook would bypass the scrub and the engine).

use super::A2aProxy;
use super::binding::{Binding, json_response};
use super::relay::{Call, relay};
use crate::transports::proxy::ForwardHeaders;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderName, StatusCode};
use axum::response::Response;
use blindfold_adapters::a2a::{self, Version};
use blindfold_adapters::jsonrpc::{self, code};
use serde_json::Value;
use std::sync::Arc;

fn error(id: &Value, code: i64, msg: &str) -> Value {
    jsonrpc::error(id, code, msg, None)
}

/// The requested version: the `A2A-Version` header, else the query parameter (`headers` are the
/// forwarded ones, which include `A2A-Version`).
pub(super) fn version_param(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    // A parsed name: looking up by `&str` would parse and hash the name on every request.
    static A2A_VERSION: HeaderName = HeaderName::from_static("a2a-version");
    if let Some(v) = headers.get(&A2A_VERSION).and_then(|v| v.to_str().ok()) {
        return Some(v.to_owned());
    }
    query?.split('&').find_map(|kv| kv.strip_prefix("A2A-Version=").map(str::to_owned))
}

/// `POST /a2a/<alias>`.
pub(super) async fn post_rpc(
    State(p): State<Arc<A2aProxy>>,
    Path(alias): Path<String>,
    RawQuery(query): RawQuery,
    ForwardHeaders(headers): ForwardHeaders,
    body: Bytes,
) -> Response {
    let Some(agent) = p.agent_by_alias(&alias).cloned() else {
        return json_response(
            StatusCode::NOT_FOUND,
            &error(&Value::Null, code::INVALID_REQUEST, "no agent with this alias"),
        );
    };
    let max = p.app.config.transports.max_frame_bytes;
    let mut frame = match jsonrpc::parse(&body, max, |_| false) {
        Ok(f) => f,
        Err(e) => return json_response(StatusCode::BAD_REQUEST, &jsonrpc::refusal_frame(&body, &e)),
    };
    let id = frame.id();
    if frame.kind != jsonrpc::Kind::Request {
        return json_response(
            StatusCode::BAD_REQUEST,
            &error(&id, code::INVALID_REQUEST, "expected a request"),
        );
    }
    let method = frame.method().unwrap_or_default().to_owned();
    let version = match Version::from_param(version_param(&headers, query.as_deref()).as_deref()) {
        Ok(v) => v,
        Err(e) => return json_response(StatusCode::BAD_REQUEST, &error(&id, a2a::VERSION_NOT_SUPPORTED, &e)),
    };
    if !version.knows(&method) {
        return json_response(StatusCode::OK, &unknown_method(&id, version, &method));
    }
    let params = frame.value.get_mut("params").map(Value::take).unwrap_or(Value::Null);
    drop(frame);
    let call = Call { binding: Binding::JsonRpc, id, method, version, params, body };
    relay(p, &alias, agent, call, headers).await
}

/// The error for a `method` the requested `version` does not have: `VersionNotSupportedError`
/// for a 1.0 method asked as 0.3 (sent without `A2A-Version: 1.0`, which means 0.3), as the SDK
/// answers; else method not found (a 0.3 method name asked as 1.0 is simply unknown there).
/// Nothing is forwarded.
fn unknown_method(id: &Value, version: Version, method: &str) -> Value {
    let other = (version == Version::V0_3 && Version::V1_0.knows(method)).then_some(Version::V1_0);
    match other {
        Some(other) => {
            let msg = format!(
                "`{method}` is an A2A {} method, not of the requested A2A {} (send A2A-Version: {})",
                other.as_str(),
                version.as_str(),
                other.as_str()
            );
            error(id, a2a::VERSION_NOT_SUPPORTED, &msg)
        }
        None => {
            let msg = format!("method `{method}` is not an A2A method of this version; not forwarded");
            error(id, code::METHOD_NOT_FOUND, &msg)
        }
    }
}
