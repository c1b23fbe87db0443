//! The OpenClaw plugin's delegation channel (`openclaw.delegate`, `openclaw.answer`): a spawn is
//! recorded with its tool call id as the delegation's channel, so that a spawn asking to verify a
//! pending action gets Blindfold's verdict instruction for the child's task, and the child's
//! answer, reported on that channel, can carry a verdict for its handle. `report_event` never
//! does (its events answer no delegation).

use super::rpc::RpcError;
use crate::runtime::app::App;
use blindfold_schemas::event::ProposedAction;
use blindfold_schemas::{Event, Intent};
use serde::Deserialize;
use serde_json::{Value, json};

/// What every OpenClaw spawn's channel id starts with.
const PREFIX: &str = "openclaw:";

/// The channel id of the spawn with OpenClaw tool call id `call_id`.
fn channel(call_id: &str) -> Result<String, RpcError> {
    let ok = !call_id.is_empty()
        && call_id.len() <= 200
        && call_id.chars().all(|c| c.is_ascii_alphanumeric() || "-_.:".contains(c));
    if !ok {
        return Err(RpcError::invalid_params("call_id: 1-200 of A-Z a-z 0-9 - _ . :"));
    }
    Ok(format!("{PREFIX}{call_id}"))
}

fn task_id(trajectory: &str) -> Result<(), RpcError> {
    if crate::config::valid_task_id(trajectory) {
        Ok(())
    } else {
        Err(RpcError::invalid_params("trajectory is not a task id (1-128 of A-Z a-z 0-9 . _ : -)"))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DelegateParams {
    trajectory: String,
    to: String,
    intent: Intent,
    #[serde(default)]
    text: String,
    call_id: String,
}

/// `openclaw.delegate {trajectory, to, intent, text, call_id}` → `{instruction}`: records the
/// spawn as a delegation on its channel; `instruction` is the text to add to the child's task
/// when the spawn asks to verify pending actions (else `null`).
pub fn delegate(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: DelegateParams = serde_json::from_value(p).map_err(|e| RpcError::invalid_params(e.to_string()))?;
    task_id(&p.trajectory)?;
    let event = Event::Delegate {
        to: p.to,
        intent: p.intent,
        text: p.text,
        proposal: None,
        call_id: Some(channel(&p.call_id)?),
    };
    let step = app.decide(&p.trajectory, &event, false);
    Ok(json!({"instruction": step.verification.map(|v| v.instruction)}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerParams {
    trajectory: String,
    from: String,
    #[serde(default)]
    text: String,
    #[serde(default)]
    proposals: Vec<ProposedAction>,
    #[serde(default)]
    call_id: Option<String>,
}

/// `openclaw.answer {trajectory, from, text, proposals, call_id?}` → `{}`: the child's final
/// answer to the spawn with tool call id `call_id`, recorded as its response on that channel.
/// Without `call_id` (the plugin's copy that saw the answer did not see the spawn), the
/// channel is the OpenClaw spawn this agent was last asked to verify in on, if any.
pub fn answer(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: AnswerParams = serde_json::from_value(p).map_err(|e| RpcError::invalid_params(e.to_string()))?;
    task_id(&p.trajectory)?;
    let call_id = match p.call_id.as_deref().filter(|c| !c.is_empty()) {
        Some(c) => Some(channel(c)?),
        None => app
            .with_live_trajectory(&p.trajectory, |t| t.request_channel(&p.from))
            .and_then(Result::ok)
            .flatten()
            .filter(|c| c.starts_with(PREFIX)),
    };
    let event = Event::Response {
        from: p.from,
        text: p.text,
        metadata: None,
        proposals: p.proposals,
        relations: Vec::new(),
        call_id,
    };
    app.decide(&p.trajectory, &event, false);
    Ok(json!({}))
}

#[cfg(test)]
mod tests {
    #[test]
    fn channels_are_the_call_id_under_a_prefix_and_nothing_else() {
        assert_eq!(super::channel("call_7").expect("ok"), "openclaw:call_7");
        assert!(super::channel("").is_err());
        assert!(super::channel("a b").is_err());
        assert!(super::channel(&"x".repeat(201)).is_err());
    }
}
