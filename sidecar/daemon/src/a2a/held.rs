//! Delegations held for review (SPEC §2, §9): a send whose requested action the engine left to
//! a human is kept, its exact bytes, under a task id of Blindfold's own, answered
//! `TASK_STATE_AUTH_REQUIRED` (naming the review) until the operator answers the review. Polls
//! (`GetTask`, `tasks/get`) and cancels of that id are answered here, never forwarded: while the
//! review is pending the task stays `AUTH_REQUIRED`; once it is approved the held request is
//! decided again (the approving grant now lets exactly that action pass) and its exact bytes go
//! to the agent, whose answer is what the poll returns; a rejection or expiry is
//! `TASK_STATE_REJECTED`; a cancel while it waits answers `TASK_STATE_CANCELED` and withdraws
//! the review (an approval after it is refused, and the bytes are never sent). Only
//! non-streaming sends are held: a streaming send is refused (the review still queued), and its
//! retry passes once the review is approved.
//!
//! Memory is bounded: at most `[review] max_pending` held requests, each dropped once its
//! review has expired, or a while after its answer was settled.

use super::A2aProxy;
use super::rpc::{
    Blocked, decide_delegation, is_event_stream, parse_answer, report_answer, result_of, scrub, send_to_agent,
};
use crate::config::A2aUpstream;
use crate::proxy::read_body_bytes;
use crate::review::ReviewStatus;
use axum::body::Bytes;
use axum::http::HeaderMap;
use blindfold_adapters::a2a::{self, Version};
use blindfold_adapters::jsonrpc::{self, code};
use blindfold_adapters::refusal::Refusal;
use blindfold_schemas::{Decision, Reason};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

/// How long a settled held task (answered, rejected, canceled) still answers polls (ms).
const SETTLED_KEEP_MS: u64 = 10 * 60 * 1000;

/// The prefix of the task ids of held delegations.
const HELD_PREFIX: &str = "held-";
/// The prefix of the task ids of refused delegations (nothing is kept for them).
const REFUSED_PREFIX: &str = "blocked-";

/// True when `task_id` is one Blindfold made up (a held or refused delegation): such an id
/// means nothing to any agent, so requests naming it are answered by Blindfold.
pub(super) fn is_own_task_id(task_id: &str) -> bool {
    task_id.starts_with(HELD_PREFIX) || task_id.starts_with(REFUSED_PREFIX)
}

/// A fresh task id for a refused delegation.
pub(super) fn refused_task_id() -> String {
    format!("{REFUSED_PREFIX}{:016x}", rand::random::<u64>())
}

/// A send the engine left to a human, as it arrived.
pub(super) struct HeldRequest {
    /// The alias it was sent to (only polls through the same alias find it).
    pub alias: String,
    /// The agent it is for.
    pub agent: Arc<A2aUpstream>,
    /// Blindfold's trajectory of the conversation.
    pub trajectory: String,
    /// The review that holds its action.
    pub review_id: String,
    /// Its wire format.
    pub version: Version,
    /// Its method (a non-streaming send).
    pub method: String,
    /// The headers forwarded with it.
    pub headers: HeaderMap,
    /// Its exact bytes.
    pub body: Bytes,
    /// Its conversation.
    pub context_id: String,
    /// Why it waits (the grant request names the review).
    pub refusal: Refusal,
}

/// How a held delegation stands.
enum Standing {
    /// Its review is not answered yet.
    Waiting,
    /// Settled: the polled task, or the JSON-RPC error object every poll answers with.
    Settled(Result<Value, Value>),
}

/// One held delegation.
struct Held {
    task_id: String,
    request: HeldRequest,
    /// When the entry may go (ms since the epoch): a while after its review's expiry while
    /// waiting, a while after settling once settled.
    keep_until_ms: std::sync::atomic::AtomicU64,
    /// Taken for the whole of a poll, so the held bytes go to the agent at most once.
    standing: tokio::sync::Mutex<Standing>,
}

/// The held delegations by Blindfold's task id.
pub(super) struct HeldTasks {
    max: usize,
    by_id: Mutex<HashMap<String, Arc<Held>>>,
}

impl HeldTasks {
    /// At most `max` held delegations at a time.
    pub(super) fn new(max: usize) -> Self {
        Self { max, by_id: Mutex::new(HashMap::new()) }
    }

    /// Holds `request` while its review may be answered (until `review_expires_ms`, and a while
    /// after, so a poll after the expiry learns of it); returns the send's answer while it waits
    /// ([`waiting_result`] under the held task id), or `None` when `max` delegations are held
    /// already (the send is then refused, not held).
    pub(super) fn hold(&self, request: HeldRequest, review_expires_ms: u64, now_ms: u64) -> Option<Value> {
        let mut by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        by_id.retain(|_, h| h.keep_until_ms.load(std::sync::atomic::Ordering::Relaxed) > now_ms);
        if by_id.len() >= self.max {
            return None;
        }
        let task_id = format!("{HELD_PREFIX}{:016x}", rand::random::<u64>());
        let waiting = waiting_result(&request, &task_id);
        let held = Held {
            task_id: task_id.clone(),
            request,
            keep_until_ms: std::sync::atomic::AtomicU64::new(
                review_expires_ms.saturating_add(SETTLED_KEEP_MS),
            ),
            standing: tokio::sync::Mutex::new(Standing::Waiting),
        };
        by_id.insert(task_id, Arc::new(held));
        Some(waiting)
    }

