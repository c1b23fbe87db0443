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
use super::card::{fetch_card, learn_card, redact};
use super::held::{self, HeldRequest};
use crate::config::A2aUpstream;
use crate::transports::proxy::{
    ForwardHeaders, StreamEnd, copy_response_headers, read_body_bytes, relay_sse,
};
use axum::body::{Body, Bytes};
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::{IntoResponse, Response};
use blindfold_adapters::a2a::{self, Version};
use blindfold_adapters::jsonrpc::{self, code};
use blindfold_adapters::refusal::Refusal;
use blindfold_adapters::sse::SseEvent;
use blindfold_engine::Step;
use blindfold_engine::identity::Anonymizer;
use blindfold_schemas::{Decision, Event, Layer, Reason, Verdict};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::borrow::Cow;
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

/// The coordinator knows the agents by the aliases of discovery: trajectory `task` keeps them.
/// Called right before each decision, so the aliases live exactly as long as the trajectory
/// (a request that decides nothing leaves nothing behind for eviction to miss).
fn adopt_aliases(p: &A2aProxy, task: &str) {
    if let Ok(anon) = p.anon.read() {
        p.app.identities.adopt(task, || anon.clone());
    }
}

/// A blocked delegation: what the coordinator is told, and the review holding its requested
/// action when the engine left that action to a human.
pub(super) struct Blocked {
    /// The refusal (its grant request names the review, when there is one).
    pub refusal: Refusal,
    /// The pending review of the requested action.
    pub review_id: Option<String>,
}

impl Blocked {
    fn refused(refusal: Refusal) -> Self {
        Self { refusal, review_id: None }
    }
}

/// Decides a delegation (and any action it asks the agent to run); `Some` when blocked. `body`
/// is the request as it arrived (what the agent will read).
pub(super) async fn decide_delegation(
    p: &A2aProxy,
    agent: &A2aUpstream,
    task: &str,
    params: &Value,
    body: &[u8],
) -> Option<Blocked> {
    let msg = a2a::message(params)?;
    adopt_aliases(p, task);
    let text = a2a::message_text(msg);
    // Asking to review, verify or check is a verify request (its answer can verify a proposal).
    let intent = crate::runtime::intent::intent_of(&text);
    let delegate = Event::Delegate { to: agent.id.clone(), intent, text, proposal: None };
    let step = p.app.decide_traced(task, &delegate, true).await;
    if step.blocks() {
        let d = step
            .decision
            .unwrap_or_else(|| Decision::deny(Reason::InternalError, "P0.internal", Layer::ContentFree));
        return Some(Blocked::refused(Refusal::new(d, task, None)));
    }
    match a2a::requested_action(msg) {
        Ok(None) => None,
        Err(e) => {
            let d = Decision::deny(Reason::MalformedInput, "P1.schema", Layer::ContentFree).with_detail(e);
            Some(Blocked::refused(Refusal::new(d, task, None)))
        }
        Ok(Some((tool, args))) => {
            if let Some(literal) = inexact_action_number(body, &args) {
                let d = Decision::deny(Reason::MalformedInput, "P1.schema", Layer::ContentFree).with_detail(format!(
                    "the number {literal} in blindfold/action cannot be decided exactly (numbers compare as doubles); send it as a string"
                ));
                return Some(Blocked::refused(Refusal::new(d, task, None)));
            }
            let call_id = msg.get("messageId").and_then(Value::as_str).map(str::to_owned);
            let event = Event::ToolCall { actor: agent.id.clone(), tool, args, proposal: None, call_id };
            let step = p.app.decide_traced(task, &event, true).await;
            step.blocks().then(|| blocked_action(p, task, &step))
        }
    }
}

/// A number literal of `body` that no double holds exactly and that stands in the requested
/// action's `args` (found by its value there: the parse kept only the double). The action is
/// decided on doubles (JCS) while the agent reads the literal, so it could run another value.
pub(super) fn inexact_action_number<'a>(
    body: &'a [u8],
    args: &serde_json::Map<String, Value>,
) -> Option<&'a str> {
    let text = std::str::from_utf8(body).ok()?;
    let mut inexact = blindfold_schemas::exact_numbers::inexact_numbers(text).peekable();
    // The usual request holds no such literal: the args are not walked then.
    inexact.peek()?;
    let mut in_args = Vec::new();
    args.values().for_each(|v| numbers(v, &mut in_args));
    inexact.find(|literal| literal.parse::<f64>().is_ok_and(|v| in_args.contains(&v)))
}

