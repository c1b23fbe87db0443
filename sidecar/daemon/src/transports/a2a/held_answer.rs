//! Answers about held delegations: a poll (`GetTask`) or cancel of a held task, and its release
//! once its review is answered (decided again, then sent to the agent) or its rejection.

use super::A2aProxy;
use super::answers::{is_event_stream, parse_answer, report_answer, scrub, send_to_agent};
use super::binding::Binding;
use super::delegation::{Blocked, decide_delegation};
use super::held::{Held, SETTLED_KEEP_MS, Standing, internal, waiting_result};
use super::held_store::Stage;
use crate::runtime::review::ReviewStatus;
use crate::transports::proxy::read_body_bytes;
use blindfold_adapters::a2a::{self, Version};
use blindfold_adapters::jsonrpc::{self, code};
use blindfold_adapters::refusal::Refusal;
use blindfold_schemas::{CheckId, Decision, Reason};
use serde_json::{Value, json};
use std::sync::Arc;

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
        if p.held.is_lost(task_id) {
            return lost_answer(version, id, method, task_id);
        }
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
                held.keep_until_ms
                    .store(now_ms.saturating_add(SETTLED_KEEP_MS), std::sync::atomic::Ordering::Relaxed);
                p.held.keep_settled(&held, &settled, now_ms);
                *standing = Standing::Settled(settled);
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
            held.keep_until_ms
                .store(now_ms.saturating_add(SETTLED_KEEP_MS), std::sync::atomic::Ordering::Relaxed);
            let settled = Ok(task.clone());
            p.held.keep_settled(held, &settled, now_ms);
            *standing = Standing::Settled(settled);
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

/// The answer to request `id` (`method`, of `version`) naming task `task_id`, held before the
/// daemon started and not brought back: a poll finds it `TASK_STATE_REJECTED` (its conversation
/// unknown), a cancel finds it not cancelable. It was never sent, and never will be.
fn lost_answer(version: Version, id: &Value, method: &str, task_id: &str) -> Value {
    let why = "the held delegation could not be read back after a restart; it was not sent";
    if a2a::is_cancel(method) {
        return a2a::task_not_cancelable(version, id, why);
    }
    let decision = Decision::deny(Reason::InternalError, CheckId::Internal).with_detail(why);
    let refusal = Refusal { decision, needed_grant: None };
    let result = a2a::refusal_result(version, &refusal, None, task_id, "", &format!("msg-{task_id}"));
    match a2a::as_polled_task(version, &result, task_id, "") {
        Some(task) => jsonrpc::result(id, task),
        None => jsonrpc::error(id, code::INTERNAL_ERROR, why, None),
    }
}

/// A JSON-RPC error answer for request `id` carrying `error` (an error object).
fn error_answer(id: &Value, error: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": error})
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
        let decision = Decision::deny(Reason::ReviewRejected, d.check).with_detail(detail);
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
        Some(&request.review_id),
        &held.task_id,
        &request.context_id,
        &format!("msg-{}", held.task_id),
    );
    polled(request.version, &result, held)
}

/// An approved held delegation: decided again (exactly the held request, which the approving
/// grant now lets pass, once), then its exact bytes sent to the agent in the binding it came in;
/// the agent's answer, reported and scrubbed, as the polled task. Refused again, it is rejected.
async fn release(p: &Arc<A2aProxy>, held: &Held) -> Result<Value, Value> {
    let request = &held.request;
    let max = p.app.config.transports.max_frame_bytes;
    let params = held_params(&request.binding, &request.body, max)
        .map_err(|e| internal(&format!("the held request no longer parses: {e}")))?;
    if let Err(Blocked { refusal, .. }) =
        decide_delegation(p, &request.agent, &request.trajectory, &params, &request.body).await
    {
        return rejected(held, refusal);
    }
    drop(params);
    // Recorded before the bytes go: after a restart it is never sent a second time.
    p.held
        .keep(held, Stage::Sending, crate::unix_now_ms())
        .map_err(|e| internal(&format!("the held delegation was not sent: {e}")))?;
    let result = send_held(p, held).await?;
    polled(request.version, &result, held)
}

/// The params of a held send: a JSON-RPC request's `params`, a REST send's whole body.
fn held_params(binding: &Binding, body: &[u8], max: usize) -> Result<Value, String> {
    match binding {
        Binding::JsonRpc => {
            let mut frame = jsonrpc::parse(body, max, |_| false).map_err(|e| e.to_string())?;
            Ok(frame.value.get_mut("params").map(Value::take).unwrap_or(Value::Null))
        }
        Binding::Rest(_) => blindfold_schemas::strict_json::value_from_slice(body).map_err(|e| e.to_string()),
    }
}

/// Sends the held bytes to the agent and reads its answer (one JSON answer: a held send is not
/// streaming), reported to the engine and scrubbed for the coordinator: its result, or its error
/// (a JSON-RPC error object, whichever binding it came in).
async fn send_held(p: &Arc<A2aProxy>, held: &Held) -> Result<Value, Value> {
    let request = &held.request;
    let binding = &request.binding;
    let mut resp = send_to_agent(p, &request.agent, binding, request.headers.clone(), request.body.clone())
        .await
        .map_err(|e| internal(&e))?;
    if is_event_stream(resp.headers()) {
        return Err(internal("the agent answered a non-streaming send with a stream"));
    }
    let status = resp.status();
    let max = p.app.config.transports.max_frame_bytes;
    let bytes = read_body_bytes(resp.body_mut(), max, p.upstream.timeout)
        .await
        .map_err(|e| internal(&e.to_string()))?;
    let parsed = parse_answer(&bytes);
    if let Some(result) =
        parsed.as_ref().ok().and_then(|v| binding.result_of(v, status.is_success(), &request.method))
        && a2a::ends_turn(&result)
    {
        report_answer(p, &request.agent, &request.trajectory, a2a::answer(&result));
    }
    let scrubbed = scrub(p, &request.trajectory, bytes, parsed).map_err(|e| internal(&e))?;
    binding.outcome(status, parse_answer(&scrubbed).map_err(|e| internal(&e))?)
}
