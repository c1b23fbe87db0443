//! Control API methods for harness adapters (adapter token): `check_action` decides a tool call
//! through the same gate as the relays and `report_event` feeds any canonical event (never as
//! the answer to a delegation: it carries no verdict). Only the
//! operator may `set_modes` or `end_trajectory` (which evicts one).

use super::rpc::RpcError;
use crate::runtime::app::App;
use blindfold_adapters::refusal::Refusal;
use blindfold_engine::Input;
use blindfold_schemas::{Event, Facts, ModeSet};
use serde::Deserialize;
use serde_json::{Map, Value, json};

fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    serde_json::from_value(params).map_err(|e| RpcError::invalid_params(e.to_string()))
}

fn non_empty(field: &str, v: &str) -> Result<(), RpcError> {
    if v.is_empty() {
        return Err(RpcError::invalid_params(format!("{field} must not be empty")));
    }
    Ok(())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckAction {
    trajectory: String,
    #[serde(default = "coordinator")]
    actor: String,
    tool: String,
    #[serde(default)]
    args: Map<String, Value>,
    #[serde(default)]
    call_id: Option<String>,
    /// True at the moment of execution (a grant's use is taken); false for a dry run.
    #[serde(default)]
    consume: bool,
    /// What the caller's transport saw of the call (a relay deciding through this daemon).
    #[serde(default)]
    facts: Facts,
}

fn coordinator() -> String {
    "coordinator".to_owned()
}

/// `check_action {trajectory, tool, args, actor?, call_id?, consume?, facts?}` →
/// `{allowed, decision, enforced, refusal?}`; a blocked action carries the refusal text and the
/// grant that would unblock it.
pub fn check_action(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: CheckAction = params(p)?;
    non_empty("trajectory", &p.trajectory)?;
    let event = Event::ToolCall {
        actor: p.actor,
        tool: p.tool.clone(),
        args: p.args,
        proposal: None,
        call_id: p.call_id,
    };
    let step = app.decide_input(&p.trajectory, Input::with_facts(&event, &p.facts), p.consume);
    let mut out = json!({"allowed": !step.blocks(), "decision": step.decision, "enforced": step.enforced});
    let held = step.decision.as_ref().is_some_and(|d| d.decision == blindfold_schemas::Verdict::Review);
    if let Some(fp) = step.fingerprint.as_deref().filter(|_| step.blocks() && held)
        && let Some(id) = app.reviews().find_pending(&p.trajectory, fp)
    {
        out["review_id"] = json!(id);
    }
    if let Some(d) = step.decision.clone().filter(|_| step.blocks()) {
        let refusal = Refusal::new(d, &p.trajectory, step.action.as_ref());
        let text = app.model_refusal(&p.trajectory, &step, &format!("the `{}` call", p.tool));
        out["refusal"] = json!({"text": text, "detail": refusal.to_json()});
    }
    Ok(out)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReportEvent {
    trajectory: String,
    event: Event,
}

/// `report_event {trajectory, event}`: any canonical event (responses, tool results, memory
/// operations); returns the engine's decision when the event needs one (never consuming).
pub fn report_event(app: &App, p: Value) -> Result<Value, RpcError> {
    let mut p: ReportEvent = params(p)?;
    non_empty("trajectory", &p.trajectory)?;
    // A reported event answers no delegation: verdict handles are issued and counted only on
    // the channel a relayed delegation's answer takes (SPEC §5), never through this method.
    match &mut p.event {
        Event::Delegate { call_id, .. } | Event::Response { call_id, .. } => *call_id = None,
        _ => {}
    }
    let step = app.decide(&p.trajectory, &p.event, false);
    Ok(json!({"allowed": !step.blocks(), "decision": step.decision, "enforced": step.enforced}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EndTrajectory {
    trajectory: String,
}

/// `end_trajectory {trajectory}`: evicts its live state.
pub fn end_trajectory(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: EndTrajectory = params(p)?;
    app.end_trajectory(&p.trajectory);
    Ok(json!({"ended": p.trajectory}))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SetModes {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    modes: Option<ModeSet>,
    /// Only this trajectory (its override beats the global modes until it ends).
    #[serde(default)]
    trajectory: Option<String>,
    /// With `trajectory`: drop its override (it follows the global modes again).
    #[serde(default)]
    clear: bool,
}

/// `set_modes {name}` (`off`, `all`, `anonymize`, `attest`, `preverify`) or `{modes: {…}}`:
/// applies to every connection from its next message (operator only), except that a live
/// trajectory keeps the `anonymize` and `attest` it started with. With `trajectory`, only that
/// trajectory, all modes (`clear: true` drops the override). Traced as a control record.
pub fn set_modes(app: &App, p: Value) -> Result<Value, RpcError> {
    let p: SetModes = params(p)?;
    if p.clear {
        let Some(t) = p.trajectory else {
            return Err(RpcError::invalid_params("clear needs a trajectory"));
        };
        super::audit::record(app, "set_modes", &format!("trajectory:{t}"), "override cleared".into())?;
        app.trajectory_modes.remove(&t);
        let modes = app.modes_for(&t);
        return Ok(json!({"trajectory": t, "modes": modes}));
    }
    let modes = match (p.name, p.modes) {
        (Some(name), None) => ModeSet::named(&name)
            .ok_or_else(|| RpcError::invalid_params(format!("unknown mode set {name:?}")))?,
        (None, Some(m)) => m,
        _ => return Err(RpcError::invalid_params("give exactly one of name, modes")),
    };
    match p.trajectory {
        Some(t) => {
            non_empty("trajectory", &t)?;
            let was = app.modes_for(&t);
            super::audit::record(
                app,
                "set_modes",
                &format!("trajectory:{t}"),
                format!("{was:?} -> {modes:?}"),
            )?;
            app.trajectory_modes.insert(t.clone(), modes);
            tracing::info!(trajectory = %t, ?modes, "trajectory modes changed through the control API");
            Ok(json!({"trajectory": t, "modes": modes}))
        }
        None => {
            let was = app.modes();
            super::audit::record(app, "set_modes", "modes", format!("{was:?} -> {modes:?}"))?;
            app.modes.send_replace(modes);
            tracing::info!(?modes, "modes changed through the control API");
            Ok(json!({"modes": modes}))
        }
    }
}