/// Every number in `value`, as a double.
fn numbers(value: &Value, out: &mut Vec<f64>) {
    match value {
        Value::Number(n) => out.extend(n.as_f64()),
        Value::Array(items) => items.iter().for_each(|v| numbers(v, out)),
        Value::Object(map) => map.values().for_each(|v| numbers(v, out)),
        _ => {}
    }
}

/// The refusal of a blocked requested action: one waiting in review when the engine left it to
/// a human and the review queue holds it, else a plain refusal.
fn blocked_action(p: &A2aProxy, task: &str, step: &Step) -> Blocked {
    let d = step
        .decision
        .clone()
        .unwrap_or_else(|| Decision::deny(Reason::InternalError, "P0.internal", Layer::ContentFree));
    let review_id = (d.decision == Verdict::Review)
        .then(|| step.fingerprint.as_deref().and_then(|fp| p.app.reviews().find_pending(task, fp)))
        .flatten();
    match (review_id, step.action.as_ref()) {
        (Some(id), Some(action)) => {
            Blocked { refusal: Refusal::in_review(d, task, action, &id), review_id: Some(id) }
        }
        _ => Blocked::refused(Refusal::new(d, task, step.action.as_ref())),
    }
}

/// Scrubs one JSON-RPC answer of trajectory `task` for the coordinator: `bytes` as they came
/// when the trajectory's modes are `off` or nothing in them names an identity (so an answer is
/// not re-serialised for nothing), else `parsed` rewritten. `parsed` is the strict parse of
/// `bytes`; an answer that is not JSON is refused (fail closed: never relayed raw).
pub(super) fn scrub(
    p: &A2aProxy,
    task: &str,
    bytes: Bytes,
    parsed: Result<Value, String>,
) -> Result<Bytes, String> {
    scrub_unless(p.transparent_for(task), p, bytes, parsed)
}

/// [`scrub`] with the trajectory's `off` already looked up (`transparent`), for a caller that
/// needs it for other parts of the same answer too.
fn scrub_unless(
    transparent: bool,
    p: &A2aProxy,
    bytes: Bytes,
    parsed: Result<Value, String>,
) -> Result<Bytes, String> {
    if transparent {
        return Ok(bytes);
    }
    let v = parsed.map_err(|e| format!("agent answer is not JSON: {e}"))?;
    let anon = p.anon.read().map_err(|_| "identity state unavailable".to_owned())?;
    Ok(scrubbed(&anon, bytes, v))
}

/// `bytes` (whose strict parse is `parsed`) for the coordinator: the very bytes when `anon` finds
/// nothing to rewrite (its edit count is never below the edits made), else `parsed` rewritten.
pub(super) fn scrubbed(anon: &Anonymizer, bytes: Bytes, mut parsed: Value) -> Bytes {
    if anon.scrub_a2a(&mut parsed) == 0 {
        return bytes;
    }
    Bytes::from(parsed.to_string())
}

/// The response header naming the extensions the agent activated. The redacted card shows the
/// coordinator no extension, and an extension's URI can name the agent's vendor or model.
static A2A_EXTENSIONS: HeaderName = HeaderName::from_static("a2a-extensions");

/// SSE event names of A2A streams: `message` (the default) and `error` (a failed stream, as the
/// SDKs read it). Any other name is the agent's own.
const A2A_EVENT_NAMES: [&str; 2] = ["message", "error"];

/// The `id:`, `event:` and `retry:` fields of a stream event as the coordinator may see them:
/// the id rewritten as an identity surface (dropped when `anon` is unavailable: fail closed), an
/// event name other than A2A's dropped (the event then dispatches as `message`), and a retry
/// that is not a number of milliseconds dropped. The `data` is not touched.
pub(super) fn scrub_event_fields(anon: Option<&Anonymizer>, ev: &mut SseEvent) {
    ev.event = ev.event.take().filter(|name| A2A_EVENT_NAMES.contains(&name.as_str()));
    ev.retry = crate::transports::proxy::retry_millis(ev.retry.take());
    ev.id = match anon {
        Some(anon) => ev.id.take().map(|id| anon.rewrite_surface(&id).into_owned()),
        None => None,
    };
}

