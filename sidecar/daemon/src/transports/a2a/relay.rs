//! The one gated path of an A2A request, whichever binding it was decoded from ([`super::rpc`]
//! for JSON-RPC, [`super::rest`] for HTTP+JSON): requests naming Blindfold's own task ids are
//! answered from the held delegations; push notifications are refused; a send's delegation is
//! decided by the engine (refused natively, held for review, or relayed with Blindfold's
//! verification instruction); an extended card is redacted and signed; anything else is
//! forwarded, and the agent's answer (JSON or SSE, event by event) reported to the engine as its
//! `response` and scrubbed of identity before the coordinator sees it (a stream's event ids and
//! names too; the agent's `A2A-Extensions` header is not relayed).

use super::A2aProxy;
use super::answers::{
    StreamedAnswer, is_event_stream, parse_answer, report_answer, scrub, scrub_event_fields, scrub_unless,
    send_to_agent,
};
use super::binding::{Binding, json_bytes_response};
use super::card::{learn_card, redact};
use super::delegation::{Blocked, decide_delegation};
use super::held::{self, HeldRequest};
use crate::config::A2aUpstream;
use crate::transports::proxy::{StreamEnd, copy_response_headers, read_body_bytes, relay_sse};
use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, StatusCode};
use axum::response::Response;
use blindfold_adapters::a2a::{self, Version};
use blindfold_adapters::jsonrpc::{self, code};
use blindfold_adapters::sse::SseEvent;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// One decoded A2A request.
pub(super) struct Call {
    /// The binding it came in (and goes to the agent in).
    pub binding: Binding,
    /// Its JSON-RPC id (`null` for REST).
    pub id: Value,
    /// The JSON-RPC method it stands for.
    pub method: String,
    /// Its wire format.
    pub version: Version,
    /// Its parameters, as the JSON-RPC request would carry them.
    pub params: Value,
    /// The bytes the agent would read.
    pub body: Bytes,
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

/// Gates and relays `call` to `agent` (known to the coordinator as `alias`).
pub(super) async fn relay(
    p: Arc<A2aProxy>,
    alias: &str,
    agent: Arc<A2aUpstream>,
    call: Call,
    mut headers: HeaderMap,
) -> Response {
    let Call { binding, id, method, version, params, body } = call;
    if a2a::names_task(&method)
        && let Some(own) = a2a::task_id_param(&params).filter(|t| held::is_own_task_id(t))
    {
        let answer = super::held_answer::answer(&p, alias, version, &id, &method, own).await;
        return binding.answer(&method, answer);
    }
    let task = trajectory(&p, &params);
    if !p.transparent_for(&task) {
        crate::runtime::trace::traceparent::inject_header_if_absent(&mut headers, &task);
    }
    if refuses_push(&p, &task, &method, &params) {
        return binding.answer(&method, a2a::push_not_supported(version, &id));
    }
    let mut relayed = None;
    if a2a::is_send(&method) {
        match decide_delegation(&p, &agent, &task, &params, &body).await {
            Err(blocked) => {
                let ctx =
                    a2a::context_id(&params).unwrap_or_else(|| format!("ctx-{:016x}", rand::random::<u64>()));
                let request = Delegation {
                    alias,
                    agent: &agent,
                    binding: &binding,
                    task: &task,
                    version,
                    method: &method,
                    ctx,
                };
                let result = refused_delegation(&p, request, blocked, &headers, &body);
                return binding.answer(&method, jsonrpc::result(&id, result));
            }
            // The verifier reads Blindfold's instruction with the request (not in `off`).
            Ok(Some(request)) if !p.transparent_for(&task) => {
                let actions = serde_json::to_value(&request.handles).unwrap_or_default();
                relayed = binding.with_verification(&body, &request.instruction, &actions).map(Bytes::from);
            }
            Ok(_) => {}
        }
    }
    drop(params);
    let body = relayed.unwrap_or(body);
    let exchange = Exchange { p, agent, binding, id, task };
    if a2a::is_extended_card(&method) && !exchange.p.transparent_for(&exchange.task) {
        return extended_card(&exchange, alias, headers, body).await;
    }
    forward(exchange, &method, headers, body).await
}

/// The send being refused, as it arrived.
struct Delegation<'a> {
    alias: &'a str,
    agent: &'a Arc<A2aUpstream>,
    binding: &'a Binding,
    task: &'a str,
    version: Version,
    method: &'a str,
    ctx: String,
}