    /// The held delegation `task_id` sent through `alias`, unless it is gone.
    fn get(&self, alias: &str, task_id: &str, now_ms: u64) -> Option<Arc<Held>> {
        let by_id = self.by_id.lock().unwrap_or_else(PoisonError::into_inner);
        let held = by_id.get(task_id)?;
        let live = held.keep_until_ms.load(std::sync::atomic::Ordering::Relaxed) > now_ms;
        (held.request.alias == alias && live).then(|| held.clone())
    }
}

/// The answer (while the review waits) to a held send: `TASK_STATE_AUTH_REQUIRED`, naming the
/// review, as the send's `result`.
pub(super) fn waiting_result(request: &HeldRequest, task_id: &str) -> Value {
    a2a::refusal_result(
        request.version,
        &request.refusal,
        task_id,
        &request.context_id,
        &format!("msg-{task_id}"),
    )
}

/// Answers request `id` (`method`, of `version`, through `alias`) naming Blindfold's own task
/// `task_id`: a poll or cancel of a held delegation as its review stands; anything else, or an
/// id held nowhere, `TaskNotFoundError` or `UnsupportedOperationError`. Never forwarded.
pub(super) async fn answer(
    p: &Arc<A2aProxy>,
    alias: &str,
    version: Version,
    id: &Value,
    method: &str,
    task_id: &str,
) -> Value {
    let now_ms = crate::unix_now_ms();
    let Some(held) = p.held.get(alias, task_id, now_ms) else {
        return a2a::task_not_found(
            version,
            id,
            &format!("task `{task_id}` was not held by Blindfold or is gone"),
        );
    };
    if !a2a::answers_with_task(method) {
        let msg = "a task held for review is polled with GetTask (tasks/get), not subscribed to";
        return jsonrpc::error(id, a2a::UNSUPPORTED_OPERATION, msg, None);
    }
    let mut standing = held.standing.lock().await;
    if a2a::is_cancel(method) {
        return cancel(p, &held, &mut standing, version, id, now_ms);
    }
    if matches!(*standing, Standing::Waiting) {
        match settle(p, &held).await {
            Ok(Some(settled)) => {
                *standing = Standing::Settled(settled);
                held.keep_until_ms
                    .store(now_ms.saturating_add(SETTLED_KEEP_MS), std::sync::atomic::Ordering::Relaxed);
            }
            Ok(None) => {}
            Err(e) => return jsonrpc::error(id, code::INTERNAL_ERROR, &e, None),
        }
    }
    match &*standing {
        Standing::Waiting => {
            let waiting = waiting_result(&held.request, &held.task_id);
            let task = polled(held.request.version, &waiting, &held);
            task.map_or_else(|e| error_answer(id, e), |task| jsonrpc::result(id, task))
        }
        Standing::Settled(Ok(task)) => jsonrpc::result(id, task.clone()),
        Standing::Settled(Err(e)) => error_answer(id, e.clone()),
    }
}

/// Cancels a waiting held delegation: its bytes never go to the agent, and its review is
/// withdrawn so no one approves an action nothing will run; a settled one is not cancelable.
fn cancel(
    p: &A2aProxy,
    held: &Held,
    standing: &mut Standing,
    version: Version,
    id: &Value,
    now_ms: u64,
) -> Value {
    match standing {
        Standing::Waiting => {
            withdraw_review(p, held);
            let task = a2a::canceled_task(held.request.version, &held.task_id, &held.request.context_id);
            *standing = Standing::Settled(Ok(task.clone()));
            held.keep_until_ms
                .store(now_ms.saturating_add(SETTLED_KEEP_MS), std::sync::atomic::Ordering::Relaxed);
            jsonrpc::result(id, task)
        }
        Standing::Settled(_) => {
            a2a::task_not_cancelable(version, id, "the held delegation was already answered")
        }
    }
}

/// Withdraws the review of a canceled held delegation. The task is canceled either way: an
/// approval that came first, or a review queue that cannot be written, leaves the review as it
/// is, but the held bytes are never sent.
fn withdraw_review(p: &A2aProxy, held: &Held) {
    let review_id = &held.request.review_id;
    let why = format!("A2A task {} holding it was canceled", held.task_id);
    if let Err(e) = p.app.reviews().withdraw(review_id, &why) {
        tracing::warn!(review = %review_id, error = %e, "review of a canceled held delegation not withdrawn");
    }
}