/// The strict parse of one answer (or stream event) from the agent.
pub(super) fn parse_answer(bytes: &[u8]) -> Result<Value, String> {
    blindfold_schemas::strict_json::value_from_slice(bytes).map_err(|e| e.to_string())
}

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
        let msg = format!("method `{method}` is not an A2A method of this version; not forwarded");
        return json_response(StatusCode::OK, &error(&id, code::METHOD_NOT_FOUND, &msg));
    }
    let params = frame.params();
    if a2a::names_task(&method)
        && let Some(own) = a2a::task_id_param(params).filter(|t| held::is_own_task_id(t))
    {
        let answer = held::answer(&p, &alias, version, &id, &method, own).await;
        return rpc_answer(&method, answer);
    }
    let task = trajectory(&p, params);
    if !p.transparent_for(&task) {
        crate::runtime::trace::traceparent::inject_header_if_absent(&mut headers, &task);
    }
    if refuses_push(&p, &task, &method, params) {
        return json_response(StatusCode::OK, &a2a::push_not_supported(version, &id));
    }
    if a2a::is_send(&method)
        && let Some(blocked) = decide_delegation(&p, &agent, &task, params, &body).await
    {
        let ctx = a2a::context_id(params).unwrap_or_else(|| format!("ctx-{:016x}", rand::random::<u64>()));
        let request = Delegation { alias: &alias, agent: &agent, task: &task, version, method: &method, ctx };
        let result = refused_delegation(&p, request, blocked, &headers, &body);
        return rpc_answer(&method, jsonrpc::result(&id, result));
    }
    drop(frame);
    if a2a::is_extended_card(&method) && !p.transparent_for(&task) {
        return extended_card(&p, &agent, &alias, &id, &task, headers, body).await;
    }
    forward(p, agent, id, task, &method, headers, body).await
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

/// True when an answer's `Content-Type` is an SSE stream.
pub(super) fn is_event_stream(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|c| c.starts_with("text/event-stream"))
}

/// Posts a JSON-RPC request to the agent's endpoint (the one its card advertises, learned from
/// the card on first use).
pub(super) async fn send_to_agent(
    p: &A2aProxy,
    agent: &A2aUpstream,
    headers: HeaderMap,
    body: Bytes,
) -> Result<axum::http::Response<hyper::body::Incoming>, String> {
    let cached = || p.rpc_urls.get(&agent.id).map(|u| u.clone());
    let rpc = match cached() {
        Some(u) => u,
        None => {
            fetch_card(p, agent).await?;
            cached().ok_or_else(|| {
                "the agent's card advertises no JSON-RPC interface with a valid URL on its origin".to_owned()
            })?
        }
    };
    p.upstream.send_to(Method::POST, rpc, headers, body).await.map_err(|e| e.to_string())
}

/// The `result` of one parsed answer (or stream event), if it is JSON-RPC with one; a bare task
/// (the answer of a `GetTask` poll) is wrapped as `{"task": …}` like a send's answer.
pub(super) fn result_of<'a>(v: &'a Value, method: &str) -> Option<Cow<'a, Value>> {
    let result = v.get("result")?;
    Some(if a2a::answers_with_task(method) {
        Cow::Owned(serde_json::json!({ "task": result.clone() }))
    } else {
        Cow::Borrowed(result)
    })
}

/// Reports what the agent wrote as its `response` event (nothing when it wrote nothing).
pub(super) fn report_answer(p: &A2aProxy, agent: &A2aUpstream, task: &str, answer: a2a::Answer) {
    if answer.is_empty() {
        return;
    }
    adopt_aliases(p, task);
    let event = Event::Response {
        from: agent.id.clone(),
        text: answer.text,
        metadata: None,
        proposals: answer.proposals,
        relations: answer.relations,
    };
    // Informational: a response is recorded, never blocked; it is applied once the answer is on
    // its way, and before any later step of the trajectory.
    p.app.observe_soon(task, event);
}

/// A streamed answer, gathered event by event and reported as one `response` when the agent's
/// turn ends (before that event is relayed) or the stream does: one answer is one judgement.
struct StreamedAnswer {
    p: Arc<A2aProxy>,
    agent: Arc<A2aUpstream>,
    task: String,
    pending: a2a::Answer,
}

impl StreamedAnswer {
    fn event(&mut self, event: &Value) {
        let Some(result) = result_of(event, "") else { return };
        self.pending.extend(a2a::answer(&result));
        if a2a::ends_turn(&result) {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let answer = std::mem::take(&mut self.pending);
        report_answer(&self.p, &self.agent, &self.task, answer);
    }
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
            let parsed = parse_answer(ev.data.as_bytes());
            if let (Ok(v), Ok(mut s)) = (&parsed, streamed.lock()) {
                s.event(v);
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
            let why = match end {
                StreamEnd::Closed if answered.load(std::sync::atomic::Ordering::SeqCst) => return Vec::new(),
                StreamEnd::Closed => "the agent closed the stream without an answer".to_owned(),
                StreamEnd::Failed(why) => why,
            };
            vec![SseEvent {
                data: error(&rid, code::INTERNAL_ERROR, &why).to_string(),
                ..SseEvent::default()
            }]
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