/// The `result` answering a blocked send: a task held under Blindfold's id (its exact bytes kept
/// until the review is answered, see [`held`]) when its action waits in review and the send is
/// not streaming and there is room and it can be kept on disk; else a refused
/// task (`AUTH_REQUIRED` when a grant could unblock a retry, else `REJECTED`) that nothing is kept for.
fn refused_delegation(
    p: &A2aProxy,
    d: Delegation<'_>,
    blocked: Blocked,
    headers: &HeaderMap,
    body: &Bytes,
) -> Value {
    let Blocked { refusal, review_id, person_id } = blocked;
    let review = review_id
        .filter(|_| !a2a::is_streaming(d.method))
        .and_then(|id| Some((p.app.reviews().get(&id).ok().flatten()?.expires_ms, id)));
    let Some((expires_ms, review_id)) = review else {
        let tid = held::refused_task_id();
        return a2a::refusal_result(
            d.version,
            &refusal,
            person_id.as_deref(),
            &tid,
            &d.ctx,
            &format!("msg-{tid}"),
        );
    };
    let request = HeldRequest {
        alias: d.alias.to_owned(),
        agent: d.agent.clone(),
        trajectory: d.task.to_owned(),
        review_id,
        version: d.version,
        method: d.method.to_owned(),
        binding: d.binding.clone(),
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

/// One request on its way to the agent.
struct Exchange {
    p: Arc<A2aProxy>,
    agent: Arc<A2aUpstream>,
    binding: Binding,
    id: Value,
    /// Blindfold's trajectory.
    task: String,
}

impl Exchange {
    fn bad_gateway(&self, msg: &str) -> Response {
        self.binding.error(StatusCode::BAD_GATEWAY, &self.id, code::INTERNAL_ERROR, msg)
    }
}

/// Answers an extended-card request with the agent's extended card as the coordinator may see
/// it: its displayed identity learned, then redacted and signed exactly as the public card is
/// (interfaces at `alias`'s URL). Fails closed, relaying nothing of the answer, on a stream, an
/// unreadable answer or a card that cannot be redacted; an error from the agent is scrubbed
/// like any answer.
async fn extended_card(x: &Exchange, alias: &str, headers: HeaderMap, body: Bytes) -> Response {
    let p = &x.p;
    super::card::read_all_cards(p).await;
    let (status, bytes) = match read_card_answer(x, headers, body).await {
        Ok(answer) => answer,
        Err(e) => return x.bad_gateway(&e),
    };
    let answer = match parse_answer(&bytes) {
        Ok(v) => v,
        Err(e) => return x.bad_gateway(&format!("the agent's extended card is not JSON: {e}")),
    };
    let method = "GetExtendedAgentCard";
    let Some(card) = x.binding.result_of(&answer, status.is_success(), method) else {
        return match scrub(p, &x.task, bytes, Ok(answer)) {
            Ok(scrubbed) => json_bytes_response(status, scrubbed),
            Err(e) => x.bad_gateway(&e),
        };
    };
    learn_card(p, &x.agent, &card);
    match redact(p, &x.agent, &card, &p.alias_url(alias), p.app.modes_for(&x.task)) {
        Ok(shown) => x.binding.answer(method, jsonrpc::result(&x.id, shown)),
        Err(e) => x.bad_gateway(&format!("the agent's extended card could not be redacted: {e}")),
    }
}

/// The agent's answer to an extended-card request, read whole: its HTTP status and body. A
/// stream is refused (a card is one JSON answer).
async fn read_card_answer(
    x: &Exchange,
    headers: HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Bytes), String> {
    let p = &x.p;
    let mut resp = send_to_agent(p, &x.agent, &x.binding, headers, body).await?;
    if is_event_stream(resp.headers()) {
        return Err("the agent answered the extended-card request with a stream".into());
    }
    let max = p.app.config.transports.max_frame_bytes;
    let bytes = read_body_bytes(resp.body_mut(), max, p.upstream.timeout).await.map_err(|e| e.to_string())?;
    Ok((resp.status(), bytes))
}

/// Forwards the request and relays the agent's answer, reported and scrubbed.
async fn forward(x: Exchange, method: &str, headers: HeaderMap, body: Bytes) -> Response {
    let mut resp = match send_to_agent(&x.p, &x.agent, &x.binding, headers, body).await {
        Ok(r) => r,
        Err(e) => return x.bad_gateway(&e),
    };
    let status = resp.status();
    let mut out_headers = copy_response_headers(resp.headers());
    let transparent = x.p.transparent_for(&x.task);
    if !transparent {
        out_headers.remove(&A2A_EXTENSIONS);
    }
    let body = if is_event_stream(&out_headers) {
        stream_body(x, resp)
    } else {
        let (p, max) = (&x.p, x.p.app.config.transports.max_frame_bytes);
        let bytes = match read_body_bytes(resp.body_mut(), max, p.upstream.timeout).await {
            Ok(b) => b,
            Err(e) => return x.bad_gateway(&e.to_string()),
        };
        let parsed = parse_answer(&bytes);
        // Only an answer that ends the agent's turn is its judgement: an interim task (a client
        // that did not wait, `returnImmediately`) is reported when a later `GetTask` finds it final.
        if let Some(result) =
            parsed.as_ref().ok().and_then(|v| x.binding.result_of(v, status.is_success(), method))
            && a2a::ends_turn(&result)
        {
            report_answer(p, &x.agent, &x.task, a2a::answer(&result));
        }
        match scrub_unless(transparent, p, bytes, parsed) {
            Ok(b) => Body::from(b),
            Err(e) => return x.bad_gateway(&e),
        }
    };
    let mut r = Response::new(body);
    *r.status_mut() = status;
    *r.headers_mut() = out_headers;
    r
}

/// The relayed body of the agent's SSE answer: each event reported (one answer per turn) and
/// scrubbed (artifact text as one stream per artifact); an event Blindfold cannot read becomes an
/// error event, and a stream that breaks off or closes without an answer ends with one.
fn stream_body(x: Exchange, resp: axum::http::Response<hyper::body::Incoming>) -> Body {
    let Exchange { p, agent, binding, id, task } = x;
    let (max, timeout) = (p.app.config.transports.max_frame_bytes, p.upstream.timeout);
    let filter_p = p.clone();
    let scrub_task = task.clone();
    let streamed = Arc::new(std::sync::Mutex::new(StreamedAnswer {
        p: p.clone(),
        agent,
        binding: binding.clone(),
        task,
        pending: a2a::Answer::default(),
    }));
    let at_end = streamed.clone();
    let texts = Arc::new(std::sync::Mutex::new(super::stream_text::ArtifactStreams::default()));
    let (held_texts, end_p, end_task) = (texts.clone(), p.clone(), scrub_task.clone());
    let answered = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let seen = answered.clone();
    let event_binding = binding.clone();
    let filter = move |mut ev: SseEvent| -> Vec<SseEvent> {
        let transparent = filter_p.transparent_for(&scrub_task);
        if !transparent {
            let anon = filter_p.anon.read().ok();
            scrub_event_fields(anon.as_deref(), &mut ev);
        }
        if ev.data_str().is_empty() {
            return vec![ev];
        }
        seen.store(true, std::sync::atomic::Ordering::SeqCst);
        let mut parsed = parse_answer(ev.data_str().as_bytes());
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
            return vec![SseEvent { data: Some(v.to_string()), ..ev }];
        }
        let raw = Bytes::from(ev.data.take().unwrap_or_default());
        match scrub_unless(transparent, &filter_p, raw, parsed) {
            Ok(b) => {
                let data = String::from_utf8(Vec::from(b))
                    .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
                vec![SseEvent { data: Some(data), ..ev }]
            }
            // Fail closed: an event Blindfold cannot read is not relayed raw.
            Err(e) => vec![event_binding.stream_error(&Value::Null, code::INTERNAL_ERROR, &e)],
        }
    };
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
                rest.push(SseEvent::new(None, v.to_string()));
            }
        }
        let why = match end {
            StreamEnd::Closed if answered.load(std::sync::atomic::Ordering::SeqCst) => return rest,
            StreamEnd::Closed => "the agent closed the stream without an answer".to_owned(),
            StreamEnd::Failed(why) => why,
        };
        rest.push(binding.stream_error(&id, code::INTERNAL_ERROR, &why));
        rest
    };
    relay_sse(resp.into_body(), max, timeout, filter, finish)
}
