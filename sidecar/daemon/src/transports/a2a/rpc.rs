//! `POST /a2a/<alias>`: one JSON-RPC request, checked (size, strict JSON, id, version, known
//! method), its delegation decided by the engine, forwarded to the agent, and its answer (JSON
//! or SSE, event by event) reported to the engine as the agent's `response` (so a refutation
//! that arrives over A2A counts before the coordinator can act) and scrubbed of identity before
//! the coordinator sees it (a stream's event ids and names too; the agent's `A2A-Extensions`
//! header is not relayed). A send whose requested action waits in review is held under a task id
//! of Blindfold's own until the review is answered ([`held`]); requests naming such an id are
//! answered here, never forwarded. Unless the trajectory is `off`, an extended card is answered
//! redacted and signed like the public card, and push notifications are refused (an agent posting
//! tasks to a webhook would bypass the scrub and the engine).

use super::A2aProxy;
use super::answers::{
    StreamedAnswer, is_event_stream, parse_answer, report_answer, result_of, scrub, scrub_event_fields,
    scrub_unless, send_to_agent,
};
use super::card::{learn_card, redact};
use super::delegation::{Blocked, decide_delegation};
use super::held::{self, HeldRequest};
use crate::config::A2aUpstream;
use crate::transports::proxy::{
    ForwardHeaders, StreamEnd, copy_response_headers, read_body_bytes, relay_sse,
};
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use blindfold_adapters::a2a::{self, Version};
use blindfold_adapters::jsonrpc::{self, code};
use blindfold_adapters::sse::SseEvent;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Arc;

