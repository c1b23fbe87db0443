//! Deciding a delegation: the `delegate` event (and any action the request asks the agent to
//! run) through the decision path; a blocked one becomes a refusal, or waits in review.

use super::A2A_CHANNEL;
use super::A2aProxy;
use crate::config::A2aUpstream;
use blindfold_adapters::a2a;
use blindfold_adapters::refusal::Refusal;
use blindfold_engine::Step;
use blindfold_engine::verify::VerificationRequest;
use blindfold_schemas::{CheckId, Decision, Event, Reason, Verdict};
use serde_json::Value;

/// The coordinator knows the agents by the aliases of discovery: trajectory `task` keeps them.
/// Called right before each decision, so the aliases live exactly as long as the trajectory
/// (a request that decides nothing leaves nothing behind for eviction to miss).
pub(super) fn adopt_aliases(p: &A2aProxy, task: &str) {
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
    /// The id a person acts on (the review, else the refusal's id for `blindfold why`).
    pub person_id: Option<String>,
}

impl Blocked {
    pub(super) fn refused(refusal: Refusal) -> Self {
        Self { refusal, review_id: None, person_id: None }
    }
}

/// Decides a delegation (and any action it asks the agent to run); `Err` when blocked, else the
/// verification request to add to what the agent reads, when the delegation asks to verify
/// pending actions. `body` is the request as it arrived (what the agent will read).
pub(super) async fn decide_delegation(
    p: &A2aProxy,
    agent: &A2aUpstream,
    task: &str,
    params: &Value,
    body: &[u8],
) -> Result<Option<VerificationRequest>, Blocked> {
    let Some(msg) = a2a::message(params) else { return Ok(None) };
    adopt_aliases(p, task);
    let text = a2a::message_text(msg);
    // Asking to review, verify or check is a verify request (its answer can verify a proposal).
    let intent = crate::runtime::intent::intent_of(&text);
    let call_id = Some(A2A_CHANNEL.to_owned());
    let delegate = Event::Delegate { to: agent.id.clone(), intent, text, proposal: None, call_id };
    let step = p.app.decide_traced(task, &delegate, true).await;
    if step.blocks() {
        let d = step.decision.unwrap_or_else(|| Decision::deny(Reason::InternalError, CheckId::Internal));
        return Err(Blocked::refused(Refusal::new(d, task, None)));
    }
    let verification = step.verification;
    match a2a::requested_action(msg) {
        Ok(None) => Ok(verification),
        Err(e) => {
            let d = Decision::deny(Reason::MalformedInput, CheckId::Schema).with_detail(e);
            Err(Blocked::refused(Refusal::new(d, task, None)))
        }
        Ok(Some((tool, args))) => {
            if let Some(literal) = inexact_action_number(body, &args) {
                let d = Decision::deny(Reason::MalformedInput, CheckId::Schema).with_detail(format!(
                    "the number {literal} in blindfold/action cannot be decided exactly (numbers compare as doubles); send it as a string"
                ));
                return Err(Blocked::refused(Refusal::new(d, task, None)));
            }
            let call_id = msg.get("messageId").and_then(Value::as_str).map(str::to_owned);
            let event = Event::ToolCall { actor: agent.id.clone(), tool, args, proposal: None, call_id };
            let step = p.app.decide_traced(task, &event, true).await;
            if step.blocks() { Err(blocked_action(p, task, &step)) } else { Ok(verification) }
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
pub(super) fn numbers(value: &Value, out: &mut Vec<f64>) {
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
    let d = step.decision.clone().unwrap_or_else(|| Decision::deny(Reason::InternalError, CheckId::Internal));
    let review_id = (d.decision == Verdict::Review)
        .then(|| step.fingerprint.as_deref().and_then(|fp| p.app.reviews().find_pending(task, fp)))
        .flatten();
    let person_id = step.fingerprint.as_deref().and_then(|fp| p.app.refusal_id(task, fp));
    match (review_id, step.action.as_ref()) {
        (Some(id), Some(action)) => Blocked {
            refusal: Refusal::in_review(d, task, action, &id),
            review_id: Some(id.clone()),
            person_id: Some(id),
        },
        _ => Blocked { person_id, ..Blocked::refused(Refusal::new(d, task, step.action.as_ref())) },
    }
}