/// A JSON-RPC error answer for request `id` carrying `error` (an error object).
fn error_answer(id: &Value, error: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
}

/// An internal error object saying `msg`.
fn internal(msg: &str) -> Value {
    json!({"code": code::INTERNAL_ERROR, "message": msg})
}

/// A send's `result` as the held task a poll answers with.
fn polled(version: Version, result: &Value, held: &Held) -> Result<Value, Value> {
    a2a::as_polled_task(version, result, &held.task_id, &held.request.context_id)
        .ok_or_else(|| internal("the agent's answer is neither a task nor a message"))
}

/// Where the review of `held` leaves it: `None` while pending; settled once answered (the
/// agent's answer after an approval, `TASK_STATE_REJECTED` after a rejection or expiry). `Err`
/// when the review queue cannot be read (the task stays held; the poll gets an error).
async fn settle(p: &Arc<A2aProxy>, held: &Held) -> Result<Option<Result<Value, Value>>, String> {
    let review_id = &held.request.review_id;
    let item = p.app.reviews().get(review_id).map_err(|e| format!("the review queue is unavailable: {e}"))?;
    let refused = |detail: String| {
        let d = &held.request.refusal.decision;
        let decision = Decision::deny(Reason::ReviewRejected, d.check.clone(), d.layer).with_detail(detail);
        rejected(held, Refusal { decision, needed_grant: None })
    };
    Ok(match item.map(|i| (i.status, i.note)) {
        Some((ReviewStatus::Pending, _)) => None,
        Some((ReviewStatus::Approved, _)) => Some(release(p, held).await),
        Some((ReviewStatus::Rejected, note)) => Some(refused(format!(
            "a human rejected this delegation's action in review {review_id}{}",
            note.map(|n| format!(": {n}")).unwrap_or_default()
        ))),
        Some((ReviewStatus::Expired, _)) => {
            Some(refused(format!("review {review_id} expired unanswered; the delegation was not sent")))
        }
        Some((ReviewStatus::Withdrawn, _)) => {
            Some(refused(format!("review {review_id} was withdrawn; the delegation was not sent")))
        }
        None => Some(refused(format!("review {review_id} is gone; the delegation was not sent"))),
    })
}

/// `held` refused for good: `TASK_STATE_REJECTED` with `refusal`.
fn rejected(held: &Held, refusal: Refusal) -> Result<Value, Value> {
    let refusal = Refusal { needed_grant: None, ..refusal };
    let request = &held.request;
    let result = a2a::refusal_result(
        request.version,
        &refusal,
        &held.task_id,
        &request.context_id,
        &format!("msg-{}", held.task_id),
    );
    polled(request.version, &result, held)
}

/// An approved held delegation: decided again (exactly the held request, which the approving
/// grant now lets pass, once), then its exact bytes sent to the agent; the agent's answer,
/// reported and scrubbed, as the polled task. Refused again, it is rejected.
async fn release(p: &Arc<A2aProxy>, held: &Held) -> Result<Value, Value> {
    let request = &held.request;
    let max = p.app.config.transports.max_frame_bytes;
    let frame = jsonrpc::parse(&request.body, max, |_| false)
        .map_err(|e| internal(&format!("the held request no longer parses: {e}")))?;
    if let Some(Blocked { refusal, .. }) =
        decide_delegation(p, &request.agent, &request.trajectory, frame.params()).await
    {
        return rejected(held, refusal);
    }
    drop(frame);
    let answer = send_held(p, held).await?;
    if let Some(error) = answer.get("error") {
        return Err(error.clone());
    }
    let result = answer.get("result").ok_or_else(|| internal("the agent's answer has no result"))?;
    polled(request.version, result, held)
}

/// Sends the held bytes to the agent and reads its answer (one JSON answer: a held send is not
/// streaming), reported to the engine and scrubbed for the coordinator.
async fn send_held(p: &Arc<A2aProxy>, held: &Held) -> Result<Value, Value> {
    let request = &held.request;
    let mut resp = send_to_agent(p, &request.agent, request.headers.clone(), request.body.clone())
        .await
        .map_err(|e| internal(&e))?;
    if is_event_stream(resp.headers()) {
        return Err(internal("the agent answered a non-streaming send with a stream"));
    }
    let max = p.app.config.transports.max_frame_bytes;
    let bytes = read_body_bytes(resp.body_mut(), max, p.upstream.timeout)
        .await
        .map_err(|e| internal(&e.to_string()))?;
    let parsed = parse_answer(&bytes);
    if let Some(result) = parsed.as_ref().ok().and_then(|v| result_of(v, &request.method))
        && a2a::ends_turn(&result)
    {
        report_answer(p, &request.agent, &request.trajectory, a2a::answer(&result));
    }
    let scrubbed = scrub(p, &request.trajectory, bytes, parsed).map_err(|e| internal(&e))?;
    parse_answer(&scrubbed).map_err(|e| internal(&e))
}