fn json_response(status: StatusCode, v: &Value) -> Response {
    let mut r = (status, v.to_string()).into_response();
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

fn json_bytes_response(status: StatusCode, bytes: Bytes) -> Response {
    let mut r = Response::new(Body::from(bytes));
    *r.status_mut() = status;
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

fn sse_response(events: Vec<Value>) -> Response {
    let body: Vec<u8> = events
        .into_iter()
        .flat_map(|v| SseEvent { data: v.to_string(), ..SseEvent::default() }.to_bytes())
        .collect();
    let mut r = Response::new(Body::from(body));
    r.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
    r
}

fn error(id: &Value, code: i64, msg: &str) -> Value {
    jsonrpc::error(id, code, msg, None)
}

/// The requested version: the `A2A-Version` header, else the query parameter (`headers` are the
/// forwarded ones, which include `A2A-Version`).
fn version_param(headers: &HeaderMap, query: Option<&str>) -> Option<String> {
    // A parsed name: looking up by `&str` would parse and hash the name on every request.
    static A2A_VERSION: HeaderName = HeaderName::from_static("a2a-version");
    if let Some(v) = headers.get(&A2A_VERSION).and_then(|v| v.to_str().ok()) {
        return Some(v.to_owned());
    }
    query?.split('&').find_map(|kv| kv.strip_prefix("A2A-Version=").map(str::to_owned))
}

/// Blindfold's trajectory for a request: the pinned one, else one per `contextId`.
fn trajectory(p: &A2aProxy, params: &Value) -> String {
    if let Some(t) = &p.app.config.transports.a2a_task {
        return t.clone();
    }
    match a2a::context_id(params) {
        Some(ctx) => context_trajectory(&ctx),
        None => format!("a2a-{:016x}", rand::random::<u64>()),
    }
}

/// The trajectory of A2A conversation `ctx`: `a2a-` and the first 16 hex digits of the SHA-256
/// of the context id (only those 8 bytes are hex-encoded).
pub(super) fn context_trajectory(ctx: &str) -> String {
    format!("a2a-{}", hex::encode(&Sha256::digest(ctx.as_bytes())[..8]))
}

/// The response header naming the extensions the agent activated. The redacted card shows the
/// coordinator no extension, and an extension's URI can name the agent's vendor or model.
static A2A_EXTENSIONS: HeaderName = HeaderName::from_static("a2a-extensions");

/// `POST /a2a/<alias>`.
pub(super) async fn post_rpc(
    State(p): State<Arc<A2aProxy>>,
    Path(alias): Path<String>,
    RawQuery(query): RawQuery,
    ForwardHeaders(mut headers): ForwardHeaders,
    body: Bytes,
) -> Response {
    let Some(agent) = p.agent_by_alias(&alias).cloned() else {
        return json_response(
            StatusCode::NOT_FOUND,
            &error(&Value::Null, code::INVALID_REQUEST, "no agent with this alias"),
        );
    };
    let max = p.app.config.transports.max_frame_bytes;
    let frame = match jsonrpc::parse(&body, max, |_| false) {
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
    let params = frame.params();
    if a2a::names_task(&method)
        && let Some(own) = a2a::task_id_param(params).filter(|t| held::is_own_task_id(t))
    {
        let answer = super::held_answer::answer(&p, &alias, version, &id, &method, own).await;
        return rpc_answer(&method, answer);
    }
    let task = trajectory(&p, params);
    if !p.transparent_for(&task) {
        crate::runtime::trace::traceparent::inject_header_if_absent(&mut headers, &task);
    }
    if refuses_push(&p, &task, &method, params) {
        return json_response(StatusCode::OK, &a2a::push_not_supported(version, &id));
    }
    let mut relayed = None;
    if a2a::is_send(&method) {
        match decide_delegation(&p, &agent, &task, params, &body).await {
            Err(blocked) => {
                let ctx =
                    a2a::context_id(params).unwrap_or_else(|| format!("ctx-{:016x}", rand::random::<u64>()));
                let request =
                    Delegation { alias: &alias, agent: &agent, task: &task, version, method: &method, ctx };
                let result = refused_delegation(&p, request, blocked, &headers, &body);
                return rpc_answer(&method, jsonrpc::result(&id, result));
            }
            // The verifier reads Blindfold's instruction with the request (not in `off`).
            Ok(Some(request)) if !p.transparent_for(&task) => {
                let actions = serde_json::to_value(&request.handles).unwrap_or_default();
                relayed = a2a::with_verification(&body, &request.instruction, &actions).map(Bytes::from);
            }
            Ok(_) => {}
        }
    }
    drop(frame);
    let body = relayed.unwrap_or(body);
    if a2a::is_extended_card(&method) && !p.transparent_for(&task) {
        return extended_card(&p, &agent, &alias, &id, &task, headers, body).await;
    }
    forward(p, agent, id, task, &method, headers, body).await
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

/// One JSON-RPC answer to a request of `method`: an SSE stream of that one event for a
/// streaming method, else JSON.
fn rpc_answer(method: &str, answer: Value) -> Response {
    if a2a::is_streaming(method) {
        sse_response(vec![answer])
    } else {
        json_response(StatusCode::OK, &answer)
    }
}

/// The send being refused, as it arrived.
struct Delegation<'a> {
    alias: &'a str,
    agent: &'a Arc<A2aUpstream>,
    task: &'a str,
    version: Version,
    method: &'a str,
    ctx: String,
}

/// The `result` answering a blocked send: a task held under Blindfold's id (its exact bytes kept
/// until the review is answered, see [`held`]) when its action waits in review and the send is
/// not streaming and there is room and it can be kept on disk; else a refused task (`AUTH_REQUIRED` when a grant could
/// unblock a retry, else `REJECTED`) that nothing is kept for.
fn refused_delegation(
    p: &A2aProxy,
    d: Delegation<'_>,
    blocked: Blocked,
    headers: &HeaderMap,
    body: &Bytes,
) -> Value {
    let Blocked { refusal, review_id } = blocked;
    let review = review_id
        .filter(|_| !a2a::is_streaming(d.method))
        .and_then(|id| Some((p.app.reviews().get(&id).ok().flatten()?.expires_ms, id)));
    let Some((expires_ms, review_id)) = review else {
        let tid = held::refused_task_id();
        return a2a::refusal_result(d.version, &refusal, &tid, &d.ctx, &format!("msg-{tid}"));
    };
    let request = HeldRequest {
        alias: d.alias.to_owned(),
        agent: d.agent.clone(),
        trajectory: d.task.to_owned(),
        review_id,
        version: d.version,
        method: d.method.to_owned(),
        headers: headers.clone(),
        body: body.clone(),
        context_id: d.ctx,
        refusal,
    };
    // Refused, not held, when the held delegations are at their bound.
    let refused = held::waiting_result(&request, &held::refused_task_id());
    p.held.hold(request, expires_ms, crate::unix_now_ms()).unwrap_or(refused)
}

/// True when a request of trajectory `task` (not `off`) would have the agent push tasks to a
/// webhook: a push-notification config method, or a send whose configuration names one. Those
/// tasks would reach the coordinator unscrubbed and unseen by the engine, so nothing of such a
/// request is forwarded.
fn refuses_push(p: &A2aProxy, task: &str, method: &str, params: &Value) -> bool {
    let asks = a2a::is_push_config(method) || (a2a::is_send(method) && a2a::asks_for_push(params));
    asks && !p.transparent_for(task)
}

/// Answers an extended-card request of trajectory `task` with the agent's extended card as the
/// coordinator may see it: its displayed identity learned, then redacted and signed exactly as the
/// public card is (interfaces at `alias`'s URL). Fails closed, relaying nothing of the answer, on
/// a stream, an unreadable answer or a card that cannot be redacted; an error from the agent is
/// scrubbed like any answer.
async fn extended_card(
    p: &A2aProxy,
    agent: &A2aUpstream,
    alias: &str,
    id: &Value,
    task: &str,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let refused =
        |msg: String| json_response(StatusCode::BAD_GATEWAY, &error(id, code::INTERNAL_ERROR, &msg));
    super::card::read_all_cards(p).await;
    let (status, bytes) = match read_card_answer(p, agent, headers, body).await {
        Ok(answer) => answer,
        Err(e) => return refused(e),
    };
    let answer = match parse_answer(&bytes) {
        Ok(v) => v,
        Err(e) => return refused(format!("the agent's extended card is not JSON: {e}")),
    };
    let Some(card) = answer.get("result") else {
        return match scrub(p, task, bytes, Ok(answer)) {
            Ok(scrubbed) => json_bytes_response(status, scrubbed),
            Err(e) => refused(e),
        };
    };
    learn_card(p, agent, card);
    match redact(p, agent, card, &p.alias_url(alias), p.app.modes_for(task)) {
        Ok(shown) => json_response(StatusCode::OK, &jsonrpc::result(id, shown)),
        Err(e) => refused(format!("the agent's extended card could not be redacted: {e}")),
    }
}

/// The agent's answer to an extended-card request, read whole: its HTTP status and body. A
/// stream is refused (a card is one JSON answer).
async fn read_card_answer(
    p: &A2aProxy,
    agent: &A2aUpstream,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Bytes), String> {
    let mut resp = send_to_agent(p, agent, headers, body).await?;
    if is_event_stream(resp.headers()) {
        return Err("the agent answered the extended-card request with a stream".into());
    }
    let max = p.app.config.transports.max_frame_bytes;
    let bytes = read_body_bytes(resp.body_mut(), max, p.upstream.timeout).await.map_err(|e| e.to_string())?;
    Ok((resp.status(), bytes))
}

async fn forward(
    p: Arc<A2aProxy>,
    agent: Arc<A2aUpstream>,
    id: Value,
    task: String,
    method: &str,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let bad_gateway =
        |msg: String| json_response(StatusCode::BAD_GATEWAY, &error(&id, code::INTERNAL_ERROR, &msg));
    let mut resp = match send_to_agent(&p, &agent, headers, body).await {
        Ok(r) => r,
        Err(e) => return bad_gateway(e),
    };
    let status = resp.status();
    let mut out_headers = copy_response_headers(resp.headers());
    let transparent = p.transparent_for(&task);
    if !transparent {
        out_headers.remove(&A2A_EXTENSIONS);
    }
    let is_sse = is_event_stream(&out_headers);
    let max = p.app.config.transports.max_frame_bytes;
    let timeout = p.upstream.timeout;
    let body = if is_sse {
        let filter_p = p.clone();
        let scrub_task = task.clone();
        let streamed = Arc::new(std::sync::Mutex::new(StreamedAnswer {
            p: p.clone(),
            agent: agent.clone(),
            task,
            pending: a2a::Answer::default(),
        }));
        let at_end = streamed.clone();
        let texts = Arc::new(std::sync::Mutex::new(super::stream_text::ArtifactStreams::default()));
        let (held_texts, end_p, end_task) = (texts.clone(), p.clone(), scrub_task.clone());
        let answered = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = answered.clone();
        let filter = move |mut ev: SseEvent| -> Vec<SseEvent> {
            let transparent = filter_p.transparent_for(&scrub_task);
            if !transparent {
                let anon = filter_p.anon.read().ok();
                scrub_event_fields(anon.as_deref(), &mut ev);
            }
            if ev.data.is_empty() {
                return vec![ev];
            }
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
            let mut parsed = parse_answer(ev.data.as_bytes());
            if let (Ok(v), Ok(mut s)) = (&parsed, streamed.lock()) {
                s.event(v);
            }
            // Artifact text is one stream per artifact: a possible partial name waits for the rest.
            let held = match (&mut parsed, filter_p.anon.read(), texts.lock()) {
                (Ok(v), Ok(anon), Ok(mut t)) if !transparent => t.hold(&anon, v),
                _ => false,
            };
            if held
                && let Ok(v) = &mut parsed
                && let Ok(anon) = filter_p.anon.read()
            {
                anon.scrub_a2a(v);
                return vec![SseEvent { data: v.to_string(), ..ev }];
            }
            let raw = Bytes::from(std::mem::take(&mut ev.data));
            match scrub_unless(transparent, &filter_p, raw, parsed) {
                Ok(b) => {
                    let data = String::from_utf8(Vec::from(b))
                        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                    vec![SseEvent { data, ..ev }]
                }
                // Fail closed: an event Blindfold cannot read is not relayed raw.
                Err(e) => vec![SseEvent {
                    data: error(&Value::Null, code::INTERNAL_ERROR, &e).to_string(),
                    ..SseEvent::default()
                }],
            }
        };
        let rid = id.clone();
        let finish = move |end: StreamEnd| {
            if let Ok(mut s) = at_end.lock() {
                s.flush();
            }
            // Text still held goes out rewritten before the stream ends (never dropped, never raw).
            let mut rest: Vec<SseEvent> = Vec::new();
            if !end_p.transparent_for(&end_task)
                && let (Ok(anon), Ok(mut t)) = (end_p.anon.read(), held_texts.lock())
            {
                for mut v in t.finish(&anon) {
                    anon.scrub_a2a(&mut v);
                    rest.push(SseEvent { data: v.to_string(), ..SseEvent::default() });
                }
            }
            let why = match end {
                StreamEnd::Closed if answered.load(std::sync::atomic::Ordering::SeqCst) => return rest,
                StreamEnd::Closed => "the agent closed the stream without an answer".to_owned(),
                StreamEnd::Failed(why) => why,
            };
            rest.push(SseEvent {
                data: error(&rid, code::INTERNAL_ERROR, &why).to_string(),
                ..SseEvent::default()
            });
            rest
        };
        relay_sse(resp.into_body(), max, timeout, filter, finish)
    } else {
        let bytes = match read_body_bytes(resp.body_mut(), max, timeout).await {
            Ok(b) => b,
            Err(e) => return bad_gateway(e.to_string()),
        };
        let parsed = parse_answer(&bytes);
        // Only an answer that ends the agent's turn is its judgement: an interim task (a client
        // that did not wait, `returnImmediately`) is reported when a later `GetTask` finds it final.
        if let Some(result) = parsed.as_ref().ok().and_then(|v| result_of(v, method))
            && a2a::ends_turn(&result)
        {
            report_answer(&p, &agent, &task, a2a::answer(&result));
        }
        match scrub_unless(transparent, &p, bytes, parsed) {
            Ok(b) => Body::from(b),
            Err(e) => return bad_gateway(e),
        }
    };
    let mut r = Response::new(body);
    *r.status_mut() = status;
    *r.headers_mut() = out_headers;
    r
}
