//! The MCP Streamable HTTP reverse proxy at `/mcp`: each POSTed message passes the gate; JSON
//! and SSE answers pass it back event by event; `Mcp-Session-Id` and `MCP-Protocol-Version`
//! cross unchanged; 2026-07-28 `Mcp-Method`/`Mcp-Name` must agree with the body (Blindfold
//! rewrites only answers, so the request's headers stay consistent with what is forwarded).

use super::connection::{FromClient, FromServer, McpConnection, McpPolicy};
use super::grant_files::GrantFiles;
use super::session_order::SessionOrder;
use crate::runtime::app::App;
use crate::transports::proxy::{
    StreamEnd, Upstream, copy_request_headers, copy_response_headers, is_event_stream, read_body, relay_sse,
};
use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::any;
use blindfold_adapters::jsonrpc::{self, code};
use blindfold_adapters::mcp;
use blindfold_adapters::sse::SseEvent;
use blindfold_schemas::strict_json;
use dashmap::DashMap;
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// `HeaderMismatchError` of MCP 2026-07-28.
const HEADER_MISMATCH: i64 = -32020;

struct Proxy {
    app: App,
    upstream_url: String,
    upstream: Upstream,
    gates: DashMap<String, Arc<Mutex<McpConnection>>>,
    /// Per session, the order of its requests toward the upstream.
    order: SessionOrder,
}

/// The `/mcp` route when `[mcp_http] upstream` is set.
pub fn router(app: &App) -> Option<Router> {
    let t = &app.config.transports;
    let upstream_url = t.mcp_http_upstream.clone()?;
    let proxy = Proxy {
        app: app.clone(),
        upstream_url,
        upstream: Upstream::new(t.upstream_timeout),
        gates: DashMap::new(),
        order: SessionOrder::default(),
    };
    Some(Router::new().route("/mcp", any(handle)).with_state(Arc::new(proxy)))
}

impl Proxy {
    /// The gate of a session (legacy `Mcp-Session-Id`) or of the stateless era.
    fn gate(&self, session: Option<&str>) -> Arc<Mutex<McpConnection>> {
        let key = session.unwrap_or("").to_owned();
        self.gates
            .entry(key.clone())
            .or_insert_with(|| {
                let task = match &self.app.config.transports.mcp_http_task {
                    Some(t) => t.clone(),
                    None if key.is_empty() => "mcp-http".to_owned(),
                    None => {
                        format!("mcp-http-{}", &blindfold_engine::canonical::sha256_hex(key.as_bytes())[..16])
                    }
                };
                let grants = GrantFiles::new(&self.app, Vec::new());
                Arc::new(Mutex::new(McpConnection::new(
                    &self.app,
                    task,
                    McpPolicy::from_config(&self.app),
                    Some(grants),
                )))
            })
            .clone()
    }
}

