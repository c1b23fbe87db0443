//! `/a2a/<alias>/<operation>`: the A2A HTTP+JSON (REST) binding, A2A 1.0. A request's verb and
//! path are decoded into the JSON-RPC method they stand for and its params (the adapter's
//! [`rest`](blindfold_adapters::a2a::rest)), checked (version, strict JSON object body within
//! `max_frame_bytes`, no body where the operation has none), then gated and relayed by the path
//! every binding shares ([`super::relay`]) to the agent's own HTTP+JSON interface. Every refusal
//! is the binding's error (HTTP status and `google.rpc.Status` body) and forwards nothing.

use super::A2aProxy;
use super::binding::{Binding, RestTarget, rest_refusal as refused};
use super::relay::{Call, relay};
use super::rpc::version_param;
use crate::transports::proxy::ForwardHeaders;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::response::Response;
use blindfold_adapters::a2a::rest::{self, RouteError};
use blindfold_adapters::a2a::{self, Version};
use blindfold_adapters::jsonrpc::code;
use percent_encoding::percent_decode_str;
use serde_json::Value;
use std::sync::Arc;

/// A percent-encoded path segment or query component, decoded (`+` is a space in a query).
fn decoded(raw: &str, plus_is_space: bool) -> String {
    let raw = if plus_is_space { raw.replace('+', " ") } else { raw.to_owned() };
    percent_decode_str(&raw).decode_utf8_lossy().into_owned()
}

/// The pairs of a raw query, decoded.
fn query_pairs(query: Option<&str>) -> Vec<(String, String)> {
    query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter(|kv| !kv.is_empty())
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
            (decoded(k, true), decoded(v, true))
        })
        .collect()
}

/// Any verb on `/a2a/<alias>/<operation>`.
pub(super) async fn rest_call(
    State(p): State<Arc<A2aProxy>>,
    verb: Method,
    uri: Uri,
    ForwardHeaders(headers): ForwardHeaders,
    body: Bytes,
) -> Response {
    // `/a2a/<alias>/<path>`, split on the raw path so an encoded `/` stays inside its segment.
    let below = uri.path().strip_prefix("/a2a/").and_then(|r| r.split_once('/'));
    let Some((raw_alias, raw_path)) = below else {
        return refused(StatusCode::NOT_FOUND, code::METHOD_NOT_FOUND, "no A2A operation at this path");
    };
    let alias = decoded(raw_alias, false);
    let Some(agent) = p.agent_by_alias(&alias).cloned() else {
        return refused(StatusCode::NOT_FOUND, code::INVALID_REQUEST, "no agent with this alias");
    };
    // Only an agent whose card lists an HTTP+JSON interface is served in this binding: nothing is
    // decided for a request that could go nowhere.
    if !p.rest_urls.contains_key(&agent.id) {
        if let Err(e) = super::card::fetch_card(&p, &agent).await {
            p.app.metrics.upstream_error(p.app.transport);
            return refused(StatusCode::BAD_GATEWAY, code::INTERNAL_ERROR, &e);
        }
        if !p.rest_urls.contains_key(&agent.id) {
            let msg = "the agent behind this alias has no HTTP+JSON interface: use its JSON-RPC interface";
            return refused(StatusCode::NOT_FOUND, code::METHOD_NOT_FOUND, msg);
        }
    }
    let segments: Vec<String> =
        raw_path.split('/').filter(|s| !s.is_empty()).map(|s| decoded(s, false)).collect();
    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
    let route = match rest::route(verb.as_str(), &segments) {
        Ok(route) => route,
        Err(RouteError::NotFound) => {
            let msg = format!("no A2A HTTP+JSON operation at /{raw_path}; not forwarded");
            return refused(StatusCode::NOT_FOUND, code::METHOD_NOT_FOUND, &msg);
        }
        Err(RouteError::MethodNotAllowed(allowed)) => {
            let msg = format!("/{raw_path} is served with {}, not {verb}", allowed.join(", "));
            let mut r = refused(StatusCode::METHOD_NOT_ALLOWED, code::METHOD_NOT_FOUND, &msg);
            if let Ok(v) = HeaderValue::from_str(&allowed.join(", ")) {
                r.headers_mut().insert(header::ALLOW, v);
            }
            return r;
        }
    };
    let query = uri.query();
    match Version::from_param(version_param(&headers, query).as_deref()) {
        Ok(Version::V1_0) => {}
        Ok(Version::V0_3) => {
            let msg = "the HTTP+JSON binding is served for A2A 1.0: send A2A-Version: 1.0";
            return refused(StatusCode::BAD_REQUEST, a2a::VERSION_NOT_SUPPORTED, msg);
        }
        Err(e) => return refused(StatusCode::BAD_REQUEST, a2a::VERSION_NOT_SUPPORTED, &e),
    }
    let parsed = match request_body(&p, route.method, &body) {
        Ok(v) => v,
        Err((code, msg)) => return refused(StatusCode::BAD_REQUEST, code, &msg),
    };
    let params = match rest::params(&route, &query_pairs(query), parsed) {
        Ok(params) => params,
        Err(e) => return refused(StatusCode::BAD_REQUEST, code::INVALID_REQUEST, &e),
    };
    let target = RestTarget { verb, path: format!("/{raw_path}"), query: query.map(str::to_owned) };
    let call = Call {
        binding: Binding::Rest(target),
        id: Value::Null,
        method: route.method.to_owned(),
        version: Version::V1_0,
        params,
        body,
    };
    relay(p, &alias, agent, call, headers).await
}

/// The body of a request of `method`, strictly parsed: `None` when empty; refused when the
/// operation carries none, when it is larger than `max_frame_bytes`, or when it is not JSON.
fn request_body(p: &A2aProxy, method: &str, body: &[u8]) -> Result<Option<Value>, (i64, String)> {
    if body.is_empty() {
        return Ok(None);
    }
    if !rest::has_body(method) {
        return Err((code::INVALID_REQUEST, format!("a {method} request carries no body")));
    }
    let max = p.app.config.transports.max_frame_bytes;
    if body.len() > max {
        return Err((
            code::INVALID_REQUEST,
            format!("request of {} bytes exceeds the limit of {max} bytes", body.len()),
        ));
    }
    blindfold_schemas::strict_json::value_from_slice(body)
        .map(Some)
        .map_err(|e| (code::PARSE_ERROR, format!("the body is not JSON: {e}")))
}