fn json_response(status: StatusCode, v: &Value) -> Response {
    let mut r = (status, v.to_string()).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

fn rpc_error(id: &Value, code: i64, msg: &str) -> Value {
    jsonrpc::error(id, code, msg, None)
}

/// A header's value when it is present (undecodable counts as a mismatch).
fn header_str(headers: &HeaderMap, name: &str) -> Option<Option<String>> {
    headers.get(name).map(|v| v.to_str().ok().and_then(mcp::decode_header_value))
}

/// `Some(message)` when `Mcp-Method`/`Mcp-Name` disagree with the body.
fn header_mismatch(headers: &HeaderMap, body: &[u8]) -> Option<String> {
    let v = strict_json::value_from_slice(body).ok()?;
    let (method, name) = mcp::mirrored_headers(&v);
    if let Some(h) = header_str(headers, "mcp-method")
        && h != method
    {
        return Some(format!("Mcp-Method {h:?} does not match the body's method {method:?}"));
    }
    if let Some(h) = header_str(headers, "mcp-name")
        && h != name
    {
        return Some(format!("Mcp-Name {h:?} does not match the body's {name:?}"));
    }
    None
}

async fn handle(State(p): State<Arc<Proxy>>, method: Method, headers: HeaderMap, body: Bytes) -> Response {
    let session = headers.get("mcp-session-id").and_then(|v| v.to_str().ok()).map(str::to_owned);
    let max = p.app.config.transports.max_frame_bytes;
    let gate = p.gate(session.as_deref());
    let mut request_id = Value::Null;
    let mut forward = body.clone();
    let mut initialized = false;
    if method == Method::POST {
        let parsed = strict_json::value_from_slice(&body).ok();
        let id = parsed.as_ref().and_then(|v| v.get("id").cloned()).unwrap_or(Value::Null);
        initialized =
            parsed.as_ref().and_then(|v| v.get("method")).is_some_and(|m| m == "notifications/initialized");
        if let Some(msg) = header_mismatch(&headers, &body) {
            if let Ok(g) = gate.lock() {
                g.refuse_frame(format!("headers: {msg}"));
            }
            return json_response(StatusCode::BAD_REQUEST, &rpc_error(&id, HEADER_MISMATCH, &msg));
        }
        // Page by page while the gate asks for one (bounded; see `listing_request`).
        while let Some(request) = gate.lock().ok().and_then(|mut g| g.listing_request(&body)) {
            learn_tools(&p, &gate, &headers, request).await;
        }
        let verdict = match gate.lock() {
            Ok(mut g) => g.from_client(&body),
            Err(_) => FromClient::Answer(rpc_error(&id, code::INTERNAL_ERROR, "gate unavailable")),
        };
        match verdict {
            FromClient::Answer(v) => {
                let status = if v.get("error").is_some() && v["id"].is_null() {
                    StatusCode::BAD_REQUEST
                } else {
                    StatusCode::OK
                };
                return json_response(status, &v);
            }
            FromClient::Forward(bytes) => forward = Bytes::from(bytes.into_inner()),
        }
        request_id = id;
    } else if method != Method::GET && method != Method::DELETE {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let forward_headers = match gate.lock() {
        Ok(g) => g.forward_headers(copy_request_headers(&headers)),
        Err(_) => copy_request_headers(&headers),
    };
    let opened = match method {
        Method::GET => p.order.take_standalone(session.as_deref(), &headers).await,
        _ => None,
    };
    let sent = match opened {
        Some(stream) => Ok(stream),
        None => {
            let turn = p.order.wait_turn(session.as_deref(), &method).await;
            let sent =
                p.upstream.send(method.clone(), &p.upstream_url, forward_headers.clone(), forward).await;
            drop(turn);
            sent
        }
    };
    if let (Some(s), Ok(r)) = (session.as_deref(), sent.as_ref())
        && r.status().is_success()
    {
        if method == Method::DELETE {
            p.order.end(s);
        } else if initialized {
            p.order.open_standalone(s, &p.upstream, &p.upstream_url, forward_headers).await;
        }
    }
    let mut resp = match sent {
        Ok(r) => r,
        Err(e) => {
            p.app.metrics.upstream_error(p.app.transport);
            return json_response(
                StatusCode::BAD_GATEWAY,
                &rpc_error(&request_id, code::INTERNAL_ERROR, &e.to_string()),
            );
        }
    };
    let status = resp.status();
    let mut out_headers = copy_response_headers(resp.headers());
    let is_sse = is_event_stream(&out_headers);
    let timeout = p.upstream.timeout;
    let body = if is_sse {
        sse_body(gate, resp.into_body(), max, timeout, request_id)
    } else {
        let bytes = match read_body(resp.body_mut(), max, timeout).await {
            Ok(b) => b,
            Err(e) => {
                return json_response(
                    StatusCode::BAD_GATEWAY,
                    &rpc_error(&request_id, code::INTERNAL_ERROR, &e.to_string()),
                );
            }
        };
        match whole_answer(&gate, status, bytes, &request_id) {
            Answer::Relayed(b) => Body::from(b),
            Answer::Replaced(v) => {
                out_headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
                Body::from(v.to_string())
            }
        }
    };
    let mut r = Response::new(body);
    *r.status_mut() = status;
    *r.headers_mut() = out_headers;
    r
}

/// Asks the server for its tools under the relay's own `request` (the client's headers, so the
/// same session and credentials) and lets the gate learn a trusted server's annotations from
/// the answer, JSON or one SSE event; an answer that does not come teaches nothing.
async fn learn_tools(p: &Proxy, gate: &Mutex<McpConnection>, headers: &HeaderMap, request: Vec<u8>) {
    let mut forward = match gate.lock() {
        Ok(g) => g.forward_headers(copy_request_headers(headers)),
        Err(_) => return,
    };
    forward.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    forward.insert(header::ACCEPT, HeaderValue::from_static("application/json, text/event-stream"));
    let max = p.app.config.transports.max_frame_bytes;
    let answer = match p.upstream.send(Method::POST, &p.upstream_url, forward, Bytes::from(request)).await {
        Ok(mut r) => read_body(r.body_mut(), max, p.upstream.timeout).await.ok(),
        Err(_) => None,
    };
    let message = answer.map(|bytes| {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        // An SSE answer: the data line of the event that answers (a JSON answer has none).
        let data = text
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(str::trim)
            .find(|d| d.contains("\"result\""));
        data.map_or(bytes.clone(), |d| d.as_bytes().to_vec())
    });
    if let Ok(mut g) = gate.lock() {
        g.learn_listing(&message.unwrap_or_default());
    }
}

/// What the client gets in place of a whole (not streamed) upstream answer.
enum Answer {
    /// The answer's bytes as the gate relays them (scrubbed unless the modes are `off`).
    Relayed(Vec<u8>),
    /// A JSON-RPC error instead of an answer the gate would not relay.
    Replaced(Value),
}

/// A whole upstream answer through the gate, whatever its HTTP status (an error page can carry
/// identity as well as a result can). An answer the gate drops becomes a JSON-RPC error for the
/// request: the gate's own for a 2xx answer when it has one; otherwise one of Blindfold's,
/// naming the status of a non-2xx answer (the request is then no longer pending). An empty body
/// has nothing to relay or scrub.
fn whole_answer(
    gate: &Mutex<McpConnection>,
    status: StatusCode,
    bytes: Vec<u8>,
    request_id: &Value,
) -> Answer {
    if bytes.is_empty() {
        return Answer::Relayed(bytes);
    }
    let Ok(mut gate) = gate.lock() else {
        return Answer::Replaced(rpc_error(request_id, code::INTERNAL_ERROR, "gate unavailable"));
    };
    match gate.from_server(&bytes) {
        FromServer::Forward(b) => Answer::Relayed(b.into_inner()),
        FromServer::Drop(Some(v)) if status.is_success() => Answer::Replaced(v),
        FromServer::Drop(_) => {
            gate.forget(request_id);
            let msg = if status.is_success() {
                "upstream answer refused".to_owned()
            } else {
                format!(
                    "the MCP upstream answered HTTP {} with a body Blindfold cannot read",
                    status.as_u16()
                )
            };
            Answer::Replaced(rpc_error(request_id, code::INTERNAL_ERROR, &msg))
        }
    }
}

/// The SSE answer, each event's fields and message through the gate; if the stream ends before
/// the request was answered, the client gets a JSON-RPC error event for it, unless the server
/// closed a stream whose events carried ids (MCP resumability: the client reconnects with
/// `Last-Event-ID` and the answer comes on the resumed stream).
fn sse_body(
    gate: Arc<Mutex<McpConnection>>,
    upstream: hyper::body::Incoming,
    max: usize,
    timeout: std::time::Duration,
    request_id: Value,
) -> Body {
    let answered = Arc::new(std::sync::atomic::AtomicBool::new(request_id.is_null()));
    let seen = answered.clone();
    let resumable = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let gave_id = resumable.clone();
    let wanted = request_id.clone();
    let filter = move |mut ev: SseEvent| -> Vec<SseEvent> {
        // Fail closed: an event Blindfold cannot scrub is not relayed.
        let Ok(mut gate) = gate.lock() else { return Vec::new() };
        // The message first: the gate learns the words a server displays about itself there,
        // and the event's own fields are scrubbed with them.
        let data = match ev.data.take() {
            Some(d) if !d.is_empty() => Some(match gate.from_server(d.as_bytes()) {
                FromServer::Forward(b) => String::from_utf8_lossy(b.get()).into_owned(),
                FromServer::Drop(Some(v)) => v.to_string(),
                FromServer::Drop(None) => return Vec::new(),
            }),
            none_or_empty => none_or_empty,
        };
        gate.scrub_stream_fields(&mut ev);
        drop(gate);
        if ev.id.is_some() {
            gave_id.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        if let Ok(v) = serde_json::from_str::<Value>(data.as_deref().unwrap_or_default())
            && v.get("method").is_none()
            && v.get("id") == Some(&wanted)
        {
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        vec![SseEvent { data, ..ev }]
    };
    let finish = move |end: StreamEnd| -> Vec<SseEvent> {
        if answered.load(std::sync::atomic::Ordering::SeqCst) {
            return Vec::new();
        }
        let why = match end {
            StreamEnd::Closed if resumable.load(std::sync::atomic::Ordering::SeqCst) => return Vec::new(),
            StreamEnd::Closed => "the upstream closed the stream before answering".to_owned(),
            StreamEnd::Failed(d) => d,
        };
        let err = rpc_error(&request_id, code::INTERNAL_ERROR, &why);
        vec![SseEvent::new(Some("message"), err.to_string())]
    };
    relay_sse(upstream, max, timeout, filter, finish)
}
